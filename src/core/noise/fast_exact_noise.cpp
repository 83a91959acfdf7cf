#include "core/noise/fast_exact_noise.hpp"

#include <cmath>
#include <vector>

#include "core/common/errors.hpp"
#include "core/common/validate.hpp"

namespace gazepriv::core {

namespace {

constexpr int kHeadBits = 16;
constexpr std::uint64_t kHeadMask = (std::uint64_t{1} << kHeadBits) - 1;
constexpr std::uint64_t kMaxFastT = std::uint64_t{1} << 56; // keeps 2^64 r + t w + t below 2^127
constexpr u128 kMaxOutput = u128{1} << 62;                  // the reference samplers' tail rejection
// As noise.cpp: the grid of an exponential is 2^-40 of its mean, the scale rounded up by 2^-48.
constexpr int kExponentialGridBits = 40;
constexpr double kRoundUp = 1.0 + 0x1.0p-48;

// A uniform deviate in [0, 1) drawn on demand: a 16-bit head (word 0), then 64-bit words. Every deviate
// of the algorithm has this layout, so comparing word sequences compares the numbers.
class LazyUniform {
public:
    void set_head(std::uint64_t head) {
        word_[0] = head;
        known_ = 1;
    }
    // The next word of the expansion, given (drawn words come through here beyond the inline storage).
    void append_word(std::uint64_t word) {
        if (known_ < kInline) {
            word_[known_] = word;
        } else {
            if (known_ == kInline)
                more_.clear(); // words of an earlier deviate in this storage
            more_.push_back(word);
        }
        ++known_;
    }
    std::uint64_t at(std::size_t i, Rng& rng) {
        if (__builtin_expect(i >= kInline, 0))
            return beyond_inline(i, rng);
        while (known_ <= i)
            word_[known_++] = rng.next_u64();
        return word_[i];
    }
    // The i-th 64-bit digit of the expansion (i = 0: bits 1..64, i = 1: bits 65..128, ...): the last
    // 16 bits of word i, then the first 48 of word i + 1 (word 0 is the 16-bit head).
    std::uint64_t digit(std::size_t i, Rng& rng) {
        return (at(i, rng) << (64 - kHeadBits)) | (at(i + 1, rng) >> kHeadBits);
    }

private:
    // The head and three words: a fourth is read only after a tie of 64 random bits.
    static constexpr std::size_t kInline = 4;
    __attribute__((noinline)) std::uint64_t beyond_inline(std::size_t i, Rng& rng) {
        while (known_ <= i)
            append_word(rng.next_u64());
        return more_[i - kInline];
    }
    std::uint64_t word_[kInline];
    std::size_t known_ = 0;
    std::vector<std::uint64_t> more_; // words beyond kInline, in order
};

// a < b, exactly: further words of both are drawn while their expansions agree (they differ with
// probability 1).
bool less(LazyUniform& a, LazyUniform& b, Rng& rng) {
    for (std::size_t i = 0;; ++i) {
        const std::uint64_t wa = a.at(i, rng), wb = b.at(i, rng);
        if (wa != wb)
            return wa < wb;
    }
}

// Continues a decreasing run exactly: `last` is its last element (x itself when the run is empty),
// `even` the parity of its length so far; the next elements take the heads already drawn (`pending`,
// `count` of them), then fresh ones. Returns the parity of the whole run.
bool finish_run(LazyUniform& last, bool even, const std::uint64_t* pending, int count, Rng& rng) {
    LazyUniform slots[2];
    LazyUniform* previous = &last;
    for (int slot = 0, i = 0;; slot ^= 1, ++i) {
        LazyUniform& u = slots[slot];
        u.set_head(i < count ? pending[i] : rng.next_u64() >> (64 - kHeadBits));
        if (!less(u, *previous, rng))
            return even;
        even = !even;
        previous = &u;
    }
}

// The rare ends of a trial (a run longer than three, or a tie of the deciding heads), settled exactly
// with further bits. j is how many of U1..U3 extend the run by their heads alone.
__attribute__((noinline)) bool settle_trial(unsigned j, const std::uint64_t (&heads)[4], LazyUniform& x,
                                            Rng& rng) {
    const int pending = 3 - static_cast<int>(j); // the heads after U_j, not yet compared
    if (j == 0)
        return finish_run(x, true, heads + 1, pending, rng);
    LazyUniform last; // U_j was only compared by its head: the rest of it is still uniform
    last.set_head(heads[j]);
    return finish_run(last, (j & 1) == 0, heads + j + 1, pending, rng);
}

// One trial of von Neumann's method: w gives the heads of x and of U1..U3; returns whether the
// decreasing run x > U1 > U2 > ... has even length (probability e^-x), leaving x in `x`. The heads
// decide unless the run is longer than three or the deciding heads tie (about 4% of trials).
inline bool trial_is_even(std::uint64_t w, LazyUniform& x, Rng& rng) {
    const std::uint64_t h0 = w >> 48, h1 = (w >> 32) & kHeadMask, h2 = (w >> 16) & kHeadMask,
                        h3 = w & kHeadMask;
    x.set_head(h0);
    const unsigned d1 = h1 < h0, d2 = h2 < h1, d3 = h3 < h2;
    const unsigned j = d1 + (d1 & d2) + (d1 & d2 & d3); // how many of U1..U3 extend the run
    const unsigned tie = ((j == 0) & (h1 == h0)) | ((j == 1) & (h2 == h1)) | ((j == 2) & (h3 == h2));
    if (__builtin_expect((j == 3) | tie, 0))
        return settle_trial(j, {h0, h1, h2, h3}, x, rng);
    return (j & 1) == 0;
}

// Von Neumann: returns K and leaves in x the fraction, so that K + x ~ Exp(1) exactly.
inline std::uint64_t exponential_parts(Rng& rng, LazyUniform& x) {
    for (std::uint64_t k = 0;; ++k)
        if (trial_is_even(rng.next_u64(), x, rng))
            return k;
}

// Whether the part of x after its first 64 bits, r in [0, 1) (uniform, exactly), is >= num/den, with
// 0 < num < den < 2^56: compares r with the base-2^64 expansion of num/den.
bool fraction_at_least(LazyUniform& x, u128 num, u128 den, Rng& rng) {
    for (std::size_t i = 1;; ++i) {
        const u128 shifted = num << 64;
        const auto digit = static_cast<std::uint64_t>(shifted / den);
        num = shifted % den;
        const std::uint64_t w = x.digit(i, rng);
        if (w != digit)
            return w > digit;
        if (num == 0)
            return true; // num/den ends here and r agrees with it so far: r >= num/den
    }
}

// floor((t/s)(k + x)) for s = 2^sigma, sigma <= 62, t < 2^56 (the method in the header).
inline u128 scaled_floor(std::uint64_t t, int sigma, std::uint64_t k, LazyUniform& x, Rng& rng) {
    const u128 tk = static_cast<u128>(t) * k; // < 2^120
    const u128 q = tk >> sigma, r = tk & ((u128{1} << sigma) - 1);
    const u128 a = (r << 64) + static_cast<u128>(t) * x.digit(0, rng); // < 2^126 + 2^120
    const int shift = 64 + sigma;
    const u128 low = a >> shift;
    const u128 high = (a + t - 1) >> shift;
    if (high == low)
        return q + low;
    // b = high 2^shift lies in (a, a + t): the value reaches it exactly when t r >= b - a for the rest
    // r of x.
    const u128 boundary = high << shift;
    return q + (fraction_at_least(x, boundary - a, t, rng) ? high : low);
}

bool fast_path_applies(RationalScale scale) {
    return scale.t >= 1 && scale.t < kMaxFastT && scale.s != 0 && (scale.s & (scale.s - 1)) == 0 &&
           scale.s <= (std::uint64_t{1} << 62);
}

int log2_of(std::uint64_t power_of_two) {
    return __builtin_ctzll(power_of_two);
}

inline std::uint64_t geometric_on_fast_path(Rng& rng, std::uint64_t t, int sigma, LazyUniform& x) {
    for (;;) {
        const u128 g = scaled_floor(t, sigma, exponential_parts(rng, x), x, rng);
        if (g <= kMaxOutput)
            return static_cast<std::uint64_t>(g);
    }
}

// A sign and a geometric magnitude, zero counted once (as discrete_laplace).
inline std::int64_t laplace_on_fast_path(Rng& rng, std::uint64_t t, int sigma, LazyUniform& x) {
    for (;;) {
        const auto y = static_cast<std::int64_t>(geometric_on_fast_path(rng, t, sigma, x));
        const bool negative = rng.next_bit();
        if (negative && y == 0)
            continue;
        return negative ? -y : y;
    }
}

// value / grid rounded to the nearest integer (ties to even, as nearbyint), for a power-of-two grid
// given by its inverse; false when the result is not below 2^62 in magnitude (or value is not finite).
inline bool grid_units(double value, double inverse_grid, std::int64_t& units) {
    double u = value * inverse_grid; // exact: a power of two
    if (!(std::fabs(u) < 0x1.0p62))
        return false;
    if (std::fabs(u) < 0x1.0p51) { // adding and removing 1.5 * 2^52 rounds to an integer, ties to even
        const double shifted = u + 0x1.8p52;
        u = shifted - 0x1.8p52;
    } else { // integers or halves, which nearbyint rounds the same way
        u = std::nearbyint(u);
    }
    units = static_cast<std::int64_t>(u);
    return true;
}

} // namespace

std::uint64_t fast_discrete_geometric(Rng& rng, RationalScale scale) {
    if (!fast_path_applies(scale))
        return discrete_geometric(rng, scale);
    LazyUniform x;
    return geometric_on_fast_path(rng, scale.t, log2_of(scale.s), x);
}

std::int64_t fast_discrete_laplace(Rng& rng, RationalScale scale) {
    if (!fast_path_applies(scale))
        return discrete_laplace(rng, scale);
    LazyUniform x;
    return laplace_on_fast_path(rng, scale.t, log2_of(scale.s), x);
}

double fast_grid_laplace_release(const GridLaplace& mechanism, double value, Rng& rng) {
    double out = 0;
    fast_grid_laplace_release(mechanism, &value, &out, 1, rng);
    return out;
}

void fast_grid_laplace_release(const GridLaplace& mechanism, const double* in, double* out, std::size_t n,
                               Rng& rng, const CancelCheck& cancel) {
    const RationalScale scale = mechanism.units();
    if (!fast_path_applies(scale)) {
        for (std::size_t i = 0; i < n; ++i) {
            cancel.poll(i);
            out[i] = mechanism.release(in[i], rng);
        }
        return;
    }
    const std::uint64_t t = scale.t;
    const int sigma = log2_of(scale.s);
    const double grid = mechanism.grid(), inverse_grid = 1 / grid; // exact: powers of two
    LazyUniform x;
    for (std::size_t i = 0; i < n; ++i) {
        cancel.poll(i);
        std::int64_t units = 0;
        if (!grid_units(in[i], inverse_grid, units)) {
            out[i] = mechanism.release(in[i], rng); // NaN, infinite or far from zero: the general path
            continue;
        }
        // |units| < 2^62 and |noise| <= 2^62: the sum fits in 64 bits exactly.
        out[i] = static_cast<double>(units + laplace_on_fast_path(rng, t, sigma, x)) * grid;
    }
}

RationalScale fast_rational_scale_at_least(double scale) {
    if (!(scale >= 1 && scale <= 0x1.0p52))
        return rational_scale_at_least(scale);
    // scale = m 2^(e - 52) with m the 53-bit significand; e - 52 in [-52, 0].
    std::uint64_t b;
    std::memcpy(&b, &scale, sizeof b);
    const std::uint64_t m = (b & ((std::uint64_t{1} << 52) - 1)) | std::uint64_t{1} << 52;
    const int shift = 52 - (static_cast<int>(b >> 52 & 0x7ff) - 1023);
    return {m, std::uint64_t{1} << shift};
}

FastGridExponential FastGridExponential::with_mean(double mean) {
    require_positive("mean", mean);
    const double grid = fast_grid_below(mean, kExponentialGridBits);
    return FastGridExponential(grid, fast_rational_scale_at_least(mean / grid * kRoundUp));
}

double fast_planar_laplace_radius(Rng& rng, double epsilon) {
    require_positive("epsilon", epsilon);
    const FastGridExponential exponential = FastGridExponential::with_mean(1.0 / epsilon);
    const double first = exponential.draw(rng);
    return first + exponential.draw(rng);
}

namespace detail {

bool run_is_even_for_test(std::uint64_t heads, Rng& rng) {
    LazyUniform x;
    return trial_is_even(heads, x, rng);
}

std::uint64_t scaled_floor_for_test(RationalScale scale, std::uint64_t k, std::uint64_t first_word,
                                    Rng& rng) {
    if (!fast_path_applies(scale))
        throw InvalidArgument("scaled_floor_for_test: scale outside the fast path");
    LazyUniform x;
    x.set_head(first_word >> (64 - kHeadBits));
    x.append_word((first_word << kHeadBits) | (rng.next_u64() & kHeadMask));
    return static_cast<std::uint64_t>(scaled_floor(scale.t, log2_of(scale.s), k, x, rng));
}

std::size_t rest_at_least_a_third_for_test(std::size_t max_equal_digits, std::size_t draws, Rng& rng) {
    // 1/3 = 0.0101... in binary: every 64-bit digit is 0x5555555555555555, and so is every word that
    // holds only bits after x's first 64. With the last 16 bits of word 1 and then e whole words set that
    // way, the first 16 + 64 e bits of the rest equal those of 1/3, and what follows them is compared
    // with 1/3 again (the count of equal bits is even): the rest is >= 1/3 with probability 2/3.
    LazyUniform x; // one deviate for all draws, at depths that vary from draw to draw
    std::size_t at_least = 0;
    for (std::size_t d = 0; d < draws; ++d) {
        x.set_head(rng.next_u64() >> (64 - kHeadBits));
        x.append_word((rng.next_u64() & ~kHeadMask) | 0x5555);
        for (std::size_t e = d % (max_equal_digits + 1); e > 0; --e)
            x.append_word(0x5555555555555555ULL);
        at_least += fraction_at_least(x, 1, 3, rng);
    }
    return at_least;
}

} // namespace detail

} // namespace gazepriv::core
