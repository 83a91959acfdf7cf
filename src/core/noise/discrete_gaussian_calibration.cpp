#include "core/noise/discrete_gaussian_calibration.hpp"

#include <cmath>
#include <limits>

#include "core/common/errors.hpp"
#include "core/noise/gaussian_table.hpp"
#include "core/common/validate.hpp"

namespace gazepriv::core {

namespace {

constexpr double kDiscretenessShare = 1e-6; // of delta, reserved for the lemma's correction
constexpr double kSamplerShare = 1e-3;      // most of delta the table sampler's distance may take
constexpr double kExactSamplerMaxSigma = 0x1.0p27;

// ln(e^a + e^b).
double log_add(double a, double b) {
    if (a == -std::numeric_limits<double>::infinity())
        return b;
    if (b == -std::numeric_limits<double>::infinity())
        return a;
    const double hi = std::max(a, b);
    return hi + std::log1p(std::exp(std::min(a, b) - hi));
}

// ln(e^x - 1) for x > 0.
double log_expm1(double x) {
    return x < 1e-8 ? std::log(x) + 0.5 * x : x > 40 ? x : std::log(std::expm1(x));
}

// ln(eta(t)) without underflow: eta = 2 e^{-a} (1 + sum_{k >= 2} e^{-a (k^2 - 1)}), a = 2 pi^2 t^2.
double log_theta_deviation(double tau) {
    const double a = 2 * M_PI * M_PI * tau * tau;
    double tail = 0;
    for (int k = 2; k < 64; ++k) {
        const double term = std::exp(-a * (k * k - 1));
        tail += term;
        if (term < 1e-17 * (1 + tail))
            break;
    }
    return std::log(2.0) - a + std::log1p(tail);
}

// ln(gamma) with gamma = ln((1 + eta) / (1 - eta)) = log1p(2 eta / (1 - eta)).
double log_gamma_of(double tau) {
    const double log_eta = log_theta_deviation(tau);
    if (log_eta > std::log(0.5))
        return std::numeric_limits<double>::infinity(); // eta >= 1/2: the lemma is useless here
    const double eta = std::exp(log_eta);
    const double u = 2 * eta / (1 - eta);
    return u < 1e-8 ? std::log(2.0) + log_eta - std::log1p(-eta) : std::log(std::log1p(u));
}

bool table_can_sample(double sigma) {
    return sigma >= 1 && GaussianTable::entries_for(sigma) <= GaussianTable::kMaxEntries;
}

// One calibration attempt, with the table sampler or the exact one.
DiscreteGaussianPlan attempt(double l2, double epsilon, double delta, GaussianCalibration method,
                             std::uint64_t d, bool exact, bool& table_unusable) {
    DiscreteGaussianPlan plan;
    plan.exact_sampler = exact;
    table_unusable = false;
    if (!exact) {
        plan.sampler_distance = static_cast<double>(d) * GaussianTable::kStatisticalDistance;
        // (1 + e^eps) v, in logs: e^eps may overflow.
        const double log_delta_sampler = std::log(plan.sampler_distance) + log_add(0, epsilon);
        if (!(log_delta_sampler <= std::log(kSamplerShare * delta))) {
            table_unusable = true;
            return plan;
        }
        plan.delta_sampler = std::exp(log_delta_sampler);
    }
    const double remaining = delta - plan.delta_sampler;

    // The continuous carry-over: the smallest t whose correction fits the reserve.
    const double reserve = kDiscretenessShare * delta;
    const double log_reserve = std::log(reserve);
    double lo = 0.05, hi = 1;
    // Bounded: hi = 2^64 makes eta underflow to 0 for any input, so this never spins (issue 14, A1).
    for (int i = 0; i < 64 && !(log_discreteness_delta(hi, epsilon, remaining, d) <= log_reserve); ++i)
        hi *= 2;
    if (!(log_discreteness_delta(hi, epsilon, remaining, d) <= log_reserve))
        throw InvalidArgument("delta " + format_number(delta) +
                              " is too small to calibrate discrete noise for");
    for (int i = 0; i < 100 && hi - lo > 1e-9 * hi; ++i) {
        const double mid = 0.5 * (lo + hi);
        (log_discreteness_delta(mid, epsilon, remaining, d) <= log_reserve ? hi : lo) = mid;
    }
    plan.tau = hi;
    plan.continuous_sigma = gaussian_sigma(l2, epsilon, remaining - reserve, method);
    const double sigma_carry = std::hypot(plan.continuous_sigma, plan.tau);

    // The zCDP route, and the exact route in one dimension. The analytic calibration asks for the smallest
    // sigma, so every valid route competes; a named bound (liu2019, dwork_roth, to reproduce a paper) is
    // kept, and replaced by zCDP only where its carry-over would need more noise than t alone.
    plan.zcdp_sigma = l2 / std::sqrt(2 * zcdp_rho_for(epsilon, remaining));
    const bool smallest = method == GaussianCalibration::Analytic;
    if (smallest && d == 1 && std::min(sigma_carry, plan.zcdp_sigma) <= kExactRouteMaxSigma)
        plan.exact_sigma = exact_discrete_gaussian_sigma(l2, epsilon, remaining);
    plan.certificate = DiscreteGaussianCertificate::ContinuousCarryOver;
    plan.sigma = sigma_carry;
    plan.delta_discreteness = reserve;
    if (smallest ? plan.zcdp_sigma < plan.sigma : plan.zcdp_sigma < plan.tau) {
        plan.certificate = DiscreteGaussianCertificate::Zcdp;
        plan.sigma = plan.zcdp_sigma;
        plan.delta_discreteness = 0;
    }
    if (plan.exact_sigma > 0 && plan.exact_sigma < plan.sigma) {
        plan.certificate = DiscreteGaussianCertificate::ExactOneDimensional;
        plan.sigma = plan.exact_sigma;
        plan.delta_discreteness = 0;
    }
    plan.l2 = l2;
    plan.epsilon = epsilon;
    plan.delta_routes = remaining;
    plan.smallest = smallest;
    if (!exact && !table_can_sample(plan.sigma))
        table_unusable = true;
    return plan;
}

} // namespace

double DiscreteGaussianPlan::sigma_for_scaled_sensitivity(double k) const {
    const double zcdp = k * zcdp_sigma;
    const double carry = std::hypot(k * continuous_sigma, tau);
    if (!smallest)
        return zcdp < tau ? zcdp : carry;
    double sigma = std::min(zcdp, carry);
    if (exact_sigma > 0 && sigma <= kExactRouteMaxSigma) {
        const double exact = exact_discrete_gaussian_sigma(k * l2, epsilon, delta_routes);
        if (exact > 0)
            sigma = std::min(sigma, exact);
    }
    return sigma;
}

const char* to_string(DiscreteGaussianCertificate certificate) {
    switch (certificate) {
    case DiscreteGaussianCertificate::ContinuousCarryOver:
        return "continuous_carry_over";
    case DiscreteGaussianCertificate::Zcdp:
        return "zcdp";
    case DiscreteGaussianCertificate::ExactOneDimensional:
        return "exact_1d";
    }
    return "?";
}

double theta_deviation(double tau) {
    require_positive("tau", tau);
    return std::exp(log_theta_deviation(tau));
}

double log_discreteness_delta(double tau, double epsilon, double delta_c, std::uint64_t coordinates) {
    const double log_gamma = log_gamma_of(tau);
    if (log_gamma == std::numeric_limits<double>::infinity())
        return log_gamma;
    const double log_d_gamma = std::log(static_cast<double>(coordinates)) + log_gamma;
    const double d_gamma = std::exp(log_d_gamma);
    const double first = log_expm1(d_gamma) + std::log(delta_c);
    const double second =
        (d_gamma < 1e-8 ? std::log(2.0) + log_d_gamma + d_gamma : log_expm1(2 * d_gamma)) + epsilon;
    return log_add(first, second);
}

double zcdp_rho_for(double epsilon, double delta) {
    require_positive("epsilon", epsilon);
    require_delta("delta", delta);
    // zcdp_epsilon(rho) >= rho, so rho <= epsilon; bisect on [0, epsilon] keeping the feasible end.
    double lo = 0, hi = epsilon;
    if (zcdp_epsilon(hi, delta) <= epsilon)
        return hi;
    for (int i = 0; i < 200 && hi - lo > 1e-14 * hi; ++i) {
        const double mid = 0.5 * (lo + hi);
        (zcdp_epsilon(mid, delta) <= epsilon ? lo : hi) = mid;
    }
    return lo;
}

double discrete_gaussian_delta(double sigma, double epsilon, std::int64_t shift) {
    require_positive("sigma", sigma);
    require_non_negative("epsilon", epsilon);
    if (sigma > kExactRouteMaxSigma || shift < 1)
        throw InvalidArgument(
            "the exact discrete Gaussian delta needs sigma <= 32 and an integer shift >= 1");
    // Neighbours x = 0 and x' = shift. The loss at output y is L(y) = (shift^2 - 2 shift y) / (2 sigma^2),
    // above epsilon exactly for y < y_star; delta sums phi(y) (1 - e^(epsilon - L(y))) over those y.
    using real = long double;
    const real s2 = static_cast<real>(sigma) * sigma;
    const real d = static_cast<real>(shift);
    auto phi = [&](real y) { return std::exp(-y * y / (2 * s2)); };
    real z = 1; // sum of phi over the integers
    for (real k = 1;; ++k) {
        const real term = 2 * phi(k);
        z += term;
        if (term < 1e-40L * z)
            break;
    }
    const real y_star = d / 2 - static_cast<real>(epsilon) * s2 / d;
    real sum = 0;
    for (real y = std::ceil(y_star) - 1;; --y) {
        const real loss = (d * d - 2 * d * y) / (2 * s2);
        const real term = -phi(y) * std::expm1(static_cast<real>(epsilon) - loss);
        if (term > 0)
            sum += term;
        if (term < 1e-40L * sum || (sum == 0 && y < -64 * static_cast<real>(sigma) - d))
            break;
    }
    // Relative rounding error of the sums is far below 1e-12; round up past it.
    return static_cast<double>(sum / z) * (1 + 1e-12) + 1e-300;
}

double exact_discrete_gaussian_sigma(double l2, double epsilon, double delta) {
    if (!(l2 >= 1 && l2 <= 64))
        return 0;
    const std::int64_t max_shift = static_cast<std::int64_t>(std::floor(l2));
    auto feasible = [&](double sigma) {
        for (std::int64_t shift = max_shift; shift >= 1; --shift)
            if (!(discrete_gaussian_delta(sigma, epsilon, shift) <= delta))
                return false;
        return true;
    };
    double hi = kExactRouteMaxSigma;
    if (!feasible(hi))
        return 0;
    double lo = 1e-3;
    if (feasible(lo))
        return lo;
    for (int i = 0; i < 60 && hi - lo > 1e-9 * hi; ++i) {
        const double mid = 0.5 * (lo + hi);
        (feasible(mid) ? hi : lo) = mid;
    }
    return hi;
}

DiscreteGaussianPlan plan_discrete_gaussian(double l2, double epsilon, double delta,
                                            GaussianCalibration method, std::uint64_t coordinates) {
    require_positive("l2_sensitivity", l2);
    require_epsilon("epsilon", epsilon);
    require_delta("delta", delta);
    if (coordinates == 0)
        throw InvalidArgument("the number of coordinates must be at least 1");
    bool table_unusable = false;
    DiscreteGaussianPlan plan = attempt(l2, epsilon, delta, method, coordinates, false, table_unusable);
    if (table_unusable)
        plan = attempt(l2, epsilon, delta, method, coordinates, true, table_unusable);
    if (!(plan.sigma < kExactSamplerMaxSigma))
        throw LimitExceeded("the discrete Gaussian noise would need sigma = " + format_number(plan.sigma) +
                            " > 2^27 count units; use a larger epsilon or fewer cells");
    if (!(plan.sigma > 0))
        throw InvalidArgument("epsilon " + format_number(epsilon) + " is too large to calibrate noise for");
    plan.rho = l2 * l2 / (2 * plan.sigma * plan.sigma);
    return plan;
}

} // namespace gazepriv::core
