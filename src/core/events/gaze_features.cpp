#include "core/events/gaze_features.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/common/errors.hpp"
#include "core/events/sliding_extremum.hpp"
#include "core/common/validate.hpp"

namespace gazepriv::core {

namespace {

const FeatureInfo kCatalog[kFeatureCount] = {
    {"fixation_count", "count", "fixations starting in the window"},
    {"fixation_rate", "1/s", "fixations starting in the window per second"},
    {"fixation_duration_mean", "ms", "mean fixation duration"},
    {"fixation_duration_sd", "ms", "standard deviation of the fixation durations"},
    {"fixation_duration_min", "ms", "shortest fixation"},
    {"fixation_duration_max", "ms", "longest fixation"},
    {"fixation_time_ratio", "fraction", "share of the window covered by fixations"},
    {"fixation_sigma_x_mean", "input units", "mean horizontal spread (sigma_x) of the fixations"},
    {"fixation_sigma_y_mean", "input units", "mean vertical spread (sigma_y) of the fixations"},
    {"saccade_count", "count", "saccades starting in the window"},
    {"saccade_rate", "1/s", "saccades starting in the window per second"},
    {"saccade_duration_mean", "ms", "mean saccade duration"},
    {"saccade_amplitude_mean", "detector units", "mean saccade amplitude"},
    {"saccade_amplitude_sd", "detector units", "standard deviation of the saccade amplitudes"},
    {"saccade_amplitude_max", "detector units", "largest saccade amplitude"},
    {"saccade_peak_velocity_mean", "detector units/s", "mean saccade peak velocity"},
    {"saccade_peak_velocity_sd", "detector units/s", "standard deviation of the saccade peak velocities"},
    {"saccade_peak_velocity_max", "detector units/s", "highest saccade peak velocity"},
    {"saccade_mean_velocity_mean", "detector units/s", "mean of the saccades' mean velocities"},
    {"large_saccade_ratio", "fraction", "share of saccades with amplitude >= large_saccade"},
    {"rightward_saccade_ratio", "fraction", "share of saccades ending right of where they start (x grows)"},
    {"saccade_fixation_ratio", "ratio", "saccade_count / fixation_count"},
    {"missing_ratio", "fraction", "share of the window's samples without gaze"},
    {"blink_rate", "1/s", "blinks (missing runs of blink_min_ms..blink_max_ms) starting per second"},
    {"blink_duration_mean", "ms", "mean blink duration"},
    {"pupil_mean", "pupil units", "mean pupil diameter"},
    {"pupil_sd", "pupil units", "standard deviation of the pupil diameter"},
    {"pupil_min", "pupil units", "smallest pupil diameter"},
    {"pupil_max", "pupil units", "largest pupil diameter"},
    {"gaze_sd_x", "input units", "standard deviation of the horizontal gaze position"},
    {"gaze_sd_y", "input units", "standard deviation of the vertical gaze position"},
    {"gaze_range_x", "input units", "range (max - min) of the horizontal gaze position"},
    {"gaze_range_y", "input units", "range (max - min) of the vertical gaze position"},
};

// Double-double arithmetic (Dekker; Knuth's two-sum), used per window.
struct DoubleDouble {
    double hi = 0, lo = 0;
};

[[gnu::always_inline]] inline DoubleDouble two_sum(double a, double b) {
    const double s = a + b, bb = s - a;
    return {s, (a - (s - bb)) + (b - bb)};
}

[[gnu::always_inline]] inline DoubleDouble operator+(DoubleDouble a, DoubleDouble b) {
    DoubleDouble s = two_sum(a.hi, b.hi);
    s.lo += a.lo + b.lo;
    return two_sum(s.hi, s.lo);
}

[[gnu::always_inline]] inline DoubleDouble operator-(DoubleDouble a, DoubleDouble b) {
    return a + DoubleDouble{-b.hi, -b.lo};
}

[[gnu::always_inline]] inline DoubleDouble operator*(DoubleDouble a, DoubleDouble b) {
    const double p = a.hi * b.hi;
    return two_sum(p, std::fma(a.hi, b.hi, -p) + a.hi * b.lo + a.lo * b.hi);
}

[[gnu::always_inline]] inline DoubleDouble operator/(DoubleDouble a, double b) {
    const double q = a.hi / b;
    const DoubleDouble r = a - DoubleDouble{q, 0} * DoubleDouble{b, 0};
    return two_sum(q, (r.hi + r.lo) / b);
}

// Running count, sum and sum of squares of a series centred on a reference value, each sum kept in
// twice the working precision by cascaded summation (Ogita, Rump & Oishi's Sum2: the rounding error
// of every addition is collected separately, off the critical path). The difference of two running
// states is then accurate to the window's own magnitude, whatever came before it, so window means
// and standard deviations are as exact as a two-pass computation over the window, and a constant
// window has a standard deviation of exactly 0.
struct RunningMoments {
    double count = 0;
    DoubleDouble sum, sq;

