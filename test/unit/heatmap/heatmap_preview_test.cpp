#include <gtest/gtest.h>

#include "invalid_argument.hpp"

#include <cmath>
#include <numeric>
#include <vector>

#include "core/heatmap/gaussian_blur.hpp"
#include "core/heatmap/heatmap_preview.hpp"

using namespace gazepriv::core;
using gazepriv::test::invalid_argument_message;

namespace {

// The expected spatial variance of blur(X), X white noise of variance 1, by brute force: the blur is linear,
// so blur(X) = sum_i X_i blur(e_i); Var(blur(X)_j) = sum_i blur(e_i)_j^2 and Var(mean) = sum_i
// mean(blur(e_i))^2.
double brute_force_variance(int columns, int rows, double sigma) {
    const int r = columns * rows;
    std::vector<double> per_cell(r, 0);
    double mean_variance = 0;
    for (int i = 0; i < r; ++i) {
        std::vector<double> impulse(r, 0);
        impulse[i] = 1;
        gaussian_blur(impulse.data(), columns, rows, sigma, CancelCheck());
        double mean = 0;
        for (int j = 0; j < r; ++j) {
            per_cell[j] += impulse[j] * impulse[j];
            mean += impulse[j] / r;
        }
        mean_variance += mean * mean;
    }
    return std::accumulate(per_cell.begin(), per_cell.end(), 0.0) / r - mean_variance;
}

HeatmapReleasePlan plan(int width, int height, double blur, int cell_size = 1) {
    return plan_heatmap_release(make_heatmap_spec(width, height, 1, 1e-5, 1, "gaussian", "analytic", blur,
                                                  cell_size, 10, std::nullopt, kMaxHeatmapCells));
}

} // namespace

TEST(HeatmapPreview, BlurredNoiseVarianceIsExactIncludingTheEdges) {
    EXPECT_DOUBLE_EQ(blurred_white_noise_variance(7, 5, 0, CancelCheck()), 1 - 1.0 / 35);
    for (double sigma : {0.4, 0.7, 2.0, 10.0}) {
        // The blur runs in single precision: agreement to its rounding.
        EXPECT_NEAR(blurred_white_noise_variance(7, 5, sigma, CancelCheck()),
                    brute_force_variance(7, 5, sigma), 1e-6)
            << sigma;
    }
    // Away from the edges a cell's variance is (sum_k w_k^2)^2 = 1 / (4 pi s^2) for a wide kernel.
    const double s = 3;
    EXPECT_NEAR(blurred_white_noise_variance(4000, 4000, s, CancelCheck()) * 4 * M_PI * s * s, 1, 0.01);
}

TEST(HeatmapPreview, SmallCaseByHand) {
    // Prior [1, 0, 0, 0; 0, 0.5, 0, 0]: mean 0.1875, variance 1.25 / 8 - 0.1875^2 = 0.12109375. Noise:
    // map_sd = noise_sd / 10, spatial variance map_sd^2 (1 - 1/8) without a blur.
    const HeatmapReleasePlan p = plan(4, 2, 0);
    std::vector<double> prior = {1, 0, 0, 0, 0, 0.5, 0, 0};
    const HeatmapPreview preview = preview_heatmap(p, 10, prior, 0, CancelCheck());
    const double s2 = 0.12109375, v = std::pow(p.noise_sd() / 10, 2) * 0.875;
    EXPECT_DOUBLE_EQ(preview.signal_sd, std::sqrt(s2));
    EXPECT_DOUBLE_EQ(preview.noise_sd, std::sqrt(v));
    EXPECT_DOUBLE_EQ(preview.expected_cc, std::sqrt(s2 / (s2 + v)));
    EXPECT_STREQ(preview.verdict, heatmap_preview_verdict(preview.expected_cc));
    // More observers shrink the noise only.
    std::vector<double> again = {1, 0, 0, 0, 0, 0.5, 0, 0};
    const HeatmapPreview many = preview_heatmap(p, 1e6, again, 0, CancelCheck());
    EXPECT_DOUBLE_EQ(many.signal_sd, preview.signal_sd);
    EXPECT_GT(many.expected_cc, 0.999);
    EXPECT_STREQ(many.verdict, "usable");
}

