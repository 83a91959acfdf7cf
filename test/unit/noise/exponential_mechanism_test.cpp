#include <gtest/gtest.h>

#include "invalid_argument.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/noise/exponential_mechanism.hpp"

using namespace gazepriv::core;
using gazepriv::test::invalid_argument_message;

namespace {

// |observed - p| in standard errors of a binomial proportion.
double proportion_z(double observed, double p, int n) {
    return std::fabs(observed - p) / std::sqrt(p * (1 - p) / n);
}

std::vector<double> softmax(const std::vector<std::int64_t>& u, double scale) {
    std::vector<double> p;
    double total = 0;
    for (auto x : u)
        total += std::exp(scale * double(x));
    for (auto x : u)
        p.push_back(std::exp(scale * double(x)) / total);
    return p;
}

TEST(ExponentialMechanism, ProbabilitiesAreTheSoftmaxOfEpsilonUOverTwoDelta) {
    const std::vector<std::int64_t> u = {0, -1000, -2500, -7000, 3000};
    const std::vector<double> p = exponential_mechanism_probabilities(u, 2000, 1.5);
    const std::vector<double> expected = softmax(u, 1.5 / (2 * 2000));
    for (std::size_t i = 0; i < u.size(); ++i)
        EXPECT_NEAR(p[i], expected[i], 1e-9) << i;
}

TEST(ExponentialMechanism, UnitsAreExactSumsOnAGridFineEnoughForTheSensitivity) {
    const double grid = utility_grid(3, 1e6);
    EXPECT_LE(grid, 3 * 0x1.0p-30);
    EXPECT_LT(1e6 / grid, 0x1.0p60);
    EXPECT_EQ(utility_units_sensitivity(3, grid), std::int64_t(std::ceil(3 / grid)));
    EXPECT_EQ(to_units(2 * grid, grid), 2);
    // A huge public term raises the grid so that sums fit in 64 bits.
    EXPECT_LT(1e300 / utility_grid(1, 1e300), 0x1.0p60);
    EXPECT_NE(invalid_argument_message([] { utility_grid(NAN, 1); }), "no error");
    EXPECT_NE(invalid_argument_message([] { utility_grid(1, INFINITY); }), "no error");
}

TEST(ExponentialMechanism, FrequenciesMatchTheProbabilities) {
    const std::vector<std::int64_t> u = {0, -100, -200, -400, 100};
    const double epsilon = 2;
    const std::int64_t sensitivity = 100;
    const std::vector<double> p = exponential_mechanism_probabilities(u, sensitivity, epsilon);
    Rng rng(41, 0);
    const int n = 40000;
    std::vector<int> hits(u.size(), 0);
    for (int i = 0; i < n; ++i)
        ++hits[exponential_mechanism(u, sensitivity, epsilon, rng)];
    for (std::size_t i = 0; i < u.size(); ++i)
        EXPECT_LT(proportion_z(double(hits[i]) / n, p[i], n), 5) << i;
    // Power: an epsilon 20 % larger is rejected by the same frequencies.
    const std::vector<double> off = exponential_mechanism_probabilities(u, sensitivity, epsilon * 1.2);
    double worst = 0;
    for (std::size_t i = 0; i < u.size(); ++i)
        worst = std::max(worst, proportion_z(double(hits[i]) / n, off[i], n));
    EXPECT_GT(worst, 5);
}

TEST(ExponentialMechanism, FarCandidatesAreNeverChosenAndOneCandidateAlways) {
    Rng rng(42, 0);
    for (int i = 0; i < 200; ++i)
        EXPECT_EQ(exponential_mechanism({-1000000, 0, -1000000}, 1, 1, rng), 1u);
    EXPECT_EQ(exponential_mechanism({5}, 1, 1, rng), 0u);
}

TEST(ExponentialMechanism, RefusesBadParameters) {
    Rng rng(43, 0);
    EXPECT_NE(invalid_argument_message([&] { exponential_mechanism({}, 1, 1, rng); }), "no error");
    EXPECT_NE(invalid_argument_message([&] { exponential_mechanism({0}, 0, 1, rng); }), "no error");
    EXPECT_NE(invalid_argument_message([&] { exponential_mechanism({0}, 1, 0, rng); }), "no error");
    EXPECT_NE(invalid_argument_message([&] { exponential_mechanism({0}, 1, INFINITY, rng); }), "no error");
    EXPECT_NE(invalid_argument_message([&] { exponential_mechanism({0}, 1, NAN, rng); }), "no error");
}

} // namespace
