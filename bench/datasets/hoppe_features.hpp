// The Hoppe et al. 2018 feature windows of test/demo/hoppe_features.psql, computed by the core directly
// (make_sample, canonicalize, detect_events and feature_windows: what make_trace, idt and feature_windows
// run in SQL), for the benchmarks, which read $GAZEPRIV_DATA (default ../shared/data). As in the SQL:
// each participant's recording split into tasks at the shop's enter and leave times, gaze valid inside
// [-1, 2]^2, pupil the mean of both eyes (missing when either is), I-DT at 3 degrees (fixations of at
// least 100 ms, missing runs of up to 75 ms bridged) in a 60 x 46 degree scene camera, large saccades
// from 5 degrees, 30 s windows every 0.5 s; core::kFeatureCount (33) features per window.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/common/cancel.hpp"
#include "core/events/gaze_events.hpp"
#include "core/events/gaze_features.hpp"
#include "core/events/gaze_trace.hpp"

namespace gazepriv::bench {

constexpr std::size_t kHoppeTasks = 3;
inline const char* const kHoppeTaskNames[kHoppeTasks] = {"way_to_shop", "shop", "way_back"};

// One participant's samples in one task, as a canonical trace.
struct HoppeRecording {
    std::string participant;
    std::size_t task; // index into kHoppeTaskNames
    std::vector<core::GazeSample> trace;
};

// The feature windows of one recording: core::kFeatureCount values per window, window after window.
struct HoppeFeatureWindows {
    std::string participant;
    std::size_t task;
    std::vector<double> values;
    std::size_t windows() const { return values.size() / core::kFeatureCount; }
};

inline std::string hoppe_data_dir() {
    const char* env = std::getenv("GAZEPRIV_DATA");
    return std::string(env != nullptr && *env ? env : "../shared/data") + "/hoppe2018_everyday";
}

namespace detail {

// The comma-separated fields of a CSV line without quotes; an empty field is NaN when read as a number.
inline std::vector<std::string> csv_fields(const std::string& line) {
    std::vector<std::string> out(1);
    for (char c : line) {
        if (c == ',')
            out.emplace_back();
        else if (c != '\r')
            out.back() += c;
    }
    return out;
}

inline double number(const std::string& s) {
    return s.empty() ? NAN : std::strtod(s.c_str(), nullptr);
}

} // namespace detail

// The participants with samples (participants.csv order), each split into the three tasks; a task
// without samples has an empty trace.
inline std::vector<HoppeRecording> load_hoppe_recordings() {
    const std::string dir = hoppe_data_dir();
    std::ifstream meta(dir + "/participants.csv");
    if (!meta)
        throw std::runtime_error("cannot read " + dir + "/participants.csv (set GAZEPRIV_DATA)");
    std::string line;
    std::getline(meta, line);
    std::vector<HoppeRecording> recordings;
    while (std::getline(meta, line)) {
        const auto meta_fields = detail::csv_fields(line);
        if (meta_fields.size() < 13 || meta_fields[12] != "yes")
            continue;
        const std::string& participant = meta_fields[0];
        const double enter_ms = detail::number(meta_fields[10]) * 1000,
                     leave_ms = detail::number(meta_fields[11]) * 1000;
        const std::string path =
            dir + "/samples/participant_" + (participant.size() < 2 ? "0" : "") + participant + ".csv";
        std::ifstream in(path);
        if (!in)
            throw std::runtime_error("cannot read " + path);
        const std::size_t first = recordings.size();
        for (std::size_t task = 0; task < kHoppeTasks; ++task)
            recordings.push_back({participant, task, {}});
        std::getline(in, line); // participant,t_ms,x_norm,y_norm,pupil_right_mm,pupil_left_mm,event
        while (std::getline(in, line)) {
            const auto f = detail::csv_fields(line);
            if (f.size() < 6)
                continue;
            const double t = detail::number(f[1]), x = detail::number(f[2]), y = detail::number(f[3]);
            const bool valid = x >= -1 && x <= 2 && y >= -1 && y <= 2;
            const double right = detail::number(f[4]), left = detail::number(f[5]);
            const double pupil =
                right != 0 && left != 0 ? (left + right) / 2 : NAN; // nullif(.., 0), NULL-strict
            const std::size_t task = t < enter_ms ? 0 : t < leave_ms ? 1 : 2;
            recordings[first + task].trace.push_back(core::make_sample(t, valid ? x : NAN, y, pupil));
        }
        for (std::size_t task = 0; task < kHoppeTasks; ++task) {
            auto& trace = recordings[first + task].trace;
            trace.resize(core::canonicalize(trace.data(), trace.size(), core::CancelCheck()));
        }
    }
    return recordings;
}

// idt(3, 100, gap_fill_ms => 75, geometry => camera_geometry(60, 46)).
inline core::DetectorParams hoppe_detector() {
    core::DetectorParams p;
    p.method = core::DetectionMethod::DispersionThreshold;
    p.dispersion_threshold = 3;
    p.min_fixation_ms = 100;
    p.velocity_window_ms = 0;
    p.max_gap_ms = 75;
    p.gap_fill_ms = 75;
    p.geometry = core::camera_geometry(60, 46, 1, 1);
    return p;
}

// feature_windows(..., large_saccade => 5) with its defaults (30 s windows every 0.5 s).
inline core::FeatureParams hoppe_feature_params() {
    core::FeatureParams p;
    p.large_saccade = 5;
    return p;
}

// The feature windows of each recording (recordings without a whole window have none).
inline std::vector<HoppeFeatureWindows> hoppe_feature_windows(const std::vector<HoppeRecording>& recordings) {
    const core::DetectorParams detector = hoppe_detector();
    const core::FeatureParams params = hoppe_feature_params();
    std::vector<HoppeFeatureWindows> out;
    for (const HoppeRecording& r : recordings) {
        const core::CancelCheck cancel;
        const auto events = core::detect_events(r.trace.data(), r.trace.size(), detector, cancel);
        core::FeatureTable table =
            core::feature_windows(r.trace.data(), r.trace.size(), events, params, cancel);
        out.push_back({r.participant, r.task, std::move(table.values)});
    }
    return out;
}

} // namespace gazepriv::bench
