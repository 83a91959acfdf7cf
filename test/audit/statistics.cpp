#include "statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace gazepriv::audit {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The continued fraction of I_x(a, b) (modified Lentz), converging for x < (a + 1) / (a + b + 2).
double beta_fraction(double a, double b, double x) {
    constexpr double tiny = 1e-300;
    auto guard = [](double v) { return std::fabs(v) < tiny ? tiny : v; };
    double c = 1;
    double d = 1 / guard(1 - (a + b) * x / (a + 1));
    double h = d;
    for (int m = 1; m <= 1000000; ++m) {
        const double m2 = 2.0 * m;
        const double even = m * (b - m) * x / ((a - 1 + m2) * (a + m2));
        d = 1 / guard(1 + even * d);
        c = guard(1 + even / c);
        h *= d * c;
        const double odd = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2));
        d = 1 / guard(1 + odd * d);
        c = guard(1 + odd / c);
        const double step = d * c;
        h *= step;
        if (std::fabs(step - 1) < 1e-15)
            return h;
    }
    throw std::runtime_error("incomplete beta: the continued fraction did not converge");
}

// P(X >= k) and P(X <= k) for X ~ Binomial(n, p), through the incomplete beta function.
double binomial_at_least(std::uint64_t k, std::uint64_t n, double p) {
    return k == 0 ? 1 : incomplete_beta(static_cast<double>(k), static_cast<double>(n - k + 1), p);
}
double binomial_at_most(std::uint64_t k, std::uint64_t n, double p) {
    return k >= n ? 1 : 1 - incomplete_beta(static_cast<double>(k + 1), static_cast<double>(n - k), p);
}

// A cheap lower bound for the search (Wilson's score interval at z), the exact one for the result.
double wilson(std::uint64_t k, std::uint64_t n, double z, int sign) {
    const double nn = static_cast<double>(n), p = static_cast<double>(k) / nn, z2 = z * z;
    const double centre = p + z2 / (2 * nn);
    const double spread = z * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn));
    return std::clamp((centre + sign * spread) / (1 + z2 / nn), 0.0, 1.0);
}

double approximate_lower_bound(std::uint64_t k, std::uint64_t k_other, std::uint64_t n, double delta,
                               double z) {
    const double p = wilson(k, n, z, -1) - delta;
    const double q = wilson(k_other, n, z, +1);
    return p <= 0 ? -kInfinity : std::log(p / q);
}

struct Candidate {
    std::size_t statistic = 0;
    bool at_least = true;
    double threshold = 0;
    bool reversed = false;
    double score = -kInfinity;
};

std::vector<double> sorted_half(const std::vector<double>& column, std::size_t begin, std::size_t end) {
    std::vector<double> v(column.begin() + static_cast<std::ptrdiff_t>(begin),
                          column.begin() + static_cast<std::ptrdiff_t>(end));
    for (double& x : v)
        if (std::isnan(x))
            x = -kInfinity;
    std::sort(v.begin(), v.end());
    return v;
}

std::uint64_t count_at_least(const std::vector<double>& sorted, double t) {
    return static_cast<std::uint64_t>(sorted.end() - std::lower_bound(sorted.begin(), sorted.end(), t));
}
std::uint64_t count_at_most(const std::vector<double>& sorted, double t) {
    return static_cast<std::uint64_t>(std::upper_bound(sorted.begin(), sorted.end(), t) - sorted.begin());
}

std::uint64_t count_event(const std::vector<double>& column, std::size_t begin, std::size_t end,
                          bool at_least, double t) {
    std::uint64_t k = 0;
    for (std::size_t i = begin; i < end; ++i) {
        const double x = std::isnan(column[i]) ? -kInfinity : column[i];
        k += at_least ? x >= t : x <= t;
    }
    return k;
}

// The smallest loss an event with numerator probability p would need for the gate to fire with probability
// at least 95 % (each count beyond its 2.5 % quantile, normal approximation of the binomial).
double detectable_epsilon(double p, std::uint64_t n, const Claim& claim, double gate_alpha) {
    const double nn = static_cast<double>(n);
    const double k_p = std::floor(nn * p - 1.96 * std::sqrt(nn * p * (1 - p)));
    if (!(k_p > 0) || p <= claim.delta)
        return kInfinity;
    auto fires = [&](double epsilon) {
        const double q = (p - claim.delta) * std::exp(-epsilon);
        const double k_q = std::ceil(nn * q + 1.96 * std::sqrt(nn * q * (1 - q)));
        return epsilon_lower_bound(static_cast<std::uint64_t>(k_p),
                                   static_cast<std::uint64_t>(std::min(k_q, nn)), n, claim.delta,
                                   gate_alpha) > claim.epsilon;
    };
    double lo = claim.epsilon, hi = claim.epsilon + 64;
    if (!fires(hi))
        return kInfinity;
    for (int i = 0; i < 40; ++i) {
        const double mid = 0.5 * (lo + hi);
        (fires(mid) ? hi : lo) = mid;
    }
    return hi;
}

