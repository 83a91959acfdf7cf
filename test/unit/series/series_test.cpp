#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <vector>

#include "core/common/errors.hpp"
#include "core/series/real_fft.hpp"
#include "core/series/series.hpp"
#include "stats.hpp"

using namespace gazepriv::core;
using gazepriv::test::variance_z;

namespace {

SeriesSpan span(const std::vector<double>& v) {
    return {v.data(), v.size()};
}

std::vector<double> smooth_signal(std::size_t n) {
    std::vector<double> x(n);
    for (std::size_t t = 0; t < n; ++t)
        x[t] = 3 + std::sin(0.05 * double(t)) + 0.5 * std::cos(0.013 * double(t));
    return x;
}

// L1 norm of the real coordinates FPA_k perturbs, for the exact DFT of x.
double perturbed_l1(const std::vector<double>& x, std::size_t k) {
    const std::size_t n = x.size();
    auto fft = real_fft(n);
    std::copy(x.begin(), x.end(), fft->signal());
    fft->forward();
    double l1 = std::fabs(fft->spectrum()[0].real());
    for (std::size_t j = 1; j < k; ++j)
        l1 += std::fabs(fft->spectrum()[j].real()) + (2 * j == n ? 0 : std::fabs(fft->spectrum()[j].imag()));
    return l1;
}

double l2(const std::vector<double>& x) {
    double s = 0;
    for (double v : x)
        s += v * v;
    return std::sqrt(s);
}

} // namespace

TEST(Fpa, LambdaIsTheCorrectedScaleAndTheBoundIsTight) {
    // doc/privacy/series.md §2: n = 128, k = 10, Delta_2 = 1, epsilon = 1 -> 35.777 (RN10 would say 3.162).
    EXPECT_NEAR(fpa_lambda(128, 10, 1, 1), 35.777, 1e-3);
    // The worst case 1 + sum_{j<k} (cos_j - sin_j) reaches L1 = sqrt(n k) per unit L2 ...
    const std::size_t n = 128, k = 10;
    std::vector<double> worst(n);
    for (std::size_t t = 0; t < n; ++t) {
        worst[t] = 1;
        for (std::size_t j = 1; j < k; ++j)
            worst[t] += std::cos(2 * M_PI * j * t / n) - std::sin(2 * M_PI * j * t / n);
    }
    EXPECT_NEAR(perturbed_l1(worst, k) / l2(worst), std::sqrt(double(n * k)), 1e-9);
    // ... and no input exceeds it, including with the Nyquist bin (n even, k = n/2 + 1).
    Rng rng(91, 0);
    for (std::size_t trial = 0; trial < 2000; ++trial) {
        const std::size_t m = 2 + trial % 31;
        const std::size_t km = 1 + trial % fpa_max_k(m);
        std::vector<double> x(m);
        for (auto& v : x)
            v = rng.uniform01() - 0.3;
        ASSERT_LE(perturbed_l1(x, km), std::sqrt(double(m * km)) * l2(x) * (1 + 1e-12));
    }
    EXPECT_EQ(fpa_coordinates(64, 6), 11u);
    EXPECT_EQ(fpa_coordinates(64, 33), 64u); // Nyquist: Im F_{n/2} is not a coordinate
    EXPECT_EQ(fpa_coordinates(65, 33), 65u);
}

TEST(Fpa, HugeEpsilonWithAllBinsReturnsTheInput) {
    Rng rng(92, 0);
    for (std::size_t n : {1u, 2u, 9u, 64u, 101u}) {
        std::vector<double> x(n), y(n);
        for (auto& v : x)
            v = rng.uniform01() * 100 - 50;
        fpa(span(x), fpa_max_k(n), 1e12, 1.0, y.data(), rng);
        for (std::size_t t = 0; t < n; ++t)
            ASSERT_NEAR(y[t], x[t], 1e-9) << "n=" << n;
    }
}

