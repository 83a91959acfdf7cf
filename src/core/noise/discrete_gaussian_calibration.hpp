// Calibrating the multivariate discrete Gaussian mechanism M(x) = x + Y, x in Z^d, Y_j i.i.d. N_Z(0, s^2)
// (the noise of every DP heatmap), so that a requested (epsilon, delta) holds for the discrete mechanism
// as sampled, not only for its continuous idealisation.
//
// What is known exactly (Canonne, Kamath & Steinke 2020, "The Discrete Gaussian for Differential
// Privacy", Thm 14): M is rho-zCDP with rho = l2^2 / (2 s^2), for every s and every dimension, exactly as
// the continuous Gaussian. Its (epsilon, delta) curve is NOT the continuous one: in one dimension CKS's
// exact formula gives, e.g. for s = 2, sensitivity 1, epsilon = 2: delta = 1.07e-5 for the discrete and
// 9.4e-6 for the continuous Gaussian (14% more). CKS give no closed (epsilon, delta) bound for d > 1 that
// matches the analytic continuous calibration (their multivariate approximate-DP statement was not
// available to us in a clean copy), so we prove and use our own, below, and fall back on the exact zCDP
// statement where ours is weaker.
//
// Lemma (continuous carry-over). Let s^2 = c^2 + t^2 with c, t > 0, and let the continuous Gaussian
// mechanism x + N(0, c^2 I_d) be (epsilon, delta_c)-DP for L2 sensitivity l2 (any calibration method).
// Let eta = 2 sum_{k >= 1} exp(-2 pi^2 t^2 k^2) and gamma = ln((1 + eta) / (1 - eta)). Then M is
//   (epsilon, e^{d gamma} delta_c + (e^{2 d gamma} - 1) e^epsilon)-DP.
// Proof. Post-process u = x + N(0, c^2 I) by drawing, per coordinate, n_j with probability
// phi_t(n_j - u_j) / Theta(u_j), Theta(u) = sum_m phi_t(m - u) (phi_t the N(0, t^2) density). For integer x
// the result is x + Y' with P[Y'_j = k] = q(k) = int phi_c(w) phi_t(k - w) / Theta(w) dw (Theta has period
// 1). By Poisson summation Theta(w) = 1 + 2 sum_k exp(-2 pi^2 t^2 k^2) cos(2 pi k w) lies in [1 - eta,
// 1 + eta], and int phi_c(w) phi_t(k - w) dw = phi_s(k); so q(k) / phi_s(k) lies in [1/(1 + eta),
// 1/(1 - eta)], while p(k) = P[N_Z(0, s^2) = k] = phi_s(k) / Theta_s(0) with Theta_s(0) in [1, 1 + eta]
// (s > t). Hence p/q and q/p are at most e^gamma per coordinate, e^{d gamma} for the product. The
// post-processed mechanism is (epsilon, delta_c)-DP, so for every set S:
//   P[M(x) in S] <= e^{d gamma} (e^epsilon e^{d gamma} P[M(x') in S] + delta_c),
// and e^{epsilon + 2 d gamma} P <= e^epsilon P + (e^{2 d gamma} - 1) e^epsilon. QED.
// (Checked numerically in one dimension against CKS's exact discrete delta: test/unit.)
//
// Calibration. With the analytic calibration (the default, which promises the smallest sigma),
// plan_discrete_gaussian uses the smallest sigma that one of three valid routes gives:
//  - the carry-over: 1e-6 of delta reserved for the discreteness term, the smallest t that keeps it below
//    that reserve (t ~ 1.2 to 2.7 for epsilon up to 100 and d up to 10^8), c from the requested method for
//    the rest of delta, s = sqrt(c^2 + t^2): the named calibration up to the t^2 term, negligible whenever
//    c >> 1 (a heatmap's c is in the hundreds or thousands);
//  - zCDP: s from the largest rho whose CKS conversion meets (epsilon, delta) (exact for every s; smaller
//    than the carry-over for large epsilon, e.g. l2 = 4, d = 16, epsilon = 10: 2.118 against 2.456);
//  - in one dimension (d = 1) with s below kExactRouteMaxSigma: the exact delta of the discrete Gaussian
//    (CKS Thm 7, computed by summing its privacy-loss distribution, discrete_gaussian_delta), worst over the
//    integer shifts up to l2: the exact minimum (l2 = 1, epsilon = 3: 1.352 against 1.864).
// A named bound (liu2019, dwork_roth) is what the caller asked for, to reproduce a paper: it is carried
// over, and the zCDP route replaces it only where it needs less noise than t alone (very large epsilon).
//
// Sampling. The table sampler (gaussian_table.hpp) is within statistical distance 2^-55 per draw of the
// exact discrete Gaussian; a mechanism within total variation v of an (epsilon, delta)-DP one is
// (epsilon, delta + (1 + e^epsilon) v)-DP, so that amount is reserved from delta. Where it would exceed
// 1e-3 delta, or sigma is outside the table's range, the exact sampler is used (v = 0). rho-zCDP holds for
// the exact discrete Gaussian only: a zCDP budget charges v beside rho (ReleaseCost::sampler_distance).
#pragma once