// A lower bound on P(gate fires) for counts K ~ Binomial(n, p), K' ~ Binomial(n, q). The gate fires when the
// Clopper-Pearson lower bound on P[S] (at alpha/2) exceeds target(K') = delta + e^epsilon q_hi(K'), that is
// when K reaches k*(K'), the smallest k with P_target(X >= k) <= alpha/2. k* grows with K', so over a range
// of K' its value at the range's top bounds the firing probability from below; K' is cut into at most 64
// ranges over its likely values (what lies beyond 8 standard deviations counts as missing).
double firing_probability(double p, double q, std::uint64_t n, const Claim& claim, double gate_alpha) {
    const double nn = static_cast<double>(n);
    auto pmf = [&](std::uint64_t k) {
        const double kk = static_cast<double>(k);
        if (q <= 0)
            return k == 0 ? 1.0 : 0.0;
        if (q >= 1)
            return k == n ? 1.0 : 0.0;
        return std::exp(std::lgamma(nn + 1) - std::lgamma(kk + 1) - std::lgamma(nn - kk + 1) +
                        kk * std::log(q) + (nn - kk) * std::log1p(-q));
    };
    auto fires_from = [&](std::uint64_t k_other) {
        const double target =
            claim.delta + std::exp(claim.epsilon) * clopper_pearson_upper(k_other, n, gate_alpha / 2);
        if (target >= 1)
            return 0.0;
        std::uint64_t lo = 0, hi = n + 1;
        while (lo < hi) {
            const std::uint64_t mid = lo + (hi - lo) / 2;
            if (mid <= n && binomial_at_least(mid, n, target) <= gate_alpha / 2)
                hi = mid;
            else
                lo = mid + 1;
        }
        return lo > n ? 0.0 : binomial_at_least(lo, n, p);
    };
    const double mean = nn * q, sd = std::sqrt(nn * q * (1 - q));
    const auto first = static_cast<std::uint64_t>(std::max(0.0, std::floor(mean - 8 * sd)));
    const auto last = static_cast<std::uint64_t>(std::min(nn, std::ceil(mean + 8 * sd)));
    const std::uint64_t step = (last - first) / 64 + 1;
    double fires = 0;
    for (std::uint64_t begin = first; begin <= last; begin += step) {
        const std::uint64_t end = std::min(last, begin + step - 1);
        double mass = 0;
        for (std::uint64_t k = begin; k <= end; ++k)
            mass += pmf(k);
        if (mass > 0)
            fires += mass * fires_from(end);
    }
    return std::min(fires, 1.0);
}

} // namespace

double incomplete_beta(double a, double b, double x) {
    if (!(a > 0 && b > 0) || !(x >= 0 && x <= 1))
        throw std::invalid_argument("incomplete beta: a, b > 0 and x in [0, 1]");
    if (x == 0 || x == 1)
        return x;
    const double log_front =
        std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
    if (x < (a + 1) / (a + b + 2))
        return std::exp(log_front) * beta_fraction(a, b, x) / a;
    return 1 - std::exp(log_front) * beta_fraction(b, a, 1 - x) / b;
}

double clopper_pearson_lower(std::uint64_t k, std::uint64_t n, double alpha) {
    if (k == 0)
        return 0;
    // P_p(X >= k) grows with p: the largest p where it is still <= alpha, from below.
    double lo = 0, hi = 1;
    for (int i = 0; i < 200 && hi > lo; ++i) {
        const double mid = 0.5 * (lo + hi);
        if (mid == lo || mid == hi)
            break;
        (binomial_at_least(k, n, mid) <= alpha ? lo : hi) = mid;
    }
    return lo;
}

double clopper_pearson_upper(std::uint64_t k, std::uint64_t n, double alpha) {
    if (k >= n)
        return 1;
    // P_p(X <= k) falls with p: the smallest p where it is <= alpha, from above.
    double lo = 0, hi = 1;
    for (int i = 0; i < 200 && hi > lo; ++i) {
        const double mid = 0.5 * (lo + hi);
        if (mid == lo || mid == hi)
            break;
        (binomial_at_most(k, n, mid) <= alpha ? hi : lo) = mid;
    }
    return hi;
}

