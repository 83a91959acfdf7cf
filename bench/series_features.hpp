// Windowed eye-movement features from the raw Hoppe et al. 2018 recordings, for the time-series
// benchmarks (bench/series.cpp, bench/series_utility.cpp). A stand-in for the feature-extraction issue,
// which is being built concurrently: simple sliding-window statistics, 48 per window like the paper's
// feature sets.
//
// Each participant's walk is split into three recordings at the shop times of participants.csv: the
// way to the shop, the shop, the way back (the "document types" of the paper's setting). Gaze is valid
// inside [-1, 2]^2 (data README); pupil values <= 0 are missing. Per window:
//  - for x, y, pupil left, pupil right, mean pupil and gaze speed (frame widths per second between
//    consecutive valid samples): mean, standard deviation, min, max, range, mean absolute successive
//    difference (36 features);
//  - fractions of fixation, saccade, blink and unlabelled samples, invalid-gaze and missing-pupil rates,
//    fixation, saccade and blink onsets per second, mean fixation, saccade and blink durations in s (12).
// A statistic without valid samples in its window is NaN (a missing value).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/series_dataset.hpp"

namespace series_bench {

constexpr std::size_t kFeatures = 48;
constexpr std::size_t kSegments = 3;
inline const char* const kSegmentNames[kSegments] = {"way_out", "shop", "way_back"};

struct Sample {
    double t_ms, x, y, pupil_right, pupil_left;
    char event;
};

struct Recording {
    int participant;
    std::vector<Sample> samples;
    double shop_enter_ms, shop_leave_ms;
};

// Feature windows in the shape of core::SeriesRows (array form).
struct FeatureTable {
    std::vector<std::int32_t> participant, recording;
    std::vector<double> t, values; // values: rows x kFeatures
    std::vector<std::string> participant_names;
    std::size_t rows() const { return t.size(); }
};

// The table as core::SeriesRows (array form, one recording per segment).
inline gazepriv::core::SeriesRows rows_of(const FeatureTable& table) {
    gazepriv::core::SeriesRows rows;
    rows.count = table.rows();
    rows.width = kFeatures;
    rows.participant = table.participant.data();
    rows.recording = table.recording.data();
    rows.t = table.t.data();
    rows.values = table.values.data();
    rows.participants = table.participant_names.size();
    rows.recordings = kSegments;
    return rows;
}

inline std::string data_dir() {
    const char* env = std::getenv("GAZEPRIV_DATA");
    return std::string(env != nullptr && *env ? env : "../shared/data") + "/hoppe2018_everyday";
}

inline double field(const std::string& s) {
    return s.empty() ? std::numeric_limits<double>::quiet_NaN() : std::strtod(s.c_str(), nullptr);
}

inline std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> out;
    std::string cell;
    std::stringstream ss(line);
    while (std::getline(ss, cell, ','))
        out.push_back(cell);
    if (!line.empty() && line.back() == ',')
        out.push_back("");
    return out;
}

// The 20 participants with samples, in participants.csv order.
inline std::vector<Recording> load_recordings() {
    const std::string dir = data_dir();
    std::ifstream meta(dir + "/participants.csv");
    if (!meta)
        throw std::runtime_error("cannot read " + dir + "/participants.csv (set GAZEPRIV_DATA)");
    std::string line;
    std::getline(meta, line);
    std::vector<Recording> recordings;
    while (std::getline(meta, line)) {
        const auto cells = split(line);
        if (cells.size() < 13 || cells[12] != "yes")
            continue;
        Recording r;
        r.participant = std::atoi(cells[0].c_str());
        r.shop_enter_ms = field(cells[10]) * 1000;
        r.shop_leave_ms = field(cells[11]) * 1000;
        char name[64];
        std::snprintf(name, sizeof name, "%s/samples/participant_%02d.csv", dir.c_str(), r.participant);
        std::ifstream in(name);
        if (!in)
            throw std::runtime_error(std::string("cannot read ") + name);
        std::getline(in, line);
        while (std::getline(in, line)) {
            const auto c = split(line);
            if (c.size() < 7)
                continue;
            r.samples.push_back({field(c[1]), field(c[2]), field(c[3]), field(c[4]), field(c[5]), c[6].empty() ? '-' : c[6][0]});
        }
        recordings.push_back(std::move(r));
    }
    return recordings;
}

