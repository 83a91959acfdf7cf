// The noise of a released map, from its public fields: the accuracy of each cell and which cells are above
// what the noise alone would give (doc/privacy/heatmap.md §7).
// The test of each cell is one-sided, of "the cell's true value is 0", against the release's noise, which is
// public (the map's sigma or scale): a cell is significant when its value exceeds the noise's (1 - a)
// quantile. With the Bonferroni correction a = level / cells, so that on a map whose true values are all 0
// the chance that ANY cell is marked is at most `level`; per cell, a = level, so about level * cells cells
// of such a map are marked. The quantiles are those of the continuous Gaussian (sd sigma) and Laplace
// (scale b) whose integer-noise counterparts the release draws: the discrete Gaussian's variance is at most
// sigma^2 and its tails match the continuous ones up to the rounding of one count. A blur after the noise
// (the map's blur_sigma) averages the noise: with the sampled kernel w (gaussian_blur.hpp) a cell's noise has
// sd sigma * sum_k w_k^2 (exact away from the edges; smaller near them, where the test is conservative).
// Privacy: a function of the released values and public parameters only: post-processing.
#pragma once

#include <cstddef>
#include <string>

#include "core/noise/accuracy.hpp"

namespace gazepriv::core {

enum class Correction { Bonferroni, PerCell };
Correction parse_correction(const std::string& name); // "bonferroni", "per_cell"

struct MapNoise {
    bool gaussian = true;  // otherwise Laplace
    double spread = 0;     // the released map's sigma (Gaussian) or scale (Laplace), in map units
    double blur_cells = 0; // the blur after the noise, in cells
    double observers = 0;  // n: the noise is integral in counts, so steps of 1 / n in map units (0: unknown)
};

// A cell's noise sd and the half-width a with P(|noise| <= a) >= confidence, so value +- a holds the cell's
// exact (capped, normalised) value; clamping into [0, cap] keeps it (it only moves a value towards the
// truth's domain). exact: a is the smallest such value (an unblurred map of known n: the integer noise's own
// distribution); otherwise a valid bound: the sub-Gaussian tail of a blurred discrete Gaussian, Chebyshev's
// for a blurred Laplace map. An exact map (spread 0) has noise_sd = half_width = 0.
struct MapAccuracy {
    Accuracy accuracy;
    bool exact;
};
MapAccuracy map_accuracy(const MapNoise& noise, double confidence);

// The per-cell sd of the noise after the blur (Gaussian), for the colour bar's label.
double noise_sd_after_blur(const MapNoise& noise);

// The value above which a cell is significant at `level` (0 < level <= 0.5) with `correction` over `cells`.
// InvalidArgument for a level out of range or a blurred Laplace map (its noise's tail is not Laplace).
double significance_threshold(const MapNoise& noise, double level, std::size_t cells, Correction correction);

// The standard normal's upper quantile: z with P(Z > z) = tail (0 < tail < 1/2).
double normal_upper_quantile(double tail);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
