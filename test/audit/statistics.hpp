// The statistics of black-box privacy auditing: exact binomial confidence bounds, the search for an output
// event that separates two output distributions, and the lower confidence bound on the privacy loss that
// event proves.
//
// Method (after Ding et al., CCS 2018; Bichsel et al., DP-Sniper, S&P 2021; Jagielski et al., NeurIPS 2020;
// Nasr et al., S&P 2021; Lu et al., NeurIPS 2022). A mechanism M claims (epsilon, delta)-DP: for
// neighbouring inputs D, D' and every output event S, P[M(D) in S] <= e^epsilon P[M(D') in S] + delta. Draw
// M(D) and M(D') many times; each draw is summarised by a few real statistics (e.g. the privacy-loss
// statistic of the documented mechanism, a projection, an indicator). On the first half of the draws,
// search the events {statistic >= t} and {statistic <= t}, in both directions (D against D' and D' against
// D), for the one whose lower bound below is largest; on the second half, which the search never saw,
// count it: k of n draws of M(D) and k' of n draws of M(D') fall in S. With Clopper-Pearson bounds p_lo on
// P[M(D) in S] and q_hi on P[M(D') in S], each at confidence 1 - alpha/2,
//     epsilon_lb = ln((p_lo - delta) / q_hi)
// is below the true loss of S with probability at least 1 - alpha, so a mechanism whose epsilon_lb exceeds
// its claim violates it (with that confidence). The search only chooses which event to test: the bound is
// valid whatever it chose.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gazepriv::audit {

// The regularized incomplete beta function I_x(a, b), a, b > 0, x in [0, 1].
double incomplete_beta(double a, double b, double x);

// One-sided Clopper-Pearson bounds at confidence 1 - alpha for a binomial proportion with k successes in
// n trials: P(p < lower) <= alpha and P(p > upper) <= alpha.
double clopper_pearson_lower(std::uint64_t k, std::uint64_t n, double alpha);
double clopper_pearson_upper(std::uint64_t k, std::uint64_t n, double alpha);

// ln((p_lo - delta) / q_hi) with p_lo, q_hi at confidence 1 - alpha/2 each (-infinity when p_lo <= delta,
// +infinity when q_hi = 0, which only happens for n = 0).
double epsilon_lower_bound(std::uint64_t k, std::uint64_t k_other, std::uint64_t n, double delta,
                           double alpha);

// The standard normal quantile Phi^-1(p), 0 < p < 1.
double normal_quantile(double p);

// Draws of the statistics of one side (M(D) or M(D')): column j holds statistic j of every draw.
class Draws {
public:
    explicit Draws(std::size_t statistics) : columns_(statistics) {}
    void add(std::initializer_list<double> values);
    void add(const double* values);
    std::size_t statistics() const { return columns_.size(); }
    std::size_t size() const { return columns_.empty() ? 0 : columns_[0].size(); }
    const std::vector<double>& column(std::size_t j) const { return columns_[j]; }
    void reserve(std::size_t n);

private:
    std::vector<std::vector<double>> columns_;
};

struct Claim {
    double epsilon;
    double delta;
};

struct AuditLevels {
    double report_alpha = 0.05; // the bound shown in tables: 95 % confidence
    double gate_alpha = 1e-6;   // the bound a pass or fail is decided on
};

struct AuditOutcome {
    // The event: statistic `statistic` >= (at_least) or <= threshold; `reversed` when the numerator is M(D').
    std::size_t statistic = 0;
    bool at_least = true;
    double threshold = 0;
    bool reversed = false;
    // Counts on the evaluation half (n draws per side): k in the numerator's distribution, k_other in the
    // other.
    std::uint64_t n = 0, k = 0, k_other = 0;
    double epsilon_estimate = 0; // ln((k/n - delta) / (k_other/n)), the point estimate
    double epsilon_report = 0;   // the lower bound at 1 - report_alpha
    double epsilon_gate = 0;     // the lower bound at 1 - gate_alpha
    // The loss this event would need for the gate to fire with probability at least 95 %, given its
    // numerator's probability: how far above the claim a violation must be to be caught (the power).
    double epsilon_detectable = 0;
    // The probability that the gate fires on this event if its probabilities were the observed frequencies:
    // for a negative control, 1 minus the chance that the audit misses it.
    double firing_probability = 0;
    bool violation = false; // epsilon_gate > claim.epsilon
};

// Searches the first half of the draws for the event, counts it on the second half.
AuditOutcome audit_draws(const Draws& first, const Draws& second, const Claim& claim,
                         const AuditLevels& levels);

} // namespace gazepriv::audit
