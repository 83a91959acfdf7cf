// Goodness-of-fit helpers for the sampler tests. Every check returns a statistic that is about N(0,1)
// (or bounded) under the null, so tests assert "< 5" and, to prove the test has power, assert that the
// same samples fail the check against a distribution whose scale is off by 5%.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <vector>

namespace gazepriv::test {

// Chi-square of integer samples against a pmf, with bins of expected count < 20 merged into
// neighbours (two tails pooled). Returns (chi2 - dof) / sqrt(2 dof): about N(0,1) under the null.
inline double chi_square_z(const std::vector<std::int64_t>& samples,
                           const std::function<double(std::int64_t)>& pmf, std::int64_t lo, std::int64_t hi) {
    std::map<std::int64_t, double> observed;
    for (auto x : samples)
        observed[std::clamp(x, lo - 1, hi + 1)] += 1;
    const double n = static_cast<double>(samples.size());
    double p_inside = 0;
    std::vector<double> exp_bins, obs_bins;
    double acc_e = 0, acc_o = 0;
    for (std::int64_t x = lo; x <= hi; ++x) {
        const double p = pmf(x);
        p_inside += p;
        acc_e += p * n;
        acc_o += observed[x];
        if (acc_e >= 20) {
            exp_bins.push_back(acc_e);
            obs_bins.push_back(acc_o);
            acc_e = acc_o = 0;
        }
    }
    // Everything outside [lo, hi] plus the unfinished bin.
    acc_e += (1 - p_inside) * n;
    acc_o += observed[lo - 1] + observed[hi + 1];
    if (acc_e > 0 || acc_o > 0) {
        if (acc_e < 20 && !exp_bins.empty()) {
            exp_bins.back() += acc_e;
            obs_bins.back() += acc_o;
        } else {
            exp_bins.push_back(acc_e);
            obs_bins.push_back(acc_o);
        }
    }
    double chi2 = 0;
    for (std::size_t i = 0; i < exp_bins.size(); ++i) {
        if (exp_bins[i] <= 0)
            return obs_bins[i] > 0 ? 1e9 : 0;
        const double d = obs_bins[i] - exp_bins[i];
        chi2 += d * d / exp_bins[i];
    }
    const double dof = static_cast<double>(exp_bins.size() - 1);
    return (chi2 - dof) / std::sqrt(2 * dof);
}

// Kolmogorov-Smirnov: sqrt(n) * sup |F_n - F|. Under the null P(> 1.95) ~ 0.001.
inline double ks_sqrt_n(std::vector<double> samples, const std::function<double(double)>& cdf) {
    std::sort(samples.begin(), samples.end());
    const double n = static_cast<double>(samples.size());
    double d = 0;
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const double f = cdf(samples[i]);
        d = std::max(d, std::max(f - i / n, (i + 1) / n - f));
    }
    return d * std::sqrt(n);
}

struct Moments {
    double mean = 0;
    double variance = 0;
    double excess_kurtosis = 0;
};

template <typename T> Moments moments(const std::vector<T>& xs) {
    Moments m;
    const double n = static_cast<double>(xs.size());
    for (auto x : xs)
        m.mean += static_cast<double>(x);
    m.mean /= n;
    double m2 = 0, m4 = 0;
    for (auto x : xs) {
        const double d = static_cast<double>(x) - m.mean;
        m2 += d * d;
        m4 += d * d * d * d;
    }
    m.variance = m2 / (n - 1);
    m.excess_kurtosis = (m4 / n) / ((m2 / n) * (m2 / n)) - 3;
    return m;
}

// z-score of a sample variance against an expected variance, given the distribution's excess kurtosis.
template <typename T>
double variance_z(const std::vector<T>& xs, double expected_variance, double excess_kurtosis) {
    const Moments m = moments(xs);
    const double n = static_cast<double>(xs.size());
    const double sd = expected_variance * std::sqrt((2 + excess_kurtosis) / n);
    return (m.variance - expected_variance) / sd;
}

inline double normal_cdf(double x) {
    return 0.5 * std::erfc(-x / M_SQRT2);
}

} // namespace gazepriv::test
