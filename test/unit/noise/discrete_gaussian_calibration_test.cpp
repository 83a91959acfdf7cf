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

TEST(DiscreteGaussianCalibration, ExactDeltaMatchesTheClosedForm) {
    for (double s : {0.8, 1.3, 2.0, 3.7, 8.0, 20.0})
        for (double eps : {0.1, 1.0, 3.0})
            for (int d : {1, 2, 5}) {
                const double reference = discrete_delta(s, eps, d);
                const double exact = discrete_gaussian_delta(s, eps, d);
                EXPECT_GE(exact, reference * (1 - 1e-9)) << s << " " << eps << " " << d;
                EXPECT_LE(exact, reference * (1 + 1e-6) + 1e-200) << s << " " << eps << " " << d;
            }
    EXPECT_THROW(discrete_gaussian_delta(40, 1, 1), InvalidArgument);
    EXPECT_THROW(discrete_gaussian_delta(2, 1, 0), InvalidArgument);
}

// The smallest sigma any valid route gives is used (issue 20's review): the zCDP route whenever it is
// smaller than the carry-over, not only when it is below tau.
TEST(DiscreteGaussianCalibration, TheZcdpRouteIsUsedWheneverItIsSmaller) {
    const DiscreteGaussianPlan p = plan_discrete_gaussian(4, 10, 1e-5, GaussianCalibration::Analytic, 16);
    EXPECT_GT(std::hypot(p.continuous_sigma, p.tau), 2.45); // the carry-over: 2.456
    EXPECT_EQ(p.certificate, DiscreteGaussianCertificate::Zcdp);
    EXPECT_NEAR(p.sigma, 2.118, 1e-3);
    EXPECT_LE(zcdp_epsilon(p.rho, 1e-5 - p.delta_sampler), 10 * (1 + 1e-12));
    EXPECT_EQ(p.delta_discreteness, 0);
}

// In one dimension the exact delta of the discrete Gaussian (CKS Thm 7) gives the smallest sigma.
TEST(DiscreteGaussianCalibration, OneDimensionUsesTheExactMinimum) {
    const DiscreteGaussianPlan p = plan_discrete_gaussian(1, 3, 1e-5, GaussianCalibration::Analytic, 1);
    EXPECT_NEAR(std::hypot(p.continuous_sigma, p.tau), 1.864, 1e-3); // what the carry-over would use
    EXPECT_EQ(p.certificate, DiscreteGaussianCertificate::ExactOneDimensional);
    EXPECT_NEAR(p.sigma, 1.352, 1e-3);
    // Valid and minimal by the independent closed form, with the sampler's reserve taken out of delta.
    EXPECT_LE(discrete_delta(p.sigma, 3, 1) + p.delta_sampler, 1e-5);
    EXPECT_GT(discrete_delta(p.sigma * (1 - 1e-4), 3, 1), 1e-5 - p.delta_sampler);
    // Every integer shift up to l2 is covered: a cap of 3 in one cell.
    const DiscreteGaussianPlan p3 = plan_discrete_gaussian(3, 2, 1e-6, GaussianCalibration::Analytic, 1);
    EXPECT_EQ(p3.certificate, DiscreteGaussianCertificate::ExactOneDimensional);
    for (int shift : {1, 2, 3})
        EXPECT_LE(discrete_delta(p3.sigma, 2, shift) + p3.delta_sampler, 1e-6) << shift;
    // Never more noise than the named calibration's carry-over at any epsilon.
    for (double eps : {0.05, 0.3, 1.0, 4.0, 20.0}) {
        const DiscreteGaussianPlan q = plan_discrete_gaussian(2, eps, 1e-6, GaussianCalibration::Analytic, 1);
        EXPECT_LE(q.sigma, std::hypot(q.continuous_sigma, q.tau) * (1 + 1e-12)) << eps;
        EXPECT_LE(q.sigma, q.zcdp_sigma * (1 + 1e-12)) << eps;
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
    // The same for the zCDP route (large epsilon) and the exact one-dimensional route.
    const DiscreteGaussianPlan z = plan_discrete_gaussian(4, 10, 1e-5, GaussianCalibration::Analytic, 16);
    const DiscreteGaussianPlan z2 = plan_discrete_gaussian(8, 10, 1e-5, GaussianCalibration::Analytic, 16);
    EXPECT_NEAR(z.sigma_for_scaled_sensitivity(2) / z2.sigma, 1, 1e-9);
    const DiscreteGaussianPlan e = plan_discrete_gaussian(1, 3, 1e-5, GaussianCalibration::Analytic, 1);
    const DiscreteGaussianPlan e2 = plan_discrete_gaussian(2, 3, 1e-5, GaussianCalibration::Analytic, 1);
    EXPECT_EQ(e2.certificate, DiscreteGaussianCertificate::ExactOneDimensional);
    EXPECT_NEAR(e.sigma_for_scaled_sensitivity(2) / e2.sigma, 1, 1e-9);
}

// The table sampler's reserve for a 1680 x 1050 map at epsilon 1 is (1 + e) r 2^-55 = 1.82e-10 (the
// documentation said 1.4e-10).
TEST(DiscreteGaussianCalibration, TheTableReserveOfAScreenSizedMap) {
    const double r = 1680.0 * 1050.0;
    const DiscreteGaussianPlan p =
        plan_discrete_gaussian(std::sqrt(r), 1, 1e-5, GaussianCalibration::Analytic, 1680 * 1050);
    EXPECT_FALSE(p.exact_sampler);
    EXPECT_NEAR(p.delta_sampler, 1.82e-10, 0.005e-10);
}

TEST(DiscreteGaussianCalibration, BadParametersAreRefused) {
    EXPECT_THROW(plan_discrete_gaussian(0, 1, 1e-5, GaussianCalibration::Analytic, 1), InvalidArgument);
    EXPECT_THROW(plan_discrete_gaussian(1, 0, 1e-5, GaussianCalibration::Analytic, 1), InvalidArgument);
    EXPECT_THROW(plan_discrete_gaussian(1, 1, 1, GaussianCalibration::Analytic, 1), InvalidArgument);
    EXPECT_THROW(plan_discrete_gaussian(1, 2, 1e-5, GaussianCalibration::DworkRoth, 1), InvalidArgument);
}
