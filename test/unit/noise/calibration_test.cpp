#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/noise/calibration.hpp"
#include "core/common/errors.hpp"
#include "invalid_argument.hpp"
#include "core/common/validate.hpp"

using namespace gazepriv::core;
using gazepriv::test::invalid_argument_message;

namespace {

// Liu et al.'s "good privacy" case (doc/privacy/noise.md §1): 300x300 pixels, m = 1, n = 900.
const double kDelta2 = 1.0 / 3.0;
const double kDeltaGood = std::pow(900.0, -1.5);

} // namespace

TEST(Calibration, GaussianSigmaMatchesThePaperVectors) {
    EXPECT_NEAR(gaussian_sigma(kDelta2, 1, kDeltaGood, GaussianCalibration::Analytic), 1.1426219786, 1e-8);
    EXPECT_NEAR(gaussian_sigma(kDelta2, 1 - 1e-12, kDeltaGood, GaussianCalibration::DworkRoth), 1.5221867090,
                1e-8);
    EXPECT_NEAR(gaussian_sigma(kDelta2, 1, kDeltaGood, GaussianCalibration::Liu2019), 1.5422632824, 1e-9);
    // "okay privacy": n = 300, epsilon = 3 (Dwork-Roth is not valid there).
    const double okay = std::pow(300.0, -1.5);
    EXPECT_NEAR(gaussian_sigma(1, 3, okay, GaussianCalibration::Analytic), 1.1724165950, 1e-8);
    EXPECT_NEAR(gaussian_sigma(1, 3, okay, GaussianCalibration::Liu2019), 1.4948558988, 1e-9);
}

TEST(Calibration, AnalyticSigmaIsTheSmallestFeasibleOne) {
    const double sigma = gaussian_sigma(1, 1, 1e-5, GaussianCalibration::Analytic);
    EXPECT_NEAR(sigma, 3.7306316348, 1e-8);
    EXPECT_LE(gaussian_delta(1, sigma, 1), 1e-5);
    EXPECT_GT(gaussian_delta(1, sigma * (1 - 1e-9), 1), 1e-5 * (1 - 1e-6));
    EXPECT_NEAR(gaussian_delta(1, 3, 0.5), 1.241824939943e-02, 1e-12);
    // Analytic is never above Dwork-Roth.
    for (double eps : {0.01, 0.1, 0.5, 0.99})
        EXPECT_LT(gaussian_sigma(1, eps, 1e-6, GaussianCalibration::Analytic),
                  gaussian_sigma(1, eps, 1e-6, GaussianCalibration::DworkRoth));
    // Extreme but valid parameters stay finite and feasible.
    const double tiny = gaussian_sigma(1, 0.001, 1e-12, GaussianCalibration::Analytic);
    EXPECT_TRUE(std::isfinite(tiny));
    EXPECT_LE(gaussian_delta(1, tiny, 0.001), 1e-12);
    const double loose = gaussian_sigma(1, 50, 0.5, GaussianCalibration::Analytic);
    EXPECT_LE(gaussian_delta(1, loose, 50), 0.5);
}

TEST(Calibration, GaussianEpsilonInvertsSigma) {
    // Liu et al. section 4: 1050x1680, n = 50,000, sigma = 1.5 (doc/privacy/noise.md §1).
    const double d = std::pow(50000.0, -1.5);
    EXPECT_NEAR(gaussian_epsilon(0.02656, 1.5, d, GaussianCalibration::Liu2019), 0.1010372440, 1e-9);
    EXPECT_NEAR(gaussian_epsilon(0.02656, 1.5, d, GaussianCalibration::DworkRoth), 0.1015714994, 1e-9);
    EXPECT_NEAR(gaussian_epsilon(0.02656, 1.5, d, GaussianCalibration::Analytic), 0.0723429241, 1e-8);
    for (auto m : {GaussianCalibration::Analytic, GaussianCalibration::Liu2019}) {
        const double sigma = gaussian_sigma(2, 0.7, 1e-6, m);
        EXPECT_NEAR(gaussian_epsilon(2, sigma, 1e-6, m), 0.7, 1e-7) << to_string(m);
    }
}

