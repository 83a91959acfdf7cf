// Faster exact samplers for the hot loops of streaming mechanisms (Kalepsilonido draws one Laplace per
// test and two exponentials per release). They produce exactly the distributions of their namesakes in
// discrete.hpp and noise.hpp (same scales, grids and tail rejections) by a different exact algorithm, so
// they consume the generator differently and a seeded run gives different, equally distributed values.
// The existing samplers are unchanged.
//
// The geometric with P(X >= x) = exp(-x s/t) is floor(E t/s) for E ~ Exp(1). E is drawn with von
// Neumann's exact method (1951, as Karney 2016 uses it): uniforms are compared digit by digit (32-bit
// digits drawn only when needed) until a decreasing run ends; the run's parity accepts the first uniform
// as E's fraction, the number of rejected trials is E's integer part. No digit of the fraction beyond
// those compared has been looked at, so they are still uniform: floor(E t/s) is computed with integer
// arithmetic from its first 64 bits and, when those leave it undecided (about once in 2^64 s/t draws),
// by comparing further digits with the exact threshold. About 2.5 64-bit words and a few comparisons per
// draw, against some seven Bernoulli coins of 128-bit long division for CKS Algorithm 2.
#pragma once

#include <cstdint>
#include <cstring>

#include "core/discrete.hpp"
#include "core/noise.hpp"
#include "core/random.hpp"

namespace gazepriv::core {

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

// The distributions of discrete_geometric and discrete_laplace (discrete.hpp), same tail rejections.
std::uint64_t fast_discrete_geometric(Rng& rng, RationalScale scale);
std::int64_t fast_discrete_laplace(Rng& rng, RationalScale scale);

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

// GridLaplace::release with the faster sampler: the value rounded to the mechanism's grid plus exact
// discrete Laplace noise in grid units (same distribution, same guarantee).
double fast_grid_laplace_release(const GridLaplace& mechanism, double value, Rng& rng);

} // namespace gazepriv::core

#include "core/no_postgres.hpp"