    void add(double d) {
        const DoubleDouble s = two_sum(sum.hi, d);
        sum.hi = s.hi;
        sum.lo += s.lo;
        const double p = d * d;
        const DoubleDouble q = two_sum(sq.hi, p);
        sq.hi = q.hi;
        sq.lo += q.lo + std::fma(d, d, -p);
        count += 1;
    }
};

// The moments of the values between two running states.
struct WindowMoments {
    double count, ref;
    DoubleDouble sum, sq; // of the centred values

    WindowMoments(const RunningMoments& from, const RunningMoments& to, double reference)
        : count(to.count - from.count), ref(reference), sum(to.sum - from.sum), sq(to.sq - from.sq) {}
    double total() const { return ref * count + (sum.hi + sum.lo); }
    double mean() const {
        if (count <= 0)
            return 0;
        const DoubleDouble m = sum / count;
        return ref + (m.hi + m.lo);
    }
    // Population standard deviation: sqrt((S2 - S1^2 / n) / n), in double-double.
    double sd() const {
        if (count <= 1)
            return 0;
        const DoubleDouble var = (sq - (sum * sum) / count) / count;
        return std::sqrt(std::max(0.0, var.hi + var.lo));
    }
};

// A series read with a stride (a field of the sample rows, or a vector of event values); NaN entries
// are missing and skipped.
struct Series {
    const double* values;
    std::size_t stride, size;
    double operator[](std::size_t i) const { return values[i * stride]; }
};

// A value to centre the series on: its first valid one (the series' values are of one magnitude).
double reference_of(Series v) {
    for (std::size_t i = 0; i < v.size; ++i)
        if (!std::isnan(v[i]))
            return v[i];
    return 0;
}

// Window ranges [lo[w], hi[w]) of indices into a series (both non-decreasing in w).
struct Ranges {
    std::vector<std::size_t> lo, hi;
};

// The moments of `v` over every window range, in one pass over the series: the running state is
// recorded when the pass reaches each window's ends, so the cost is O(size + windows) and no prefix
// array of the series' size is stored.
std::vector<WindowMoments> window_moments(Series v, const Ranges& r, const CancelCheck& cancel) {
    const std::size_t windows = r.lo.size();
    const double ref = reference_of(v); // centring keeps the squares small
    std::vector<RunningMoments> at_lo(windows), at_hi(windows);
    RunningMoments run;
    std::size_t next_lo = 0, next_hi = 0;
    for (std::size_t i = 0;;) {
        while (next_lo < windows && r.lo[next_lo] == i)
            at_lo[next_lo++] = run;
        while (next_hi < windows && r.hi[next_hi] == i)
            at_hi[next_hi++] = run;
        if (i == v.size)
            break;
        // Up to the next window end, the values only accumulate: a tight loop without boundary checks
        // (segments also end at multiples of 4096, where poll() looks for a cancel).
        std::size_t stop = std::min(v.size, (i | 4095u) + 1);
        if (next_lo < windows)
            stop = std::min(stop, r.lo[next_lo]);
        if (next_hi < windows)
            stop = std::min(stop, r.hi[next_hi]);
        cancel.poll(i);
        for (; i < stop; ++i)
            if (!std::isnan(v[i]))
                run.add(v[i] - ref);
    }
    std::vector<WindowMoments> out;
    out.reserve(windows);
    for (std::size_t w = 0; w < windows; ++w)
        out.emplace_back(at_lo[w], at_hi[w], ref);
    return out;
}

// The minimum and maximum of `v` over every window range (0 for a window without values).
struct Extremes {
    std::vector<double> min, max;
};

Extremes window_extremes(Series v, const Ranges& r, const CancelCheck& cancel) {
    const std::size_t windows = r.lo.size();
    SlidingRange range(v.values, v.stride, v.size);
    Extremes out{std::vector<double>(windows), std::vector<double>(windows)};
    for (std::size_t w = 0; w < windows; ++w) {
        cancel.poll(w);
        range.extend_to(r.hi[w]);
        range.shrink_from(r.lo[w]);
        const double lo = range.min(), hi = range.max();
        out.min[w] = std::isinf(lo) ? 0 : lo;
        out.max[w] = std::isinf(hi) ? 0 : hi;
    }
    return out;
}

// For sorted times, the index ranges of the values in [start[w], start[w] + length).
Ranges ranges_by_time(Series times, const std::vector<double>& start, double length) {
    Ranges r{std::vector<std::size_t>(start.size()), std::vector<std::size_t>(start.size())};
    std::size_t lo = 0, hi = 0;
    for (std::size_t w = 0; w < start.size(); ++w) {
        while (lo < times.size && times[lo] < start[w])
            ++lo;
        hi = std::max(hi, lo);
        while (hi < times.size && times[hi] < start[w] + length)
            ++hi;
        r.lo[w] = lo;
        r.hi[w] = hi;
    }
    return r;
}

struct Fixations {
    std::vector<double> start, end, duration, sigma_x, sigma_y;
    void reserve(std::size_t n) {
        for (auto* v : {&start, &end, &duration, &sigma_x, &sigma_y})
            v->reserve(n);
    }
};
struct Saccades {
    std::vector<double> start, duration, amplitude, peak_velocity, mean_velocity, large, rightward;
    void reserve(std::size_t n) {
        for (auto* v : {&start, &duration, &amplitude, &peak_velocity, &mean_velocity, &large, &rightward})
            v->reserve(n);
    }
};
struct Blinks {
    std::vector<double> start, duration;
};

Series series(const std::vector<double>& v) {
    return {v.data(), 1, v.size()};
}

double nan_to_zero(double v) {
    return std::isnan(v) ? 0 : v;
}

double median_interval(const GazeSample* s, std::size_t n) {
    if (n < 2)
        return 0;
    std::vector<double> gaps(n - 1);
    for (std::size_t i = 1; i < n; ++i)
        gaps[i - 1] = s[i].t_ms - s[i - 1].t_ms;
    auto mid = gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2);
    std::nth_element(gaps.begin(), mid, gaps.end());
    return *mid;
}

} // namespace

