#include "core/noise/discrete.hpp"

#include <cmath>
#include <limits>

#include "core/common/errors.hpp"
#include "core/common/validate.hpp"

namespace gazepriv::core {

namespace {

constexpr u128 kOne = 1;

int bit_length(u128 v) {
    int n = 0;
    while (v != 0) {
        v >>= 1;
        ++n;
    }
    return n;
}

// (mantissa, exponent) with value == mantissa * 2^exponent exactly, mantissa < 2^53.
void decompose(double value, std::uint64_t& mantissa, int& exponent) {
    int e = 0;
    double f = std::frexp(value, &e); // value = f * 2^e, f in [0.5, 1)
    mantissa = static_cast<std::uint64_t>(std::ldexp(f, 53));
    exponent = e - 53;
}

// ceil(v / 2^shift) for shift >= 0.
u128 shift_right_ceil(u128 v, int shift) {
    if (shift <= 0)
        return v;
    if (shift >= 128)
        return v == 0 ? 0 : 1;
    u128 q = v >> shift;
    if ((q << shift) != v)
        ++q;
    return q;
}

} // namespace

bool bernoulli_ratio(Rng& rng, u128 num, u128 den) {
    if (num >= den)
        return true;
    if (num == 0)
        return false;
    // Compare a uniform U in [0, 1) with p = num/den bit by bit; U < p iff at the first differing bit
    // p has a 1. The binary digits of p come from long division (r < den <= 2^127, so 2r fits).
    u128 r = num;
    for (;;) {
        r <<= 1;
        const bool p_bit = r >= den;
        if (p_bit)
            r -= den;
        const bool u_bit = rng.next_bit();
        if (u_bit != p_bit)
            return p_bit;
        if (r == 0)
            return false; // p's expansion ended; U > p with probability 1
    }
}

bool bernoulli_exp_neg(Rng& rng, u128 num, u128 den) {
    if (num == 0)
        return true;
    if (num > den) {
        // exp(-g) = exp(-1)^floor(g) * exp(-(g - floor(g))). Each exp(-1) coin fails with
        // probability 0.63, so the loop ends after 1.6 coins on average whatever floor(g) is.
        u128 whole = num / den;
        for (u128 i = 0; i < whole; ++i)
            if (!bernoulli_exp_neg(rng, 1, 1))
                return false;
        return bernoulli_exp_neg(rng, num % den, den);
    }
    // g = num/den in (0, 1]: K = first k with Bernoulli(g/k) = 0; P(K odd) = exp(-g).
    std::uint64_t k = 1;
    while (bernoulli_ratio(rng, num, den * k)) {
        ++k;
        if (k == 128) // P(K >= 128) <= 1/127!; den * k must stay below 2^127
            throw InternalError("bernoulli_exp_neg: unreachable iteration count");
    }
    return (k & 1u) != 0;
}

RationalScale rational_scale_at_least(double scale) {
    require_positive("scale", scale);
    if (scale > 0x1.0p52)
        throw InvalidArgument("scale must be at most 2^52, got " + format_number(scale));
    std::uint64_t m = 0;
    int e = 0;
    decompose(scale, m, e);
    if (e >= 0)
        return {m << e, 1}; // scale <= 2^52 keeps this below 2^53
    int s_bits = -e;
    u128 t = m;
    if (s_bits > 62) {
        t = shift_right_ceil(t, s_bits - 62); // rounds the scale up
        s_bits = 62;
    }
    if (t == 0)
        t = 1;
    return {static_cast<std::uint64_t>(t), std::uint64_t{1} << s_bits};
}

namespace {

// X = U + t V with P(X = x) proportional to exp(-x/t), x >= 0 (the first steps of CKS Algorithm 2).
u128 geometric_in_units_of_t(Rng& rng, std::uint64_t t) {
    for (;;) {
        const std::uint64_t u = rng.uniform_below(t);
        if (!bernoulli_exp_neg(rng, u, t))
            continue;
        std::uint64_t v = 0;
        while (bernoulli_exp_neg(rng, 1, 1))
            ++v;
        return static_cast<u128>(u) + static_cast<u128>(t) * v;
    }
}

} // namespace

std::int64_t discrete_laplace(Rng& rng, RationalScale scale) {
    constexpr u128 kMax = u128{1} << 62;
    for (;;) {
        const u128 y = geometric_in_units_of_t(rng, scale.t) / scale.s;
        const bool negative = rng.next_bit();
        if (negative && y == 0)
            continue; // zero would otherwise be counted twice
        if (y > kMax)
            continue;
        return negative ? -static_cast<std::int64_t>(y) : static_cast<std::int64_t>(y);
    }
}

std::uint64_t discrete_geometric(Rng& rng, RationalScale scale) {
    constexpr u128 kMax = u128{1} << 62;
    for (;;) {
        const u128 y = geometric_in_units_of_t(rng, scale.t) / scale.s;
        if (y <= kMax)
            return static_cast<std::uint64_t>(y);
    }
}

double RationalVariance::sigma() const {
    return std::sqrt(static_cast<double>(num) / static_cast<double>(den));
}

RationalVariance rational_variance_at_least(double sigma) {
    require_positive("sigma", sigma);
    if (sigma >= 0x1.0p27)
        throw InvalidArgument("sigma must be below 2^27 in integer units, got " + format_number(sigma));
    std::uint64_t m = 0;
    int e = 0;
    decompose(sigma, m, e);
    const u128 m2 = static_cast<u128>(m) * m; // sigma^2 = m2 * 2^(2e), exactly
    // t = floor(sigma) + 1 is only an efficiency choice of the proposal; any t > 0 is exact.
    const std::uint64_t t = static_cast<std::uint64_t>(std::floor(sigma)) + 1;
    const int t_bits = bit_length(t);
    const int den_bits = 56 - 2 * t_bits; // t^2 den < 2^56
    RationalVariance v{};
    v.den = kOne << den_bits;
    const int shift = 2 * e + den_bits;
    v.num = shift >= 0 ? (m2 << shift) : shift_right_ceil(m2, -shift);
    if (v.num == 0)
        v.num = 1;
    v.t = t;
    return v;
}

std::int64_t discrete_gaussian(Rng& rng, const RationalVariance& variance) {
    const RationalScale proposal{variance.t, 1};
    const u128 t = variance.t;
    const u128 limit = 128 * t;
    const u128 td = t * variance.den;                                // < 2^56 / t
    const u128 accept_den = 2 * variance.num * t * t * variance.den; // < 2^114
    for (;;) {
        const std::int64_t y = discrete_laplace(rng, proposal);
        const u128 a = static_cast<u128>(y < 0 ? -static_cast<__int128>(y) : y);
        if (a > limit)
            continue;
        // Accept with exp(-(|y| - sigma^2/t)^2 / (2 sigma^2)) = exp(-(|y| t den - num)^2 / (2 num t^2 den)).
        const u128 at = a * td; // <= 128 t^2 den < 2^63
        const u128 diff = at >= variance.num ? at - variance.num : variance.num - at;
        if (bernoulli_exp_neg(rng, diff * diff, accept_den))
            return y;
    }
}

} // namespace gazepriv::core
