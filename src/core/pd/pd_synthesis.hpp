// Plausible-deniability synthesis of feature windows (Bindschaedler et al. 2017, Mechanism 1 with Privacy
// Tests 1 and 2; David-John et al. 2022, task-based marginals), per task:
//   1. bin every feature into `bins` equal-width bins over public bounds, or over the task's data range
//      (non-private: the ranges are released through the synthetic values; flagged in the ReleaseCost);
//   2. learn the per-feature marginals (Dirichlet alpha; optionally DP-noised: model_epsilon) from the task's
//      records, or from a random `split` fraction of them that then seeds nothing (SGF's stats/seeds split);
//   3. for every seed record (a "slot", labelled with that record's participant and window: the output has
//      as many rows per participant and task as the seed records), up to max_attempts times: pick the seed,
//      generate a candidate y = M(seed), run the privacy test, keep the first candidate that passes;
//   4. map bins back to values drawn uniformly inside the bin.
// Seeds: the deterministic tests use the slot's own record as the seed, as the paper does, so the output's
// participant label is the seed's (with the seed-based model that label names whose record was copied).
// The randomized test draws every candidate's seed uniformly from the task's seed records (Mechanism 1: its
// DP theorem needs that); the slot's label is then only the stratum and says nothing about the seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/common/cancel.hpp"
#include "core/common/progress.hpp"
#include "core/pd/pd_model.hpp"
#include "core/pd/pd_privacy_check.hpp"
#include "core/noise/random.hpp"

namespace gazepriv::core::pd {

constexpr int kDefaultAttemptsDeterministic = 100;
constexpr int kDefaultAttemptsRandomized = 1; // every attempt is charged
constexpr int kMaxAttempts = 1000000;
constexpr std::size_t kMaxFeatures = 1000;

struct SynthesisParams {
    int k = 0;
    double gamma = 0;
    int bins = 30;
    ModelKind model = ModelKind::Marginals;
    std::optional<int> omega;
    Resample resample = Resample::Random;
    TestKind test = TestKind::Record;
    std::optional<double> epsilon0;      // set: the randomized test
    std::optional<int> t;                // randomized: the theorem's t, or
    std::optional<double> target_delta;  // randomized: the composed delta to meet (t = the largest that does)
    std::optional<double> model_epsilon; // DP marginals (required by the randomized test)
    double alpha = 1;
    double split = 0;           // fraction of each task's records that only learn the model
    std::vector<double> bounds; // public bounds lo_1, hi_1, lo_2, hi_2, ...; empty = data range (non-private)
    std::optional<int> max_attempts;
    // A public bound on a task's seed records: at most this many slots of a task are synthesized (the first,
    // in participant order) and the cost counts them instead of the data's records, so that it depends on no
    // data size. Unset: every record is a slot.
    std::optional<std::int64_t> records;
    bool include_failed = false; // emit slots whose candidates never passed (features NaN)

    bool randomized() const { return epsilon0.has_value(); }
    int attempts() const {
        return max_attempts.value_or(randomized() ? kDefaultAttemptsRandomized
                                                  : kDefaultAttemptsDeterministic);
    }
};

// Checks every parameter that does not depend on the data (call before reading any row); throws
// InvalidArgument naming the parameter.
void validate(const SynthesisParams& params);
// Checks the parameters that depend on the number of features (omega <= m, bounds for m features).
void validate_for_features(const SynthesisParams& params, std::size_t features);

// The input: one row per feature window.
struct FeatureRows {
    std::size_t rows = 0;
    std::size_t features = 0;
    const double* values = nullptr;            // rows x features, finite
    const std::int32_t* participant = nullptr; // dense ids >= 0
    const std::int32_t* task = nullptr;        // dense ids >= 0
};

// The largest number of rows of one task: the cost counts candidates per task (tasks compose in parallel).
std::size_t largest_task(const FeatureRows& input);

// The output, allocated by the caller for `input.rows` rows (at most one per input row).
struct SynthesisOutput {
    std::size_t* source_row =
        nullptr;                      // the input row whose participant, task and window label the output row
    std::int32_t* attempts = nullptr; // candidates generated for this slot
    double* features = nullptr;       // rows x features; NaN for a slot that never passed (include_failed)
    std::size_t count = 0;
};

// Runs the synthesis; validates the data-dependent parameters first. Rows are emitted task by task, by
// participant, in input order within a participant (with a secret-keyed generator, the same rows in the same
// order give the same release). Progress: phase "synthesizing", slots done of all tasks' slots.
void synthesize(const FeatureRows& input, const SynthesisParams& params, Rng& rng, const CancelCheck& cancel,
                SynthesisOutput& output, const Progress& progress = Progress());

} // namespace gazepriv::core::pd

#include "core/common/no_postgres.hpp"
