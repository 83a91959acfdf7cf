#include <gtest/gtest.h>

#include <cmath>

#include "core/noise/calibration.hpp"
#include "core/noise/discrete_gaussian_calibration.hpp"
#include "core/common/errors.hpp"
#include "core/noise/gaussian_table.hpp"

using namespace gazepriv::core;

namespace {

// CKS 2020 Thm 7: the exact delta of x + N_Z(0, s^2) for an integer sensitivity d in one dimension:
// delta = P[X >= lo] - e^eps P[X >= hi], lo = floor(eps s^2 / d - d / 2) + 1, hi = floor(eps s^2 / d + d / 2)
// + 1.
double discrete_delta(double s, double eps, int d) {
    const double s2 = s * s;
    auto w = [&](double x) { return std::exp(-x * x / (2 * s2)); };
    double z = 0;
    const int limit = static_cast<int>(60 * s) + 60;
    for (int x = -limit; x <= limit; ++x)
        z += w(x);
    const long lo = static_cast<long>(std::floor(eps * s2 / d - d / 2.0)) + 1;
    const long hi = static_cast<long>(std::floor(eps * s2 / d + d / 2.0)) + 1;
    double a = 0, b = 0;
    for (long x = lo; x < lo + limit * 2; ++x)
        a += w(static_cast<double>(x)) / z;
    for (long x = hi; x < hi + limit * 2; ++x)
        b += w(static_cast<double>(x)) / z;
    return a - std::exp(eps) * b;
}

} // namespace

TEST(DiscreteGaussianCalibration, TheDiscreteDeltaCanExceedTheContinuousOne) {
    // Why the carry-over needs a correction at all: sigma 2, sensitivity 1, epsilon 2.
    EXPECT_GT(discrete_delta(2, 2, 1), 1.1 * gaussian_delta(1, 2, 2));
}

TEST(DiscreteGaussianCalibration, TheLemmaBoundsTheExactDiscreteDeltaInOneDimension) {
    // e^gamma delta_c(eps; c) + (e^{2 gamma} - 1) e^eps >= the exact discrete delta, for s^2 = c^2 + t^2.
    for (double t : {1.0, 1.2, 1.5}) {
        const double eta = theta_deviation(t);
        const double gamma = std::log((1 + eta) / (1 - eta));
        for (double s : {1.3, 1.6, 2.0, 3.0, 5.0, 8.0}) {
            if (s <= t)
                continue;
            const double c = std::sqrt(s * s - t * t);
            for (double eps : {0.1, 0.5, 1.0, 2.0, 4.0})
                for (int d : {1, 2, 3}) {
                    const double certified =
                        std::exp(gamma) * gaussian_delta(d, c, eps) + std::expm1(2 * gamma) * std::exp(eps);
                    EXPECT_GE(certified, discrete_delta(s, eps, d))
                        << "t " << t << " s " << s << " eps " << eps << " d " << d;
                }
        }
    }
}

TEST(DiscreteGaussianCalibration, ThetaDeviationMatchesItsSeries) {
    for (double t : {0.6, 1.0, 1.4}) {
        double direct = 0;
        for (int k = 1; k < 50; ++k)
            direct += 2 * std::exp(-2 * M_PI * M_PI * t * t * k * k);
        EXPECT_NEAR(theta_deviation(t) / direct, 1, 1e-12);
    }
}

