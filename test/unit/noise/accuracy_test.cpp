#include <gtest/gtest.h>

#include <cmath>

#include "core/common/errors.hpp"
#include "core/noise/accuracy.hpp"
#include "core/noise/calibration.hpp"

using namespace gazepriv::core;

TEST(Accuracy, ClosedFormsOfTheThreeNoises) {
    const Accuracy laplace = noise_accuracy(NoiseKind::Laplace, 2, 0.95);
    EXPECT_NEAR(laplace.noise_sd, 2 * std::sqrt(2.0), 1e-12);
    EXPECT_NEAR(laplace.half_width, 2 * std::log(20.0), 1e-12);
    const Accuracy gaussian = noise_accuracy(NoiseKind::Gaussian, 3, 0.95);
    EXPECT_NEAR(gaussian.noise_sd, 3, 1e-12);
    EXPECT_NEAR(gaussian.half_width, 3 * 1.959963984540054, 1e-9);
    EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-12);
    EXPECT_NEAR(normal_quantile(0.5), 0, 1e-12);
}

TEST(Accuracy, DiscreteLaplaceHalfWidthIsTheSmallestIntegerThatHolds) {
    for (double scale : {0.3, 1.0, 2.5, 10.0, 100.0}) {
        const double q = std::exp(-1 / scale);
        // The two-sided tail by direct summation of the pmf (1 - q) / (1 + q) q^|x|.
        auto tail = [&](int a) {
            double inside = 0;
            for (int x = -a; x <= a; ++x)
                inside += (1 - q) / (1 + q) * std::pow(q, std::abs(x));
            return 1 - inside;
        };
        const Accuracy acc = noise_accuracy(NoiseKind::DiscreteLaplace, scale, 0.95);
        const int a = static_cast<int>(acc.half_width);
        EXPECT_EQ(acc.half_width, a);
        EXPECT_LE(tail(a), 0.05 + 1e-12) << scale;
        if (a > 0)
            EXPECT_GT(tail(a - 1), 0.05) << scale;
        double variance = 0; // sum x^2 p(x), truncated far in the tail
        for (int x = -200000; x <= 200000 && scale < 50; ++x)
            variance += x * static_cast<double>(x) * (1 - q) / (1 + q) * std::pow(q, std::abs(x));
        if (scale < 50)
            EXPECT_NEAR(acc.noise_sd, std::sqrt(variance), 1e-6 * std::sqrt(variance));
    }
}

TEST(Accuracy, DiscreteGaussianHalfWidthIsTheSmallestIntegerThatHolds) {
    for (double sigma : {0.2, 1.0, 3.0, 25.0, 400.0}) {
        auto inside = [&](long a) { // P(|Z| <= a) by direct summation over +-40 sigma
            double in = 0, total = 0;
            const long r = static_cast<long>(40 * sigma) + 2;
            for (long x = -r; x <= r; ++x) {
                const double m = std::exp(-double(x) * x / (2 * sigma * sigma));
                total += m;
                if (std::labs(x) <= a)
                    in += m;
            }
            return in / total;
        };
        const long a = static_cast<long>(discrete_gaussian_half_width(sigma, 0.95));
        EXPECT_GE(inside(a), 0.95 - 1e-12) << sigma;
        if (a > 0)
            EXPECT_LT(inside(a - 1), 0.95) << sigma;
    }
    EXPECT_NEAR(discrete_gaussian_half_width(1e6, 0.95), std::ceil(1e6 * 1.959963984540054), 1);
    EXPECT_THROW(discrete_gaussian_half_width(0, 0.95), InvalidArgument);
    EXPECT_THROW(discrete_gaussian_half_width(1, 1), InvalidArgument);
}

TEST(Accuracy, EpsilonForAccuracyInvertsEachNoise) {
    EXPECT_NEAR(epsilon_for_accuracy(NoiseKind::Laplace, 1, std::log(20.0), 0.95, 0), 1, 1e-12);
    // release_count within +- 5 with 95 %: the smallest epsilon whose half-width is 5.
    const double e = epsilon_for_accuracy(NoiseKind::DiscreteLaplace, 1, 5, 0.95, 0);
    EXPECT_LE(noise_accuracy(NoiseKind::DiscreteLaplace, 1 / e, 0.95).half_width, 5);
    EXPECT_GT(noise_accuracy(NoiseKind::DiscreteLaplace, 1 / (0.99 * e), 0.95).half_width, 5);
    EXPECT_EQ(epsilon_for_accuracy(NoiseKind::DiscreteLaplace, 1, 5.7, 0.95, 0), e);
    const double g = epsilon_for_accuracy(NoiseKind::Gaussian, 1, 2, 0.95, 1e-5);
    EXPECT_NEAR(gaussian_sigma(1, g, 1e-5, GaussianCalibration::Analytic) * 1.959963984540054, 2, 1e-6);
}

TEST(Accuracy, RefusesBadArguments) {
    for (double bad : {0.0, -1.0, double(NAN), double(INFINITY)})
        EXPECT_THROW(noise_accuracy(NoiseKind::Laplace, bad, 0.95), InvalidArgument);
    for (double bad : {0.0, 1.0, double(NAN), -0.5, 1.5})
        EXPECT_THROW(noise_accuracy(NoiseKind::Gaussian, 1, bad), InvalidArgument);
    EXPECT_THROW(epsilon_for_accuracy(NoiseKind::Laplace, 1, 0, 0.95, 0), InvalidArgument);
    EXPECT_THROW(epsilon_for_accuracy(NoiseKind::Gaussian, 1, 1, 0.95, 0), InvalidArgument);
    EXPECT_THROW(epsilon_for_accuracy(NoiseKind::Laplace, NAN, 1, 0.95, 0), InvalidArgument);
    EXPECT_THROW(parse_noise_kind("cauchy"), InvalidArgument);
    EXPECT_EQ(noise_accuracy(NoiseKind::DiscreteLaplace, 5e-324, 0.95).half_width, 0); // no noise at all
}

TEST(Accuracy, PlanarLaplaceRadiusQuantileSolvesTheGammaTwoTail) {
    const double z = planar_laplace_radius_quantile(0.95);
    EXPECT_NEAR(z, 4.743864518, 1e-8);
    EXPECT_LE((1 + z) * std::exp(-z), 0.05); // rounded up: the confidence holds
    const double below = z * (1 - 1e-9);
    EXPECT_GT((1 + below) * std::exp(-below), 0.05); // and not by more than the rounding room
    EXPECT_NEAR(planar_laplace_radius_quantile(0.5), 1.678346990, 1e-8);
    EXPECT_THROW(planar_laplace_radius_quantile(1), InvalidArgument);
    EXPECT_THROW(planar_laplace_radius_quantile(NAN), InvalidArgument);
}
