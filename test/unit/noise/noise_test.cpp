#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/common/errors.hpp"
#include "core/noise/noise.hpp"
#include "stats.hpp"

using namespace gazepriv::core;
using gazepriv::test::ks_sqrt_n;
using gazepriv::test::normal_cdf;
using gazepriv::test::variance_z;

namespace {

double laplace_cdf(double x, double b) {
    return x < 0 ? 0.5 * std::exp(x / b) : 1 - 0.5 * std::exp(-x / b);
}

bool on_grid(double x, double grid) {
    const double u = x / grid;
    return u == std::nearbyint(u);
}

} // namespace

TEST(GridLaplace, NoiseIsLaplaceOnThePowerOfTwoGrid) {
    const GridLaplace lap = GridLaplace::with_scale(2.0);
    EXPECT_EQ(lap.grid(), std::ldexp(1.0, 1 - 40));
    EXPECT_NEAR(lap.scale() / 2.0, 1.0, 1e-9);
    EXPECT_GE(lap.scale(), 2.0);
    Rng rng(31, 0);
    std::vector<double> xs(300000);
    for (auto& x : xs) {
        x = lap.noise(rng);
        ASSERT_TRUE(on_grid(x, lap.grid()));
    }
    EXPECT_LT(ks_sqrt_n(xs, [&](double x) { return laplace_cdf(x, 2.0); }), 1.95);
    EXPECT_LT(std::fabs(variance_z(xs, 2 * 2.0 * 2.0, 3)), 5);
    EXPECT_GT(std::fabs(variance_z(xs, 2 * 2.1 * 2.1, 3)), 5); // a 5% larger scale is detected
}

TEST(GridLaplace, MechanismAccountsForRoundingAndReleasesOnTheGrid) {
    const GridLaplace m = GridLaplace::mechanism(1.0, 0.5, 1000);
    const double base = 1.0 / 0.5;
    EXPECT_GE(m.scale(), base + 1000 * m.grid() / 0.5); // sensitivity + coordinates * grid, over epsilon
    EXPECT_LT(m.scale() / base - 1, 1e-8);
    Rng rng(32, 0);
    double sum = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
        const double y = m.release(10.0 / 3.0, rng);
        ASSERT_TRUE(on_grid(y, m.grid()));
        sum += y;
    }
    EXPECT_NEAR(sum / n, 10.0 / 3.0, 5 * std::sqrt(2.0) * m.scale() / std::sqrt(n));
    // With a negligible scale the release is the value rounded to the grid.
    const GridLaplace fine = GridLaplace::mechanism(1.0, 1e12, 1);
    EXPECT_NEAR(fine.release(3.14159, rng), 3.14159, 1e-9);
    EXPECT_THROW(GridLaplace::with_scale(1e-10).release(1e300, rng), InvalidArgument);
    EXPECT_THROW(fine.release(NAN, rng), InvalidArgument);
    EXPECT_THROW(GridLaplace::mechanism(1.0, 0.0, 1), InvalidArgument);
}

TEST(GridGaussian, NoiseIsGaussianOnThePowerOfTwoGrid) {
    const GridGaussian g = GridGaussian::with_sigma(3.0);
    EXPECT_NEAR(g.sigma() / 3.0, 1.0, 1e-9);
    EXPECT_GE(g.sigma(), 3.0);
    Rng rng(33, 0);
    std::vector<double> xs(200000);
    for (auto& x : xs) {
        x = g.noise(rng);
        ASSERT_TRUE(on_grid(x, g.grid()));
    }
    EXPECT_LT(ks_sqrt_n(xs, [](double x) { return normal_cdf(x / 3.0); }), 1.95);
    EXPECT_LT(std::fabs(variance_z(xs, 9.0, 0)), 5);
    EXPECT_GT(std::fabs(variance_z(xs, 9.0 * 1.05 * 1.05, 0)), 5);
}

TEST(GridGaussian, MechanismInflatesSigmaOnlyByTheRoundingOfTheGrid) {
    const GridGaussian m = GridGaussian::mechanism(1.0, 5.0, 1000000);
    EXPECT_GE(m.sigma(), 5.0 * (1.0 + 1000 * m.grid()));
    EXPECT_LT(m.sigma() / 5.0 - 1, 1e-3);
    Rng rng(34, 0);
    EXPECT_TRUE(on_grid(m.release(1.0 / 7.0, rng), m.grid()));
}

TEST(Exponential, GridExponentialHasTheRequestedMean) {
    Rng rng(35, 0);
    std::vector<double> xs(300000);
    for (auto& x : xs)
        x = grid_exponential(rng, 2.0);
    EXPECT_LT(ks_sqrt_n(xs, [](double x) { return x < 0 ? 0 : 1 - std::exp(-x / 2.0); }), 1.95);
    EXPECT_NEAR(gazepriv::test::moments(xs).mean, 2.0, 5 * 2.0 / std::sqrt(300000.0));
}

TEST(PlanarLaplace, RadiusIsGammaTwoWithTheKnownQuantiles) {
    Rng rng(36, 0);
    const int n = 300000;
    std::vector<double> xs(n);
    for (auto& x : xs)
        x = planar_laplace_radius(rng, 1.0);
    // C(rho) = 1 - (1 + rho) e^-rho for epsilon = 1; C^-1(0.5) = 1.67835 (doc/privacy/noise.md §5).
    EXPECT_LT(ks_sqrt_n(xs, [](double r) { return r < 0 ? 0 : 1 - (1 + r) * std::exp(-r); }), 1.95);
    EXPECT_NEAR(gazepriv::test::moments(xs).mean, 2.0, 5 * std::sqrt(2.0 / n));
    for (auto [p, q] :
         std::vector<std::pair<double, double>>{{0.1, 0.53181}, {0.5, 1.67835}, {0.9, 3.88972}}) {
        double below = 0;
        for (double x : xs)
            below += x <= q;
        EXPECT_NEAR(below / n, p, 5 * std::sqrt(p * (1 - p) / n)) << p;
    }
    // epsilon scales the radius: mean 2 / epsilon.
    double sum = 0;
    for (int i = 0; i < 100000; ++i)
        sum += planar_laplace_radius(rng, 4.0);
    EXPECT_NEAR(sum / 100000, 0.5, 5 * std::sqrt(2.0 / 16 / 100000));
}

TEST(PlanarLaplace, AnglesAreUniform) {
    Rng rng(37, 0);
    std::vector<double> xs(200000);
    for (auto& x : xs) {
        x = uniform_angle(rng);
        ASSERT_GE(x, 0);
        ASSERT_LT(x, 2 * M_PI);
    }
    EXPECT_LT(ks_sqrt_n(xs, [](double a) { return a / (2 * M_PI); }), 1.95);
}
