#include "core/noise/calibration.hpp"

#include <cmath>
#include <limits>

#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/common/validate.hpp"

namespace gazepriv::core {

namespace {
constexpr Named<GaussianCalibration> kCalibrations[] = {{GaussianCalibration::Analytic, "analytic"},
                                                        {GaussianCalibration::DworkRoth, "dwork_roth"},
                                                        {GaussianCalibration::Liu2019, "liu2019"}};
} // namespace

GaussianCalibration parse_gaussian_calibration(const std::string& name) {
    return parse_name(kCalibrations, "calibration", name);
}

const char* to_string(GaussianCalibration method) {
    return name_of(kCalibrations, method);
}

double log_normal_cdf(double x) {
    if (x > -20)
        return std::log(0.5 * std::erfc(-x / M_SQRT2));
    // Asymptotic series of the Mills ratio; at x <= -20 the omitted term is below 1e-13 relative.
    const double x2 = x * x;
    const double series = 1 - 1 / x2 + 3 / (x2 * x2) - 15 / (x2 * x2 * x2) + 105 / (x2 * x2 * x2 * x2);
    return -0.5 * x2 - std::log(-x) - 0.5 * std::log(2 * M_PI) + std::log(series);
}

namespace {

// log of the Gaussian privacy profile; -infinity when it is zero to double precision.
double log_gaussian_delta(double l2, double sigma, double epsilon) {
    const double a = l2 / (2 * sigma);
    const double b = epsilon * sigma / l2;
    const double l1 = log_normal_cdf(a - b);
    const double l2term = log_normal_cdf(-a - b);
    const double exponent = epsilon + l2term - l1; // < 0 in exact arithmetic
    if (!(exponent < 0))
        return -std::numeric_limits<double>::infinity();
    return l1 + std::log(-std::expm1(exponent));
}

void check_common(double sensitivity, const char* sensitivity_name, double delta) {
    require_positive(sensitivity_name, sensitivity);
    require_delta("delta", delta);
}

// Doubling from any positive double reaches Infinity in fewer steps than this: a bracket that has not
// closed by then never will, and the search stops instead of spinning on Infinity (issue 14, A1).
constexpr int kMaxDoublings = 2200;

// Doubles hi until feasible(hi); 22023 when no finite hi is.
template <typename Feasible> double bracket_up(double hi, const char* what, Feasible feasible) {
    for (int i = 0; i < kMaxDoublings && std::isfinite(hi); ++i) {
        if (feasible(hi))
            return hi;
        hi *= 2;
    }
    throw InvalidArgument(std::string("no finite ") + what + " satisfies these parameters");
}

// Smallest x in (lo, hi] with feasible(x), for feasible monotone (false then true); returns the
// feasible end of the final bracket, so the answer is never on the infeasible side.
template <typename Feasible> double bisect(double lo, double hi, Feasible feasible) {
    for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
        const double mid = 0.5 * (lo + hi);
        if (feasible(mid))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

// Minimum of a unimodal f on [a, b] by golden-section search.
template <typename F> double minimize_unimodal(F f, double a, double b) {
    const double phi = 0.5 * (std::sqrt(5.0) - 1);
    double c = b - phi * (b - a), d = a + phi * (b - a);
    double fc = f(c), fd = f(d);
    for (int i = 0; i < 300 && b - a > 1e-12; ++i) {
        if (fc < fd) {
            b = d;
            d = c;
            fd = fc;
            c = b - phi * (b - a);
            fc = f(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + phi * (b - a);
            fd = f(d);
        }
    }
    return std::min(fc, fd);
}

} // namespace

double gaussian_delta(double l2_sensitivity, double sigma, double epsilon) {
    require_positive("l2_sensitivity", l2_sensitivity);
    require_positive("sigma", sigma);
    require_non_negative("epsilon", epsilon);
    return std::exp(log_gaussian_delta(l2_sensitivity, sigma, epsilon));
}

double gaussian_sigma(double l2, double epsilon, double delta, GaussianCalibration method) {
    check_common(l2, "l2_sensitivity", delta);
    require_epsilon("epsilon", epsilon);
    // Every route's sigma is at most this (the Dwork-Roth bound plus l2), so it decides overflow for all.
    const double start =
        require_finite_scale("l2_sensitivity", l2 * std::sqrt(2 * std::log(1.25 / delta)) / epsilon + l2);
    switch (method) {
    case GaussianCalibration::DworkRoth:
        if (epsilon >= 1)
            throw InvalidArgument("the dwork_roth calibration is only valid for epsilon < 1, got " +
                                  format_number(epsilon) + "; use analytic or liu2019");
        return l2 * std::sqrt(2 * std::log(1.25 / delta)) / epsilon;
    case GaussianCalibration::Liu2019:
        return require_finite_scale("l2_sensitivity",
                                    l2 * std::sqrt(2 * std::log(1 / delta) + epsilon) / epsilon);
    case GaussianCalibration::Analytic:
        break;
    }
    const double log_delta = std::log(delta);
    auto feasible = [&](double sigma) { return log_gaussian_delta(l2, sigma, epsilon) <= log_delta; };
    // Bracket: grow hi until feasible, shrink lo until infeasible, then bisect.
    const double hi = bracket_up(start, "sigma", feasible);
    double lo = hi / 2;
    while (feasible(lo) && lo > 1e-300)
        lo /= 2;
    return bisect(lo, hi, feasible);
}

double gaussian_epsilon(double l2, double sigma, double delta, GaussianCalibration method) {
    check_common(l2, "l2_sensitivity", delta);
    require_positive("sigma", sigma);
    switch (method) {
    case GaussianCalibration::DworkRoth: {
        const double epsilon = l2 * std::sqrt(2 * std::log(1.25 / delta)) / sigma;
        if (epsilon >= 1)
            throw InvalidArgument("the dwork_roth calibration certifies only epsilon < 1; this sigma needs " +
                                  format_number(epsilon) + "; use analytic or liu2019");
        return epsilon;
    }
    case GaussianCalibration::Liu2019: {
        // sigma^2 eps^2 - l2^2 eps - 2 ln(1/delta) l2^2 = 0, positive root.
        const double s2 = sigma * sigma;
        const double l22 = l2 * l2;
        return (l22 + std::sqrt(l22 * l22 + 8 * s2 * std::log(1 / delta) * l22)) / (2 * s2);
    }
    case GaussianCalibration::Analytic:
        break;
    }
    const double log_delta = std::log(delta);
    auto feasible = [&](double epsilon) { return log_gaussian_delta(l2, sigma, epsilon) <= log_delta; };
    if (feasible(0))
        return 0;
    return bisect(0, bracket_up(1.0, "epsilon", feasible), feasible);
}

double laplace_scale(double l1_sensitivity, double epsilon) {
    require_positive("l1_sensitivity", l1_sensitivity);
    require_epsilon("epsilon", epsilon);
    return require_finite_scale("l1_sensitivity", l1_sensitivity / epsilon);
}

double zcdp_rho(double l2_sensitivity, double sigma) {
    require_positive("l2_sensitivity", l2_sensitivity);
    require_positive("sigma", sigma);
    return l2_sensitivity * l2_sensitivity / (2 * sigma * sigma);
}

namespace {

double cks_epsilon_at(double alpha, double rho, double log_inv_delta) {
    return alpha * rho +
           (log_inv_delta + (alpha - 1) * std::log1p(-1 / alpha) - std::log(alpha)) / (alpha - 1);
}

} // namespace

double zcdp_epsilon(double rho, double delta) {
    require_non_negative("rho", rho);
    require_delta("delta", delta);
    if (rho == 0)
        return 0;
    const double log_inv_delta = -std::log(delta);
    // The bound is convex in alpha; search over u = ln(alpha - 1).
    double best = minimize_unimodal(
        [&](double u) { return cks_epsilon_at(1 + std::exp(u), rho, log_inv_delta); }, -30, 30);
    // The classical bound rho + 2 sqrt(rho ln(1/delta)) is also valid; never report more than it.
    best = std::min(best, rho + 2 * std::sqrt(rho * log_inv_delta));
    return best > 0 ? best : 0;
}

double zcdp_delta(double rho, double epsilon) {
    require_non_negative("rho", rho);
    require_non_negative("epsilon", epsilon);
    if (rho == 0)
        return 0;
    // delta = inf_alpha exp((alpha-1)(alpha rho - epsilon)) / (alpha - 1) * (1 - 1/alpha)^alpha (CKS Cor.
    // 13), minimised in log space over u = ln(alpha - 1).
    auto log_delta = [&](double u) {
        const double alpha = 1 + std::exp(u);
        return (alpha - 1) * (alpha * rho - epsilon) - std::log(alpha - 1) + alpha * std::log1p(-1 / alpha);
    };
    const double best = minimize_unimodal(log_delta, -30, 30);
    return best >= 0 ? 1.0 : std::exp(best);
}

} // namespace gazepriv::core
