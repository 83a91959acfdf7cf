#include "core/fast_noise.hpp"

#include <cmath>
#include <vector>

#include "core/errors.hpp"
#include "core/validate.hpp"

namespace gazepriv::core {

namespace {

constexpr std::uint64_t kMaxFastT = std::uint64_t{1} << 56; // keeps t (k + F) 2^64 within 128 bits
constexpr u128 kMaxOutput = u128{1} << 62;                  // the reference samplers' tail rejection
// As noise.cpp: the grid of an exponential is 2^-40 of its mean, the scale rounded up by 2^-48.
constexpr int kExponentialGridBits = 40;
constexpr double kRoundUp = 1.0 + 0x1.0p-48;

// Random 32-bit digits and bits from 64-bit words; what is left of a word when a draw ends is dropped.
class BitSource {
public:
    explicit BitSource(Rng& rng) : rng_(rng) {}
    std::uint32_t digit32() {
        if (left_ < 32) {
            pool_ = rng_.next_u64();
            left_ = 64;
        }
        const std::uint32_t v = static_cast<std::uint32_t>(pool_);
        pool_ >>= 32;
        left_ -= 32;
        return v;
    }
    bool bit() {
        if (left_ == 0) {
            pool_ = rng_.next_u64();
            left_ = 64;
        }
        const bool b = pool_ & 1;
        pool_ >>= 1;
        --left_;
        return b;
    }

private:
    Rng& rng_;
    std::uint64_t pool_ = 0;
    int left_ = 0;
};

// A uniform number in [0, 1) as base-2^32 digits drawn on demand (Karney's "u-rand"): digits that were
// never read are uniform and independent of everything decided so far.
class LazyUniform {
public:
    void reset(std::uint32_t first) {
        count_ = 1;
        inline_[0] = first;
        overflow_.clear();
    }
    std::uint32_t digit(std::size_t i, BitSource& bits) {
        while (count_ <= i) {
            const std::uint32_t d = bits.digit32();
            if (count_ < kInline)
                inline_[count_] = d;
            else
                overflow_.push_back(d); // only after three 32-bit ties in a row (probability 2^-96)
            ++count_;
        }
        return i < kInline ? inline_[i] : overflow_[i - kInline];
    }

private:
    static constexpr std::size_t kInline = 4;
    std::uint32_t inline_[kInline];
    std::size_t count_ = 0;
    std::vector<std::uint32_t> overflow_;
};

// a < b, reading as many digits of both as it takes (they differ with probability 1).
bool less(LazyUniform& a, LazyUniform& b, BitSource& bits) {
    for (std::size_t i = 0;; ++i) {
        const std::uint32_t x = a.digit(i, bits), y = b.digit(i, bits);
        if (x != y)
            return x < y;
    }
}

// Von Neumann's exact exponential (1951), as Karney (2016) uses it: a trial draws U1 and then uniforms
// while they keep decreasing; the length n of the decreasing run from U1 has P(n odd | U1 = x) = e^-x,
// so accepting on odd n leaves U1 with density proportional to e^-x on [0, 1), and the number K of
// rejected trials is geometric with P(K >= k) = e^-k. E = K + U1 is exactly Exp(1); its fraction U1 comes
// back as a LazyUniform whose unread digits are still uniform.
std::uint64_t exact_exponential(BitSource& bits, LazyUniform& fraction, LazyUniform& a, LazyUniform& b) {
    for (std::uint64_t k = 0;; ++k) {
        fraction.reset(bits.digit32());
        LazyUniform* previous = &fraction;
        LazyUniform* next = &a;
        unsigned n = 1;
        for (;;) {
            next->reset(bits.digit32());
            if (!less(*next, *previous, bits))
                break;
            ++n;
            // The fraction candidate is kept; a and b take turns as the run goes on.
            LazyUniform* const freed = previous == &fraction ? (next == &a ? &b : &a) : previous;
            previous = next;
            next = freed;
        }
        if ((n & 1u) != 0)
            return k;
    }
}

// floor(t/2^shift E) for E = Exp(1), exactly: P(X >= x) = exp(-x 2^shift / t), the geometric of
// discrete_geometric with scale t/s, s = 2^shift. t < 2^56, shift <= 62.
u128 floor_scaled_exponential(BitSource& bits, std::uint64_t t, int shift, LazyUniform& fraction,
                              LazyUniform& a, LazyUniform& b) {
    const std::uint64_t k = exact_exponential(bits, fraction, a, b);
    // t (k + F) / s = q + (rm + t F) / s with t k = q s + rm.
    const u128 tk = static_cast<u128>(t) * k; // < 2^120 (k < 2^64)
    const u128 q = tk >> shift;
    const u128 rm = tk & ((u128{1} << shift) - 1);
    // With F = (W + R) 2^-64 (W its first 64 bits): X = q + floor((A + t R) / D), A = rm 2^64 + t W, D =
    // 2^(64 + shift). A < 2^126 + 2^120.
    const std::uint64_t w =
        static_cast<std::uint64_t>(fraction.digit(0, bits)) << 32 | fraction.digit(1, bits);
    const u128 a_value = (rm << 64) + static_cast<u128>(t) * w;
    const int d_shift = 64 + shift;
    const u128 low = a_value >> d_shift;
    if (((a_value + t - 1) >> d_shift) == low)
        return q + low; // t R < t cannot reach the next multiple of D
    // A + t R crosses (low + 1) D exactly when R >= gap / t, gap = (low + 1) D - A in (0, t): compare R,
    // the digits of F after the first two, with gap / t.
    u128 target = (((low + 1) << d_shift) - a_value) << 32;
    for (std::size_t i = 2;; ++i) {
        const u128 scaled = static_cast<u128>(fraction.digit(i, bits)) * t;
        if (scaled + t <= target)
            return q + low; // R < gap / t
        if (scaled >= target)
            return q + low + 1;
        target = (target - scaled) << 32;
    }
}

// The fast path needs t < 2^56 and s a power of two <= 2^62 (what rational_scale_at_least produces).
bool fast_path(RationalScale scale) {
    return scale.t >= 1 && scale.t < kMaxFastT && scale.s != 0 && (scale.s & (scale.s - 1)) == 0 &&
           scale.s <= (std::uint64_t{1} << 62);
}

} // namespace

namespace {

// Draws of floor(E t/s) for one scale, with the scratch uniforms reused across draws.
class GeometricDraws {
public:
    GeometricDraws(Rng& rng, RationalScale scale)
        : bits_(rng), t_(scale.t), shift_(__builtin_ctzll(scale.s)) {}
    u128 next() { return floor_scaled_exponential(bits_, t_, shift_, fraction_, a_, b_); }
    bool bit() { return bits_.bit(); }

private:
    BitSource bits_;
    std::uint64_t t_;
    int shift_;
    LazyUniform fraction_, a_, b_;
};

} // namespace

std::uint64_t fast_discrete_geometric(Rng& rng, RationalScale scale) {
    if (!fast_path(scale))
        return discrete_geometric(rng, scale);
    GeometricDraws draws(rng, scale);
    for (;;) {
        const u128 y = draws.next();
        if (y <= kMaxOutput)
            return static_cast<std::uint64_t>(y);
    }
}

std::int64_t fast_discrete_laplace(Rng& rng, RationalScale scale) {
    if (!fast_path(scale))
        return discrete_laplace(rng, scale);
    GeometricDraws draws(rng, scale);
    for (;;) {
        const u128 y = draws.next();
        const bool negative = draws.bit();
        if (negative && y == 0)
            continue; // zero would otherwise be counted twice
        if (y > kMaxOutput)
            continue;
        return negative ? -static_cast<std::int64_t>(y) : static_cast<std::int64_t>(y);
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

double fast_grid_laplace_release(const GridLaplace& mechanism, double value, Rng& rng) {
    require_finite("value", value);
    const double units = std::nearbyint(value / mechanism.grid());
    if (!(std::fabs(units) < 0x1.0p100))
        throw InvalidArgument(
            "value " + format_number(value) + " is more than 2^100 steps of the noise grid (" +
            format_number(mechanism.grid()) + ") from zero: the noise scale is too small for it");
    const std::int64_t noise = fast_discrete_laplace(rng, mechanism.units());
    if (std::fabs(units) < 0x1.0p62) // the common case, without 128-bit conversions
        return static_cast<double>(static_cast<std::int64_t>(units) + noise) * mechanism.grid();
    return static_cast<double>(static_cast<__int128>(units) + noise) * mechanism.grid();
}

} // namespace gazepriv::core
