#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/noise/random.hpp"
#include "core/events/velocity_profile.hpp"

using namespace gazepriv::core;

namespace {

double gauss(double a, double b, double c, double t) {
    return a * std::exp(-(t - b) * (t - b) / (2 * c * c));
}

} // namespace

TEST(VelocityProfile, ExactGaussianSamplesAreRecoveredExactly) {
    for (const auto& [a, b, c, dt] : {std::tuple{450.0, 22.0, 7.0, 3.33}, std::tuple{30.0, -4.0, 2.0, 1.0},
                                      std::tuple{1e4, 100.0, 40.0, 16.6}}) {
        std::vector<double> t, v;
        for (double tau = b - 2.5 * c; tau <= b + 1.5 * c; tau += dt) { // asymmetric, truncated
            t.push_back(tau);
            v.push_back(gauss(a, b, c, tau));
        }
        const VelocityProfile f = fit_velocity_profile(t.data(), v.data(), t.size());
        ASSERT_TRUE(f.ok);
        EXPECT_NEAR(f.a / a, 1, 1e-9);
        EXPECT_NEAR(f.b, b, 1e-9 * c);
        EXPECT_NEAR(f.c / c, 1, 1e-9);
    }
}

TEST(VelocityProfile, NoisyProfilesAreClose) {
    Rng rng(5, 0);
    std::vector<double> t, v;
    for (int k = 0; k < 40; ++k) {
        t.push_back(k);
        // Uniform noise of +-5% of the peak (test randomness only).
        v.push_back(gauss(500, 20, 6, k) + 50 * (rng.uniform01() - 0.5));
    }
    const VelocityProfile f = fit_velocity_profile(t.data(), v.data(), t.size());
    ASSERT_TRUE(f.ok);
    EXPECT_NEAR(f.a, 500, 25);
    EXPECT_NEAR(f.b, 20, 0.5);
    EXPECT_NEAR(f.c, 6, 0.5);
}

TEST(VelocityProfile, FewPointsFallBackToMoments) {
    const double t[] = {0, 10}, v[] = {100, 100};
    const VelocityProfile two = fit_velocity_profile(t, v, 2);
    ASSERT_TRUE(two.ok);
    EXPECT_EQ(two.a, 100);
    EXPECT_EQ(two.b, 5);
    EXPECT_EQ(two.c, 5);
    // Zero, negative and NaN velocities are ignored; fewer than two points leave no profile.
    const double t3[] = {0, 10, 20}, v3[] = {0, 50, std::numeric_limits<double>::quiet_NaN()};
    EXPECT_FALSE(fit_velocity_profile(t3, v3, 3).ok);
    EXPECT_FALSE(fit_velocity_profile(t, v, 0).ok);
}

TEST(VelocityProfile, ConvexDataFallsBackToMoments) {
    // A valley (the log-parabola opens upwards): a = the fastest sample, b and c the v-weighted moments.
    const double t[] = {0, 1, 2, 3, 4}, v[] = {100, 50, 20, 50, 100};
    const VelocityProfile f = fit_velocity_profile(t, v, 5);
    ASSERT_TRUE(f.ok);
    EXPECT_EQ(f.a, 100);
    EXPECT_DOUBLE_EQ(f.b, 2);
    EXPECT_DOUBLE_EQ(f.c, std::sqrt((100 * 4 + 50 * 1 + 0 + 50 * 1 + 100 * 4) / 320.0));
    // Samples on one flank only would extrapolate to a peak far outside them: moments too.
    const double t2[] = {0, 1, 2, 3}, v2[] = {10, 20, 40, 80};
    const VelocityProfile g = fit_velocity_profile(t2, v2, 4);
    ASSERT_TRUE(g.ok);
    EXPECT_EQ(g.a, 80);
    EXPECT_LE(g.b, 3);
}
