// Exponential-DP (Steil, Hagestedt, Huang, Bulling, ETRA 2019) as David-John et al. (ETRA 2022, §3.3)
// re-implement it, the baseline the papers compare against, and its corrected Laplace form
// (doc/privacy/series.md §7).
//
// Per feature i: delta_i = max - min of the feature over the dataset (empirical, not private) or
// hi - lo of public bounds (values clipped). Per recording (task), t_max = the longest signal (or the
// public length); shorter signals are padded by repeating their last value.
//  - Paper (paper-literal, no DP proof): lambda = epsilon / (2 t_max delta_i); every value gets
//    r = +-ln(y) / (lambda t_max) with y ~ Exponential(mean 1/lambda) and a random sign. ln of an
//    exponential is log(1/lambda) plus a Gumbel-type term, not Laplace noise: no proof covers it. The
//    papers report epsilon per feature (x features composed).
//  - Laplace (corrected): every value gets Laplace(2 delta_i / epsilon), the distribution the
//    inverse-CDF reading of the same formula gives; each value is then (epsilon/2)-DP for a change of
//    at most delta_i, and a participant's t_max values of a feature compose to t_max epsilon / 2. The
//    release costs features x (sum over recordings of t_max) x epsilon / 2 for the participant-level
//    relation (one participant's signals change). For a participant-level epsilon per feature use
//    release_series with LPA and clipped bounds instead.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/common/cancel.hpp"
#include "core/noise/random.hpp"
#include "core/common/release_cost.hpp"
#include "core/series/series_dataset.hpp"
#include "core/series/series_release.hpp"

namespace gazepriv::core {

enum class ExponentialDpVariant { Paper, Laplace };
ExponentialDpVariant parse_exponential_dp_variant(const std::string& name); // "paper", "laplace"
const char* to_string(ExponentialDpVariant variant);

struct ExponentialDpConfig {
    double epsilon = 0; // per feature, as the papers report it
    ExponentialDpVariant variant = ExponentialDpVariant::Laplace;
    SensitivityMode sensitivity = SensitivityMode::Clipped;
    std::vector<FeatureBounds> bounds;           // required for Clipped
    std::size_t length = 0;                      // public t_max; 0: the longest signal of each recording
    std::uint64_t max_values = kMaxSeriesValues; // the glue's gazepriv.max_series_values
};

struct ExponentialDpPlan {
    ReleaseCost cost;
    double paper_epsilon = 0;   // epsilon x features
    std::vector<double> ranges; // delta_i per feature
    std::vector<FeatureBounds> bounds;
};

struct PreparedExponentialDp {
    SeriesDataset data;
    ExponentialDpPlan plan;
};

// Checks the parameters that need no data, so that a bad call fails before any row is read.
void check_exponential_dp_config(const ExponentialDpConfig& config);

// Reads the rows (padding by repeating the last value), computes the ranges and the cost.
PreparedExponentialDp prepare_exponential_dp(const SeriesRows& rows, const ExponentialDpConfig& config,
                                             const CancelCheck& cancel = CancelCheck(),
                                             const SignalStorage& storage = nullptr);

// Adds the variant's noise to every value in place (a feature with a zero empirical range gets none).
void release_exponential_dp(PreparedExponentialDp& prepared, const ExponentialDpConfig& config, Rng& rng,
                            const CancelCheck& cancel = CancelCheck());

// One value of the paper-literal noise for lambda and t_max: +-ln(y) / (lambda t_max).
double steil_noise(double lambda, std::size_t t_max, Rng& rng);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
