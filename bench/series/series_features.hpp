// The datasets of the time-series benchmarks (bench/series/series.cpp, series_utility.cpp,
// series_selection.cpp): the canonical Hoppe feature windows (datasets/hoppe_features.hpp, the features of
// test/demo/hoppe_features.psql), one recording per participant and task, in the shape of core::SeriesRows
// (array form).
//  - as_extracted: the windows as they are (33 features, 30 s windows every 0.5 s, 0 to 877 windows
//    per recording); the utility benchmark reads these real signals.
//  - at_paper_scale: the paper's size for the throughput benchmarks, 48 features x 3,600 windows per
//    recording. The features give 33 per window and a recording at most 877 windows, so each
//    recording's windows are repeated end to end up to 3,600 and features 34..48 repeat features 1..15
//    (fixation and saccade statistics): every value is a real feature value, the work is that of 48
//    distinct signals of 3,600 values (the release never looks at repetitions). Recordings without a
//    window (two shop visits shorter than 30 s) stay empty, as in SQL.
// bench/series/series.sh builds the same table in SQL from hoppe_features.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/events/gaze_features.hpp"
#include "core/series/series.hpp"
#include "core/series/series_dataset.hpp"
#include "datasets/hoppe_features.hpp"

namespace series_bench {

using gazepriv::bench::HoppeFeatureWindows;
using gazepriv::bench::kHoppeTasks;

constexpr std::size_t kPaperFeatures = 48;
constexpr std::size_t kPaperLength = 3600;
constexpr std::size_t kRepeatedFeatures = kPaperFeatures - gazepriv::core::kFeatureCount; // 15

// Feature windows in the shape of core::SeriesRows (array form): rows of `width` values.
struct FeatureRows {
    std::size_t width = 0;
    std::vector<std::int32_t> participant, recording;
    std::vector<double> t, values; // values: rows x width
    std::vector<std::string> participant_names;
    std::size_t rows() const { return t.size(); }
    std::size_t recordings_with_rows() const {
        std::size_t n = 0;
        for (std::size_t i = 0; i < rows(); ++i)
            n += i == 0 || participant[i] != participant[i - 1] || recording[i] != recording[i - 1];
        return n;
    }
};

inline gazepriv::core::SeriesRows rows_of(const FeatureRows& table) {
    gazepriv::core::SeriesRows rows;
    rows.count = table.rows();
    rows.width = table.width;
    rows.participant = table.participant.data();
    rows.recording = table.recording.data();
    rows.t = table.t.data();
    rows.values = table.values.data();
    rows.participants = table.participant_names.size();
    rows.recordings = kHoppeTasks;
    return rows;
}

// Windows 1..length of each recording (windows repeated end to end when length exceeds them), with
// `width` features per window (features beyond the 33 repeating the first ones).
inline FeatureRows shape(const std::vector<HoppeFeatureWindows>& windows, std::size_t length,
                         std::size_t width) {
    constexpr std::size_t kF = gazepriv::core::kFeatureCount;
    FeatureRows table;
    table.width = width;
    for (const HoppeFeatureWindows& w : windows) {
        if (table.participant_names.empty() || table.participant_names.back() != w.participant)
            table.participant_names.push_back(w.participant);
        const std::size_t n = w.windows();
        for (std::size_t i = 0; n > 0 && i < (length == 0 ? n : length); ++i) {
            table.participant.push_back(static_cast<std::int32_t>(table.participant_names.size() - 1));
            table.recording.push_back(static_cast<std::int32_t>(w.task));
            table.t.push_back(static_cast<double>(i + 1));
            const double* v = w.values.data() + (i % n) * kF;
            for (std::size_t f = 0; f < width; ++f)
                table.values.push_back(v[f % kF]);
        }
    }
    return table;
}

inline FeatureRows as_extracted(const std::vector<HoppeFeatureWindows>& windows) {
    return shape(windows, 0, gazepriv::core::kFeatureCount);
}

inline FeatureRows at_paper_scale(const std::vector<HoppeFeatureWindows>& windows) {
    return shape(windows, kPaperLength, kPaperFeatures);
}

// Public clip bounds [lo, hi] of the 33 features, from their units, the extraction's parameters and the
// recordings' public format (never from the data): counts and rates of at most one event per 100 ms (the
// shortest fixation) in a 30 s window, durations within the window (blinks within 500 ms), fractions in
// [0, 1], at most 10 saccades per fixation (larger ratios are clipped), amplitudes below 180 degrees and
// velocities below 180 degrees per 60 Hz sample, gaze inside [-1, 2] (standard deviation at most 1.5,
// range at most 3), fixation spreads within the 3 degree dispersion (0.1 of the image), pupils of
// 0-10 mm. Repeated features take the bounds of their original.
inline std::vector<gazepriv::core::FeatureBounds> public_bounds(std::size_t width) {
    static const gazepriv::core::FeatureBounds kBounds[gazepriv::core::kFeatureCount] = {
        {0, 300},   {0, 10},   {0, 30000}, {0, 15000}, {0, 30000}, {0, 30000}, // fixation count .. max
        {0, 1},     {0, 0.1},  {0, 0.1},                                       // time ratio, sigma x, y
        {0, 300},   {0, 10},   {0, 30000},             // saccade count, rate, duration
        {0, 180},   {0, 90},   {0, 180},               // amplitude mean, sd, max
        {0, 10800}, {0, 5400}, {0, 10800}, {0, 10800}, // peak velocity, mean velocity
        {0, 1},     {0, 1},    {0, 10},                // large, rightward, sacc/fix
        {0, 1},     {0, 10},   {0, 500},               // missing, blink rate, duration
        {0, 10},    {0, 5},    {0, 10},    {0, 10},    // pupil mean, sd, min, max
        {0, 1.5},   {0, 1.5},  {0, 3},     {0, 3},     // gaze sd x, y, range x, y
    };
    std::vector<gazepriv::core::FeatureBounds> b;
    for (std::size_t f = 0; f < width; ++f)
        b.push_back(kBounds[f % gazepriv::core::kFeatureCount]);
    return b;
}

// A release method of the benchmarks and its chunk.
struct Variant {
    std::string name;
    gazepriv::core::SeriesMethod method;
    std::size_t chunk;
};

// The k an oracle (non-private) reference tries: the paper sweeps "a large set of k"; a coarse one keeps the
// run short: 1, 2, 3, 4, 6, 8, 12, ... (about 1.5x apart) and the limit.
inline std::vector<std::size_t> sweep_candidates(std::size_t limit) {
    std::vector<std::size_t> ks;
    for (std::size_t k = 1; k < limit; k = k < 4 ? k + 1 : (k % 3 == 0 ? k / 3 * 4 : k / 2 * 3))
        ks.push_back(k);
    ks.push_back(limit);
    return ks;
}

} // namespace series_bench
