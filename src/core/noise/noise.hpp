// The noise distributions mechanisms use, built only from the exact integer samplers (discrete.hpp)
// and the table sampler (gaussian_table.hpp).
//
// Integer noise (counts, capped sums): add the integer draw to the integer value; exact.
//
// Real-valued noise on a power-of-two grid (Mironov 2012's remedy for the floating-point attack): the
// value is rounded to the grid gamma = 2^j, integer noise is added in grid units with integer
// arithmetic, and the sum is converted back to a double (a function of the noisy sum alone, so it is
// post-processing). Rounding moves each coordinate by at most gamma/2, so neighbouring inputs can
// differ by up to gamma more per coordinate after rounding: the mechanisms below add coordinates*gamma
// to the L1 sensitivity (Laplace) and sqrt(coordinates)*gamma to the L2 sensitivity (Gaussian) before
// calibrating, so the stated epsilon and delta hold exactly for the rounded mechanism. The grid is
// 2^-40 of the Laplace scale and 2^-24 of the Gaussian sigma, so the extra noise is negligible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/noise/discrete.hpp"
#include "core/noise/gaussian_table.hpp"
#include "core/noise/random.hpp"

namespace gazepriv::core {

// Discrete Laplace noise for integer-valued queries: P(x) proportional to exp(-|x|/scale). Pure
// epsilon-DP with scale = L1 sensitivity / epsilon. Exact.
class IntegerLaplace {
public:
    explicit IntegerLaplace(double scale) : scale_(rational_scale_at_least(scale)) {}
    std::int64_t operator()(Rng& rng) const { return discrete_laplace(rng, scale_); }
    double scale() const { return scale_.value(); }

private:
    RationalScale scale_;
};

// Discrete Gaussian noise for integer-valued queries. Uses the table sampler when sigma fits a table
// (statistical distance per draw <= GaussianTable::kStatisticalDistance), the exact sampler otherwise
// or when asked to.
class IntegerGaussian {
public:
    explicit IntegerGaussian(double sigma, bool exact = false);
    std::int64_t operator()(Rng& rng) const {
        return table_ ? table_->sample(rng) : discrete_gaussian(rng, variance_);
    }
    double sigma() const { return sigma_; }
    // Upper bound on the statistical distance of one draw from the exact discrete Gaussian.
    double statistical_distance_per_draw() const {
        return table_ ? GaussianTable::kStatisticalDistance : 0.0;
    }

private:
    double sigma_;
    std::shared_ptr<const GaussianTable> table_;
    RationalVariance variance_{};
};

// Real-valued Laplace noise on a power-of-two grid.
class GridLaplace {
public:
    // Noise alone (no value to round), scale >= the requested scale.
    static GridLaplace with_scale(double scale);
    // The Laplace mechanism for `coordinates` values with the given L1 sensitivity and epsilon.
    static GridLaplace mechanism(double l1_sensitivity, double epsilon, std::size_t coordinates);

    double grid() const { return grid_; }
    double scale() const { return grid_ * units_.value(); } // the effective Laplace scale
    RationalScale units() const { return units_; }          // the scale in grid units, as sampled
    double noise(Rng& rng) const;
    double release(double value, Rng& rng) const; // value rounded to the grid plus noise

private:
    GridLaplace(double grid, RationalScale units) : grid_(grid), units_(units) {}
    double grid_;
    RationalScale units_;
};

// Real-valued Gaussian noise on a power-of-two grid, drawn with the exact discrete Gaussian sampler.
class GridGaussian {
public:
    static GridGaussian with_sigma(double sigma);
    // The Gaussian mechanism for `coordinates` values with the given L2 sensitivity: sigma is scaled by
    // (l2 + sqrt(coordinates) grid) / l2 so that the ratio sigma / sensitivity, which alone determines
    // (epsilon, delta) and rho, is that of the caller's calibration.
    static GridGaussian mechanism(double l2_sensitivity, double sigma, std::size_t coordinates);

    double grid() const { return grid_; }
    double sigma() const { return grid_ * units_.sigma(); } // the effective sigma
    double noise(Rng& rng) const;
    double release(double value, Rng& rng) const;

private:
    GridGaussian(double grid, RationalVariance units) : grid_(grid), units_(units) {}
    double grid_;
    RationalVariance units_;
};

// An exponential variate with the given mean, realised exactly as a geometric variate on the grid
// 2^(floor(log2 mean) - 40).
double grid_exponential(Rng& rng, double mean);

// The radius of the planar Laplace distribution (Andres et al. 2013) with parameter epsilon per unit of
// distance: Gamma(2, 1/epsilon), drawn as the sum of two grid exponentials of mean 1/epsilon.
double planar_laplace_radius(Rng& rng, double epsilon);

// A uniform angle in [0, 2 pi).
double uniform_angle(Rng& rng);

// The power of two 2^(floor(log2 value) - bits_below).
double grid_below(double value, int bits_below);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
