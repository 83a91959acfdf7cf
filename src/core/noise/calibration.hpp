// Noise calibration: pure functions from (sensitivity, epsilon, delta) to a noise scale and back, and
// the zero-concentrated DP (zCDP) accounting used by the privacy budget.
#pragma once

#include <string>

namespace gazepriv::core {

enum class GaussianCalibration {
    Analytic,  // Balle & Wang 2018: the smallest sigma whose exact privacy profile is <= delta
    DworkRoth, // Dwork & Roth 2014, Thm A.1: sigma = l2 sqrt(2 ln(1.25/delta)) / epsilon, epsilon < 1 only
    Liu2019,   // Liu et al. 2019, Thm 3.4 (reconstructed): sigma = l2 sqrt(2 ln(1/delta) + epsilon) / epsilon
};

GaussianCalibration parse_gaussian_calibration(const std::string& name); // throws InvalidArgument
const char* to_string(GaussianCalibration method);

// sigma such that adding N(0, sigma^2) to a query of L2 sensitivity l2 is (epsilon, delta)-DP.
double gaussian_sigma(double l2_sensitivity, double epsilon, double delta, GaussianCalibration method);

// The smallest epsilon that the method certifies for N(0, sigma^2) noise at the given delta.
double gaussian_epsilon(double l2_sensitivity, double sigma, double delta, GaussianCalibration method);

// The exact privacy profile of the Gaussian mechanism (Balle & Wang 2018, Thm 8):
// delta(epsilon) = Phi(l2/(2 sigma) - epsilon sigma/l2) - e^epsilon Phi(-l2/(2 sigma) - epsilon sigma/l2).
double gaussian_delta(double l2_sensitivity, double sigma, double epsilon);

// b = l1 / epsilon: Laplace(b) noise on a query of L1 sensitivity l1 is epsilon-DP.
double laplace_scale(double l1_sensitivity, double epsilon);

// rho = l2^2 / (2 sigma^2): the zCDP of the Gaussian mechanism, continuous or discrete (Bun & Steinke
// 2016, Prop. 1.6; Canonne, Kamath & Steinke 2020, Thm 14 for the discrete Gaussian).
double zcdp_rho(double l2_sensitivity, double sigma);

// rho-zCDP implies (epsilon, delta)-DP for this epsilon (Canonne, Kamath & Steinke 2020, Cor. 13):
// epsilon = inf_{alpha > 1} alpha rho + (ln(1/delta) + (alpha - 1) ln(1 - 1/alpha) - ln(alpha)) / (alpha -
// 1).
double zcdp_epsilon(double rho, double delta);

// The inverse view of the same bound: the delta at which rho-zCDP gives epsilon-DP.
double zcdp_delta(double rho, double epsilon);

// log Phi(x), accurate in the far left tail (used by the analytic calibration).
double log_normal_cdf(double x);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
