// The plausible-deniability models: binning, marginals, Pr{y = M(d)} on a hand example, sampling.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/common/errors.hpp"
#include "core/pd/pd_model.hpp"
#include "core/pd/pd_privacy_check.hpp"

using namespace gazepriv::core;
using namespace gazepriv::core::pd;

namespace {

// Three features of two bins each, with marginals p_0 = (1/2, 1/2), p_1 = (1/4, 3/4), p_2 = (4/5, 1/5)
// (alpha = 0, counts chosen to give exactly these).
Marginals hand_marginals() {
    const std::vector<FeatureBins> bins(3, bins_over(0, 2, 2));
    Marginals m(bins);
    const std::size_t stride = code_stride(3);
    std::vector<std::uint8_t> codes;
    auto add = [&](std::uint8_t a, std::uint8_t b, std::uint8_t c, int times) {
        for (int i = 0; i < times; ++i) {
            std::vector<std::uint8_t> row(stride, 0);
            row[0] = a;
            row[1] = b;
            row[2] = c;
            codes.insert(codes.end(), row.begin(), row.end());
        }
    };
    // 20 rows: feature 0 has 10 zeros, feature 1 has 5 zeros, feature 2 has 16 zeros.
    add(0, 0, 0, 5);
    add(0, 1, 0, 5);
    add(1, 1, 0, 6);
    add(1, 1, 1, 4);
    m.add_rows(codes.data(), stride, 20);
    m.finish(0);
    return m;
}

} // namespace

TEST(PdBins, EqualWidthCodesClampAndMapBackInsideTheBin) {
    const FeatureBins b = bins_over(0, 30, 30);
    EXPECT_EQ(b.code(0), 0);
    EXPECT_EQ(b.code(0.999), 0);
    EXPECT_EQ(b.code(1), 1);
    EXPECT_EQ(b.code(30), 29); // the maximum falls in the last bin
    EXPECT_EQ(b.code(-5), 0);  // public bounds: values outside are clamped
    EXPECT_EQ(b.code(1e300), 29);
    Rng rng(1, 0);
    for (int code = 0; code < 30; ++code)
        for (int i = 0; i < 200; ++i) {
            const double v = b.value(static_cast<std::uint8_t>(code), rng);
            ASSERT_GE(v, code);
            ASSERT_LT(v, code + 1);
            ASSERT_EQ(b.code(v), code);
        }
}

TEST(PdBins, ZeroRangeIsOneBinThatMapsBackToTheConstant) {
    const FeatureBins b = bins_over(2.5, 2.5, 30);
    EXPECT_EQ(b.bins, 1);
    EXPECT_EQ(b.code(2.5), 0);
    Rng rng(2, 0);
    EXPECT_EQ(b.value(0, rng), 2.5);
    Marginals m(std::vector<FeatureBins>{b});
    m.finish(1.0);
    EXPECT_EQ(m.p(0, 0), 1.0); // smoothing does not invent other bins for a constant feature
    EXPECT_EQ(m.sample(0, rng), 0);
}

TEST(PdBins, RejectsBadBinsAndBounds) {
    EXPECT_THROW(bins_over(0, 1, 1), InvalidArgument);
    EXPECT_THROW(bins_over(0, 1, 257), InvalidArgument);
    EXPECT_THROW(bins_over(1, 0, 30), InvalidArgument);
    EXPECT_THROW(bins_over(0, std::nan(""), 30), InvalidArgument);
    EXPECT_THROW(bins_over(-1e308, 1e308, 30), InvalidArgument);
}

TEST(PdMarginals, DirichletSmoothingAndNoZeroBinIsEverDrawn) {
    const std::vector<FeatureBins> bins(1, bins_over(0, 4, 4));
    Marginals m(bins);
    const std::size_t stride = code_stride(1);
    std::vector<std::uint8_t> codes(3 * stride, 0);
    codes[0] = 0;
    codes[stride] = 0;
    codes[2 * stride] = 2;
    m.add_rows(codes.data(), stride, 3);
    m.finish(2.0); // (c + 2/4) / (3 + 2)
    EXPECT_DOUBLE_EQ(m.p(0, 0), 2.5 / 5);
    EXPECT_DOUBLE_EQ(m.p(0, 1), 0.5 / 5);
    EXPECT_DOUBLE_EQ(m.p(0, 2), 1.5 / 5);
    EXPECT_DOUBLE_EQ(m.log_p(0, 3), std::log(0.1));

    Marginals unsmoothed(bins);
    unsmoothed.add_rows(codes.data(), stride, 3);
    unsmoothed.finish(0);
    EXPECT_EQ(unsmoothed.log_p(0, 1), kNoBand);
    Rng rng(3, 0);
    int counts[4] = {0, 0, 0, 0};
    for (int i = 0; i < 30000; ++i)
        ++counts[unsmoothed.sample(0, rng)];
    EXPECT_EQ(counts[1], 0);
    EXPECT_EQ(counts[3], 0);
    EXPECT_NEAR(counts[0] / 30000.0, 2.0 / 3, 0.015);
}

