// Dataset release of feature signals (Bozkir et al. 2021; doc/privacy/series.md §4-5): every participant's
// signals perturbed by LPA, FPA, CFPA or DCFPA, with each feature's (and chunk's) sensitivity computed across
// the participants of a recording, as the paper's Eq. 7 does (not private: a local quantity of the
// data), or from public clip bounds (strict).
//
// Privacy unit and composition. Neighbouring datasets differ in one participant's signals: every
// feature of every recording of that participant. Participant ids, which recordings each participant
// has, and the padded length when `length` is given are public; with length = 0 the padded length is
// the longest signal, read from the data, which is a non-private choice. A participant's released
// signals depend only on their own data and on the sensitivities, so participants compose in
// parallel. For one participant:
//  - one signal (a feature of a recording) by LPA or FPA costs epsilon;
//  - by CFPA or DCFPA it costs epsilon per chunk, and the chunks of one participant's signal compose
//    sequentially: ceil(n / chunk) epsilon (doc/privacy/series.md §4). The paper's parallel
//    composition over chunks holds only if a neighbour changes one chunk (chunk_semantics = Chunk);
//  - features and recordings compose sequentially.
// The release therefore costs epsilon x features x (sum over recordings of the chunks per signal; 1
// for LPA and FPA), or epsilon x features under the paper's chunk-level semantics, which is also the
// number the paper reports (per-feature epsilon x 48 features).
//
// Sensitivities with public bounds [lo, hi] (w = hi - lo), values clipped and padding set to
// clamp(0, lo, hi): LPA Delta_1 = n w; FPA Delta_2 = sqrt(n) w; a CFPA chunk of m samples
// sqrt(m) w; a DCFPA difference chunk sqrt(4m - 3) w (its first element moves by at most w, the others
// by at most 2w). The FFT-based methods add a bound on FFTW's rounding error to the L1 sensitivity.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/common/cancel.hpp"
#include "core/noise/random.hpp"
#include "core/common/release_cost.hpp"
#include "core/series/series.hpp"
#include "core/series/series_dataset.hpp"

