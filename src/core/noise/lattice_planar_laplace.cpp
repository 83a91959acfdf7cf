#include "core/noise/lattice_planar_laplace.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/noise/accuracy.hpp"
#include "core/noise/fast_exact_noise.hpp"
#include "core/noise/noise.hpp"

namespace gazepriv::core {

namespace {

constexpr int kLatticeBits = 16;       // lattice = 2^(floor(log2 scale) - 16): in (2^-17, 2^-16] scales
constexpr int kRadiusGridBits = 40;    // grid of the radius exponentials (noise.cpp, fast_exact_noise.cpp)
constexpr double kRhoMaxScales = 1024; // P(rho > 1024 scales) = 1025 e^-1024 < 2^-1000
constexpr double kFloatErrorPerRho = 0x1.0p-47; // >= 2.8 x the bound on the polar computation's error
constexpr double kClampUnits = 0x1.0p62;        // inputs clamped to +-2^62 lattice steps (int64)

// ln((1 + kappa)/(1 - kappa)) for the worst case over all scales, so that no exp/log is needed per
// release. With s the nominal scale r/epsilon and epsilon_noise in [epsilon/(2r), epsilon/r], the noise
// scale is at most 2s, so coupling <= 1024 (2s) 2^-47 + 2 (2^-40 (2s)) = (2^-36 + 2^-38) s, and the
// lattice is above 2^-17 s: q = coupling / lattice <= 2^-19 + 2^-21. The density spread over a grown cell
// is exp(epsilon/r sqrt(2) (lattice + 2 coupling)) <= exp(sqrt(2) 2^-16 (1 + 2q)) <= 1 + 2^-15.
double worst_case_float_loss() {
    static_assert(kRhoMaxScales * 2 * kFloatErrorPerRho + 2 * 2 * 0x1.0p-40 == 0x1.0p-36 + 0x1.0p-38);
    static_assert(kRadiusGridBits == 40 && kLatticeBits == 16);
    const double q = (0x1.0p-36 + 0x1.0p-38) * 0x1.0p17;
    const double kappa = ((1 + 2 * q) * (1 + 2 * q) - 1) * (1 + 0x1.0p-15);
    return std::log1p(2 * kappa / (1 - kappa)) * (1 + 0x1.0p-20); // room for this computation's rounding
}

const double kFloatLoss = worst_case_float_loss(); // 1.9e-5

} // namespace

std::optional<LatticePlanarLaplace> LatticePlanarLaplace::for_budget(double r, double epsilon) {
    if (!(r > 0) || !(epsilon > 0) || !std::isfinite(r) || !std::isfinite(epsilon))
        return std::nullopt;
    const double scale = r / epsilon; // the nominal noise scale
    if (!(scale >= 0x1.0p-900 && scale <= 0x1.0p900) || !(kFloatLoss <= epsilon / 2))
        return std::nullopt;
    const double lattice = fast_grid_below(scale, kLatticeBits);
    const double epsilon_noise = (epsilon - kFloatLoss) / (r + M_SQRT2 * lattice) * (1 - 0x1.0p-40);
    if (!(1 / epsilon_noise <= 2 * scale)) // the bounds above assume a noise scale of at most 2s
        return std::nullopt;
    return LatticePlanarLaplace(lattice, epsilon_noise, epsilon - epsilon_noise * r);
}

PlanarPoint LatticePlanarLaplace::release(double x, double y, Rng& rng) const {
    const double half = radius_half_.draw(rng);
    const double rho = half + radius_half_.draw(rng); // fast_planar_laplace_radius(rng, epsilon_noise_)
    const double theta = uniform_angle(rng);
    // Lattice units as integers: the input rounded (x / lattice is exact, the lattice being a power of
    // two), the noise rounded, the sum exact. Converting the sum back to a double rounds it only beyond
    // 2^53 steps, a function of the exact lattice output (post-processing).
    const auto noise_x = static_cast<std::int64_t>(std::nearbyint(rho * std::cos(theta) / lattice_));
    const auto noise_y = static_cast<std::int64_t>(std::nearbyint(rho * std::sin(theta) / lattice_));
    const auto at_x =
        static_cast<std::int64_t>(std::nearbyint(std::clamp(x / lattice_, -kClampUnits, kClampUnits)));
    const auto at_y =
        static_cast<std::int64_t>(std::nearbyint(std::clamp(y / lattice_, -kClampUnits, kClampUnits)));
    return {static_cast<double>(at_x + noise_x) * lattice_, static_cast<double>(at_y + noise_y) * lattice_};
}

// The released point is lattice (round(x / lattice) + round(n / lattice)) with n the computed noise vector,
// so it is at most |n| + 2 (lattice / sqrt 2) = |n| + sqrt(2) lattice from (x, y): each rounding moves a
// coordinate by at most half a step. |n| <= rho (1 + 2^-50): cos and sin within an ulp, the products within
// another. Each half of rho is grid floor((t/s) E) <= grid (t/s) E with E ~ Exp(1) and grid (t/s) the
// sampler's mean, at most 1/epsilon_noise (1 + 2^-47) (FastGridExponential inflates mean/grid by 2^-48;
// 1/epsilon_noise and that product round by 2^-53 each; rejecting draws above 2^62 only shortens the
// tail); the sum of the halves rounds by 2^-53 more. So |n| <= (E1 + E2)/epsilon_noise
// (1 + 2^-46), and P(E1 + E2 <= z) >= confidence for z the Gamma(2) quantile: the factor 1 + 2^-40 covers
// all of these relative errors and this function's own rounding.
double LatticePlanarLaplace::accuracy_radius_at_quantile(double z) const {
    return (z / epsilon_noise_ + M_SQRT2 * lattice_) * (1 + 0x1.0p-40);
}

double LatticePlanarLaplace::accuracy_radius(double confidence) const {
    return accuracy_radius_at_quantile(planar_laplace_radius_quantile(confidence));
}

} // namespace gazepriv::core