TEST(Fpa, KeepingFewBinsKeepsTheFullAmplitude) {
    // A pure cosine at bin 3 survives FPA_4 at huge epsilon unchanged (Hermitian reconstruction; the
    // naive Re(IFFT) of the zero-padded first k bins would halve it).
    const std::size_t n = 64;
    std::vector<double> x(n), y(n);
    for (std::size_t t = 0; t < n; ++t)
        x[t] = 2 + std::cos(2 * M_PI * 3 * t / n);
    Rng rng(93, 0);
    fpa(span(x), 4, 1e12, 1.0, y.data(), rng);
    for (std::size_t t = 0; t < n; ++t)
        ASSERT_NEAR(y[t], x[t], 1e-9);
    fpa(span(x), 3, 1e12, 1.0, y.data(), rng); // bin 3 dropped: the mean remains
    for (std::size_t t = 0; t < n; ++t)
        ASSERT_NEAR(y[t], 2.0, 1e-9);
}

// Per-sample noise variance of FPA against 2 lambda^2 (4k - 3) / n^2 (doc/privacy/series.md §3). The
// statistic per run is S = mean_t y_t^2 of a release of zeros; by Parseval S = (N_0^2 + 2 sum |N_j|^2) / n^2
// with independent Laplace coordinates, so Var S = 20 lambda^4 (number of terms weighted) / n^4 is known
// exactly and the test is a z-test that a 5% error in lambda fails.
class FpaVariance : public ::testing::TestWithParam<std::pair<std::size_t, std::size_t>> {};

TEST_P(FpaVariance, MatchesTheOracleAndRejectsAFivePercentScaleError) {
    const auto [n, k] = GetParam();
    const double epsilon = 0.7, sensitivity = 1.3;
    const double lambda = fpa_lambda(n, k, sensitivity, epsilon);
    const double expected = fpa_noise_variance(n, k, lambda);
    const bool nyquist = n % 2 == 0 && k == n / 2 + 1;
    if (!nyquist)
        EXPECT_NEAR(expected, 2 * lambda * lambda * (4.0 * k - 3) / (double(n) * n), 1e-12 * expected);
    // Var S: DC (and Nyquist) terms N^2 / n^2 (Var N^2 = 20 lambda^4), pairs 2 (Nr^2 + Ni^2) / n^2.
    const double pairs = double(k - 1) - (nyquist ? 1 : 0);
    const double var_s = 20 * std::pow(lambda, 4) * ((nyquist ? 2 : 1) + 8 * pairs) / std::pow(double(n), 4);
    Rng rng(94, n * 1000 + k);
    const std::vector<double> zeros(n, 0.0);
    std::vector<double> y(n);
    const int runs = 20000;
    double mean_s = 0, at_zero = 0;
    for (int r = 0; r < runs; ++r) {
        fpa(span(zeros), k, epsilon, sensitivity, y.data(), rng);
        double s = 0;
        for (double v : y)
            s += v * v;
        mean_s += s / double(n) / runs;
        at_zero += y[0] * y[0] / runs;
    }
    const double se = std::sqrt(var_s / runs);
    EXPECT_LT(std::fabs(mean_s - expected) / se, 5) << "mean " << mean_s << " expected " << expected;
    EXPECT_GT(std::fabs(mean_s - 1.05 * 1.05 * expected) / se, 5); // lambda 5% larger is detected
    EXPECT_NEAR(at_zero / expected, 1, 0.08);                      // and the variance holds sample by sample
}

INSTANTIATE_TEST_SUITE_P(Sizes, FpaVariance,
                         ::testing::Values(std::make_pair(64u, 6u), std::make_pair(65u, 1u),
                                           std::make_pair(30u, 16u), std::make_pair(128u, 10u)));

TEST(Lpa, VarianceIsTwoLambdaSquared) {
    const std::size_t n = 200000;
    const std::vector<double> zeros(n, 0.0);
    std::vector<double> y(n);
    Rng rng(95, 0);
    const double l1 = 3.0, epsilon = 0.5, lambda = l1 / epsilon;
    lpa(span(zeros), epsilon, l1, y.data(), rng);
    EXPECT_LT(std::fabs(variance_z(y, 2 * lambda * lambda, 3)), 5);
    EXPECT_GT(std::fabs(variance_z(y, 2 * 1.05 * lambda * 1.05 * lambda, 3)), 5);
}

