#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/noise/discrete.hpp"
#include "core/common/errors.hpp"
#include "stats.hpp"

using namespace gazepriv::core;
using gazepriv::test::chi_square_z;
using gazepriv::test::variance_z;

namespace {

double frequency(Rng& rng, int n, const std::function<bool(Rng&)>& coin) {
    int hits = 0;
    for (int i = 0; i < n; ++i)
        hits += coin(rng);
    return static_cast<double>(hits) / n;
}

// |observed - p| in standard errors of a binomial proportion.
double proportion_z(double observed, double p, int n) {
    return std::fabs(observed - p) / std::sqrt(p * (1 - p) / n);
}

double laplace_pmf(std::int64_t x, double scale) {
    const double q = std::exp(-1 / scale);
    return (1 - q) / (1 + q) * std::pow(q, std::fabs(static_cast<double>(x)));
}
double laplace_variance(double scale) {
    const double q = std::exp(-1 / scale);
    return 2 * q / ((1 - q) * (1 - q));
}

// Normalised discrete Gaussian pmf and its exact variance, by summation.
struct DiscreteGaussianRef {
    double sigma, z = 0, variance = 0;
    explicit DiscreteGaussianRef(double s) : sigma(s) {
        if (s > 1000) { // the Jacobi theta corrections are below 1e-8000 here
            z = s * std::sqrt(2 * M_PI);
            variance = s * s;
            return;
        }
        const auto limit = static_cast<std::int64_t>(40 * s + 10);
        for (std::int64_t x = -limit; x <= limit; ++x)
            z += weight(x);
        for (std::int64_t x = -limit; x <= limit; ++x)
            variance += static_cast<double>(x * x) * weight(x) / z;
    }
    double weight(std::int64_t x) const {
        const double d = static_cast<double>(x);
        return std::exp(-d * d / (2 * sigma * sigma));
    }
    double pmf(std::int64_t x) const { return weight(x) / z; }
};

} // namespace

TEST(Bernoulli, RatioHasTheExactFrequency) {
    Rng rng(11, 0);
    const int n = 400000;
    EXPECT_LT(proportion_z(frequency(rng, n, [](Rng& r) { return bernoulli_ratio(r, 1, 3); }), 1.0 / 3, n),
              5);
    EXPECT_LT(proportion_z(frequency(rng, n, [](Rng& r) { return bernoulli_ratio(r, 5, 7); }), 5.0 / 7, n),
              5);
    const u128 big = (u128{1} << 126) + 3;
    EXPECT_LT(
        proportion_z(frequency(rng, n, [&](Rng& r) { return bernoulli_ratio(r, big / 10, big); }), 0.1, n),
        5);
    EXPECT_EQ(frequency(rng, 1000, [](Rng& r) { return bernoulli_ratio(r, 0, 5); }), 0.0);
    EXPECT_EQ(frequency(rng, 1000, [](Rng& r) { return bernoulli_ratio(r, 5, 5); }), 1.0);
}

TEST(Bernoulli, ExpNegHasTheExactFrequency) {
    Rng rng(12, 0);
    const int n = 400000;
    for (auto [num, den] : std::vector<std::pair<int, int>>{{3, 10}, {1, 1}, {5, 2}, {7, 3}}) {
        const double p = std::exp(-static_cast<double>(num) / den);
        const double f = frequency(rng, n, [&](Rng& r) { return bernoulli_exp_neg(r, num, den); });
        EXPECT_LT(proportion_z(f, p, n), 5) << num << "/" << den;
    }
    // A rare event: exp(-10) = 4.5e-5.
    const int big_n = 2000000;
    const double f = frequency(rng, big_n, [](Rng& r) { return bernoulli_exp_neg(r, 10, 1); });
    EXPECT_LT(proportion_z(f, std::exp(-10.0), big_n), 5);
    EXPECT_EQ(frequency(rng, 1000, [](Rng& r) { return bernoulli_exp_neg(r, 0, 1); }), 1.0);
}

TEST(RationalScale, RoundsUpAndStaysClose) {
    for (double scale : {1e-9, 0.001, 0.3, 1.0, 2.5, 1234.5678, 3.0e9, 0x1.0p52}) {
        const RationalScale r = rational_scale_at_least(scale);
        EXPECT_GE(static_cast<long double>(r.t) / r.s, scale) << scale;
        EXPECT_NEAR(r.value() / scale, 1.0, 1e-9) << scale;
    }
    EXPECT_THROW(rational_scale_at_least(0), InvalidArgument);
    EXPECT_THROW(rational_scale_at_least(NAN), InvalidArgument);
    EXPECT_THROW(rational_scale_at_least(1e300), InvalidArgument);
}

class DiscreteLaplaceScale : public ::testing::TestWithParam<double> {};

