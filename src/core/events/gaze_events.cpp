#include "core/events/gaze_events.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/events/sliding_extremum.hpp"
#include "core/common/validate.hpp"
#include "core/events/velocity_profile.hpp"

namespace gazepriv::core {

namespace {
constexpr Named<DetectionMethod> kDetectionMethods[] = {{DetectionMethod::VelocityThreshold, "ivt"},
                                                        {DetectionMethod::DispersionThreshold, "idt"}};
// None ("") is printed, never parsed: the glue maps an absent projection to it.
constexpr Named<Projection> kProjections[] = {
    {Projection::Linear, "linear"}, {Projection::FlatPlane, "plane"}, {Projection::None, ""}};
} // namespace

DetectionMethod parse_detection_method(const std::string& name) {
    return parse_name(kDetectionMethods, "detector.method", name);
}

const char* to_string(DetectionMethod method) {
    return name_of(kDetectionMethods, method);
}

Projection parse_projection(const std::string& name) {
    return parse_name(kProjections, "geometry.projection", name, 2);
}

const char* to_string(Projection projection) {
    return name_of(kProjections, projection);
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kPi = 3.14159265358979323846;
constexpr double kDegreesPerRadian = 180.0 / kPi;

struct Point3 {
    double a, b, c;
};

// The samples with gaze, in the metric the thresholds are given in, split into segments.
struct Working {
    bool angular = false;                   // distances are visual angles between unit vectors
    std::vector<std::size_t> row;           // trace row of sample k
    std::vector<double> t;                  // its time
    std::vector<Point3> pos;                // unit gaze direction (angular) or (x, y, 0)
    std::vector<double> velocity;           // units per second; NaN in a segment of one sample
    std::vector<std::size_t> segment_begin; // first k of every segment, then the number of samples
};

// The angle subtended by a chord between two unit vectors: 2 asin(chord / 2). Sample-to-sample
// chords are small, where the series (relative error below 1e-13 for chord < 0.1) is much faster.
double chord_angle(double chord) {
    const double x = 0.5 * chord;
    if (x < 0.05) {
        const double x2 = x * x;
        return 2 * x * (1 + x2 * (1.0 / 6 + x2 * (3.0 / 40 + x2 * (5.0 / 112 + x2 * (35.0 / 1152)))));
    }
    return 2 * std::asin(std::min(1.0, x));
}

double distance(const Working& w, std::size_t i, std::size_t j) {
    const Point3 &p = w.pos[i], &q = w.pos[j];
    const double da = p.a - q.a, db = p.b - q.b;
    if (!w.angular)
        return std::sqrt(da * da + db * db);
    const double dc = p.c - q.c;
    return chord_angle(std::sqrt(da * da + db * db + dc * dc)) * kDegreesPerRadian;
}

Point3 metric_position(const ViewingGeometry& g, double x, double y) {
    switch (g.projection) {
    case Projection::None:
        return {x, y, 0};
    case Projection::Linear:
        return {x * g.unit_x, y * g.unit_y, 0};
    case Projection::FlatPlane: {
        const double px = (x - g.origin_x) * g.unit_x, py = (y - g.origin_y) * g.unit_y;
        const double inv = 1 / std::sqrt(px * px + py * py + g.distance * g.distance);
        return {px * inv, py * inv, g.distance * inv};
    }
    }
    return {x, y, 0};
}

// Per-axis visual angles (degrees) for the dispersion of I-DT on a flat plane.
void plane_angles(const ViewingGeometry& g, double x, double y, double& ax, double& ay) {
    ax = std::atan2((x - g.origin_x) * g.unit_x, g.distance) * kDegreesPerRadian;
    ay = std::atan2((y - g.origin_y) * g.unit_y, g.distance) * kDegreesPerRadian;
}

Working prepare(const GazeSample* s, std::size_t n, const DetectorParams& p, const CancelCheck& cancel) {
    Working w;
    w.angular = p.geometry.projection == Projection::FlatPlane;
    w.row.reserve(n);
    w.t.reserve(n);
    w.pos.reserve(n);
    bool missing_since_last = false;
    for (std::size_t r = 0; r < n; ++r) {
        cancel.poll(r);
        if (!has_gaze(s[r])) {
            missing_since_last = true;
            continue;
        }
        if (w.t.empty()) {
            w.segment_begin.push_back(0);
        } else {
            const double gap = s[r].t_ms - w.t.back();
            if (gap > p.max_gap_ms || (missing_since_last && gap > p.gap_fill_ms))
                w.segment_begin.push_back(w.t.size());
        }
        missing_since_last = false;
        w.row.push_back(r);
        w.t.push_back(s[r].t_ms);
        w.pos.push_back(metric_position(p.geometry, s[r].x, s[r].y));
    }
    w.segment_begin.push_back(w.t.size());
    return w;
}

// Velocity of every sample: distance between the first and the last sample of its segment within
// +-window/2, widened to at least its neighbours, over their time difference. Two pointers: O(n).
void compute_velocities(Working& w, double window_ms, const CancelCheck& cancel) {
    w.velocity.assign(w.t.size(), kNaN);
    const double half = window_ms / 2;
    for (std::size_t s = 0; s + 1 < w.segment_begin.size(); ++s) {
        const std::size_t begin = w.segment_begin[s], end = w.segment_begin[s + 1];
        if (end - begin < 2)
            continue;
        std::size_t lo = begin, hi = begin;
        for (std::size_t k = begin; k < end; ++k) {
            cancel.poll(k);
            while (w.t[lo] < w.t[k] - half)
                ++lo;
            hi = std::max(hi, k);
            while (hi + 1 < end && w.t[hi + 1] <= w.t[k] + half)
                ++hi;
            const std::size_t from = k > begin ? std::min(lo, k - 1) : k;
            const std::size_t to = k + 1 < end ? std::max(hi, k + 1) : k;
            w.velocity[k] = distance(w, from, to) / (w.t[to] - w.t[from]) * 1000;
        }
    }
}

struct Run {
    EventType type;
    std::size_t first, last; // sample indices k
    std::size_t segment;
};

void ivt_runs(const Working& w, const DetectorParams& p, std::vector<Run>& runs, const CancelCheck& cancel) {
    for (std::size_t s = 0; s + 1 < w.segment_begin.size(); ++s) {
        const std::size_t begin = w.segment_begin[s], end = w.segment_begin[s + 1];
        if (end - begin < 2)
            continue; // no velocity: unclassified
        for (std::size_t k = begin; k < end;) {
            cancel.poll(k);
            const bool saccade = w.velocity[k] > p.velocity_threshold;
            std::size_t last = k;
            while (last + 1 < end && (w.velocity[last + 1] > p.velocity_threshold) == saccade)
                ++last;
            if (saccade || w.t[last] - w.t[k] >= p.min_fixation_ms)
                runs.push_back({saccade ? EventType::Saccade : EventType::Fixation, k, last, s});
            k = last + 1;
        }
    }
}

// Range (max - min) of one coordinate over a window of sample indices that only moves forward.
class WindowRange {
public:
    explicit WindowRange(const std::vector<double>& values)
        : v_(values), range_(values.data(), 1, values.size()) {}
    void start_at(std::size_t k) { range_.reset(k); }
    void push(std::size_t k) { range_.extend_to(k + 1); }
    void pop(std::size_t k) { range_.shrink_from(k + 1); } // k is the oldest index in the window
    double range() { return range_.max() - range_.min(); }
    double range_with(std::size_t k) { return std::max(range_.max(), v_[k]) - std::min(range_.min(), v_[k]); }

private:
    const std::vector<double>& v_;
    SlidingRange range_;
};

// Salvucci & Goldberg's I-DT in O(n): a window of at least min_fixation_ms whose dispersion
// (x range + y range) is within the threshold starts a fixation, which grows while it stays within;
// otherwise the window's first sample is dropped. Samples between fixations form saccades.
void idt_runs(const GazeSample* s, const Working& w, const DetectorParams& p, std::vector<Run>& runs,
              const CancelCheck& cancel) {
    const std::size_t m = w.t.size();
    std::vector<double> xs(m), ys(m);
    for (std::size_t k = 0; k < m; ++k) {
        if (w.angular)
            plane_angles(p.geometry, s[w.row[k]].x, s[w.row[k]].y, xs[k], ys[k]);
        else {
            xs[k] = w.pos[k].a;
            ys[k] = w.pos[k].b;
        }
    }
    WindowRange rx(xs), ry(ys);
    const double limit = p.dispersion_threshold;
    for (std::size_t seg = 0; seg + 1 < w.segment_begin.size(); ++seg) {
        const std::size_t begin = w.segment_begin[seg], end = w.segment_begin[seg + 1];
        if (end - begin < 2)
            continue;                  // a lone sample: unclassified
        std::size_t gap_start = begin; // first sample not yet in an event
        std::size_t i = begin, hi = begin;
        bool empty = true; // nothing pushed for the current i
        while (i < end) {
            cancel.poll(i);
            if (empty) {
                rx.start_at(i);
                ry.start_at(i);
                rx.push(i);
                ry.push(i);
                hi = i;
                empty = false;
            }
            while (hi + 1 < end && w.t[hi] - w.t[i] < p.min_fixation_ms) {
                ++hi;
                rx.push(hi);
                ry.push(hi);
            }
            if (w.t[hi] - w.t[i] < p.min_fixation_ms)
                break; // too little data left for a fixation
            if (rx.range() + ry.range() <= limit) {
                while (hi + 1 < end && rx.range_with(hi + 1) + ry.range_with(hi + 1) <= limit) {
                    ++hi;
                    rx.push(hi);
                    ry.push(hi);
                }
                if (i > gap_start)
                    runs.push_back({EventType::Saccade, gap_start, i - 1, seg});
                runs.push_back({EventType::Fixation, i, hi, seg});
                i = gap_start = hi + 1;
                empty = true;
            } else {
                rx.pop(i);
                ry.pop(i);
                ++i;
                empty = i > hi;
            }
        }
        if (gap_start < end)
            runs.push_back({EventType::Saccade, gap_start, end - 1, seg});
    }
}

GazeEvent summarise(const GazeSample* s, const Working& w, const Run& run, std::vector<double>& tau,
                    std::vector<double>& vel) {
    GazeEvent e;
    e.type = run.type;
    e.first_row = w.row[run.first];
    e.last_row = w.row[run.last];
    e.n_samples = static_cast<std::int64_t>(run.last - run.first + 1);
    e.start_ms = w.t[run.first];
    e.end_ms = w.t[run.last];
    const double count = static_cast<double>(e.n_samples);
    double sx = 0, sy = 0, vsum = 0, vmax = 0;
    std::size_t vcount = 0;
    for (std::size_t k = run.first; k <= run.last; ++k) {
        sx += s[w.row[k]].x;
        sy += s[w.row[k]].y;
        if (!std::isnan(w.velocity[k])) {
            vsum += w.velocity[k];
            vmax = std::max(vmax, w.velocity[k]);
            ++vcount;
        }
    }
    e.centroid_x = sx / count;
    e.centroid_y = sy / count;
    double vx = 0, vy = 0;
    for (std::size_t k = run.first; k <= run.last; ++k) {
        const double dx = s[w.row[k]].x - e.centroid_x, dy = s[w.row[k]].y - e.centroid_y;
        vx += dx * dx;
        vy += dy * dy;
    }
    e.sigma_x = std::sqrt(vx / count);
    e.sigma_y = std::sqrt(vy / count);
    e.start_x = s[e.first_row].x;
    e.start_y = s[e.first_row].y;
    e.end_x = s[e.last_row].x;
    e.end_y = s[e.last_row].y;
    e.amplitude = distance(w, run.first, run.last);
    e.peak_velocity = vcount ? vmax : kNaN;
    e.mean_velocity = vcount ? vsum / static_cast<double>(vcount) : kNaN;
    e.profile_a = e.profile_b = e.profile_c = kNaN;
    if (run.type == EventType::Saccade) {
        // The profile's flanks lie in the neighbouring samples (below the threshold), so they join the fit.
        const std::size_t begin = w.segment_begin[run.segment], end = w.segment_begin[run.segment + 1];
        const std::size_t from = run.first > begin ? run.first - 1 : run.first;
        const std::size_t to = run.last + 1 < end ? run.last + 1 : run.last;
        tau.clear();
        vel.clear();
        for (std::size_t k = from; k <= to; ++k) {
            tau.push_back(w.t[k] - e.start_ms);
            vel.push_back(w.velocity[k]);
        }
        const VelocityProfile f = fit_velocity_profile(tau.data(), vel.data(), tau.size());
        if (f.ok) {
            e.profile_a = f.a;
            e.profile_b = f.b;
            e.profile_c = f.c;
        }
    }
    return e;
}

void require_duration(const char* name, double value) {
    if (!std::isfinite(value) || value < 0)
        throw InvalidArgument(std::string(name) +
                              " must be a finite number of milliseconds of at least 0, got " +
                              format_number(value));
}

} // namespace

ViewingGeometry screen_geometry(double width_px, double height_px, double width_mm, double height_mm,
                                double distance_mm, double origin_x, double origin_y) {
    require_positive("width_px", width_px);
    require_positive("height_px", height_px);
    require_positive("width_mm", width_mm);
    require_positive("height_mm", height_mm);
    require_positive("distance_mm", distance_mm);
    ViewingGeometry g;
    g.projection = Projection::FlatPlane;
    g.origin_x = std::isnan(origin_x) ? width_px / 2 : require_finite("origin_x", origin_x);
    g.origin_y = std::isnan(origin_y) ? height_px / 2 : require_finite("origin_y", origin_y);
    g.unit_x = width_mm / width_px;
    g.unit_y = height_mm / height_px;
    g.distance = distance_mm;
    return g;
}

ViewingGeometry camera_geometry(double horizontal_fov_deg, double vertical_fov_deg, double width,
                                double height) {
    for (auto [name, fov] : {std::pair{"horizontal_fov_deg", horizontal_fov_deg},
                             std::pair{"vertical_fov_deg", vertical_fov_deg}})
        if (!std::isfinite(fov) || fov <= 0 || fov >= 180)
            throw InvalidArgument(std::string(name) + " must be between 0 and 180 degrees (exclusive), got " +
                                  format_number(fov));
    require_positive("width", width);
    require_positive("height", height);
    // A pinhole camera is a flat plane at distance 1 whose half-width is tan(fov / 2).
    ViewingGeometry g;
    g.projection = Projection::FlatPlane;
    g.origin_x = width / 2;
    g.origin_y = height / 2;
    g.unit_x = 2 * std::tan(horizontal_fov_deg / 2 / kDegreesPerRadian) / width;
    g.unit_y = 2 * std::tan(vertical_fov_deg / 2 / kDegreesPerRadian) / height;
    g.distance = 1;
    return g;
}

ViewingGeometry linear_geometry(double pixels_per_degree_x, double pixels_per_degree_y) {
    require_positive("pixels_per_degree", pixels_per_degree_x);
    if (!std::isnan(pixels_per_degree_y))
        require_positive("pixels_per_degree_y", pixels_per_degree_y);
    ViewingGeometry g;
    g.projection = Projection::Linear;
    g.unit_x = 1 / pixels_per_degree_x;
    g.unit_y = 1 / (std::isnan(pixels_per_degree_y) ? pixels_per_degree_x : pixels_per_degree_y);
    return g;
}

void validate_geometry(const ViewingGeometry& g) {
    switch (g.projection) {
    case Projection::None:
        return;
    case Projection::Linear:
        require_positive("geometry.unit_x", g.unit_x);
        require_positive("geometry.unit_y", g.unit_y);
        return;
    case Projection::FlatPlane:
        require_finite("geometry.origin_x", g.origin_x);
        require_finite("geometry.origin_y", g.origin_y);
        require_positive("geometry.unit_x", g.unit_x);
        require_positive("geometry.unit_y", g.unit_y);
        require_positive("geometry.distance", g.distance);
        return;
    }
    throw InvalidArgument("geometry.projection is not a known projection");
}

void validate_detector(const DetectorParams& p) {
    if (p.method == DetectionMethod::VelocityThreshold)
        require_positive("velocity_threshold", p.velocity_threshold);
    else if (p.method == DetectionMethod::DispersionThreshold)
        require_positive("dispersion_threshold", p.dispersion_threshold);
    else
        throw InvalidArgument("method must be ivt or idt");
    require_duration("min_fixation_ms", p.min_fixation_ms);
    require_duration("velocity_window_ms", p.velocity_window_ms);
    require_positive("max_gap_ms", p.max_gap_ms);
    require_duration("gap_fill_ms", p.gap_fill_ms);
    validate_geometry(p.geometry);
}

std::vector<GazeEvent> detect_events(const GazeSample* samples, std::size_t n, const DetectorParams& p,
                                     const CancelCheck& cancel) {
    validate_detector(p);
    if (!is_canonical(samples, n))
        throw InternalError("detect_events needs a canonical trace (strictly increasing times)");
    Working w = prepare(samples, n, p, cancel);
    compute_velocities(w, p.velocity_window_ms, cancel);
    std::vector<Run> runs;
    if (p.method == DetectionMethod::VelocityThreshold)
        ivt_runs(w, p, runs, cancel);
    else
        idt_runs(samples, w, p, runs, cancel);
    std::vector<GazeEvent> events;
    events.reserve(runs.size());
    std::vector<double> tau, vel;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        cancel.poll(i);
        events.push_back(summarise(samples, w, runs[i], tau, vel));
    }
    return events;
}

const char* to_string(SampleLabel label) {
    switch (label) {
    case SampleLabel::Missing:
        return "missing";
    case SampleLabel::Unclassified:
        return "unclassified";
    case SampleLabel::Fixation:
        return "fixation";
    case SampleLabel::Saccade:
        return "saccade";
    }
    return "?";
}

} // namespace gazepriv::core