TEST(PdModel, SeedBasedProbabilityOnAHandExample) {
    const Marginals m = hand_marginals();
    ASSERT_DOUBLE_EQ(m.p(0, 1), 0.5);
    ASSERT_DOUBLE_EQ(m.p(1, 1), 0.75);
    ASSERT_DOUBLE_EQ(m.p(2, 0), 0.8);
    const std::uint8_t y[] = {1, 1, 0};
    // Random omega = 2 of m = 3: the subsets {0,1}, {0,2}, {1,2} each with probability 1/3; products of
    // p_j(y_j): 0.375, 0.4, 0.6.
    const Model random(ModelKind::SeedBased, Resample::Random, 2, m);
    const std::uint8_t same[] = {1, 1, 0}, one_off[] = {1, 0, 0}, two_off[] = {0, 0, 0},
                       three_off[] = {0, 0, 1};
    EXPECT_NEAR(std::exp(random.log_prob(y, same)), (0.375 + 0.4 + 0.6) / 3, 1e-15);
    EXPECT_NEAR(std::exp(random.log_prob(y, one_off)), (0.375 + 0.6) / 3, 1e-15); // S must contain feature 1
    EXPECT_NEAR(std::exp(random.log_prob(y, two_off)), 0.375 / 3, 1e-15);         // only S = {0, 1}
    EXPECT_EQ(random.log_prob(y, three_off), kNoBand);                            // 3 differ, 2 resampled
    // Last omega = 2: feature 0 is copied, 1 and 2 resampled.
    const Model last(ModelKind::SeedBased, Resample::Last, 2, m);
    EXPECT_NEAR(std::exp(last.log_prob(y, one_off)), 0.75 * 0.8, 1e-15);
    EXPECT_EQ(last.log_prob(y, two_off), kNoBand);
    // Marginals: seedless, the same for every seed.
    const Model marginals(ModelKind::Marginals, Resample::Random, 0, m);
    EXPECT_TRUE(marginals.seedless());
    EXPECT_NEAR(std::exp(marginals.log_prob(y, three_off)), 0.5 * 0.75 * 0.8, 1e-15);
    EXPECT_EQ(marginals.log_prob(y, three_off), marginals.log_prob(y, same));
    // omega = m is seedless too.
    EXPECT_TRUE(Model(ModelKind::SeedBased, Resample::Random, 3, m).seedless());
}

TEST(PdModel, ScorerMatchesTheStraightforwardProbability) {
    const Marginals m = hand_marginals();
    const Model random(ModelKind::SeedBased, Resample::Random, 2, m);
    CandidateScorer scorer(random);
    const std::uint8_t y[16] = {1, 1, 0};
    scorer.set_candidate(y);
    for (int d = 0; d < 8; ++d) {
        const std::uint8_t seed[16] = {static_cast<std::uint8_t>(d & 1),
                                       static_cast<std::uint8_t>(d >> 1 & 1),
                                       static_cast<std::uint8_t>(d >> 2 & 1)};
        const double via_mask = scorer.log_prob_for_mask(mismatch_mask(y, seed, 16));
        EXPECT_EQ(via_mask, random.log_prob(y, seed)) << d; // bit-identical: the same formula
    }
}