TEST(HeatmapPreview, PriorIsBlurredTheRestOfTheWay) {
    const HeatmapReleasePlan p = plan(40, 30, 5);
    std::vector<double> raw(1200, 0);
    raw[615] = 1;
    std::vector<double> half = raw;
    gaussian_blur(half.data(), 40, 30, 3, CancelCheck());
    const HeatmapPreview from_raw = preview_heatmap(p, 10, raw, 0, CancelCheck());
    const HeatmapPreview from_half = preview_heatmap(p, 10, half, 3, CancelCheck());
    EXPECT_NEAR(from_half.signal_sd / from_raw.signal_sd, 1, 1e-4);
    EXPECT_DOUBLE_EQ(from_half.noise_sd, from_raw.noise_sd);
}

TEST(HeatmapPreview, Verdicts) {
    EXPECT_STREQ(heatmap_preview_verdict(0), "noise");
    EXPECT_STREQ(heatmap_preview_verdict(0.29), "noise");
    EXPECT_STREQ(heatmap_preview_verdict(0.3), "weak");
    EXPECT_STREQ(heatmap_preview_verdict(0.69), "weak");
    EXPECT_STREQ(heatmap_preview_verdict(0.7), "usable");
}

TEST(HeatmapPreview, CentreBiasPrior) {
    const GazeGrid grid = make_grid(100, 60, 10, kMaxHeatmapCells);
    const std::vector<double> prior = centre_bias_prior(grid, 1, 15, 0.5);
    EXPECT_NEAR(std::accumulate(prior.begin(), prior.end(), 0.0), 0.5, 1e-12); // no cell reaches the cap
    EXPECT_DOUBLE_EQ(prior[2 * 10 + 4], prior[3 * 10 + 5]);                    // symmetric about the centre
    EXPECT_GT(prior[2 * 10 + 4], prior[0]);
    const std::vector<double> capped = centre_bias_prior(grid, 1, 15, 1000);
    EXPECT_DOUBLE_EQ(capped[2 * 10 + 4], 1);
    // A huge sd is uniform, a tiny one all in the cells at the centre; neither overflows.
    const std::vector<double> wide = centre_bias_prior(grid, 1, 1e308, 60);
    EXPECT_NEAR(wide[0], 1, 1e-9);
    const std::vector<double> narrow = centre_bias_prior(grid, 1, 5e-324, 0.5);
    EXPECT_NEAR(std::accumulate(narrow.begin(), narrow.end(), 0.0), 0.5, 1e-12);
}

TEST(HeatmapPreview, Refusals) {
    const HeatmapReleasePlan p = plan(4, 2, 1);
    for (double bad : {double(NAN), double(INFINITY), -double(INFINITY)}) {
        std::vector<double> prior(8, 0.5);
        prior[3] = bad;
        EXPECT_NE(invalid_argument_message([&] {
                      preview_heatmap(p, 10, prior, 0, CancelCheck());
                  }).find("prior value 4"),
                  std::string::npos);
    }
    std::vector<double> prior(8, 0.5);
    EXPECT_NE(invalid_argument_message([&] {
                  preview_heatmap(p, 10, prior, 2, CancelCheck());
              }).find("blurred more"),
              std::string::npos);
    EXPECT_NE(invalid_argument_message([&] { preview_heatmap(p, 10, prior, NAN, CancelCheck()); }),
              "no error");
    EXPECT_NE(invalid_argument_message([&] { preview_heatmap(p, 0, prior, 0, CancelCheck()); }), "no error");
    std::vector<double> short_prior(7, 0.5);
    EXPECT_NE(invalid_argument_message([&] { preview_heatmap(p, 10, short_prior, 0, CancelCheck()); }),
              "no error");
    const GazeGrid grid = make_grid(4, 2, 1, kMaxHeatmapCells);
    for (double bad : {double(NAN), double(INFINITY), 0.0, -1.0}) {
        EXPECT_NE(invalid_argument_message([&] { centre_bias_prior(grid, 1, bad, 1); }), "no error");
        EXPECT_NE(invalid_argument_message([&] { centre_bias_prior(grid, 1, 1, bad); }), "no error");
    }
}
