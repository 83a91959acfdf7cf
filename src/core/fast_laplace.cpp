#include "core/fast_laplace.hpp"

#include <cmath>

#include "core/errors.hpp"

namespace gazepriv::core {

namespace {

constexpr int kHeadBits = 16;
constexpr int kMaxWords = 18;         // a head and 17 words: a tie of 16 words has probability 2^-1024
constexpr std::uint64_t kMaxK = 1024; // P(K >= 1024) = e^-1024
constexpr u128 kMaxOutput = u128{1} << 62;
constexpr std::uint64_t kHeadMask = (std::uint64_t{1} << kHeadBits) - 1;

// A uniform deviate in [0, 1) drawn on demand: a 16-bit head (word[0]), then 64-bit words. Every
// deviate of the algorithm has this layout, so comparing two word sequences compares the numbers.
struct LazyUniform {
    std::uint64_t word[kMaxWords];
    int known = 0;

    void set_head(std::uint64_t head) {
        word[0] = head;
        known = 1;
    }
    std::uint64_t at(int i, Rng& rng) {
        while (known <= i)
            word[known++] = rng.next_u64();
        return word[i];
    }
    // The i-th 64-bit digit of the expansion (i = 0: bits 1..64, i = 1: bits 65..128, ...): the last
    // 16 bits of word i, then the first 48 of word i + 1 (word 0 is the 16-bit head).
    std::uint64_t digit(int i, Rng& rng) {
        return (at(i, rng) << (64 - kHeadBits)) | (at(i + 1, rng) >> kHeadBits);
    }
};

[[noreturn]] void unreachable_tie() {
    throw InternalError("fast Laplace sampler: 16 equal random words (probability 2^-1024)");
}

// a < b, exactly: further words of both are drawn while their expansions agree.
bool less(LazyUniform& a, LazyUniform& b, Rng& rng) {
    for (int i = 0; i < kMaxWords - 1; ++i) {
        const std::uint64_t wa = a.at(i, rng), wb = b.at(i, rng);
        if (wa != wb)
            return wa < wb;
    }
    unreachable_tie();
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

// One attempt of von Neumann's method: w gives the heads of x and of U1..U3; returns whether the
// decreasing run x > U1 > U2 > ... has even length (probability e^-x), leaving x in `x`. The heads
// decide unless the run is longer than 3 or the deciding heads tie (about 4% of attempts), which
// finish_run settles with further bits.
// The rare ends of an attempt (a run longer than three, or a tie of the deciding heads), settled
// exactly with further bits.
__attribute__((noinline)) bool settle_attempt(unsigned j, const std::uint64_t (&heads)[4], LazyUniform& x,
                                              Rng& rng) {
    const int pending = 3 - static_cast<int>(j); // the heads after U_j, not yet compared
    if (j == 0)
        return finish_run(x, true, heads + 1, pending, rng);
    LazyUniform last; // U_j was only compared by its head: the rest of it is still uniform
    last.set_head(heads[j]);
    return finish_run(last, (j & 1) == 0, heads + j + 1, pending, rng);
}

inline bool attempt_is_even(std::uint64_t w, LazyUniform& x, Rng& rng) {
    const std::uint64_t h0 = w >> 48, h1 = (w >> 32) & kHeadMask, h2 = (w >> 16) & kHeadMask,
                        h3 = w & kHeadMask;
    x.set_head(h0);
    const unsigned d1 = h1 < h0, d2 = h2 < h1, d3 = h3 < h2;
    const unsigned j = d1 + (d1 & d2) + (d1 & d2 & d3); // how many of U1..U3 extend the run
    const unsigned tie = ((j == 0) & (h1 == h0)) | ((j == 1) & (h2 == h1)) | ((j == 2) & (h3 == h2));
    if (__builtin_expect((j == 3) | tie, 0))
        return settle_attempt(j, {h0, h1, h2, h3}, x, rng);
    return (j & 1) == 0;
}

// Von Neumann: returns K and leaves in x the fraction, so that K + x ~ Exp(1) exactly; K >= kMaxK is
// reported as kMaxK without finishing.
inline std::uint64_t exponential_parts(Rng& rng, LazyUniform& x) {
    for (std::uint64_t k = 0; k < kMaxK; ++k)
        if (attempt_is_even(rng.next_u64(), x, rng))
            return k;
    return kMaxK;
}

// Whether the part of x after its first 64 bits, r in [0, 1) (uniform, exactly), is >= num/den, with
// 0 < num < den < 2^64: compares r with the base-2^64 expansion of num/den.
bool fraction_at_least(LazyUniform& x, u128 num, u128 den, Rng& rng) {
    for (int i = 1; i < kMaxWords - 1; ++i) {
        const u128 shifted = num << 64;
        const auto digit = static_cast<std::uint64_t>(shifted / den);
        num = shifted % den;
        const std::uint64_t w = x.digit(i, rng);
        if (w != digit)
            return w > digit;
        if (num == 0)
            return true; // num/den ends here and r agrees with it so far: r >= num/den
    }
    unreachable_tie();
}

bool fast_path_applies(RationalScale scale) {
    return scale.s != 0 && (scale.s & (scale.s - 1)) == 0 && scale.t >= 1 &&
           scale.t < (std::uint64_t{1} << 53);
}

// floor((t/s)(k + x)) = floor(R / 2^shift) with R = t k 2^64 + t x 2^64 and s = 2^(shift - 64).
inline u128 scaled_floor(u128 t, int shift, std::uint64_t k, LazyUniform& x, Rng& rng) {
    // x 2^64 lies in [w, w + 1) for w = x's first 64 bits, so R lies in [a, a + t): t k 2^64 < 2^127 and
    // t w < 2^117.
    const u128 a = ((t * k) << 64) + t * x.digit(0, rng);
    const u128 low = a >> shift;
    const u128 high = (a + t - 1) >> shift;
    if (high == low)
        return low;
    // One multiple of 2^shift, b = high 2^shift, lies in (a, a + t): R >= b exactly when the rest of
    // x, r in [0, 1), satisfies t r >= b - a.
    const u128 boundary = high << shift;
    return fraction_at_least(x, boundary - a, t, rng) ? high : low;
}

// The geometric draw for a scale on the fast path (s = 2^(shift - 64), t < 2^53).
inline std::uint64_t geometric_on_fast_path(Rng& rng, u128 t, int shift) {
    for (;;) {
        LazyUniform x;
        const std::uint64_t k = exponential_parts(rng, x);
        if (k >= kMaxK)
            continue;
        const u128 g = scaled_floor(t, shift, k, x, rng);
        if (g <= kMaxOutput)
            return static_cast<std::uint64_t>(g);
    }
}

// The discrete Laplace draw on the fast path: a sign and a geometric magnitude, zero counted once.
inline std::int64_t laplace_on_fast_path(Rng& rng, u128 t, int shift) {
    for (;;) {
        const std::uint64_t y = geometric_on_fast_path(rng, t, shift);
        const bool negative = rng.next_bit();
        if (negative && y == 0)
            continue;
        return negative ? -static_cast<std::int64_t>(y) : static_cast<std::int64_t>(y);
    }
}

int fast_path_shift(RationalScale scale) {
    return 64 + __builtin_ctzll(scale.s);
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
    } // larger magnitudes are integers or halves that nearbyint would round the same way
    else {
        u = std::nearbyint(u);
    }
    units = static_cast<std::int64_t>(u);
    return true;
}

} // namespace

std::uint64_t discrete_geometric_fast(Rng& rng, RationalScale scale) {
    if (!fast_path_applies(scale))
        return discrete_geometric(rng, scale);
    return geometric_on_fast_path(rng, scale.t, fast_path_shift(scale));
}

namespace detail {

bool run_is_even_for_test(std::uint64_t heads, Rng& rng) {
    LazyUniform x;
    return attempt_is_even(heads, x, rng);
}

std::uint64_t scaled_floor_for_test(RationalScale scale, std::uint64_t k, std::uint64_t first_word,
                                    Rng& rng) {
    if (!fast_path_applies(scale) || k >= kMaxK)
        throw InvalidArgument("scaled_floor_for_test: scale or k outside the fast path");
    LazyUniform x;
    x.set_head(first_word >> (64 - kHeadBits));
    x.word[1] = (first_word << kHeadBits) | (rng.next_u64() & kHeadMask);
    x.known = 2;
    return static_cast<std::uint64_t>(scaled_floor(scale.t, 64 + __builtin_ctzll(scale.s), k, x, rng));
}

} // namespace detail

std::int64_t discrete_laplace_fast(Rng& rng, RationalScale scale) {
    if (!fast_path_applies(scale))
        return discrete_laplace(rng, scale);
    return laplace_on_fast_path(rng, scale.t, fast_path_shift(scale));
}

double release_fast(const GridLaplace& mechanism, double value, Rng& rng) {
    double out = 0;
    release_fast(mechanism, &value, &out, 1, rng);
    return out;
}

void release_fast(const GridLaplace& mechanism, const double* in, double* out, std::size_t n, Rng& rng,
                  const CancelCheck& cancel) {
    const RationalScale scale = mechanism.units();
    if (!fast_path_applies(scale)) {
        for (std::size_t i = 0; i < n; ++i) {
            cancel.poll(i);
            out[i] = mechanism.release(in[i], rng);
        }
        return;
    }
    const u128 t = scale.t;
    const int shift = fast_path_shift(scale);
    const double grid = mechanism.grid(), inverse_grid = 1 / grid; // exact: powers of two
    for (std::size_t i = 0; i < n; ++i) {
        cancel.poll(i);
        std::int64_t units = 0;
        if (!grid_units(in[i], inverse_grid, units)) {
            out[i] = mechanism.release(in[i], rng); // NaN, infinite or far from zero: the general path
            continue;
        }
        // |units| < 2^62 and |noise| <= 2^62: the sum fits in 64 bits exactly.
        out[i] = static_cast<double>(units + laplace_on_fast_path(rng, t, shift)) * grid;
    }
}

} // namespace gazepriv::core
