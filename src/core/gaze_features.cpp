#include "core/gaze_features.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/errors.hpp"
#include "core/sliding_extremum.hpp"
#include "core/validate.hpp"

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
    {"pupil_mean", "input units", "mean pupil diameter"},
    {"pupil_sd", "input units", "standard deviation of the pupil diameter"},
    {"pupil_min", "input units", "smallest pupil diameter"},
    {"pupil_max", "input units", "largest pupil diameter"},
    {"gaze_sd_x", "input units", "standard deviation of the horizontal gaze position"},
    {"gaze_sd_y", "input units", "standard deviation of the vertical gaze position"},
    {"gaze_range_x", "input units", "range (max - min) of the horizontal gaze position"},
    {"gaze_range_y", "input units", "range (max - min) of the vertical gaze position"},
};

// Double-double arithmetic (Dekker, Knuth two-sum): prefix sums over a whole trace keep the window
// sums accurate to the window's own magnitude, so a constant window has a standard deviation of
// exactly 0 rather than the rounding residue of the trace's total.
struct DoubleDouble {
    double hi = 0, lo = 0;
};

DoubleDouble two_sum(double a, double b) {
    const double s = a + b, bb = s - a;
    return {s, (a - (s - bb)) + (b - bb)};
}

DoubleDouble operator+(DoubleDouble a, DoubleDouble b) {
    DoubleDouble s = two_sum(a.hi, b.hi);
    s.lo += a.lo + b.lo;
    return two_sum(s.hi, s.lo);
}

DoubleDouble operator-(DoubleDouble a, DoubleDouble b) {
    return a + DoubleDouble{-b.hi, -b.lo};
}

DoubleDouble operator*(DoubleDouble a, DoubleDouble b) {
    const double p = a.hi * b.hi;
    return two_sum(p, std::fma(a.hi, b.hi, -p) + a.hi * b.lo + a.lo * b.hi);
}

DoubleDouble operator/(DoubleDouble a, double b) {
    const double q = a.hi / b;
    const DoubleDouble r = a - DoubleDouble{q, 0} * DoubleDouble{b, 0};
    return two_sum(q, (r.hi + r.lo) / b);
}

// Prefix sums of a series with missing (NaN) entries, centred on the series mean.
class PrefixMoments {
public:
    explicit PrefixMoments(const std::vector<double>& v)
        : count_(v.size() + 1), sum_(v.size() + 1), sq_(v.size() + 1) {
        double total = 0, valid = 0;
        for (double x : v)
            if (!std::isnan(x)) {
                total += x;
                ++valid;
            }
        ref_ = valid > 0 ? total / valid : 0;
        for (std::size_t i = 0; i < v.size(); ++i) {
            const bool ok = !std::isnan(v[i]);
            const double d = ok ? v[i] - ref_ : 0;
            const double p = d * d;
            count_[i + 1] = count_[i] + (ok ? 1 : 0);
            sum_[i + 1] = sum_[i] + DoubleDouble{d, 0};
            sq_[i + 1] = sq_[i] + DoubleDouble{p, std::fma(d, d, -p)};
        }
    }
    double count(std::size_t lo, std::size_t hi) const { return count_[hi] - count_[lo]; }
    double sum(std::size_t lo, std::size_t hi) const {
        const DoubleDouble s = sum_[hi] - sum_[lo];
        return s.hi + s.lo + ref_ * count(lo, hi);
    }
    double mean(std::size_t lo, std::size_t hi) const {
        const double c = count(lo, hi);
        if (c <= 0)
            return 0;
        const DoubleDouble s = (sum_[hi] - sum_[lo]) / c;
        return ref_ + (s.hi + s.lo);
    }
    // Population standard deviation: sqrt((S2 - S1^2 / c) / c) in double-double.
    double sd(std::size_t lo, std::size_t hi) const {
        const double c = count(lo, hi);
        if (c <= 1)
            return 0;
        const DoubleDouble s1 = sum_[hi] - sum_[lo], s2 = sq_[hi] - sq_[lo];
        const DoubleDouble var = (s2 - (s1 * s1) / c) / c;
        return std::sqrt(std::max(0.0, var.hi + var.lo));
    }

private:
    std::vector<double> count_;
    std::vector<DoubleDouble> sum_, sq_;
    double ref_ = 0;
};

// A series (NaN = missing) with its window moments, minimum and maximum.
struct Tracked {
    explicit Tracked(const std::vector<double>& values)
        : v(values), moments(values), min(values.data()), max(values.data()) {}
    // Moves the window to [lo, hi); `pushed` is the first index not yet offered to the queues.
    void advance(std::size_t lo, std::size_t hi) {
        for (; pushed < hi; ++pushed)
            if (!std::isnan(v[pushed])) {
                min.push(pushed);
                max.push(pushed);
            }
        min.expire_before(lo);
        max.expire_before(lo);
    }
    double lowest() const { return min.empty() ? 0 : min.value(); }
    double highest() const { return max.empty() ? 0 : max.value(); }
    const std::vector<double>& v;
    PrefixMoments moments;
    SlidingExtremum<false> min;
    SlidingExtremum<true> max;
    std::size_t pushed = 0;
};

struct Fixations {
    std::vector<double> start, end, duration, sigma_x, sigma_y;
};
struct Saccades {
    std::vector<double> start, duration, amplitude, peak_velocity, mean_velocity, large, rightward;
};
struct Blinks {
    std::vector<double> start, duration;
};

