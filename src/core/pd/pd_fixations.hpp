// event-synth-PD for fixations (David-John, Butler and Jain, TVCG 2023 supplement section 2.2;
// doc/privacy/pd.md §6): a fixation d = (mu_x, mu_y, sigma_x, sigma_y, t) is replaced by t samples drawn
// from N(mu_x, sigma_x^2) x N(mu_y, sigma_y^2) (independent axes, as written), redrawn until the PD event
// test passes against the fixations of the other participants on the same task (stimulus), at most
// max_attempts times.
//   Pr_d = prod_s phi(x_s; mu_x, sigma_x) phi(y_s; mu_y, sigma_y) is a density: in log space, and the band
//   i = floor(-ln Pr_d / ln gamma) is any integer (densities above 1 give negative bands).
//   The test: k' = participants other than the seed's with at least one fixation d_a in the seed's band
//   (each counted once); pass iff k' >= k - 1. The model draws exactly t samples, so only fixations with the
//   same t can have produced y (others have probability 0).
//   log Pr_d is computed from the candidate's sufficient statistics (per axis: mean and centred sum of
//   squares), so each other fixation costs O(1): sum_s (x_s - mu)^2 = V + t (mean - mu)^2, without
//   cancellation.
// Samples are drawn with GridGaussian (exact discrete Gaussian on a grid of 2^-24 sigma around the
// grid-rounded mean); the density is the model's continuous one, which the grid matches to within that
// rounding.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/common/cancel.hpp"
#include "core/noise/random.hpp"
#include "core/common/release_cost.hpp"

namespace gazepriv::core::pd {

constexpr std::int32_t kMaxFixationSamples = 1000000;

struct FixationRows {
    std::size_t rows = 0;
    const std::int32_t* participant = nullptr; // dense ids
    const std::int32_t* task = nullptr;        // dense ids
    const double* mu_x = nullptr;              // finite
    const double* mu_y = nullptr;
    const double* sigma_x = nullptr; // finite, > 0
    const double* sigma_y = nullptr;
    const std::int32_t* samples = nullptr; // t, in [1, kMaxFixationSamples]
};

struct FixationParams {
    int k = 0;
    double gamma = 0;
    int max_attempts = 100;
    bool include_failed = false;
};

void validate(const FixationParams& params);

// The cost: (k, gamma)-PD, not DP; logged with epsilon 0. No data-dependent choice is made (each fixation's
// own parameters are its model).
ReleaseCost fixations_cost(const FixationParams& params);

// Sum of t over rows (the output's sample capacity); throws LimitExceeded above `limit`.
std::size_t total_samples(const FixationRows& input, std::size_t limit);

// The candidate's sufficient statistics and log Pr{y = M_fix(d)}.
struct SampleStats {
    std::int32_t t = 0;
    double mean_x = 0, ss_x = 0, mean_y = 0, ss_y = 0; // ss: centred sums of squares
};
SampleStats sample_stats(const double* x, const double* y, std::int32_t t);
double fixation_log_density(const SampleStats& s, double mu_x, double mu_y, double sigma_x, double sigma_y);

// Caller-allocated output: `rows` entries and total_samples() samples.
struct FixationOutput {
    std::size_t* source_row = nullptr;
    std::int32_t* attempts = nullptr;
    bool* passed = nullptr;
    std::size_t* offset = nullptr; // the row's samples are x[offset .. offset + t), y[...]
    double* x = nullptr;
    double* y = nullptr;
    std::size_t count = 0;
};

// Rows are emitted in input order; a fixation that never passes is emitted (passed = false, no samples)
// only with include_failed.
void synthesize_fixations(const FixationRows& input, const FixationParams& params, Rng& rng,
                          const CancelCheck& cancel, FixationOutput& output);

} // namespace gazepriv::core::pd

#include "core/common/no_postgres.hpp"