TEST(Dcfpa, ReconstructsExactlyWithoutNoise) {
    const std::vector<double> x = smooth_signal(100);
    std::vector<double> y(x.size());
    Rng rng(96, 0);
    for (std::size_t m : {1u, 2u, 31u, 32u}) {
        auto fft = real_fft(m);
        dcfpa_block(x.data(), m, fpa_max_k(m), nullptr, *fft, y.data(), rng);
        for (std::size_t t = 0; t < m; ++t)
            ASSERT_NEAR(y[t], x[t], 1e-12) << "m=" << m;
    }
    // Through the public function at huge epsilon, with a short last chunk (100 = 3 * 32 + 4).
    const std::vector<double> sens{1.0};
    dcfpa(span(x), 17, 32, 1e12, span(sens), y.data(), rng);
    for (std::size_t t = 0; t < x.size(); ++t)
        ASSERT_NEAR(y[t], x[t], 1e-8);
    cfpa(span(x), 17, 32, 1e12, span(sens), y.data(), rng);
    for (std::size_t t = 0; t < x.size(); ++t)
        ASSERT_NEAR(y[t], x[t], 1e-8);
}

TEST(Dcfpa, DifferencesKeepTheFirstElementOfEachChunk) {
    const std::vector<double> x{5, 7, 4, 4, 10, 1, 2};
    std::vector<double> d(x.size());
    chunk_differences(x.data(), x.size(), 3, d.data());
    EXPECT_EQ(d, (std::vector<double>{5, 2, -3, 4, 6, -9, 2}));
}

TEST(Cfpa, EachChunkGetsItsOwnLambda) {
    // Chunk 0 with a tiny sensitivity is nearly exact; chunk 1 with a large one is noisy.
    std::vector<double> x(64, 1.0), y(64);
    const std::vector<double> sens{1e-9, 100.0};
    Rng rng(97, 0);
    cfpa(span(x), 1, 32, 1.0, span(sens), y.data(), rng);
    for (std::size_t t = 0; t < 32; ++t)
        ASSERT_NEAR(y[t], 1.0, 1e-6);
    double spread = 0;
    for (std::size_t t = 32; t < 64; ++t)
        spread += std::fabs(y[t] - 1.0);
    EXPECT_GT(spread, 1e-3);
}

