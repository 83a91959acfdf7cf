#include "core/noise/noise.hpp"

#include <cmath>

#include "core/common/errors.hpp"
#include "core/common/validate.hpp"

namespace gazepriv::core {

namespace {

constexpr int kLaplaceGridBits = 40;
constexpr int kGaussianGridBits = 24;
// Guards the double arithmetic that feeds a rational conversion against rounding down.
constexpr double kRoundUp = 1.0 + 0x1.0p-48;

// value / grid as an integer, for values within 2^100 grid units (else the noise is meaningless).
__int128 grid_units(double value, double grid) {
    require_finite("value", value);
    const double units = std::nearbyint(value / grid);
    if (!(std::fabs(units) < 0x1.0p100))
        throw InvalidArgument("value " + format_number(value) +
                              " is more than 2^100 steps of the noise grid (" + format_number(grid) +
                              ") from zero: the noise scale is too small for it");
    return static_cast<__int128>(units);
}

double from_grid_units(__int128 units, double grid) {
    return static_cast<double>(units) * grid; // rounds the exact noisy sum, then scales exactly
}

} // namespace

double grid_below(double value, int bits_below) {
    int e = 0;
    std::frexp(value, &e); // value in [2^(e-1), 2^e)
    return std::ldexp(1.0, e - 1 - bits_below);
}

IntegerGaussian::IntegerGaussian(double sigma, bool exact) : sigma_(require_positive("sigma", sigma)) {
    if (!exact && sigma >= 1 && GaussianTable::entries_for(sigma) <= GaussianTable::kMaxEntries)
        table_ = cached_gaussian_table(sigma);
    else
        variance_ = rational_variance_at_least(sigma);
}

GridLaplace GridLaplace::with_scale(double scale) {
    require_positive("scale", scale);
    const double grid = grid_below(scale, kLaplaceGridBits);
    return GridLaplace(grid, rational_scale_at_least(scale / grid * kRoundUp));
}

GridLaplace GridLaplace::mechanism(double l1_sensitivity, double epsilon, std::size_t coordinates) {
    require_positive("l1_sensitivity", l1_sensitivity);
    require_positive("epsilon", epsilon);
    const double grid =
        grid_below(require_finite_scale("l1_sensitivity", l1_sensitivity / epsilon), kLaplaceGridBits);
    const double scale = (l1_sensitivity + static_cast<double>(coordinates) * grid) / epsilon;
    return GridLaplace(grid, rational_scale_at_least(scale / grid * kRoundUp));
}

double GridLaplace::noise(Rng& rng) const {
    return from_grid_units(discrete_laplace(rng, units_), grid_);
}

double GridLaplace::release(double value, Rng& rng) const {
    return from_grid_units(grid_units(value, grid_) + discrete_laplace(rng, units_), grid_);
}

GridGaussian GridGaussian::with_sigma(double sigma) {
    require_positive("sigma", sigma);
    const double grid = grid_below(sigma, kGaussianGridBits);
    return GridGaussian(grid, rational_variance_at_least(sigma / grid * kRoundUp));
}

GridGaussian GridGaussian::mechanism(double l2_sensitivity, double sigma, std::size_t coordinates) {
    require_positive("l2_sensitivity", l2_sensitivity);
    require_positive("sigma", sigma);
    const double grid = grid_below(sigma, kGaussianGridBits);
    const double inflated =
        sigma * (l2_sensitivity + std::sqrt(static_cast<double>(coordinates)) * grid) / l2_sensitivity;
    const double units = inflated / grid * kRoundUp;
    if (units >= 0x1.0p27)
        throw InvalidArgument("the rounding grid would add more than 8x to sigma for " +
                              std::to_string(coordinates) + " coordinates; reduce the number of coordinates");
    return GridGaussian(grid, rational_variance_at_least(units));
}

double GridGaussian::noise(Rng& rng) const {
    return from_grid_units(discrete_gaussian(rng, units_), grid_);
}

double GridGaussian::release(double value, Rng& rng) const {
    return from_grid_units(grid_units(value, grid_) + discrete_gaussian(rng, units_), grid_);
}

double grid_exponential(Rng& rng, double mean) {
    require_positive("mean", mean);
    const double grid = grid_below(mean, kLaplaceGridBits);
    const RationalScale units = rational_scale_at_least(mean / grid * kRoundUp);
    return static_cast<double>(discrete_geometric(rng, units)) * grid;
}

double planar_laplace_radius(Rng& rng, double epsilon) {
    require_positive("epsilon", epsilon);
    const double mean = 1.0 / epsilon;
    return grid_exponential(rng, mean) + grid_exponential(rng, mean);
}

double uniform_angle(Rng& rng) {
    return 2.0 * M_PI * rng.uniform01();
}

} // namespace gazepriv::core