TEST_P(DiscreteLaplaceScale, MatchesThePmfAndRejectsAFivePercentScaleError) {
    const double scale = GetParam();
    Rng rng(13, static_cast<std::uint64_t>(scale * 1000));
    const RationalScale r = rational_scale_at_least(scale);
    std::vector<std::int64_t> xs(300000);
    for (auto& x : xs)
        x = discrete_laplace(rng, r);
    const auto span = static_cast<std::int64_t>(20 * scale + 5);
    if (span <= 100000) {
        EXPECT_LT(std::fabs(chi_square_z(
                      xs, [&](std::int64_t x) { return laplace_pmf(x, scale); }, -span, span)),
                  5);
    } else { // too many cells for a chi-square: compare with the continuous Laplace, which it matches here
        std::vector<double> ds(xs.begin(), xs.end());
        EXPECT_LT(gazepriv::test::ks_sqrt_n(ds,
                                            [&](double x) {
                                                return x < 0 ? 0.5 * std::exp(x / scale)
                                                             : 1 - 0.5 * std::exp(-x / scale);
                                            }),
                  1.95);
    }
    EXPECT_LT(std::fabs(variance_z(xs, laplace_variance(scale), 3)), 5);
    EXPECT_LT(std::fabs(gazepriv::test::moments(xs).mean) / std::sqrt(laplace_variance(scale) / xs.size()),
              5);
    // Power: the same draws are clearly not from a distribution whose scale is 5% larger.
    EXPECT_GT(std::fabs(variance_z(xs, laplace_variance(1.05 * scale), 3)), 5);
}

INSTANTIATE_TEST_SUITE_P(Scales, DiscreteLaplaceScale, ::testing::Values(0.5, 3.0, 250.0, 1e6));

TEST(DiscreteGeometric, MatchesThePmf) {
    Rng rng(14, 0);
    const double scale = 4.0;
    const double q = std::exp(-1 / scale);
    std::vector<std::int64_t> xs(300000);
    for (auto& x : xs)
        x = static_cast<std::int64_t>(discrete_geometric(rng, rational_scale_at_least(scale)));
    EXPECT_LT(std::fabs(chi_square_z(
                  xs, [&](std::int64_t x) { return x < 0 ? 0 : (1 - q) * std::pow(q, x); }, 0, 80)),
              5);
}

TEST(RationalVariance, RoundsUpWithinTheArithmeticLimits) {
    for (double sigma : {0.05, 0.7, 1.0, 3.7, 1000.25, 6500.0, 3e7, 1.3e8}) {
        const RationalVariance v = rational_variance_at_least(sigma);
        EXPECT_GE(static_cast<long double>(v.num) / static_cast<long double>(v.den),
                  static_cast<long double>(sigma) * sigma);
        EXPECT_NEAR(v.sigma() / sigma, 1.0, 1e-9) << sigma;
        EXPECT_EQ(v.t, static_cast<std::uint64_t>(std::floor(sigma)) + 1);
        EXPECT_LE(static_cast<long double>(v.t) * v.t * static_cast<long double>(v.den), 0x1.0p56L);
    }
    EXPECT_THROW(rational_variance_at_least(0x1.0p27), InvalidArgument);
    EXPECT_THROW(rational_variance_at_least(-1), InvalidArgument);
}

class DiscreteGaussianSigma : public ::testing::TestWithParam<double> {};

TEST_P(DiscreteGaussianSigma, ExactSamplerMatchesThePmfAndRejectsAFivePercentScaleError) {
    const double sigma = GetParam();
    Rng rng(15, static_cast<std::uint64_t>(sigma * 100));
    const RationalVariance v = rational_variance_at_least(sigma);
    std::vector<std::int64_t> xs(200000);
    for (auto& x : xs)
        x = discrete_gaussian(rng, v);
    const DiscreteGaussianRef ref(sigma), wrong(1.05 * sigma);
    const auto span = static_cast<std::int64_t>(6 * sigma + 3);
    if (span <= 100000) {
        EXPECT_LT(std::fabs(chi_square_z(
                      xs, [&](std::int64_t x) { return ref.pmf(x); }, -span, span)),
                  5);
    } else {
        std::vector<double> ds(xs.begin(), xs.end());
        EXPECT_LT(
            gazepriv::test::ks_sqrt_n(ds, [&](double x) { return gazepriv::test::normal_cdf(x / sigma); }),
            1.95);
    }
    EXPECT_LT(std::fabs(variance_z(xs, ref.variance, 0)), 5);
    EXPECT_GT(std::fabs(variance_z(xs, wrong.variance, 0)), 5);
}

INSTANTIATE_TEST_SUITE_P(Sigmas, DiscreteGaussianSigma, ::testing::Values(0.7, 3.0, 50.0, 20000.0, 1e7));