void validate_features(const FeatureParams& p) {
    require_positive("window_ms", p.window_ms);
    require_positive("step_ms", p.step_ms);
    require_positive("large_saccade", p.large_saccade);
    require_non_negative("blink_min_ms", p.blink_min_ms);
    require_positive("blink_max_ms", p.blink_max_ms);
    if (p.blink_min_ms > p.blink_max_ms)
        throw InvalidArgument("blink_min_ms (" + format_number(p.blink_min_ms) +
                              ") must not exceed blink_max_ms (" + format_number(p.blink_max_ms) + ")");
}

const FeatureInfo* feature_catalog() {
    return kCatalog;
}

FeatureTable feature_windows(const GazeSample* s, std::size_t n, const std::vector<GazeEvent>& events,
                             const FeatureParams& p, const CancelCheck& cancel) {
    validate_features(p);
    FeatureTable out;
    if (n == 0)
        return out;
    // Window starts.
    const double t0 = s[0].t_ms, t_end = s[n - 1].t_ms + median_interval(s, n);
    const double span = t_end - t0;
    if (span < p.window_ms)
        return out;
    const double windows = std::floor((span - p.window_ms) / p.step_ms) + 1;
    if (windows > static_cast<double>(kMaxFeatureWindows))
        throw LimitExceeded("window_ms " + format_number(p.window_ms) + " and step_ms " +
                            format_number(p.step_ms) + " give " + format_number(windows) +
                            " windows over this trace; at most " + std::to_string(kMaxFeatureWindows) +
                            " are allowed");
    const std::size_t count = static_cast<std::size_t>(windows);

    out.start_ms.resize(count);
    for (std::size_t w = 0; w < count; ++w)
        out.start_ms[w] = t0 + static_cast<double>(w) * p.step_ms;

    // Samples, read in place (x and y are missing together); missing gaze as a 0/1 series for blinks.
    const Series times{&s[0].t_ms, 4, n}, xs{&s[0].x, 4, n}, ys{&s[0].y, 4, n}, pupils{&s[0].pupil, 4, n};
    std::vector<double> missing(n);
    for (std::size_t i = 0; i < n; ++i)
        missing[i] = has_gaze(s[i]) ? 0 : 1;

    Fixations fix;
    Saccades sac;
    const auto fixations = static_cast<std::size_t>(std::count_if(
        events.begin(), events.end(), [](const GazeEvent& e) { return e.type == EventType::Fixation; }));
    fix.reserve(fixations);
    sac.reserve(events.size() - fixations);
    for (const GazeEvent& e : events) {
        if (e.type == EventType::Fixation) {
            fix.start.push_back(e.start_ms);
            fix.end.push_back(e.end_ms);
            fix.duration.push_back(e.end_ms - e.start_ms);
            fix.sigma_x.push_back(e.sigma_x);
            fix.sigma_y.push_back(e.sigma_y);
        } else {
            sac.start.push_back(e.start_ms);
            sac.duration.push_back(e.end_ms - e.start_ms);
            sac.amplitude.push_back(e.amplitude);
            sac.peak_velocity.push_back(nan_to_zero(e.peak_velocity));
            sac.mean_velocity.push_back(nan_to_zero(e.mean_velocity));
            sac.large.push_back(e.amplitude >= p.large_saccade ? 1 : 0);
            sac.rightward.push_back(e.end_x > e.start_x ? 1 : 0);
        }
    }
    // Blinks: runs of missing samples between samples with gaze, of a blink's duration.
    Blinks blink;
    for (std::size_t i = 1; i < n;) {
        if (!missing[i] || missing[i - 1]) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < n && missing[j])
            ++j;
        if (j < n) {
            const double d = s[j].t_ms - s[i].t_ms;
            if (d >= p.blink_min_ms && d <= p.blink_max_ms) {
                blink.start.push_back(s[i].t_ms);
                blink.duration.push_back(d);
            }
        }
        i = j;
    }

    // Every statistic over every window, one series at a time.
    const Ranges rows = ranges_by_time(times, out.start_ms, p.window_ms);
    const Ranges fr = ranges_by_time(series(fix.start), out.start_ms, p.window_ms);
    const Ranges sr = ranges_by_time(series(sac.start), out.start_ms, p.window_ms);
    const Ranges br = ranges_by_time(series(blink.start), out.start_ms, p.window_ms);
    const auto x_m = window_moments(xs, rows, cancel), y_m = window_moments(ys, rows, cancel);
    const auto pupil_m = window_moments(pupils, rows, cancel);
    const Extremes x_e = window_extremes(xs, rows, cancel), y_e = window_extremes(ys, rows, cancel);
    const Extremes pupil_e = window_extremes(pupils, rows, cancel);
    const auto fix_duration = window_moments(series(fix.duration), fr, cancel);
    const auto fix_sx = window_moments(series(fix.sigma_x), fr, cancel);
    const auto fix_sy = window_moments(series(fix.sigma_y), fr, cancel);
    const Extremes fix_duration_e = window_extremes(series(fix.duration), fr, cancel);
    const auto sac_duration = window_moments(series(sac.duration), sr, cancel);
    const auto amplitude = window_moments(series(sac.amplitude), sr, cancel);
    const auto peak = window_moments(series(sac.peak_velocity), sr, cancel);
    const auto sac_mean = window_moments(series(sac.mean_velocity), sr, cancel);
    const auto large = window_moments(series(sac.large), sr, cancel);
    const auto right = window_moments(series(sac.rightward), sr, cancel);
    const Extremes amplitude_e = window_extremes(series(sac.amplitude), sr, cancel);
    const Extremes peak_e = window_extremes(series(sac.peak_velocity), sr, cancel);
    const auto blink_duration = window_moments(series(blink.duration), br, cancel);

    out.values.resize(count * kFeatureCount);
    const double seconds = p.window_ms / 1000;
    for (std::size_t w = 0; w < count; ++w) {
        const double from = out.start_ms[w], to = from + p.window_ms;
        const std::size_t f0 = fr.lo[w], f1 = fr.hi[w];
        const double nf = static_cast<double>(f1 - f0), ns = static_cast<double>(sr.hi[w] - sr.lo[w]);
        // Fixations are disjoint and sorted: the covered time is the sum of those starting inside,
        // less the part of the last one beyond the window, plus the tail of one started before it.
        double covered = fix_duration[w].total();
        if (f1 > f0)
            covered -= std::max(0.0, fix.end[f1 - 1] - to);
        if (f0 > 0)
            covered += std::max(0.0, std::min(fix.end[f0 - 1], to) - from);
        const double rows_in = static_cast<double>(rows.hi[w] - rows.lo[w]);

        double* v = &out.values[w * kFeatureCount];
        v[0] = nf;
        v[1] = nf / seconds;
        v[2] = fix_duration[w].mean();
        v[3] = fix_duration[w].sd();
        v[4] = fix_duration_e.min[w];
        v[5] = fix_duration_e.max[w];
        v[6] = covered / p.window_ms;
        v[7] = fix_sx[w].mean();
        v[8] = fix_sy[w].mean();
        v[9] = ns;
        v[10] = ns / seconds;
        v[11] = sac_duration[w].mean();
        v[12] = amplitude[w].mean();
        v[13] = amplitude[w].sd();
        v[14] = amplitude_e.max[w];
        v[15] = peak[w].mean();
        v[16] = peak[w].sd();
        v[17] = peak_e.max[w];
        v[18] = sac_mean[w].mean();
        v[19] = large[w].mean();
        v[20] = right[w].mean();
        v[21] = nf > 0 ? ns / nf : 0;
        v[22] = rows_in > 0 ? (rows_in - x_m[w].count) / rows_in : 0;
        v[23] = static_cast<double>(br.hi[w] - br.lo[w]) / seconds;
        v[24] = blink_duration[w].mean();
        v[25] = pupil_m[w].mean();
        v[26] = pupil_m[w].sd();
        v[27] = pupil_e.min[w];
        v[28] = pupil_e.max[w];
        v[29] = x_m[w].sd();
        v[30] = y_m[w].sd();
        v[31] = x_e.max[w] - x_e.min[w];
        v[32] = y_e.max[w] - y_e.min[w];
    }
    return out;
}

} // namespace gazepriv::core
