// Fixation and saccade detection over one canonical gaze trace: I-VT (velocity threshold) and I-DT
// (dispersion threshold, Salvucci & Goldberg 2000), in one pass over the samples.
//
// Units. Coordinates are whatever the caller stores (screen pixels, normalised scene coordinates). A
// viewing geometry converts them to degrees of visual angle; thresholds, amplitudes and velocities are
// then in degrees and degrees per second, otherwise in input units and input units per second.
// Positions and their spreads (centroid, sigma, start and end points) are always in input units, so
// they can be drawn on the stimulus and resampled by the synthesis mechanisms.
//
// Continuity. A sample without gaze is missing. Consecutive samples with gaze belong to one segment
// unless more than max_gap_ms lies between them, or missing samples lie between them and the pair is
// more than gap_fill_ms apart. Events never cross a segment boundary, so missing data ends events.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/cancel.hpp"
#include "core/events/gaze_trace.hpp"

namespace gazepriv::core {

enum class Projection : std::uint8_t {
    None,     // coordinates are used as they are
    Linear,   // degrees = coordinate * unit (unit = 1 / pixels per degree), per axis
    FlatPlane // a flat screen or a pinhole camera image: exact visual angles from the eye's position
};
Projection parse_projection(const std::string& name); // "linear", "plane"
const char* to_string(Projection projection);         // "linear", "plane", "" (None)

struct ViewingGeometry {
    Projection projection = Projection::None;
    double origin_x = 0, origin_y = 0; // FlatPlane: input coordinates of the point straight ahead of the eye
    double unit_x = 1, unit_y = 1;     // Linear: degrees per input unit; FlatPlane: length per input unit
    double distance = 0;               // FlatPlane: eye-to-plane distance, in the unit of unit_x/unit_y
};

// A screen of width_px x height_px pixels measuring width_mm x height_mm (pixels need not be square)
// viewed from distance_mm, the eye in front of (origin_x, origin_y) (pass NaN for the screen centre).
ViewingGeometry screen_geometry(double width_px, double height_px, double width_mm, double height_mm,
                                double distance_mm, double origin_x, double origin_y);
// A scene-camera image with the given fields of view, coordinates running over [0, width] x [0, height]
// (1 x 1 for normalised coordinates), the optical axis through the centre (a pinhole camera).
ViewingGeometry camera_geometry(double horizontal_fov_deg, double vertical_fov_deg, double width,
                                double height);
// pixels_per_degree_y NaN means the same as x.
ViewingGeometry linear_geometry(double pixels_per_degree_x, double pixels_per_degree_y);
// Throws InvalidArgument (naming the field) unless the geometry is usable.
void validate_geometry(const ViewingGeometry& g);

enum class DetectionMethod : std::uint8_t { VelocityThreshold, DispersionThreshold };
DetectionMethod parse_detection_method(const std::string& name); // "ivt", "idt"
const char* to_string(DetectionMethod method);

struct DetectorParams {
    DetectionMethod method = DetectionMethod::VelocityThreshold;
    double velocity_threshold = 0;   // I-VT: a sample is a saccade sample when its velocity exceeds this
    double dispersion_threshold = 0; // I-DT: (max x - min x) + (max y - min y) of a fixation's samples
    double min_fixation_ms = 0;      // I-VT: shorter fixations are discarded; I-DT: the window duration
    double velocity_window_ms = 0;   // velocity of sample i: from the first to the last sample within
                                     // +-window/2 of it, at least its neighbours (0: central difference)
    double max_gap_ms = 75;          // longer intervals between samples end a segment
    double gap_fill_ms = 0;          // missing samples spanning at most this much do not end a segment
    ViewingGeometry geometry;
};

// Throws InvalidArgument (naming the parameter) for non-positive thresholds, negative durations, NaN.
void validate_detector(const DetectorParams& p);

enum class EventType : std::uint8_t { Fixation = 1, Saccade = 2 };

struct GazeEvent {
    EventType type;
    std::size_t first_row, last_row; // indices of its first and last sample in the trace
    std::int64_t n_samples;          // samples with gaze in it (missing samples it spans are not counted)
    double start_ms, end_ms;         // timestamps of its first and last sample; duration = end - start
    double centroid_x, centroid_y;   // mean position (input units)
    double sigma_x, sigma_y;         // population standard deviation of the positions (input units)
    double start_x, start_y, end_x, end_y;
    double amplitude;     // visual angle (or distance) from its first to its last sample
    double peak_velocity; // maximum sample velocity (units per second)
    double mean_velocity; // mean sample velocity
    double profile_a;     // saccades: v(tau) = a exp(-(tau - b)^2 / (2 c^2)), tau = t - start_ms;
    double profile_b;     // NaN for fixations and when no profile can be fitted
    double profile_c;
};

// Detects events in a canonical trace (is_canonical). Events are returned in time order and never
// overlap. Samples with gaze that are in no event are "unclassified": an I-VT fixation shorter than
// min_fixation_ms, or a segment of a single sample.
std::vector<GazeEvent> detect_events(const GazeSample* samples, std::size_t n, const DetectorParams& p,
                                     const CancelCheck& cancel);

// What each sample is, by the events of detect_events: the rows between an event's first and last
// sample take its type; other rows are missing (no gaze) or unclassified.
enum class SampleLabel : std::uint8_t { Missing = 0, Unclassified = 1, Fixation = 2, Saccade = 3 };
const char* to_string(SampleLabel label);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