#include <cstdint>

#include "core/noise/calibration.hpp"

namespace gazepriv::core {

enum class DiscreteGaussianCertificate {
    ContinuousCarryOver, // the lemma above with the requested calibration method
    Zcdp,                // rho-zCDP (CKS Thm 14) converted by CKS Cor. 13
    ExactOneDimensional, // the exact delta of CKS Thm 7 (d = 1 only)
};
const char* to_string(DiscreteGaussianCertificate certificate);

struct DiscreteGaussianPlan {
    double sigma = 0; // parameter s of N_Z(0, s^2), in the query's integer units
    bool exact_sampler = false;
    DiscreteGaussianCertificate certificate = DiscreteGaussianCertificate::ContinuousCarryOver;
    double tau = 0;                // t of the lemma
    double continuous_sigma = 0;   // c of the lemma: the requested method's sigma for the rest of delta
    double zcdp_sigma = 0;         // the zCDP route's sigma
    double exact_sigma = 0;        // the exact one-dimensional route's sigma (0: not applicable)
    double sampler_distance = 0;   // total variation of all draws from the exact mechanism: d 2^-55 or 0
    double delta_sampler = 0;      // (1 + e^epsilon) sampler_distance, reserved from delta
    double delta_discreteness = 0; // reserved for the lemma's correction (0 for Zcdp)
    double rho = 0;                // l2^2 / (2 sigma^2)

    // The sigma the same rule gives for a sensitivity k times larger (the carry-over and zCDP routes are
    // linear in l2, the exact route is recomputed; tau and the sampler do not change).
    double sigma_for_scaled_sensitivity(double k) const;

    // The inputs of the rule, for sigma_for_scaled_sensitivity.
    double l2 = 0;
    double epsilon = 0;
    double delta_routes = 0; // delta left to the routes once the sampler's share is reserved
    bool smallest = false;   // every route competes (the analytic calibration)
};

// The noise for `coordinates` integer values of L2 sensitivity l2 under (epsilon, delta)-DP, with the
// continuous calibration `method` carried over as described above. Throws InvalidArgument for bad
// parameters (and for dwork_roth with epsilon >= 1).
DiscreteGaussianPlan plan_discrete_gaussian(double l2, double epsilon, double delta,
                                            GaussianCalibration method, std::uint64_t coordinates);

// eta(t) = 2 sum_{k >= 1} exp(-2 pi^2 t^2 k^2), the largest relative deviation of Theta from 1.
double theta_deviation(double tau);

// ln of the lemma's correction (e^{d gamma} - 1) delta_c + (e^{2 d gamma} - 1) e^epsilon, accurate where the
// correction underflows a double.
double log_discreteness_delta(double tau, double epsilon, double delta_c, std::uint64_t coordinates);

// The largest rho whose CKS conversion (zcdp_epsilon) gives at most epsilon at this delta.
double zcdp_rho_for(double epsilon, double delta);

// The exact delta at epsilon of x + N_Z(0, sigma^2) for integer x and neighbours differing by `shift`
// (CKS Thm 7): sum over the outputs y whose privacy loss exceeds epsilon of P(y) - e^epsilon P'(y),
// summed term by term (no cancellation) and rounded up. sigma in (0, kExactRouteMaxSigma], shift >= 1.
constexpr double kExactRouteMaxSigma = 32;
double discrete_gaussian_delta(double sigma, double epsilon, std::int64_t shift);

// The smallest sigma <= kExactRouteMaxSigma whose exact delta is at most delta for every integer shift
// up to l2 (one dimension), or 0 when there is none (or l2 < 1 or l2 > 64).
double exact_discrete_gaussian_sigma(double l2, double epsilon, double delta);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
