#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "statistics.hpp"

using namespace gazepriv::audit;

// Reference values from scipy.special.betainc and scipy.stats.beta.ppf.
TEST(AuditStatistics, IncompleteBetaMatchesReferenceValues) {
    EXPECT_NEAR(incomplete_beta(2.5, 3.5, 0.3), 0.2967529892956661, 1e-13);
    EXPECT_NEAR(incomplete_beta(1e5, 2e5, 0.333), 0.34940317171724455, 1e-9);
    EXPECT_NEAR(incomplete_beta(50, 1e5 - 49, 4e-4), 0.0702952213183704, 1e-11);
    EXPECT_EQ(incomplete_beta(3, 4, 0), 0);
    EXPECT_EQ(incomplete_beta(3, 4, 1), 1);
}

TEST(AuditStatistics, ClopperPearsonMatchesReferenceValues) {
    struct Case {
        std::uint64_t k, n;
        double alpha, lower, upper;
    };
    for (const Case& c : {Case{0, 100, 0.05, 0, 0.02951304960703993},
                          Case{1, 100, 0.05, 0.000512801416262292, 0.046559811453538935},
                          Case{50, 100, 0.05, 0.41362171463091163, 0.5863782853690883},
                          Case{100, 100, 0.05, 0.9704869503929601, 1},
                          Case{5000, 100000, 1e-7, 0.04649412050812058, 0.05367139430140577},
                          Case{3, 100000, 1e-7, 8.452247963223284e-08, 0.0002398371572582983},
                          Case{99990, 100000, 0.025, 0.9998161041546233, 0.999952045104861}}) {
        const double lo = clopper_pearson_lower(c.k, c.n, c.alpha);
        const double hi = clopper_pearson_upper(c.k, c.n, c.alpha);
        EXPECT_NEAR(lo, c.lower, 1e-9 * (1 + c.lower)) << c.k << " of " << c.n;
        EXPECT_NEAR(hi, c.upper, 1e-9 * (1 + c.upper)) << c.k << " of " << c.n;
    }
}

TEST(AuditStatistics, ClopperPearsonCoversAtLeastItsLevel) {
    std::mt19937_64 gen(7);
    const double p = 0.3, alpha = 0.05;
    std::binomial_distribution<std::uint64_t> binomial(40, p);
    int below = 0, above = 0;
    const int runs = 20000;
    for (int i = 0; i < runs; ++i) {
        const std::uint64_t k = binomial(gen);
        below += clopper_pearson_upper(k, 40, alpha) < p;
        above += clopper_pearson_lower(k, 40, alpha) > p;
    }
    EXPECT_LE(below, alpha * runs);
    EXPECT_LE(above, alpha * runs);
    EXPECT_GT(below + above, 0.2 * alpha * runs); // and is not vacuous
}

TEST(AuditStatistics, NormalQuantile) {
    EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-9);
    EXPECT_NEAR(normal_quantile(1 - 5e-7), 4.891638475699, 1e-6);
}

namespace {

Draws laplace_draws(double location, double scale, std::size_t n, std::mt19937_64& gen) {
    std::exponential_distribution<double> e(1.0);
    Draws d(2);
    for (std::size_t i = 0; i < n; ++i) {
        const double y = location + scale * (e(gen) - e(gen));
        d.add({y, std::fabs(y)});
    }
    return d;
}

} // namespace

// The statistics alone, on an ideal Laplace mechanism (scale 1, neighbours 0 and 1, so exactly 1-DP).
TEST(AuditStatistics, AnHonestClaimPassesAndAnOverclaimFails) {
    std::mt19937_64 gen(11);
    const Draws a = laplace_draws(0, 1, 200000, gen), b = laplace_draws(1, 1, 200000, gen);
    const AuditOutcome honest = audit_draws(a, b, {1.0, 0}, {});
    EXPECT_FALSE(honest.violation);
    EXPECT_GT(honest.epsilon_report, 0.9); // the threshold event is tight for the Laplace mechanism
    EXPECT_LE(honest.epsilon_gate, 1.0);
    EXPECT_GT(honest.epsilon_detectable, 1.0);
    EXPECT_LT(honest.epsilon_detectable, 1.3); // 100,000 draws a side catch a loss of 1.3 at ~1e-6
    EXPECT_EQ(honest.statistic, 0u);           // found on the output itself, not on |y|
    EXPECT_LT(honest.firing_probability, 1e-3);
    const AuditOutcome overclaim = audit_draws(a, b, {0.7, 0}, {});
    EXPECT_TRUE(overclaim.violation);
    EXPECT_GT(overclaim.epsilon_gate, 0.7);
    EXPECT_GT(overclaim.firing_probability, 0.999);
}

TEST(AuditStatistics, DeltaIsSubtractedFromTheNumerator) {
    std::mt19937_64 gen(12);
    const Draws a = laplace_draws(0, 1, 100000, gen), b = laplace_draws(1, 1, 100000, gen);
    const AuditOutcome plain = audit_draws(a, b, {0.5, 0}, {});
    const AuditOutcome with_delta = audit_draws(a, b, {0.5, 0.3}, {});
    EXPECT_TRUE(plain.violation);
    EXPECT_FALSE(with_delta.violation); // Laplace(1) with shift 1 is (0.5, 0.3)-DP: delta(0.5) = 0.22
}