double epsilon_lower_bound(std::uint64_t k, std::uint64_t k_other, std::uint64_t n, double delta,
                           double alpha) {
    if (n == 0)
        return -kInfinity;
    const double p = clopper_pearson_lower(k, n, alpha / 2) - delta;
    const double q = clopper_pearson_upper(k_other, n, alpha / 2);
    if (!(p > 0))
        return -kInfinity;
    return std::log(p / q);
}

double normal_quantile(double p) {
    if (!(p > 0 && p < 1))
        throw std::invalid_argument("normal quantile: p in (0, 1)");
    double lo = -40, hi = 40;
    for (int i = 0; i < 200; ++i) {
        const double mid = 0.5 * (lo + hi);
        (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

void Draws::add(std::initializer_list<double> values) {
    add(values.begin());
}

void Draws::add(const double* values) {
    for (std::size_t j = 0; j < columns_.size(); ++j)
        columns_[j].push_back(values[j]);
}

void Draws::reserve(std::size_t n) {
    for (auto& c : columns_)
        c.reserve(n);
}

AuditOutcome audit_draws(const Draws& first, const Draws& second, const Claim& claim,
                         const AuditLevels& levels) {
    const std::size_t n = std::min(first.size(), second.size());
    if (first.statistics() != second.statistics() || n < 4)
        throw std::invalid_argument("audit: both sides need the same statistics and at least 4 draws");
    const std::size_t half = n / 2;
    const double z = normal_quantile(1 - levels.gate_alpha / 2);

    Candidate best;
    for (std::size_t j = 0; j < first.statistics(); ++j) {
        const std::vector<double> a = sorted_half(first.column(j), 0, half);
        const std::vector<double> b = sorted_half(second.column(j), 0, half);
        std::vector<double> thresholds(a);
        thresholds.insert(thresholds.end(), b.begin(), b.end());
        std::sort(thresholds.begin(), thresholds.end());
        thresholds.erase(std::unique(thresholds.begin(), thresholds.end()), thresholds.end());
        constexpr std::size_t kMaxThresholds = 4096;
        const std::size_t stride = thresholds.size() / kMaxThresholds + 1;
        for (std::size_t i = 0; i < thresholds.size(); i += stride) {
            const double t = thresholds[i];
            for (bool at_least : {true, false}) {
                const std::uint64_t ka = at_least ? count_at_least(a, t) : count_at_most(a, t);
                const std::uint64_t kb = at_least ? count_at_least(b, t) : count_at_most(b, t);
                for (bool reversed : {false, true}) {
                    const double score =
                        approximate_lower_bound(reversed ? kb : ka, reversed ? ka : kb, half, claim.delta, z);
                    if (score > best.score)
                        best = {j, at_least, t, reversed, score};
                }
            }
        }
    }

    AuditOutcome out;
    out.statistic = best.statistic;
    out.at_least = best.at_least;
    out.threshold = best.threshold;
    out.reversed = best.reversed;
    out.n = n - half;
    const std::uint64_t ka =
        count_event(first.column(best.statistic), half, half + out.n, best.at_least, best.threshold);
    const std::uint64_t kb =
        count_event(second.column(best.statistic), half, half + out.n, best.at_least, best.threshold);
    out.k = best.reversed ? kb : ka;
    out.k_other = best.reversed ? ka : kb;
    const double nn = static_cast<double>(out.n);
    const double p = static_cast<double>(out.k) / nn, q = static_cast<double>(out.k_other) / nn;
    out.epsilon_estimate = p - claim.delta <= 0 ? -kInfinity
                           : q == 0             ? kInfinity
                                                : std::log((p - claim.delta) / q);
    out.epsilon_report = epsilon_lower_bound(out.k, out.k_other, out.n, claim.delta, levels.report_alpha);
    out.epsilon_gate = epsilon_lower_bound(out.k, out.k_other, out.n, claim.delta, levels.gate_alpha);
    out.epsilon_detectable = detectable_epsilon(p, out.n, claim, levels.gate_alpha);
    out.firing_probability = firing_probability(p, q, out.n, claim, levels.gate_alpha);
    out.violation = out.epsilon_gate > claim.epsilon;
    return out;
}

} // namespace gazepriv::audit
