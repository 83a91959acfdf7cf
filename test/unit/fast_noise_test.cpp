#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/discrete.hpp"
#include "core/errors.hpp"
#include "core/fast_noise.hpp"
#include "core/noise.hpp"
#include "stats.hpp"

using namespace gazepriv::core;
using gazepriv::test::chi_square_z;
using gazepriv::test::ks_sqrt_n;

namespace {

double discrete_laplace_pmf(std::int64_t x, double scale) {
    const double q = std::exp(-1 / scale);
    return (1 - q) / (1 + q) * std::pow(q, std::fabs(static_cast<double>(x)));
}

double geometric_pmf(std::int64_t x, double scale) {
    const double q = std::exp(-1 / scale);
    return x < 0 ? 0 : (1 - q) * std::pow(q, static_cast<double>(x));
}

} // namespace

TEST(FastNoise, DiscreteLaplaceHasTheReferenceDistribution) {
    Rng rng(41, 0);
    for (double scale : {0.7, 3.0, 40.0}) {
        const RationalScale units = rational_scale_at_least(scale);
        std::vector<std::int64_t> xs(300000);
        for (auto& x : xs)
            x = fast_discrete_laplace(rng, units);
        const auto lo = static_cast<std::int64_t>(-12 * scale), hi = static_cast<std::int64_t>(12 * scale);
        EXPECT_LT(std::fabs(chi_square_z(
                      xs, [&](std::int64_t x) { return discrete_laplace_pmf(x, scale); }, lo, hi)),
                  5)
            << scale;
        // A 5% larger scale is detected.
        EXPECT_GT(chi_square_z(
                      xs, [&](std::int64_t x) { return discrete_laplace_pmf(x, scale * 1.05); }, lo, hi),
                  5)
            << scale;
    }
}

TEST(FastNoise, GeometricHasTheReferenceDistribution) {
    Rng rng(42, 0);
    const double scale = 2.5;
    const RationalScale units = rational_scale_at_least(scale);
    std::vector<std::int64_t> xs(300000);
    for (auto& x : xs)
        x = static_cast<std::int64_t>(fast_discrete_geometric(rng, units));
    EXPECT_LT(std::fabs(chi_square_z(
                  xs, [&](std::int64_t x) { return geometric_pmf(x, scale); }, 0, 40)),
              5);
    EXPECT_GT(chi_square_z(
                  xs, [&](std::int64_t x) { return geometric_pmf(x, scale * 1.05); }, 0, 40),
              5);
    // The reference sampler, for comparison on the same bins.
    std::vector<std::int64_t> ref(300000);
    for (auto& x : ref)
        x = static_cast<std::int64_t>(discrete_geometric(rng, units));
    EXPECT_LT(std::fabs(chi_square_z(
                  ref, [&](std::int64_t x) { return geometric_pmf(x, scale); }, 0, 40)),
              5);
}

TEST(FastNoise, LargeScalesTakeTheBoundaryPathAndStayExponential) {
    // Scale 2^52 in units of 1: floor(lambda E) needs the digits after the first 64 bits of the fraction
    // once in 2^12 draws, so the exact boundary comparison runs here.
    Rng rng(43, 0);
    const double scale = std::ldexp(0.7, 52);
    const RationalScale units = rational_scale_at_least(scale);
    std::vector<double> xs(200000);
    for (auto& x : xs)
        x = static_cast<double>(fast_discrete_geometric(rng, units)) / scale;
    EXPECT_LT(ks_sqrt_n(xs, [](double x) { return x < 0 ? 0 : 1 - std::exp(-x); }), 1.95);
    EXPECT_GT(ks_sqrt_n(xs, [](double x) { return x < 0 ? 0 : 1 - std::exp(-x / 1.05); }), 1.95);
}