// Prefix sums of a per-sample signal with validity, plus sliding minima and maxima.
class Signal {
public:
    explicit Signal(std::vector<double> v) : v_(std::move(v)), count_(v_.size() + 1), sum_(v_.size() + 1), sq_(v_.size() + 1), absdiff_(v_.size() + 1), pairs_(v_.size() + 1) {
        for (std::size_t i = 0; i < v_.size(); ++i) {
            const bool ok = std::isfinite(v_[i]);
            const bool pair = ok && i > 0 && std::isfinite(v_[i - 1]);
            count_[i + 1] = count_[i] + ok;
            sum_[i + 1] = sum_[i] + (ok ? v_[i] : 0);
            sq_[i + 1] = sq_[i] + (ok ? v_[i] * v_[i] : 0);
            absdiff_[i + 1] = absdiff_[i] + (pair ? std::fabs(v_[i] - v_[i - 1]) : 0);
            pairs_[i + 1] = pairs_[i] + pair;
        }
    }
    // mean, sd, min, max, range, mean absolute successive difference over samples [a, b); windows must
    // come in increasing order of both ends (sliding deques).
    void stats(std::size_t a, std::size_t b, double* out) {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const double n = count_[b] - count_[a];
        advance(a, b);
        if (n == 0) {
            std::fill(out, out + 6, nan);
            return;
        }
        const double mean = (sum_[b] - sum_[a]) / n;
        const double var = std::max(0.0, (sq_[b] - sq_[a]) / n - mean * mean);
        const double lo = v_[min_.front()], hi = v_[max_.front()];
        const double pairs = pairs_[b] - pairs_[a + 1 > b ? b : a + 1];
        out[0] = mean;
        out[1] = std::sqrt(var);
        out[2] = lo;
        out[3] = hi;
        out[4] = hi - lo;
        out[5] = pairs > 0 ? (absdiff_[b] - absdiff_[std::min(a + 1, b)]) / pairs : nan;
    }

private:
    void advance(std::size_t a, std::size_t b) {
        for (; end_ < b; ++end_) {
            if (!std::isfinite(v_[end_]))
                continue;
            while (!min_.empty() && v_[min_.back()] >= v_[end_])
                min_.pop_back();
            min_.push_back(end_);
            while (!max_.empty() && v_[max_.back()] <= v_[end_])
                max_.pop_back();
            max_.push_back(end_);
        }
        while (!min_.empty() && min_.front() < a)
            min_.pop_front();
        while (!max_.empty() && max_.front() < a)
            max_.pop_front();
    }
    std::vector<double> v_;
    std::vector<double> count_, sum_, sq_, absdiff_, pairs_;
    std::deque<std::size_t> min_, max_;
    std::size_t end_ = 0;
};