TEST(Series, BadArgumentsNameTheParameter) {
    const std::vector<double> x{1, 2, 3, 4}, empty, sens{1.0}, bad_sens{1.0, 0.0};
    std::vector<double> y(4);
    Rng rng(98, 0);
    auto message = [](auto&& call) {
        try {
            call();
        } catch (const InvalidArgument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message([&] { lpa(span(empty), 1, 1, y.data(), rng); }), "series must not be empty");
    const std::vector<double> with_nan{1, NAN};
    EXPECT_EQ(message([&] { fpa(span(with_nan), 1, 1, 1, y.data(), rng); }),
              "series must contain only finite numbers (element 2 is NaN)");
    EXPECT_EQ(message([&] { fpa(span(x), 0, 1, 1, y.data(), rng); }),
              "k must be between 1 and 3 (floor(n/2) + 1 for a series of 4), got 0");
    EXPECT_EQ(message([&] { fpa(span(x), 4, 1, 1, y.data(), rng); }),
              "k must be between 1 and 3 (floor(n/2) + 1 for a series of 4), got 4");
    EXPECT_EQ(message([&] { fpa(span(x), 1, 1, 0, y.data(), rng); }),
              "l2_sensitivity must be a finite number greater than 0, got 0");
    EXPECT_EQ(message([&] { lpa(span(x), -1, 1, y.data(), rng); }),
              "epsilon must be a finite number of at least 1e-06, got -1");
    EXPECT_EQ(message([&] { cfpa(span(x), 1, 1, 1, span(sens), y.data(), rng); }),
              "chunk must be at least 2, got 1");
    EXPECT_EQ(message([&] { cfpa(span(x), 3, 2, 1, span(sens), y.data(), rng); }),
              "k must be between 1 and 2 (floor(chunk/2) + 1), got 3");
    const std::vector<double> three{1, 1, 1};
    EXPECT_EQ(message([&] { dcfpa(span(x), 1, 2, 1, span(three), y.data(), rng); }),
              "chunk_l2_sensitivities must have one element per chunk (2) or a single element, got 3");
    EXPECT_EQ(message([&] { dcfpa(span(x), 1, 2, 1, span(bad_sens), y.data(), rng); }),
              "chunk_l2_sensitivities must contain finite numbers greater than 0 (element 2 is 0)");
    EXPECT_EQ(message([&] { nmse(span(x), span(three)); }),
              "released must have as many elements as original (4), got 3");
}

TEST(Nmse, IsTheProductOfMeansNormalisedError) {
    const std::vector<double> a{1, 2, 3}, b{1, 2, 4}, zero_mean{-1, 1, 0};
    EXPECT_DOUBLE_EQ(nmse(span(a), span(b)), 1.0 / 14.0); // (1/3) / (2 * 7/3)
    EXPECT_DOUBLE_EQ(nmse_utility(span(a), span(b)), 14.0);
    EXPECT_EQ(nmse(span(a), span(a)), 0.0);
    EXPECT_TRUE(std::isinf(nmse(span(zero_mean), span(a))));
    EXPECT_EQ(nmse_utility(span(zero_mean), span(a)), 0.0);
    const std::vector<double> negative{-1, -2, -3};
    EXPECT_LT(nmse(span(a), span(negative)), 0); // hence the paper's |NMSE|
}

TEST(ChooseK, PublicRuleDependsOnEpsilonOnly) {
    EXPECT_EQ(public_k(0.01, 100), 1u);
    EXPECT_EQ(public_k(1, 100), 1u);
    EXPECT_EQ(public_k(10, 100), 1u);
    EXPECT_EQ(public_k(84.8, 100), 1u); // 84.8^2 = 7191 < 800 (8 + 1) = 7200
    EXPECT_EQ(public_k(84.9, 100), 2u); // 7200 < 7208
    EXPECT_EQ(public_k(116, 100), 2u);  // 13456 < 800 (16 + 1) = 13600
    EXPECT_EQ(public_k(120, 100), 3u);  // 13600 < 14400
    EXPECT_EQ(public_k(1e9, 33), 33u);
}

TEST(ChooseK, SweepPrefersManyBinsWhenNoiseIsSmallAndFewWhenLarge) {
    const std::vector<double> x = smooth_signal(256);
    const std::vector<double> sens{1.0};
    Rng rng(99, 0);
    auto best = [](const std::vector<KScore>& scores) {
        KScore b = scores.front();
        for (const auto& s : scores)
            if (s.mean_abs_nmse < b.mean_abs_nmse)
                b = s;
        return b.k;
    };
    EXPECT_GT(best(nmse_k_sweep(span(x), SeriesMethod::Fpa, 0, 1e6, span(sens), {}, 5, rng)), 4u);
    EXPECT_EQ(best(nmse_k_sweep(span(x), SeriesMethod::Fpa, 0, 0.01, span(sens), {1, 2, 8, 64}, 20, rng)),
              1u);
    const auto chunked = nmse_k_sweep(span(x), SeriesMethod::Cfpa, 64, 1.0, span(sens), {}, 3, rng);
    EXPECT_EQ(chunked.back().k, 33u); // the default candidates end at the limit
    EXPECT_THROW(nmse_k_sweep(span(x), SeriesMethod::Lpa, 0, 1, span(sens), {}, 5, rng), InvalidArgument);
    EXPECT_THROW(nmse_k_sweep(span(x), SeriesMethod::Fpa, 0, 1, span(sens), {200}, 5, rng), InvalidArgument);
    EXPECT_THROW(nmse_k_sweep(span(x), SeriesMethod::Fpa, 0, 1, span(sens), {}, 0, rng), InvalidArgument);
}
