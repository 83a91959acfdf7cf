// Reading the rows plausible-deniability synthesis works on (feature windows, fixations) from a relation,
// and labelling participants and tasks with dense ids. Plain C-style reading: SPI can raise PostgreSQL
// errors, so no C++ object is alive while it runs; every array is palloc'd in the caller's context.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {
#include "postgres.h"
}

namespace gazepriv::pg {

// Feature windows (participant, task, window, features). Rows whose features are NULL, contain a NULL, NaN
// or an infinity are dropped (without saying how many: that count is private). A NULL participant or task
// is an error (22004); arrays of different lengths are an error (22023).
struct FeatureSource {
    std::size_t rows = 0;
    std::size_t features = 0;
    double* values = nullptr; // rows x features
    char** participant = nullptr;
    char** task = nullptr;
    std::int32_t* window = nullptr;
    bool* window_null = nullptr;
};
// window_column may be nullptr (every window NULL). ordered: rows come sorted by participant, task and window
// (a release drawn from a secret needs the same rows in the same order to give the same release).
FeatureSource read_feature_source(Oid relation, const char* participant_column, const char* task_column,
                                  const char* window_column, const char* features_column, bool ordered);

// Fixations (participant, task, fixation, mu_x, mu_y, sigma_x, sigma_y, samples). Rows with a NULL or
// non-finite parameter, sigma <= 0 or samples < 1 are dropped; a NULL participant or task is an error.
struct FixationSource {
    std::size_t rows = 0;
    char** participant = nullptr;
    char** task = nullptr;
    std::int32_t* fixation = nullptr;
    bool* fixation_null = nullptr;
    double* mu_x = nullptr;
    double* mu_y = nullptr;
    double* sigma_x = nullptr;
    double* sigma_y = nullptr;
    std::int32_t* samples = nullptr;
};
FixationSource read_fixation_source(Oid relation);

// Events (participant, task, event_index, type, start_ms, end_ms, centroid_x, centroid_y, sigma_x, sigma_y,
// amplitude, profile_a, profile_b, profile_c: detect_events' columns beside participant and task). A NULL
// number reads as NaN (refused later, named); a NULL participant, task, event_index or type is 22004 and a
// type other than 'fixation' or 'saccade' is 22023 naming it. Rows come ordered by participant, task,
// start_ms and event_index, so the same rows give the same release.
struct EventSource {
    std::size_t rows = 0;
    char** participant = nullptr;
    char** task = nullptr;
    std::int32_t* event_index = nullptr;
    bool* saccade = nullptr; // false: fixation
    double* number[10] = {}; // start_ms .. profile_c, in the order above
};
EventSource read_event_source(Oid relation);

// Dense ids 0..n-1 for the distinct strings, in sorted (strcmp) order, into a palloc_or_throw'd array.
// C++ inside, plain values out: call it when no PostgreSQL error can interrupt it (it raises none).
std::int32_t* dense_ids(char* const* names, std::size_t rows);

} // namespace gazepriv::pg
