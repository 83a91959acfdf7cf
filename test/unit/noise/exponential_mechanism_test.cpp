#include <gtest/gtest.h>

#include "invalid_argument.hpp"

#include <cmath>
#include <vector>

#include "core/noise/exponential_mechanism.hpp"

using namespace gazepriv::core;
using gazepriv::test::invalid_argument_message;

namespace {

// |observed - p| in standard errors of a binomial proportion.
double proportion_z(double observed, double p, int n) {
    return std::fabs(observed - p) / std::sqrt(p * (1 - p) / n);
}

std::vector<double> softmax(const std::vector<double>& u, double scale) {
    std::vector<double> p;
    double total = 0;
    for (double x : u)
        total += std::exp(scale * x);
    for (double x : u)
        p.push_back(std::exp(scale * x) / total);
    return p;
}

TEST(ExponentialMechanism, ProbabilitiesAreTheSoftmaxOfEpsilonUOverTwoDelta) {
    const std::vector<double> u = {0, -1, -2.5, -7, 3};
    const std::vector<double> p = exponential_mechanism_probabilities(u, 2, 10, 1.5);
    const std::vector<double> expected = softmax(u, 1.5 / (2 * 2));
    for (std::size_t i = 0; i < u.size(); ++i)
        EXPECT_NEAR(p[i], expected[i], 1e-6) << i; // the grid adds 3 gamma <= 3e-9 Delta to Delta
}

TEST(ExponentialMechanism, FrequenciesMatchTheProbabilities) {
    const std::vector<double> u = {0, -1, -2, -4, 1};
    const double epsilon = 2, sensitivity = 1;
    const std::vector<double> p = exponential_mechanism_probabilities(u, sensitivity, 10, epsilon);
    Rng rng(41, 0);
    const int n = 40000;
    std::vector<int> hits(u.size(), 0);
    for (int i = 0; i < n; ++i)
        ++hits[exponential_mechanism(u, sensitivity, 10, epsilon, rng)];
    for (std::size_t i = 0; i < u.size(); ++i)
        EXPECT_LT(proportion_z(double(hits[i]) / n, p[i], n), 5) << i;
    // Power: an epsilon 20 % larger is rejected by the same frequencies.
    const std::vector<double> off = exponential_mechanism_probabilities(u, sensitivity, 10, epsilon * 1.2);
    double worst = 0;
    for (std::size_t i = 0; i < u.size(); ++i)
        worst = std::max(worst, proportion_z(double(hits[i]) / n, off[i], n));
    EXPECT_GT(worst, 5);
}

TEST(ExponentialMechanism, FarCandidatesAreNeverChosenAndOneCandidateAlways) {
    Rng rng(42, 0);
    for (int i = 0; i < 200; ++i)
        EXPECT_EQ(exponential_mechanism({-1e6, 0, -1e6}, 1, 1e6, 1, rng), 1u);
    EXPECT_EQ(exponential_mechanism({5}, 1, 5, 1, rng), 0u);
}

TEST(ExponentialMechanism, RefusesBadParameters) {
    Rng rng(43, 0);
    EXPECT_NE(invalid_argument_message([&] { exponential_mechanism({}, 1, 1, 1, rng); }), "no error");
    EXPECT_NE(invalid_argument_message([&] { exponential_mechanism({0}, NAN, 1, 1, rng); }), "no error");
    EXPECT_NE(invalid_argument_message([&] { exponential_mechanism({0}, 1, 1, 0, rng); }), "no error");
    EXPECT_NE(invalid_argument_message([&] { exponential_mechanism({0}, 1, 1, INFINITY, rng); }), "no error");
    EXPECT_NE(invalid_argument_message([&] { exponential_mechanism({0}, 1, -1, 1, rng); }), "no error");
}

} // namespace