namespace gazepriv::core {

enum class SensitivityMode { Empirical, Clipped };
SensitivityMode parse_sensitivity_mode(const std::string& name); // "empirical", "clipped"
const char* to_string(SensitivityMode mode);

enum class ChunkSemantics { Participant, Chunk };
ChunkSemantics parse_chunk_semantics(const std::string& name); // "participant", "chunk"
const char* to_string(ChunkSemantics semantics);

struct SeriesReleaseConfig {
    SeriesMethod method = SeriesMethod::Fpa;
    double epsilon = 0;     // per feature (per chunk for CFPA and DCFPA)
    std::size_t k = 0;      // 0: the public rule (public_k); must be 0 for LPA
    std::size_t chunk = 64; // CFPA and DCFPA only
    SensitivityMode sensitivity = SensitivityMode::Clipped;
    std::vector<FeatureBounds> bounds; // one for all features or one per feature; required for Clipped
    std::size_t length = 0;            // public padded length; 0: the longest signal of each recording
    ChunkSemantics semantics = ChunkSemantics::Participant;
    // Post-processing (free): released values clamped into their feature's public bounds, when there
    // are bounds. Each clamped value is closer to the truth, which lies in the bounds; the mean of the
    // clamped values is biased toward the middle of the bounds when the truth is near an edge.
    bool clamp = true;
    std::uint64_t max_values = kMaxSeriesValues; // the glue's gazepriv.max_series_values
    // Private parameter selection (series_selection.hpp; doc/privacy/series.md §10), 0 for off, else in
    // (0, 1) with k_share + bounds_share < 1: the shares of every signal's epsilon spent on choosing k
    // (k, when given, is the largest candidate; fpa and cfpa) and the clipping bounds inside the public
    // bounds (at bounds_quantiles of the participants' averaged distribution); the noise gets the rest.
    // The release's cost does not change: the shares compose sequentially inside it.
    double k_share = 0;
    double bounds_share = 0;
    double bounds_quantiles[2] = {0.1, 0.9};
    double noise_share() const { return 1 - k_share - bounds_share; }
};

// Checks the parameters that need no data (epsilon, k, chunk, bounds for Clipped), so that a bad call
// fails before any row is read.
void check_series_release_config(const SeriesReleaseConfig& config);

struct SeriesPlan {
    ReleaseCost cost;                  // what a budget charges for the whole release
    double paper_epsilon = 0;          // the paper's accounting: epsilon x features
    double participant_epsilon = 0;    // epsilon x features x sum of chunks per signal
    std::vector<std::size_t> k;        // per group: the k of a full chunk (or of the whole signal)
    std::vector<std::size_t> chunks;   // per group: chunks per signal (1 for LPA and FPA)
    std::vector<FeatureBounds> bounds; // per feature, or empty
};

// Reads the rows into padded signals (bounds expanded to the features, values clipped, padding
// Constant; in `storage` when given) and computes the plan: the cost of the release from the parameters and
// the shape of the data only, before any noise is drawn. Errors for k above a recording's limit and for the
// empirical sensitivity of a recording with fewer than two participants.
// What a release chose privately (empty when nothing was): k per group and feature ([g * features + f])
// and the clipping bounds per feature (also in plan.bounds once chosen).
struct SeriesSelection {
    std::vector<std::size_t> k;
    std::vector<FeatureBounds> bounds;
};
struct PreparedSeries {
    SeriesDataset data;
    SeriesPlan plan;
    SeriesSelection selection;
};
PreparedSeries prepare_series_release(const SeriesRows& rows, const SeriesReleaseConfig& config,
                                      const CancelCheck& cancel = CancelCheck(),
                                      const SignalStorage& storage = nullptr);

// Eq. 7 on each chunk of `chunk` samples (the last may be shorter; chunk >= n for one whole-signal
// value): the largest L_norm distance (norm 1 or 2) between two of the participants' signals
// (signals[p] has n values). Zero for fewer than two participants.
std::vector<double> pairwise_max_distance(const double* const* signals, std::size_t participants,
                                          std::size_t n, std::size_t chunk, int norm,
                                          const CancelCheck& cancel = CancelCheck());

// The sensitivity of each chunk (one value for LPA and FPA) of a feature of a group, as the release
// uses it: Eq. 7 on the signals (on the difference chunks for DCFPA) or from the bounds.
std::vector<double> series_sensitivities(const SeriesReleaseConfig& config, const SeriesPlan& plan,
                                         const SignalGroup& group, std::size_t feature,
                                         const CancelCheck& cancel = CancelCheck());

// Releases feature `feature` of every participant of one group in place, with k for a full block (0
// for LPA) and the sensitivities series_sensitivities gives: the step release_series repeats for each
// group and feature (exposed for the benchmark's k sweeps).
void release_feature(SignalGroup& group, std::size_t feature, const SeriesReleaseConfig& config,
                     const SeriesPlan& plan, std::size_t k, const std::vector<double>& sensitivity, Rng& rng,
                     const CancelCheck& cancel = CancelCheck());

// Clamps feature `feature` of every participant of one group into [lo, hi] (post-processing).
void clamp_feature(SignalGroup& group, std::size_t feature, const FeatureBounds& bounds);

// Releases every signal of prepared.data in place (clamped into the bounds when config.clamp).
void release_series(PreparedSeries& prepared, const SeriesReleaseConfig& config, Rng& rng,
                    const CancelCheck& cancel = CancelCheck());

// The per-sample noise of a strict (clipped) release of one feature with public bounds and signals of
// `length` samples, from public facts only (doc/privacy/series.md §9): the largest standard deviation over
// chunks and positions, and the half-width of a 95 % (confidence) interval per value. Exact (the noise is one
// Laplace variable per value) for LPA and for k = 1; otherwise the sd of a sum of 2k - 1 Laplace variables
// (an upper bound for DCFPA, whose cumulative sums vary along the chunk) with the half-width of a Laplace
// variable of that sd: exact = false. With private selection (config.k_share, config.bounds_share) the noise
// of the noise share's epsilon, the public bounds and the largest candidate k: an upper bound, exact = false.
struct SeriesAccuracy {
    double noise_sd;
    double half_width;
    bool exact;
};
SeriesAccuracy series_accuracy(const SeriesReleaseConfig& config, const FeatureBounds& bounds,
                               std::size_t length, double confidence);

// A bound on FFTW's rounding error in the L1 norm of the perturbed coordinates, for two inputs of m
// samples each at most `sup` in absolute value (Higham, Accuracy and Stability, Thm 24.2, with a
// generous constant).
double fft_rounding_l1(std::size_t m, std::size_t coordinates, double sup);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
