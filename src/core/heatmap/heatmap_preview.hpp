// What a DP heatmap release will look like, predicted from public facts before anything is spent
// (doc/privacy/heatmap.md §9). The released map is R = blur(G + N): G the true capped map (capped sums / n),
// N the mechanism's noise per cell (sd = the plan's noise_sd / n, independent across cells). Against the
// truth blurred alike, T = blur(G), the release is T + blur(N), and its correlation with T is
//     CC ~ sqrt(s^2 / (s^2 + v)),
// s^2 the spatial variance of T, v the expected spatial variance of blur(N). The preview takes T from a
// stated prior (a map the curator supplies, or a centre-bias Gaussian), never from the data, and v exactly
// from the noise sd and the blur's kernel (the sum of its squared weights, less near the edges). It reads
// no data and draws no noise: it is free.
#pragma once

#include <cstdint>
#include <vector>

#include "core/common/cancel.hpp"
#include "core/heatmap/heatmap_release.hpp"

namespace gazepriv::core {

// Thresholds of the verdict on the expected CC: below 0.3 "noise", below 0.7 "weak", else "usable".
constexpr double kPreviewNoiseBelow = 0.3;
constexpr double kPreviewUsableFrom = 0.7;
const char* heatmap_preview_verdict(double expected_cc);

struct HeatmapPreview {
    double expected_cc; // sqrt(s^2 / (s^2 + v)); 0 for a constant prior
    double signal_sd;   // s: the spatial sd of the blurred prior, in map units
    double noise_sd;    // sqrt(v): the spatial sd of the blurred noise, in map units
    const char* verdict;
};

// The expected spatial variance (1/r) sum_j (X_j - mean X)^2 of blur(X), X white noise of variance 1 on a
// columns x rows map, for gaussian_blur's kernel of sigma cells (zero outside the map). Exact: the per-cell
// variance is the sum of the squared kernel weights that fall inside the map (separable: the product of one
// factor per axis), less the variance of the map's mean. 1 - 1/r without a blur.
double blurred_white_noise_variance(std::int32_t columns, std::int32_t rows, double sigma_cells,
                                    const CancelCheck& cancel);

// The preview of a release planned as `plan` with n = observers (>= 1), the truth expected to be `prior`
// (r values in map units, finite; a blurred map may hold rounding below 0), already blurred by prior_blur
// pixels (<= the plan's blur_sigma). The prior is blurred in place up to the plan's blur. InvalidArgument for
// a prior out of range.
HeatmapPreview preview_heatmap(const HeatmapReleasePlan& plan, double observers, std::vector<double>& prior,
                               double prior_blur, const CancelCheck& cancel);

// A parametric prior: an isotropic Gaussian centre bias of sd centre_sd pixels around the grid's centre,
// `points_per_observer` expected capped counts per observer on the map in all (for cap 1, the number of
// distinct cells one observer's gaze enters), each cell's value at most the cap. InvalidArgument for a
// centre_sd or points_per_observer that is not a positive finite number.
std::vector<double> centre_bias_prior(const GazeGrid& grid, std::int32_t cap, double centre_sd,
                                      double points_per_observer);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
