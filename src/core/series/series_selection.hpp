// Private choice of a dataset release's parameters (doc/privacy/series.md §10): the clipping bounds of a
// feature inside its public bounds (DP quantiles) and the number k of kept Fourier coefficients of a
// recording's feature (exponential mechanism). Bozkir et al. (2021, §3.3) choose k on the data and
// Eq. 7's sensitivities are data-dependent; these spend a declared share of the release's epsilon instead.
//
// Neighbours differ in one participant's signals (every feature and recording), as in the release. Both
// selections run the exponential mechanism (core/noise/exponential_mechanism.hpp) with a utility in which
// each participant's data enter through one term of bounded range, which bounds the sensitivity:
//  - bounds: candidates c_j = lo + j (hi - lo) / (grid - 1). F_p(c) is the fraction of participant p's
//    (padded, clipped) values of the feature, over all their recordings, that are <= c: in [0, 1]. The
//    lower bound maximises -|sum_p F_p(c) - q_lo P| over c_0..c_{grid-2}, the upper bound -|sum_p F_p(c)
//    - q_hi P| over the candidates above the chosen lower one: sensitivity 1 each, epsilon / 2 each.
//  - k: for blocks y (chunks, or the whole signal) of values in [lo, hi] (w = hi - lo) and E_p(k) =
//    sum over p's blocks of ||y - P_k y||^2 (the energy outside the k kept bins), utility(k) =
//    -sum_p E_p(k) - P sum_blocks m sigma^2_m(k), the expected squared error of FPA_k over the group
//    (sigma^2 the public per-sample noise variance of the noise share). 0 <= E_p(k) <= E_p(1) =
//    sum ||y - mean y||^2 <= n w^2 / 4, so the sensitivity is n w^2 / 4 (n the padded length).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/common/cancel.hpp"
#include "core/noise/random.hpp"
#include "core/series/series.hpp"
#include "core/series/series_dataset.hpp"

namespace gazepriv::core {

// Candidate clipping bounds per feature: the public bounds cut into this many points.
constexpr std::size_t kBoundsGrid = 128;

// Bounds inside `bounds` for feature `feature` of every group (all signals already clipped to `bounds`),
// epsilon-DP for the participant-level relation; quantiles 0 <= q_lo < q_hi <= 1.
FeatureBounds private_bounds(const std::vector<SignalGroup>& groups, std::size_t feature,
                             const FeatureBounds& bounds, double q_lo, double q_hi, double epsilon, Rng& rng,
                             const CancelCheck& cancel = CancelCheck());

// The utility of each k in 1..limit for feature `feature` of a group whose signals are clipped to
// `bounds`, released by FPA (chunk >= length) or CFPA with `noise_epsilon` per block (see above), as exact
// sums of each participant's term and the public term on one grid, and its sensitivity in units.
struct KUtility {
    std::vector<std::int64_t> utility; // [k - 1], in units of the grid (exponential_mechanism.hpp)
    std::int64_t sensitivity;          // in units
    double grid;
};
KUtility k_utility(const SignalGroup& group, std::size_t feature, std::size_t chunk, std::size_t limit,
                   const FeatureBounds& bounds, double noise_epsilon,
                   const CancelCheck& cancel = CancelCheck());

// k in 1..limit drawn by the exponential mechanism with k_utility, epsilon-DP for the participant-level
// relation.
std::size_t private_k(const SignalGroup& group, std::size_t feature, std::size_t chunk, std::size_t limit,
                      const FeatureBounds& bounds, double noise_epsilon, double epsilon, Rng& rng,
                      const CancelCheck& cancel = CancelCheck());

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