// Windows of window_ms every step_ms inside each segment; t is the window's index in its segment.
inline FeatureTable extract_features(const std::vector<Recording>& recordings, double window_ms, double step_ms) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    FeatureTable table;
    for (std::size_t p = 0; p < recordings.size(); ++p) {
        const Recording& r = recordings[p];
        const auto& s = r.samples;
        const std::size_t n = s.size();
        table.participant_names.push_back(std::to_string(r.participant));
        std::vector<double> x(n, nan), y(n, nan), pl(n, nan), pr(n, nan), pm(n, nan), speed(n, nan);
        std::vector<double> fix(n), sac(n), blink(n), none(n), invalid(n), no_pupil(n), fix_on(n), sac_on(n), blink_on(n);
        for (std::size_t i = 0; i < n; ++i) {
            const bool valid = std::isfinite(s[i].x) && std::isfinite(s[i].y) && s[i].x >= -1 && s[i].x <= 2 &&
                               s[i].y >= -1 && s[i].y <= 2;
            if (valid) {
                x[i] = s[i].x;
                y[i] = s[i].y;
            }
            invalid[i] = !valid;
            const bool l = s[i].pupil_left > 0, rr = s[i].pupil_right > 0;
            if (l)
                pl[i] = s[i].pupil_left;
            if (rr)
                pr[i] = s[i].pupil_right;
            if (l || rr)
                pm[i] = l && rr ? (s[i].pupil_left + s[i].pupil_right) / 2 : (l ? s[i].pupil_left : s[i].pupil_right);
            no_pupil[i] = !(l || rr);
            if (i > 0 && valid && std::isfinite(x[i - 1]) && s[i].t_ms > s[i - 1].t_ms)
                speed[i] = std::hypot(x[i] - x[i - 1], y[i] - y[i - 1]) / ((s[i].t_ms - s[i - 1].t_ms) / 1000);
            const char e = s[i].event, prev = i > 0 ? s[i - 1].event : '\0';
            fix[i] = e == 'F';
            sac[i] = e == 'S';
            blink[i] = e == 'B';
            none[i] = e != 'F' && e != 'S' && e != 'B';
            fix_on[i] = e == 'F' && prev != 'F';
            sac_on[i] = e == 'S' && prev != 'S';
            blink_on[i] = e == 'B' && prev != 'B';
        }
        std::vector<Signal> continuous;
        for (auto* v : {&x, &y, &pl, &pr, &pm, &speed})
            continuous.emplace_back(*v);
        // Prefix sums of the 0/1 indicators.
        const std::vector<std::vector<double>*> indicators = {&fix, &sac, &blink, &none, &invalid, &no_pupil, &fix_on, &sac_on, &blink_on};
        std::vector<std::vector<double>> prefix;
        for (auto* v : indicators) {
            std::vector<double> c(n + 1, 0);
            for (std::size_t i = 0; i < n; ++i)
                c[i + 1] = c[i] + (*v)[i];
            prefix.push_back(std::move(c));
        }
        const double bounds[kSegments + 1] = {0, r.shop_enter_ms, r.shop_leave_ms, s.back().t_ms + 1};
        for (std::size_t seg = 0; seg < kSegments; ++seg) {
            std::vector<Signal> sig = continuous; // fresh deques per segment
            std::size_t a = 0, b = 0, index = 0;
            for (double start = bounds[seg]; start + window_ms <= bounds[seg + 1]; start += step_ms, ++index) {
                while (a < n && s[a].t_ms < start)
                    ++a;
                if (b < a)
                    b = a;
                while (b < n && s[b].t_ms < start + window_ms)
                    ++b;
                table.participant.push_back(static_cast<std::int32_t>(p));
                table.recording.push_back(static_cast<std::int32_t>(seg));
                table.t.push_back(static_cast<double>(index));
                const std::size_t at = table.values.size();
                table.values.resize(at + kFeatures, nan);
                double* out = table.values.data() + at;
                for (std::size_t c = 0; c < continuous.size(); ++c)
                    sig[c].stats(a, b, out + 6 * c);
                const double samples = static_cast<double>(b - a), seconds = window_ms / 1000;
                double* ev = out + 36;
                auto count = [&](std::size_t k) { return prefix[k][b] - prefix[k][a]; };
                if (samples > 0)
                    for (std::size_t k = 0; k < 6; ++k)
                        ev[k] = count(k) / samples;
                for (std::size_t k = 6; k < 9; ++k)
                    ev[k] = count(k) / seconds;
                for (std::size_t k = 0; k < 3; ++k) // mean durations: samples of the event per onset, at 60 Hz
                    ev[9 + k] = count(6 + k) > 0 ? count(k) / count(6 + k) / 60.0 : nan;
            }
        }
    }
    return table;
}

// Public bounds per feature, from the units alone (never from the data): the frame [-1, 2] for gaze,
// 0..10 mm for pupils, 0..50 frame widths per second for speed, fractions in [0, 1], at most 30 onsets
// per second, durations 0..30 s.
inline std::vector<double> public_bounds() {
    std::vector<double> b;
    auto add = [&](double lo, double hi) {
        b.push_back(lo);
        b.push_back(hi);
    };
    const double ranges[6][2] = {{-1, 2}, {-1, 2}, {0, 10}, {0, 10}, {0, 10}, {0, 50}};
    for (const auto& r : ranges) {
        const double w = r[1] - r[0];
        add(r[0], r[1]);     // mean
        add(0, w / 2);       // sd
        add(r[0], r[1]);     // min
        add(r[0], r[1]);     // max
        add(0, w);           // range
        add(0, w);           // mean absolute successive difference
    }
    for (int k = 0; k < 6; ++k)
        add(0, 1);
    for (int k = 0; k < 3; ++k)
        add(0, 30);
    for (int k = 0; k < 3; ++k)
        add(0, 30);
    return b;
}

} // namespace series_bench