double nan_to_zero(double v) {
    return std::isnan(v) ? 0 : v;
}

double median_interval(const GazeSample* s, std::size_t n) {
    std::vector<double> gaps;
    gaps.reserve(n);
    for (std::size_t i = 1; i < n; ++i)
        gaps.push_back(s[i].t_ms - s[i - 1].t_ms);
    if (gaps.empty())
        return 0;
    auto mid = gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2);
    std::nth_element(gaps.begin(), mid, gaps.end());
    return *mid;
}

// Advances [lo, hi) over a sorted array to the values in [from, to).
void advance_range(const std::vector<double>& sorted, double from, double to, std::size_t& lo,
                   std::size_t& hi) {
    while (lo < sorted.size() && sorted[lo] < from)
        ++lo;
    hi = std::max(hi, lo);
    while (hi < sorted.size() && sorted[hi] < to)
        ++hi;
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

    // Samples: time, missing flags, coordinates and pupil (NaN when missing).
    std::vector<double> t(n), missing(n), xs(n), ys(n), pupil(n);
    for (std::size_t i = 0; i < n; ++i) {
        t[i] = s[i].t_ms;
        missing[i] = has_gaze(s[i]) ? 0 : 1;
        xs[i] = s[i].x;
        ys[i] = s[i].y;
        pupil[i] = s[i].pupil;
    }
    const PrefixMoments missing_rows(missing);
    Tracked gx(xs), gy(ys), gp(pupil);

    Fixations fix;
    Saccades sac;
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
            const double d = t[j] - t[i];
            if (d >= p.blink_min_ms && d <= p.blink_max_ms) {
                blink.start.push_back(t[i]);
                blink.duration.push_back(d);
            }
        }
        i = j;
    }
    Tracked fix_duration(fix.duration), amplitude(sac.amplitude), peak(sac.peak_velocity);
    const PrefixMoments fix_sx(fix.sigma_x), fix_sy(fix.sigma_y), sac_duration(sac.duration),
        sac_mean(sac.mean_velocity), sac_large(sac.large), sac_right(sac.rightward),
        blink_duration(blink.duration);

    out.start_ms.resize(count);
    out.values.resize(count * kFeatureCount);
    std::size_t r0 = 0, r1 = 0, f0 = 0, f1 = 0, s0 = 0, s1 = 0, b0 = 0, b1 = 0;
    const double seconds = p.window_ms / 1000;
    for (std::size_t w = 0; w < count; ++w) {
        cancel.poll(w);
        const double from = t0 + static_cast<double>(w) * p.step_ms, to = from + p.window_ms;
        out.start_ms[w] = from;
        advance_range(t, from, to, r0, r1);
        advance_range(fix.start, from, to, f0, f1);
        advance_range(sac.start, from, to, s0, s1);
        advance_range(blink.start, from, to, b0, b1);
        gx.advance(r0, r1);
        gy.advance(r0, r1);
        gp.advance(r0, r1);
        fix_duration.advance(f0, f1);
        amplitude.advance(s0, s1);
        peak.advance(s0, s1);

        const double nf = static_cast<double>(f1 - f0), ns = static_cast<double>(s1 - s0);
        // Fixations are disjoint and sorted: the covered time is the sum of those starting inside,
        // less the part of the last one beyond the window, plus the tail of one started before it.
        double covered = fix_duration.moments.sum(f0, f1);
        if (f1 > f0)
            covered -= std::max(0.0, fix.end[f1 - 1] - to);
        if (f0 > 0)
            covered += std::max(0.0, std::min(fix.end[f0 - 1], to) - from);
        const double rows = static_cast<double>(r1 - r0);

        double* v = &out.values[w * kFeatureCount];
        v[0] = nf;
        v[1] = nf / seconds;
        v[2] = fix_duration.moments.mean(f0, f1);
        v[3] = fix_duration.moments.sd(f0, f1);
        v[4] = fix_duration.lowest();
        v[5] = fix_duration.highest();
        v[6] = covered / p.window_ms;
        v[7] = fix_sx.mean(f0, f1);
        v[8] = fix_sy.mean(f0, f1);
        v[9] = ns;
        v[10] = ns / seconds;
        v[11] = sac_duration.mean(s0, s1);
        v[12] = amplitude.moments.mean(s0, s1);
        v[13] = amplitude.moments.sd(s0, s1);
        v[14] = amplitude.highest();
        v[15] = peak.moments.mean(s0, s1);
        v[16] = peak.moments.sd(s0, s1);
        v[17] = peak.highest();
        v[18] = sac_mean.mean(s0, s1);
        v[19] = sac_large.mean(s0, s1);
        v[20] = sac_right.mean(s0, s1);
        v[21] = nf > 0 ? ns / nf : 0;
        v[22] = rows > 0 ? missing_rows.sum(r0, r1) / rows : 0;
        v[23] = static_cast<double>(b1 - b0) / seconds;
        v[24] = blink_duration.mean(b0, b1);
        v[25] = gp.moments.mean(r0, r1);
        v[26] = gp.moments.sd(r0, r1);
        v[27] = gp.lowest();
        v[28] = gp.highest();
        v[29] = gx.moments.sd(r0, r1);
        v[30] = gy.moments.sd(r0, r1);
        v[31] = gx.highest() - gx.lowest();
        v[32] = gy.highest() - gy.lowest();
    }
    return out;
}

} // namespace gazepriv::core
