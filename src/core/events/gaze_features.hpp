// Sliding-window feature vectors over one gaze trace and its events, in the spirit of Bulling et al.
// 2011 and the MPIIDPEye / Hoppe et al. 2018 features: fixation, saccade, missing-data (blink), pupil
// and gaze-dispersion statistics. One pass over the samples and events: counts, means and standard
// deviations come from prefix sums, minima and maxima from monotone queues, so the cost does not grow
// with window_ms / step_ms.
#pragma once

#include <cstddef>
#include <vector>

#include "core/common/cancel.hpp"
#include "core/events/gaze_events.hpp"
#include "core/events/gaze_trace.hpp"

namespace gazepriv::core {

struct FeatureParams {
    double window_ms = 30000;  // window length
    double step_ms = 500;      // distance between window starts
    double large_saccade = 0;  // amplitude from which a saccade is large (detector units)
    double blink_min_ms = 50;  // a run of missing samples of this duration ...
    double blink_max_ms = 500; // ... up to this one, with gaze on both sides, counts as a blink
};

// Throws InvalidArgument naming the parameter (non-positive or non-finite lengths, min > max).
void validate_features(const FeatureParams& p);

struct FeatureInfo {
    const char* name;
    const char* unit;
    const char* description;
};

constexpr std::size_t kFeatureCount = 33;
// The features in output order.
const FeatureInfo* feature_catalog();

// Windows are [start, start + window_ms) with start = first timestamp + k step_ms, k = 0, 1, ...; a
// window is produced when the trace reaches its end, the last sample counting for one median
// sampling interval. Events belong to the window their start lies in.
struct FeatureTable {
    std::vector<double> start_ms; // one per window
    std::vector<double> values;   // kFeatureCount per window, window after window
};

// At most this many windows per trace (LimitExceeded above).
constexpr std::size_t kMaxFeatureWindows = 10000000;

// `events` must be detect_events's result for the same canonical trace.
FeatureTable feature_windows(const GazeSample* samples, std::size_t n, const std::vector<GazeEvent>& events,
                             const FeatureParams& p, const CancelCheck& cancel);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