TEST(Calibration, DworkRothRefusesEpsilonOfOneOrMore) {
    const std::string msg =
        invalid_argument_message([] { gaussian_sigma(1, 1, 1e-5, GaussianCalibration::DworkRoth); });
    EXPECT_NE(msg.find("epsilon < 1"), std::string::npos) << msg;
    EXPECT_THROW(gaussian_epsilon(1, 0.1, 1e-5, GaussianCalibration::DworkRoth), InvalidArgument);
}

TEST(Calibration, LaplaceScaleAndZcdp) {
    EXPECT_DOUBLE_EQ(laplace_scale(3, 0.5), 6);
    EXPECT_DOUBLE_EQ(zcdp_rho(1, 2), 0.125);
    // 100 Gaussian releases calibrated to (1, 1e-5) by Dwork-Roth: basic composition says epsilon = 100,
    // zCDP says about 11 (the budget issue's worked example).
    const double sigma = std::sqrt(2 * std::log(1.25e5));
    const double rho = 100 * zcdp_rho(1, sigma);
    EXPECT_NEAR(rho, 2.1301851553, 1e-9);
    EXPECT_NEAR(zcdp_epsilon(rho, 1e-5), 11.1463253105, 1e-6);
    EXPECT_LT(zcdp_epsilon(rho, 1e-5), rho + 2 * std::sqrt(rho * std::log(1e5)));
    // The two directions of the CKS bound agree.
    EXPECT_NEAR(zcdp_delta(rho, zcdp_epsilon(rho, 1e-5)), 1e-5, 1e-9);
    EXPECT_EQ(zcdp_epsilon(0, 1e-5), 0);
    EXPECT_EQ(zcdp_delta(0, 1), 0);
}

TEST(Calibration, BadParametersNameTheParameter) {
    using M = GaussianCalibration;
    EXPECT_NE(invalid_argument_message([] { gaussian_sigma(1, 0, 1e-5, M::Analytic); }).find("epsilon"),
              std::string::npos);
    EXPECT_NE(invalid_argument_message([] { gaussian_sigma(1, NAN, 1e-5, M::Analytic); }).find("NaN"),
              std::string::npos);
    EXPECT_NE(invalid_argument_message([] { gaussian_sigma(1, 1, 1, M::Analytic); }).find("delta"),
              std::string::npos);
    EXPECT_NE(invalid_argument_message([] { gaussian_sigma(1, 1, 0, M::Analytic); }).find("delta"),
              std::string::npos);
    EXPECT_NE(
        invalid_argument_message([] { gaussian_sigma(-1, 1, 0.1, M::Analytic); }).find("l2_sensitivity"),
        std::string::npos);
    EXPECT_NE(
        invalid_argument_message([] { gaussian_sigma(INFINITY, 1, 0.1, M::Analytic); }).find("Infinity"),
        std::string::npos);
    EXPECT_NE(invalid_argument_message([] { laplace_scale(0, 1); }).find("l1_sensitivity"),
              std::string::npos);
    EXPECT_NE(invalid_argument_message([] { zcdp_rho(1, 0); }).find("sigma"), std::string::npos);
    EXPECT_NE(invalid_argument_message([] { zcdp_epsilon(-1, 0.1); }).find("rho"), std::string::npos);
    EXPECT_NE(
        invalid_argument_message([] { parse_gaussian_calibration("gauss"); }).find("unknown calibration"),
        std::string::npos);
    EXPECT_EQ(parse_gaussian_calibration("liu2019"), M::Liu2019);
}

TEST(Validate, NumbersPrintAsPostgreSQLPrintsFloat8) {
    EXPECT_EQ(format_number(30), "30");
    EXPECT_EQ(format_number(0.25), "0.25");
    EXPECT_EQ(format_number(1e-9), "1e-09");
    EXPECT_EQ(format_number(1e300), "1e+300");
    EXPECT_EQ(format_number(123456.5), "123456.5");
    EXPECT_EQ(format_number(0.1), "0.1");
    EXPECT_EQ(format_number(-2), "-2");
    EXPECT_EQ(format_number(0), "0");
}

TEST(Calibration, LogNormalCdfIsContinuousIntoTheFarTail) {
    EXPECT_NEAR(log_normal_cdf(-20 + 1e-9), log_normal_cdf(-20 - 1e-9), 1e-6);
    EXPECT_NEAR(log_normal_cdf(0), std::log(0.5), 1e-15);
    EXPECT_TRUE(std::isfinite(log_normal_cdf(-1000)));
    EXPECT_NEAR(log_normal_cdf(-40), -804.608442013754, 1e-6);
}
