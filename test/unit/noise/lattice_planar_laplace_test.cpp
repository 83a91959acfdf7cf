#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/noise/lattice_planar_laplace.hpp"
#include "stats.hpp"

using namespace gazepriv::core;
using gazepriv::test::ks_sqrt_n;

TEST(LatticePlanarLaplace, CalibrationPaysForRoundingAndFloatingPoint) {
    const auto m = LatticePlanarLaplace::for_budget(30.0, 0.25); // 30 px, epsilon 0.25
    ASSERT_TRUE(m.has_value());
    const double scale = 30.0 / 0.25;
    EXPECT_GT(m->lattice(), std::ldexp(scale, -17));
    EXPECT_LE(m->lattice(), std::ldexp(scale, -16));
    EXPECT_EQ(std::ldexp(1.0, std::ilogb(m->lattice())), m->lattice()); // a power of two
    // epsilon_noise (r + sqrt(2) lattice) + float loss <= epsilon, with a deduction of about 2e-5.
    EXPECT_LE(m->epsilon_noise() * (30.0 + M_SQRT2 * m->lattice()), 0.25 - 1.9e-5);
    EXPECT_GT(m->deduction(), 1.9e-5);
    EXPECT_LT(m->deduction(), 6e-5);
    // Budgets too small to pay for the floating point, or scales out of range, publish nothing.
    EXPECT_FALSE(LatticePlanarLaplace::for_budget(30.0, 3e-5).has_value());
    EXPECT_FALSE(LatticePlanarLaplace::for_budget(1e300, 1e-300).has_value());
    EXPECT_FALSE(LatticePlanarLaplace::for_budget(0.0, 1.0).has_value());
    EXPECT_FALSE(LatticePlanarLaplace::for_budget(1.0, NAN).has_value());
}

TEST(LatticePlanarLaplace, DisplacementIsPlanarLaplaceAndOutputsLieOnTheLattice) {
    const auto m = LatticePlanarLaplace::for_budget(2.0, 1.0);
    ASSERT_TRUE(m.has_value());
    Rng rng(51, 0);
    const int n = 300000;
    std::vector<double> radius(n), angle(n);
    const double x0 = 100.0 / 3.0, y0 = -7.1;
    for (int i = 0; i < n; ++i) {
        const PlanarPoint p = m->release(x0, y0, rng);
        ASSERT_EQ(std::nearbyint(p.x / m->lattice()), p.x / m->lattice());
        ASSERT_EQ(std::nearbyint(p.y / m->lattice()), p.y / m->lattice());
        const double dx = p.x - x0, dy = p.y - y0;
        radius[i] = std::hypot(dx, dy);
        angle[i] = std::atan2(dy, dx);
    }
    // Radius: Gamma(2) with scale 1/epsilon_noise (mean 2r/epsilon, here 4.0003); the lattice (2^-16 of
    // the scale) is far below what 300,000 draws can see.
    const double e = m->epsilon_noise();
    auto gamma2 = [](double r, double eps) { return r < 0 ? 0 : 1 - (1 + eps * r) * std::exp(-eps * r); };
    EXPECT_LT(ks_sqrt_n(radius, [&](double r) { return gamma2(r, e); }), 1.95);
    EXPECT_GT(ks_sqrt_n(radius, [&](double r) { return gamma2(r, e / 1.05); }), 1.95);
    EXPECT_NEAR(gazepriv::test::moments(radius).mean, 2 / e, 5 * std::sqrt(2.0 / n) / e);
    EXPECT_NEAR(2 / e, 4.0, 4.0 * 1e-4);
    // Angle: uniform on (-pi, pi].
    EXPECT_LT(ks_sqrt_n(angle, [](double a) { return (a + M_PI) / (2 * M_PI); }), 1.95);
}

TEST(LatticePlanarLaplace, HugeBudgetsReleaseTheLatticePointOfTheInput) {
    const auto m = LatticePlanarLaplace::for_budget(1.0, 1e9);
    ASSERT_TRUE(m.has_value());
    Rng rng(52, 0);
    const PlanarPoint p = m->release(0.123456, 0.654321, rng);
    EXPECT_NEAR(p.x, 0.123456, 1e-6);
    EXPECT_NEAR(p.y, 0.654321, 1e-6);
    // Ordinary coordinates are not clamped even when the lattice is tiny (here 2^-46) ...
    const PlanarPoint far = m->release(12345.678, -9876.5, rng);
    EXPECT_NEAR(far.x, 12345.678, 1e-6);
    EXPECT_NEAR(far.y, -9876.5, 1e-6);
    // ... only absurd ones, beyond 2^62 lattice steps (the integer arithmetic stays exact).
    const PlanarPoint q = m->release(1e300, -1e300, rng);
    EXPECT_NEAR(q.x / std::ldexp(m->lattice(), 62), 1.0, 1e-9);
    EXPECT_NEAR(q.y / std::ldexp(m->lattice(), 62), -1.0, 1e-9);
}

TEST(LatticePlanarLaplace, AccuracyRadiusHoldsAndIsTight) {
    // From a tiny budget (lattice and exponential grids coarse in absolute terms) to a huge one; inputs
    // off the lattice so that rounding the input counts too.
    for (const auto& [r, epsilon] :
         std::vector<std::pair<double, double>>{{1.0, 1e-4}, {0.05, 0.25}, {1.0, 1e9}}) {
        const auto m = LatticePlanarLaplace::for_budget(r, epsilon);
        ASSERT_TRUE(m.has_value());
        const double radius = m->accuracy_radius(0.95);
        EXPECT_NEAR(radius * m->epsilon_noise(), 4.743864518, 1e-3);
        Rng rng(53, 0);
        const int n = 100000;
        int within = 0;
        std::vector<double> ratio(n);
        for (int i = 0; i < n; ++i) {
            const double x0 = 3.3 + rng.uniform01() * m->lattice(), y0 = -1.7;
            const PlanarPoint p = m->release(x0, y0, rng);
            ratio[i] = std::hypot(p.x - x0, p.y - y0) / radius;
            within += ratio[i] <= 1;
        }
        const double se = std::sqrt(0.95 * 0.05 / n);
        EXPECT_GT(within / double(n), 0.95 - 4 * se) << epsilon;
        EXPECT_LT(within / double(n), 0.95 + 4 * se) << epsilon;
    }
}
