// A gaze trace: the time-ordered samples of one recording (one participant, task or stimulus), the
// input of event detection and feature extraction. Samples are stored row by row as four doubles;
// missing values are NaN.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "core/common/cancel.hpp"

namespace gazepriv::core {

struct GazeSample {
    double t_ms;  // finite
    double x, y;  // both NaN when the sample is missing
    double pupil; // NaN when missing
};

inline bool has_gaze(const GazeSample& s) {
    return !std::isnan(s.x); // make_sample keeps x and y missing together
}

// A sample as it enters a trace. Non-finite coordinates (NaN, Infinity; NULL is passed as NaN) make the
// sample missing; a non-finite or non-positive pupil (trackers write 0 for "no pupil") is missing.
// Throws InvalidArgument when t_ms is not finite: a sample that cannot be placed in time is a caller bug.
GazeSample make_sample(double t_ms, double x, double y, double pupil);

// True when the timestamps are strictly increasing: the canonical form every detector reads.
bool is_canonical(const GazeSample* samples, std::size_t n);

// Sorts by time; samples with equal times keep no particular order. Adaptive: O(n) for sorted input,
// O(n + k log k) when k samples are out of place (as in tables, whose rows are nearly in insertion
// order), O(n log n) at worst.
void sort_by_time(GazeSample* samples, std::size_t n, const CancelCheck& cancel);

// Merges two runs sorted by time, [0, mid) and [mid, n), in place.
void merge_by_time(GazeSample* samples, std::size_t mid, std::size_t n, const CancelCheck& cancel);

// Combines two partial make_trace states held end to end, [0, mid) and [mid, n), into one run sorted by
// time, in place: each is sorted (O(n) when nearly sorted, as parallel workers' and shards' rows are), then
// the two are merged. Samples sharing a time stay apart, so that canonicalize() weighs every sample once
// however the rows were split between states.
void combine_partial(GazeSample* samples, std::size_t mid, std::size_t n, const CancelCheck& cancel);

// Sorts by time and merges samples that share a timestamp into one: its coordinates are the mean of
// the merged samples that have gaze (missing if none has), its pupil the mean of the valid pupils. The
// result does not depend on the input order (ties are sorted by every field before averaging), so
// parallel partial aggregates give the same trace. Works in place; returns the new number of samples.
std::size_t canonicalize(GazeSample* samples, std::size_t n, const CancelCheck& cancel);

// Text form: {(t,x,y),(t,x,y,pupil),...}; NaN marks a missing value and the pupil is written only when
// present. Numbers are written in their shortest form that reads back exactly.
std::string format_trace(const GazeSample* samples, std::size_t n);

// Parses the text form (whitespace allowed between tokens) into canonical samples. Returns false and
// sets `error` for malformed text or a non-finite time.
bool parse_trace(const char* text, std::vector<GazeSample>& out, std::string& error);

// Parses the same text form into samples as written: in their order, duplicates of a time kept apart.
// This is the text form of a partial make_trace state (how Citus ships it between nodes): merging duplicate
// times before all partial states are combined would weigh each state's mean equally, not each sample.
bool parse_samples(const char* text, std::vector<GazeSample>& out, std::string& error);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