TEST(FastNoise, RadiusIsPlanarLaplaceOnTheSameGridAsTheReference) {
    Rng rng(44, 0);
    const int n = 300000;
    std::vector<double> xs(n);
    const FastGridExponential half = FastGridExponential::with_mean(1.0);
    for (auto& x : xs) {
        x = fast_planar_laplace_radius(rng, 1.0);
        ASSERT_EQ(std::nearbyint(x / half.grid()), x / half.grid()); // on the 2^-40 grid
    }
    EXPECT_EQ(half.grid(), std::ldexp(1.0, -40));
    // C(rho) = 1 - (1 + rho) e^-rho for epsilon = 1; C^-1(0.5) = 1.67835 (algorithms.md 3.2).
    EXPECT_LT(ks_sqrt_n(xs, [](double r) { return r < 0 ? 0 : 1 - (1 + r) * std::exp(-r); }), 1.95);
    EXPECT_GT(ks_sqrt_n(xs, [](double r) { return r < 0 ? 0 : 1 - (1 + r / 1.05) * std::exp(-r / 1.05); }),
              1.95);
    EXPECT_NEAR(gazepriv::test::moments(xs).mean, 2.0, 5 * std::sqrt(2.0 / n));
    for (auto [p, q] : std::vector<std::pair<double, double>>{
             {0.1, 0.53181}, {0.5, 1.67835}, {0.9, 3.88972}, {0.99, 6.63835}}) {
        double below = 0;
        for (double x : xs)
            below += x <= q;
        EXPECT_NEAR(below / n, p, 5 * std::sqrt(p * (1 - p) / n)) << p;
    }
    // The reference sampler draws the same distribution (two-sample check through the same CDF).
    std::vector<double> ref(100000);
    for (auto& x : ref)
        x = planar_laplace_radius(rng, 1.0);
    EXPECT_LT(ks_sqrt_n(ref, [](double r) { return r < 0 ? 0 : 1 - (1 + r) * std::exp(-r); }), 1.95);
}

TEST(FastNoise, GridLaplaceReleaseMatchesTheMechanism) {
    const GridLaplace m = GridLaplace::mechanism(1.0, 0.5, 1);
    Rng rng(45, 0);
    std::vector<double> xs(300000);
    for (auto& x : xs) {
        x = fast_grid_laplace_release(m, 10.0 / 3.0, rng);
        ASSERT_EQ(std::nearbyint(x / m.grid()), x / m.grid());
    }
    const double b = m.scale(), c = std::nearbyint(10.0 / 3.0 / m.grid()) * m.grid();
    auto cdf = [&](double x, double scale) {
        return x < c ? 0.5 * std::exp((x - c) / scale) : 1 - 0.5 * std::exp(-(x - c) / scale);
    };
    EXPECT_LT(ks_sqrt_n(xs, [&](double x) { return cdf(x, b); }), 1.95);
    EXPECT_GT(ks_sqrt_n(xs, [&](double x) { return cdf(x, b * 1.05); }), 1.95);
    EXPECT_THROW(fast_grid_laplace_release(m, NAN, rng), InvalidArgument);
    EXPECT_THROW(fast_grid_laplace_release(GridLaplace::with_scale(1e-10), 1e300, rng), InvalidArgument);
}

TEST(FastNoise, BitLevelHelpersMatchTheReference) {
    Rng rng(46, 0);
    for (int i = 0; i < 100000; ++i) {
        const double v = std::ldexp(1 + rng.uniform01(), static_cast<int>(rng.uniform_below(200)) - 100);
        ASSERT_EQ(fast_grid_below(v, 40), grid_below(v, 40)) << v;
        ASSERT_EQ(fast_grid_below(v, 16), grid_below(v, 16)) << v;
        const double scale = std::ldexp(1 + rng.uniform01(), static_cast<int>(rng.uniform_below(52)));
        const RationalScale a = fast_rational_scale_at_least(scale), b = rational_scale_at_least(scale);
        ASSERT_EQ(a.t, b.t) << scale;
        ASSERT_EQ(a.s, b.s) << scale;
    }
    for (double v : {0x1.0p-1074, 0x1.0p-1030, 1e300, 0x1.0p52})
        EXPECT_EQ(fast_grid_below(v, 40), grid_below(v, 40)) << v;
    EXPECT_EQ(fast_rational_scale_at_least(0.3).t, rational_scale_at_least(0.3).t);
}
