#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/common/errors.hpp"
#include "core/noise/gaussian_table.hpp"
#include "core/noise/noise.hpp"
#include "stats.hpp"

using namespace gazepriv::core;
using gazepriv::test::chi_square_z;
using gazepriv::test::variance_z;

namespace {

struct Reference {
    double sigma, z = 0, variance = 0;
    explicit Reference(double s) : sigma(s) {
        const auto limit = static_cast<std::int64_t>(40 * s + 10);
        for (std::int64_t x = -limit; x <= limit; ++x)
            z += w(x);
        for (std::int64_t x = -limit; x <= limit; ++x)
            variance += static_cast<double>(x) * static_cast<double>(x) * w(x) / z;
    }
    double w(std::int64_t x) const { return std::exp(-static_cast<double>(x) * x / (2 * sigma * sigma)); }
    double pmf(std::int64_t x) const { return w(x) / z; }
};

} // namespace

class TableSigma : public ::testing::TestWithParam<double> {};

TEST_P(TableSigma, MatchesTheDiscreteGaussianAndRejectsAFivePercentScaleError) {
    const double sigma = GetParam();
    const GaussianTable table(sigma);
    EXPECT_LE(table.size(), GaussianTable::entries_for(sigma));
    EXPECT_GT(table.size(), static_cast<std::size_t>(12 * sigma)); // the tail beyond has mass < 2^-120
    Rng rng(21, static_cast<std::uint64_t>(sigma * 10));
    std::vector<std::int64_t> xs(400000);
    for (auto& x : xs)
        x = table.sample(rng);
    const Reference ref(sigma), wrong(1.05 * sigma);
    const auto span = static_cast<std::int64_t>(7 * sigma + 3);
    EXPECT_LT(std::fabs(chi_square_z(
                  xs, [&](std::int64_t x) { return ref.pmf(x); }, -span, span)),
              5);
    EXPECT_LT(std::fabs(variance_z(xs, ref.variance, 0)), 5);
    EXPECT_GT(std::fabs(variance_z(xs, wrong.variance, 0)), 5);
    // Tail mass beyond 3 sigma (0.27% for large sigma) within 5 standard errors.
    double p_tail = 0;
    for (std::int64_t x = -span; x <= span; ++x)
        if (std::fabs(static_cast<double>(x)) > 3 * sigma)
            p_tail += ref.pmf(x);
    double tail = 0;
    for (auto x : xs)
        tail += std::fabs(static_cast<double>(x)) > 3 * sigma;
    tail /= static_cast<double>(xs.size());
    EXPECT_LT(std::fabs(tail - p_tail) / std::sqrt(p_tail * (1 - p_tail) / xs.size()), 5);
}

INSTANTIATE_TEST_SUITE_P(Sigmas, TableSigma, ::testing::Values(1.0, 2.5, 40.0, 6500.0));

TEST(Table, RefusesTooSmallOrTooLargeSigma) {
    EXPECT_THROW(GaussianTable(0.5), InvalidArgument);
    EXPECT_THROW(GaussianTable(1e6), LimitExceeded);
    EXPECT_THROW(GaussianTable(NAN), InvalidArgument);
}

TEST(Table, CacheReturnsTheSameTableForTheSameSigma) {
    auto a = cached_gaussian_table(123.5);
    auto b = cached_gaussian_table(123.5);
    EXPECT_EQ(a.get(), b.get());
    for (double s : {1.5, 2.5, 3.5, 4.5})
        cached_gaussian_table(s);
    EXPECT_NE(cached_gaussian_table(123.5).get(), a.get()); // evicted after four newer tables
}

TEST(IntegerGaussian, ChoosesTheTableOrTheExactSampler) {
    EXPECT_GT(IntegerGaussian(100.0).statistical_distance_per_draw(), 0);
    EXPECT_EQ(IntegerGaussian(100.0, /*exact=*/true).statistical_distance_per_draw(), 0);
    EXPECT_EQ(IntegerGaussian(5e5).statistical_distance_per_draw(), 0); // too big for a table
    EXPECT_EQ(IntegerGaussian(0.5).statistical_distance_per_draw(), 0);
    Rng rng(22, 0);
    std::vector<std::int64_t> xs(200000);
    const IntegerGaussian big(5e5);
    for (auto& x : xs)
        x = big(rng);
    EXPECT_LT(std::fabs(variance_z(xs, 5e5 * 5e5, 0)), 5);
}
