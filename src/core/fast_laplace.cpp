#include "core/fast_laplace.hpp"

#include <cmath>

#include "core/errors.hpp"

namespace gazepriv::core {

namespace {

constexpr int kMaxWords = 16;         // a tie of 16 words has probability 2^-1024
constexpr std::uint64_t kMaxK = 1024; // P(K >= 1024) = e^-1024
constexpr u128 kMaxOutput = u128{1} << 62;

// A uniform deviate in [0, 1) whose binary expansion is drawn 64 bits at a time, on demand.
struct LazyUniform {
    std::uint64_t word[kMaxWords];
    int known = 0;

    void fresh(Rng& rng) {
        word[0] = rng.next_u64();
        known = 1;
    }
    std::uint64_t at(int i, Rng& rng) {
        while (known <= i)
            word[known++] = rng.next_u64();
        return word[i];
    }
};

[[noreturn]] void unreachable_tie() {
    throw InternalError("fast Laplace sampler: 16 equal random words (probability 2^-1024)");
}

// a < b, exactly, for deviates whose first words are equal: further words are drawn until they differ.
bool less_after_tie(LazyUniform& a, LazyUniform& b, Rng& rng) {
    for (int i = 1; i < kMaxWords; ++i) {
        const std::uint64_t wa = a.at(i, rng), wb = b.at(i, rng);
        if (wa != wb)
            return wa < wb;
    }
    unreachable_tie();
}

// The rest of a decreasing run after the newest uniform's first word u_word tied with the first word of
// the run's last element `last` (x itself when the run is empty). `even` is the parity so far; returns
// the parity of the whole run.
bool finish_run_after_tie(LazyUniform& last, std::uint64_t u_word, bool even, Rng& rng) {
    LazyUniform slots[2];
    LazyUniform* previous = &last;
    int slot = 0;
    slots[slot].word[0] = u_word;
    slots[slot].known = 1;
    for (;;) {
        LazyUniform& u = slots[slot];
        const bool below = u.word[0] != previous->word[0] ? u.word[0] < previous->word[0]
                                                          : less_after_tie(u, *previous, rng);
        if (!below)
            return even;
        even = !even;
        previous = &u;
        slot ^= 1;
        slots[slot].fresh(rng);
    }
}

// Von Neumann: returns K and leaves in x the fraction, so that K + x ~ Exp(1) exactly; K >= kMaxK is
// reported as kMaxK without finishing. Uniforms are single words unless two first words tie.
std::uint64_t exponential_parts(Rng& rng, LazyUniform& x) {
    for (std::uint64_t k = 0; k < kMaxK; ++k) {
        x.fresh(rng);
        // The parity of the length of the run x > U1 > U2 > ...: x is accepted when it is even, which
        // happens with probability e^-x.
        std::uint64_t previous = x.word[0];
        bool even = true, empty = true;
        for (;;) {
            const std::uint64_t u = rng.next_u64();
            if (u < previous) {
                even = !even;
                empty = false;
                previous = u;
                continue;
            }
            if (u == previous) { // the comparison needs further bits of both deviates
                if (empty) {
                    even = finish_run_after_tie(x, u, even, rng);
                } else {
                    // The run's last element was only compared by its first word: its other bits
                    // are still uniform.
                    LazyUniform last;
                    last.word[0] = previous;
                    last.known = 1;
                    even = finish_run_after_tie(last, u, even, rng);
                }
            }
            break;
        }
        if (even)
            return k;
    }
    return kMaxK;
}

// Whether the part of x after its first word, r = 0.x1 x2 ... (uniform, exactly), is >= num/den,
// with 0 < num < den < 2^64: compares r with the base-2^64 expansion of num/den.
bool fraction_at_least(LazyUniform& x, u128 num, u128 den, Rng& rng) {
    for (int i = 1; i < kMaxWords; ++i) {
        const u128 shifted = num << 64;
        const auto digit = static_cast<std::uint64_t>(shifted / den);
        num = shifted % den;
        const std::uint64_t w = x.at(i, rng);
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
    // x 2^64 lies in [w, w + 1), so R lies in [a, a + t): t k 2^64 < 2^127 and t w < 2^117.
    const u128 a = ((t * k) << 64) + t * x.word[0];
    const u128 low = a >> shift;
    const u128 high = (a + t - 1) >> shift;
    if (high == low)
        return low;
    // One multiple of 2^shift, b = high 2^shift, lies in (a, a + t): R >= b exactly when the rest of
    // x, r in [0, 1), satisfies t r >= b - a.
    const u128 boundary = high << shift;
    return fraction_at_least(x, boundary - a, t, rng) ? high : low;
}

} // namespace

std::uint64_t discrete_geometric_fast(Rng& rng, RationalScale scale) {
    if (!fast_path_applies(scale))
        return discrete_geometric(rng, scale);
    const int shift = 64 + __builtin_ctzll(scale.s);
    for (;;) {
        LazyUniform x;
        const std::uint64_t k = exponential_parts(rng, x);
        if (k >= kMaxK)
            continue;
        const u128 g = scaled_floor(scale.t, shift, k, x, rng);
        if (g <= kMaxOutput)
            return static_cast<std::uint64_t>(g);
    }
}

namespace detail {

std::uint64_t scaled_floor_for_test(RationalScale scale, std::uint64_t k, std::uint64_t first_word,
                                    Rng& rng) {
    if (!fast_path_applies(scale) || k >= kMaxK)
        throw InvalidArgument("scaled_floor_for_test: scale or k outside the fast path");
    LazyUniform x;
    x.word[0] = first_word;
    x.known = 1;
    return static_cast<std::uint64_t>(scaled_floor(scale.t, 64 + __builtin_ctzll(scale.s), k, x, rng));
}

} // namespace detail

std::int64_t discrete_laplace_fast(Rng& rng, RationalScale scale) {
    for (;;) {
        const std::uint64_t y = discrete_geometric_fast(rng, scale);
        const bool negative = rng.next_bit();
        if (negative && y == 0)
            continue; // zero would otherwise be counted twice
        return negative ? -static_cast<std::int64_t>(y) : static_cast<std::int64_t>(y);
    }
}

double release_fast(const GridLaplace& mechanism, double value, Rng& rng) {
    const double grid = mechanism.grid();
    const double units = std::nearbyint(value / grid); // exact scaling: grid is a power of two
    if (!(std::fabs(units) < 0x1.0p62))
        return mechanism.release(value,
                                 rng); // NaN, infinite or far from zero: the general path and its errors
    // |units| < 2^62 and |noise| <= 2^62: the sum fits in 64 bits exactly.
    const std::int64_t noisy =
        static_cast<std::int64_t>(units) + discrete_laplace_fast(rng, mechanism.units());
    return static_cast<double>(noisy) * grid;
}

void release_fast(const GridLaplace& mechanism, const double* in, double* out, std::size_t n, Rng& rng,
                  const CancelCheck& cancel) {
    for (std::size_t i = 0; i < n; ++i) {
        cancel.poll(i);
        out[i] = release_fast(mechanism, in[i], rng);
    }
}

} // namespace gazepriv::core
