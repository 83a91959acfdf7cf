// Faster exact samplers for mechanisms that draw millions of values: LPA and the Exponential-DP
// baseline noise every sample, FPA every kept coefficient, Kalεido one Laplace per test, the
// lattice planar Laplace two exponentials per released point. They produce exactly the distributions
// of their namesakes in discrete.hpp and noise.hpp (same scales, grids and tail rejections) by a
// different exact algorithm, so they consume the generator differently: a seeded run gives different,
// equally distributed values. The reference samplers are unchanged.
//
// Method. A geometric variate with P(Y >= y) = exp(-y s/t) is floor((t/s) E) for E ~ Exp(1).
// E is drawn exactly by von Neumann's comparison method (von Neumann 1951; Karney 2016, "Sampling
// exactly from the normal distribution", Algorithm V): a trial draws a uniform x and further uniforms
// while x > U1 > U2 > ... keeps decreasing. P(the run has at least n elements | x) = x^n / n!, so the
// run's length is even with probability e^-x: accepting on an even length leaves x with density
// proportional to e^-x on [0, 1), and the number K of rejected trials is geometric with P(K >= k) =
// e^-k, so E = K + x is exactly Exp(1).
// Uniform deviates are digit strings drawn on demand: a 16-bit head (one random word gives the heads of
// x and U1..U3), then 64-bit words, drawn only on a tie or a run longer than three. Comparing two
// strings word by word compares the numbers exactly, and digits never read are uniform and independent
// of every decision taken so far.
// floor((t/s)(K + x)) with s = 2^sigma: t K = q s + r (r < s), so it is q + floor(2^64 (r + t x) /
// 2^(64 + sigma)), and 2^64 (r + t x) lies in [a, a + t) for a = 2^64 r + t w, w = x's first 64 bits.
// As t < 2^56 < 2^(64 + sigma), at most one multiple of the divisor lies in (a, a + t): unless one does
// (about t 2^-(64 + sigma) of the draws), w decides; otherwise the rest of x, still uniform, is compared
// exactly with the rational position (b - a)/t of that multiple b. No floating-point number is drawn, no
// probability is rounded, every K and every tie length is handled (the digit storage grows): the
// outputs have exactly the reference distributions, including their rejection of outputs above 2^62.
// Scales the method does not cover (s not a power of two or above 2^62, t >= 2^56; rational_scale_at_least
// never produces them) fall back to the reference samplers, which have the same distribution.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/common/cancel.hpp"
#include "core/noise/discrete.hpp"
#include "core/noise/noise.hpp"
#include "core/noise/random.hpp"

namespace gazepriv::core {

// Exactly the distribution of discrete_geometric: P(x) proportional to exp(-x s/t) on 0 <= x <= 2^62.
std::uint64_t fast_discrete_geometric(Rng& rng, RationalScale scale);

// Exactly the distribution of discrete_laplace: P(x) proportional to exp(-|x| s/t), |x| <= 2^62.
std::int64_t fast_discrete_laplace(Rng& rng, RationalScale scale);

// mechanism.release(value, rng) (noise.hpp) with the fast sampler: the value rounded to the mechanism's
// grid plus discrete Laplace noise in grid units. Same distribution, same errors.
double fast_grid_laplace_release(const GridLaplace& mechanism, double value, Rng& rng);

// out[i] = fast_grid_laplace_release(mechanism, in[i], rng) for i < n (in and out may be the same array).
void fast_grid_laplace_release(const GridLaplace& mechanism, const double* in, double* out, std::size_t n,
                               Rng& rng, const CancelCheck& cancel = CancelCheck());

// grid_below (noise.hpp) from the exponent bits, without libm calls; identical results.
inline double fast_grid_below(double value, int bits_below) {
    std::uint64_t b;
    std::memcpy(&b, &value, sizeof b);
    const int biased = static_cast<int>(b >> 52 & 0x7ff);
    const int target = biased - bits_below;
    if ((b >> 63) != 0 || biased == 0 || biased == 0x7ff || target <= 0)
        return grid_below(value, bits_below); // negative, subnormal, infinite, NaN or underflowing
    const std::uint64_t r = static_cast<std::uint64_t>(target) << 52;
    double out;
    std::memcpy(&out, &r, sizeof out);
    return out;
}

// rational_scale_at_least (discrete.hpp) from the bits, for scales in [1, 2^52]; identical results.
RationalScale fast_rational_scale_at_least(double scale);

// The distribution of grid_exponential (noise.hpp): an exponential of the given mean realised exactly as
// a geometric on the grid 2^(floor(log2 mean) - 40), with the per-mean work done once.
class FastGridExponential {
public:
    static FastGridExponential with_mean(double mean);
    double grid() const { return grid_; }
    double draw(Rng& rng) const { return static_cast<double>(fast_discrete_geometric(rng, units_)) * grid_; }

private:
    FastGridExponential(double grid, RationalScale units) : grid_(grid), units_(units) {}
    double grid_;
    RationalScale units_;
};

// The distribution of planar_laplace_radius (noise.hpp): the sum of two exponentials of mean 1/epsilon,
// each an exact geometric on the grid 2^(floor(log2 (1/epsilon)) - 40).
double fast_planar_laplace_radius(Rng& rng, double epsilon);

namespace detail {
// One trial of the exponential, exposed for tests: whether the decreasing run x > U1 > ... has even
// length when `heads` gives the 16-bit heads of x, U1, U2, U3 (high to low).
bool run_is_even_for_test(std::uint64_t heads, Rng& rng);
// The last step of fast_discrete_geometric, exposed for tests: floor((t/s)(k + x)) for a uniform x whose
// first 64 bits are first_word and whose further bits are drawn from rng.
std::uint64_t scaled_floor_for_test(RationalScale scale, std::uint64_t k, std::uint64_t first_word, Rng& rng);
// The exact comparison with deep ties, exposed for tests: `draws` times, with one deviate reused (as the
// array release does), the first 16 + 64 e bits of x after its first 64 are set to those of 1/3, e
// cycling through 0..max_equal_digits, and the rest drawn; returns how often that part of x was >= 1/3
// (expected: 2/3 of the draws, whatever the depth).
std::size_t rest_at_least_a_third_for_test(std::size_t max_equal_digits, std::size_t draws, Rng& rng);
} // namespace detail

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