TEST(DiscreteGaussianCalibration, LargeSensitivityHonoursTheNamedCalibration) {
    const double l2 = 654.4; // a 562 x 762 map with cap 1
    for (auto method :
         {GaussianCalibration::Analytic, GaussianCalibration::Liu2019, GaussianCalibration::DworkRoth}) {
        const double eps = method == GaussianCalibration::DworkRoth ? 0.5 : 1.0;
        const DiscreteGaussianPlan p = plan_discrete_gaussian(l2, eps, 1e-5, method, 428244);
        EXPECT_EQ(p.certificate, DiscreteGaussianCertificate::ContinuousCarryOver);
        EXPECT_FALSE(p.exact_sampler);
        EXPECT_NEAR(p.sigma / gaussian_sigma(l2, eps, 1e-5, method), 1, 1e-6);
        EXPECT_GT(p.tau, 1);
        EXPECT_LT(p.tau, 2);
        EXPECT_NEAR(p.sigma * p.sigma, p.continuous_sigma * p.continuous_sigma + p.tau * p.tau,
                    1e-6 * p.sigma * p.sigma);
        EXPECT_NEAR(p.sampler_distance, 428244 * GaussianTable::kStatisticalDistance, 1e-25);
        EXPECT_NEAR(p.delta_sampler, (1 + std::exp(eps)) * p.sampler_distance, 1e-20);
        EXPECT_LE(p.delta_sampler + p.delta_discreteness, 1e-3 * 1e-5);
        EXPECT_LE(std::exp(log_discreteness_delta(p.tau, eps, 1e-5, 428244)), p.delta_discreteness);
        EXPECT_NEAR(p.rho, l2 * l2 / (2 * p.sigma * p.sigma), 1e-12);
    }
}

TEST(DiscreteGaussianCalibration, HugeEpsilonUsesTheExactZcdpRouteAndAlmostNoNoise) {
    const DiscreteGaussianPlan p = plan_discrete_gaussian(4, 1e9, 1e-5, GaussianCalibration::Analytic, 16);
    EXPECT_EQ(p.certificate, DiscreteGaussianCertificate::Zcdp);
    EXPECT_TRUE(p.exact_sampler);
    EXPECT_LT(p.sigma, 1e-3);
    EXPECT_LE(zcdp_epsilon(p.rho, 1e-5), 1e9 * (1 + 1e-12));
}

TEST(DiscreteGaussianCalibration, TinyDeltaFallsBackToTheExactSampler) {
    const DiscreteGaussianPlan p =
        plan_discrete_gaussian(1000, 1, 1e-12, GaussianCalibration::Analytic, 1000000);
    EXPECT_TRUE(p.exact_sampler);
    EXPECT_EQ(p.sampler_distance, 0);
    EXPECT_EQ(p.delta_sampler, 0);
}

TEST(DiscreteGaussianCalibration, ZcdpRhoForInvertsTheConversion) {
    for (double eps : {0.1, 1.0, 5.0}) {
        const double rho = zcdp_rho_for(eps, 1e-6);
        EXPECT_LE(zcdp_epsilon(rho, 1e-6), eps);
        EXPECT_GT(zcdp_epsilon(rho * 1.001, 1e-6), eps);
    }
}

TEST(DiscreteGaussianCalibration, ScaledSensitivityFollowsTheSameRule) {
    const DiscreteGaussianPlan p = plan_discrete_gaussian(20, 1, 1e-5, GaussianCalibration::Analytic, 400);
    const DiscreteGaussianPlan p3 = plan_discrete_gaussian(60, 1, 1e-5, GaussianCalibration::Analytic, 400);
    EXPECT_NEAR(p.sigma_for_scaled_sensitivity(3) / p3.sigma, 1, 1e-9);
}

TEST(DiscreteGaussianCalibration, BadParametersAreRefused) {
    EXPECT_THROW(plan_discrete_gaussian(0, 1, 1e-5, GaussianCalibration::Analytic, 1), InvalidArgument);
    EXPECT_THROW(plan_discrete_gaussian(1, 0, 1e-5, GaussianCalibration::Analytic, 1), InvalidArgument);
    EXPECT_THROW(plan_discrete_gaussian(1, 1, 1, GaussianCalibration::Analytic, 1), InvalidArgument);
    EXPECT_THROW(plan_discrete_gaussian(1, 2, 1e-5, GaussianCalibration::DworkRoth, 1), InvalidArgument);
}