// Pr{y = M(d)} with many features, where e_r is summed in linear arithmetic on scaled p_j and, when that
// would underflow, in log space: both against the closed form of a two-valued example. 60 features of 256
// bins, 10 rows all in bin 0, alpha = 1e-12: y takes bin 0 (p = big, about 1) in features 0-9 and bin 5
// (p = tiny, about 4e-16) in 10-59; the seed differs from y in features 50-59. With r = omega - 10 of the 50
// agreeing features resampled, e_r = sum_a C(10, a) C(40, r - a) big^a tiny^(r - a).
TEST(PdModel, ManyFeaturesMatchTheClosedFormAboveAndBelowUnderflow) {
    const std::size_t m = 60, stride = code_stride(m);
    Marginals marginals(std::vector<FeatureBins>(m, bins_over(0, 256, 256)));
    const std::vector<std::uint8_t> rows(10 * stride, 0);
    marginals.add_rows(rows.data(), stride, 10);
    marginals.finish(1e-12);
    std::vector<std::uint8_t> y(stride, 0), d(stride, 0);
    for (std::size_t j = 10; j < m; ++j)
        y[j] = 5;
    for (std::size_t j = 10; j < 50; ++j)
        d[j] = 5;
    const double big = marginals.p(0, 0), tiny = marginals.p(10, 5);
    ASSERT_LT(tiny, 1e-15);
    const auto log_choose = [](double n, double k) {
        return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1);
    };
    for (std::size_t omega : {25u, 35u, 59u}) { // r = 15, 25, 49: e_r about 1e-72, 1e-232, 1e-600
        const std::size_t r = omega - 10;
        double log_e = kNoBand;
        for (std::size_t a = r > 40 ? r - 40 : 0; a <= std::min<std::size_t>(10, r); ++a) {
            const double term =
                log_choose(10, a) + log_choose(40, r - a) + a * std::log(big) + (r - a) * std::log(tiny);
            log_e = log_e == kNoBand ? term
                                     : std::max(log_e, term) + std::log1p(std::exp(-std::abs(log_e - term)));
        }
        const double expected = 10 * std::log(tiny) + log_e - log_choose(m, omega);
        const Model model(ModelKind::SeedBased, Resample::Random, omega, marginals);
        EXPECT_NEAR(model.log_prob(y.data(), d.data()), expected, 1e-10 * std::abs(expected)) << omega;
        CandidateScorer scorer(model);
        scorer.set_candidate(y.data());
        EXPECT_EQ(scorer.log_prob_for_mask(mismatch_mask(y.data(), d.data(), stride)),
                  model.log_prob(y.data(), d.data()));
    }
}

TEST(PdModel, GenerateCopiesTheSeedOutsideTheResampledFeatures) {
    const Marginals m = hand_marginals();
    Rng rng(4, 0);
    const std::uint8_t seed[] = {0, 0, 1};
    const Model last(ModelKind::SeedBased, Resample::Last, 1, m);
    const Model random(ModelKind::SeedBased, Resample::Random, 1, m);
    int differing_positions[3] = {0, 0, 0};
    for (int i = 0; i < 3000; ++i) {
        std::uint8_t y[3];
        last.generate(seed, y, rng);
        ASSERT_EQ(y[0], 0);
        ASSERT_EQ(y[1], 0);
        random.generate(seed, y, rng);
        int differ = 0;
        for (int j = 0; j < 3; ++j)
            if (y[j] != seed[j]) {
                ++differ;
                ++differing_positions[j];
            }
        ASSERT_LE(differ, 1);
        ASSERT_GT(random.log_prob(y, seed), kNoBand); // the seed can always have produced its candidate
    }
    // Each feature is resampled a third of the time; it then differs with probability 1 - p_j(seed_j):
    // 1/2, 3/4 and 4/5 of 1000.
    EXPECT_NEAR(differing_positions[0], 500, 75);
    EXPECT_NEAR(differing_positions[1], 750, 75);
    EXPECT_NEAR(differing_positions[2], 800, 75);
}

TEST(PdModel, ElementarySymmetricPolynomialsInLogSpace) {
    const double x[] = {0.5, 0.25, 2.0, 1e-200};
    double lx[4];
    for (int i = 0; i < 4; ++i)
        lx[i] = std::log(x[i]);
    EXPECT_EQ(log_elementary_symmetric(lx, 4, 0), 0);
    EXPECT_NEAR(std::exp(log_elementary_symmetric(lx, 3, 1)), 2.75, 1e-14);
    EXPECT_NEAR(std::exp(log_elementary_symmetric(lx, 3, 2)), 0.125 + 1 + 0.5, 1e-14);
    EXPECT_NEAR(std::exp(log_elementary_symmetric(lx, 3, 3)), 0.25, 1e-15);
    EXPECT_EQ(log_elementary_symmetric(lx, 3, 4), kNoBand);
    // Products far below the smallest double stay exact in log space.
    std::vector<double> tiny(60, std::log(1e-10));
    EXPECT_NEAR(log_elementary_symmetric(tiny.data(), 60, 60), 60 * std::log(1e-10), 1e-9);
    EXPECT_NEAR(log_binomial(5, 2), std::log(10.0), 1e-12);
}

TEST(PdModel, RejectsOmegaOutsideTheFeatures) {
    const Marginals m = hand_marginals();
    EXPECT_THROW(Model(ModelKind::SeedBased, Resample::Random, 0, m), InvalidArgument);
    EXPECT_THROW(Model(ModelKind::SeedBased, Resample::Random, 4, m), InvalidArgument);
}
