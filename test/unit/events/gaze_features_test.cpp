#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "core/common/errors.hpp"
#include "core/events/gaze_features.hpp"
#include "core/noise/random.hpp"

using namespace gazepriv::core;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A random but plausible recording at ~300 Hz with uneven intervals (3 or 4 ms): fixations with
// jitter, jumps, blinks of 30..600 ms and pupil dropouts.
std::vector<GazeSample> random_trace(std::uint64_t seed, int n) {
    Rng rng(seed, 0);
    std::vector<GazeSample> s;
    double t = 1000, x = 500, y = 400;
    int blink_left = 0;
    for (int k = 0; k < n; ++k) {
        t += rng.uniform01() < 0.5 ? 3 : 4;
        if (blink_left == 0 && rng.uniform01() < 0.002)
            blink_left = 10 + static_cast<int>(rng.uniform01() * 140);
        if (rng.uniform01() < 0.01) { // a saccade: jump over a few samples
            x += (rng.uniform01() - 0.5) * 400;
            y += (rng.uniform01() - 0.5) * 300;
        }
        const double jx = x + (rng.uniform01() - 0.5) * 2, jy = y + (rng.uniform01() - 0.5) * 2;
        const double pupil = rng.uniform01() < 0.05 ? 0 : 3 + rng.uniform01();
        if (blink_left > 0) {
            --blink_left;
            s.push_back(make_sample(t, kNaN, kNaN, kNaN));
        } else {
            s.push_back(make_sample(t, jx, jy, pupil));
        }
    }
    return s;
}

double mean(const std::vector<double>& v) {
    if (v.empty())
        return 0;
    double s = 0;
    for (double x : v)
        s += x;
    return s / static_cast<double>(v.size());
}

double sd(const std::vector<double>& v) {
    if (v.empty())
        return 0;
    const double m = mean(v);
    double s = 0;
    for (double x : v)
        s += (x - m) * (x - m);
    return std::sqrt(s / static_cast<double>(v.size()));
}

double lowest(const std::vector<double>& v) {
    return v.empty() ? 0 : *std::min_element(v.begin(), v.end());
}

double highest(const std::vector<double>& v) {
    return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

// The features of one window computed directly from their definitions.
std::vector<double> reference(const std::vector<GazeSample>& s, const std::vector<GazeEvent>& events,
                              const FeatureParams& p, double from) {
    const double to = from + p.window_ms, seconds = p.window_ms / 1000;
    std::vector<double> fd, fsx, fsy, sd_, amp, peak, mv, large, right, bd, xs, ys, ps;
    double covered = 0, rows = 0, missing = 0;
    for (const GazeEvent& e : events) {
        if (e.type == EventType::Fixation)
            covered += std::max(0.0, std::min(e.end_ms, to) - std::max(e.start_ms, from));
        if (e.start_ms < from || e.start_ms >= to)
            continue;
        if (e.type == EventType::Fixation) {
            fd.push_back(e.end_ms - e.start_ms);
            fsx.push_back(e.sigma_x);
            fsy.push_back(e.sigma_y);
        } else {
            sd_.push_back(e.end_ms - e.start_ms);
            amp.push_back(e.amplitude);
            peak.push_back(e.peak_velocity);
            mv.push_back(e.mean_velocity);
            large.push_back(e.amplitude >= p.large_saccade);
            right.push_back(e.end_x > e.start_x);
        }
    }
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i > 0 && !has_gaze(s[i]) && has_gaze(s[i - 1]) && s[i].t_ms >= from && s[i].t_ms < to) {
            std::size_t j = i;
            while (j < s.size() && !has_gaze(s[j]))
                ++j;
            if (j < s.size()) {
                const double d = s[j].t_ms - s[i].t_ms;
                if (d >= p.blink_min_ms && d <= p.blink_max_ms)
                    bd.push_back(d);
            }
        }
        if (s[i].t_ms < from || s[i].t_ms >= to)
            continue;
        ++rows;
        if (!has_gaze(s[i])) {
            ++missing;
        } else {
            xs.push_back(s[i].x);
            ys.push_back(s[i].y);
        }
        if (!std::isnan(s[i].pupil))
            ps.push_back(s[i].pupil);
    }
    const double nf = static_cast<double>(fd.size()), ns = static_cast<double>(sd_.size());
    return {nf,
            nf / seconds,
            mean(fd),
            sd(fd),
            lowest(fd),
            highest(fd),
            covered / p.window_ms,
            mean(fsx),
            mean(fsy),
            ns,
            ns / seconds,
            mean(sd_),
            mean(amp),
            sd(amp),
            highest(amp),
            mean(peak),
            sd(peak),
            highest(peak),
            mean(mv),
            mean(large),
            mean(right),
            nf > 0 ? ns / nf : 0,
            rows > 0 ? missing / rows : 0,
            static_cast<double>(bd.size()) / seconds,
            mean(bd),
            mean(ps),
            sd(ps),
            lowest(ps),
            highest(ps),
            sd(xs),
            sd(ys),
            highest(xs) - lowest(xs),
            highest(ys) - lowest(ys)};
}

DetectorParams ivt() {
    DetectorParams p;
    p.velocity_threshold = 5000; // px/s
    p.min_fixation_ms = 60;
    return p;
}

} // namespace

TEST(GazeFeatures, CatalogNamesAreUniqueAndComplete) {
    std::set<std::string> names;
    for (std::size_t i = 0; i < kFeatureCount; ++i) {
        const FeatureInfo& f = feature_catalog()[i];
        EXPECT_TRUE(names.insert(f.name).second) << f.name;
        EXPECT_GT(std::string(f.unit).size(), 0u);
        EXPECT_GT(std::string(f.description).size(), 10u);
    }
    EXPECT_EQ(std::string(feature_catalog()[0].name), "fixation_count");
    EXPECT_EQ(std::string(feature_catalog()[kFeatureCount - 1].name), "gaze_range_y");
}

TEST(GazeFeatures, PrefixSumsAndQueuesMatchTheDefinitions) {
    for (std::uint64_t seed : {1, 2, 3}) {
        const auto s = random_trace(seed, 40000);
        const auto events = detect_events(s.data(), s.size(), ivt(), CancelCheck());
        ASSERT_GT(events.size(), 100u);
        for (const auto& [window, step] :
             {std::pair{30000.0, 500.0}, std::pair{1000.0, 250.0}, std::pair{700.0, 1300.0}}) {
            FeatureParams p;
            p.window_ms = window;
            p.step_ms = step;
            p.large_saccade = 100;
            const FeatureTable f = feature_windows(s.data(), s.size(), events, p, CancelCheck());
            ASSERT_FALSE(f.start_ms.empty());
            ASSERT_EQ(f.values.size(), f.start_ms.size() * kFeatureCount);
            for (std::size_t w = 0; w < f.start_ms.size(); w += 7) {
                EXPECT_EQ(f.start_ms[w], s[0].t_ms + static_cast<double>(w) * step);
                const auto want = reference(s, events, p, f.start_ms[w]);
                for (std::size_t k = 0; k < kFeatureCount; ++k)
                    ASSERT_NEAR(f.values[w * kFeatureCount + k], want[k], 1e-9 * (1 + std::fabs(want[k])))
                        << feature_catalog()[k].name << " window " << w << " seed " << seed;
            }
        }
    }
}

TEST(GazeFeatures, WindowsCoverTheTraceCountingTheLastSampleInterval) {
    // 300 samples at 10 ms: 0 .. 2990 ms, lasting 3000 ms with the last interval.
    std::vector<GazeSample> s;
    for (int k = 0; k < 300; ++k)
        s.push_back(make_sample(10.0 * k, 1, 1, kNaN));
    FeatureParams p;
    p.large_saccade = 1;
    p.window_ms = 3000;
    p.step_ms = 500;
    EXPECT_EQ(feature_windows(s.data(), s.size(), {}, p, CancelCheck()).start_ms.size(), 1u);
    p.window_ms = 1000;
    EXPECT_EQ(feature_windows(s.data(), s.size(), {}, p, CancelCheck()).start_ms.size(), 5u);
    p.window_ms = 3001;
    EXPECT_TRUE(feature_windows(s.data(), s.size(), {}, p, CancelCheck()).start_ms.empty());
    EXPECT_TRUE(feature_windows(s.data(), 0, {}, p, CancelCheck()).start_ms.empty());
    // Windows without events, pupil or gaze give zeros, never NaN.
    p.window_ms = 1000;
    const auto f = feature_windows(s.data(), s.size(), {}, p, CancelCheck());
    for (double v : f.values)
        EXPECT_TRUE(std::isfinite(v));
}

TEST(GazeFeatures, BadParametersAndTooManyWindowsAreRejected) {
    std::vector<GazeSample> s = {make_sample(0, 1, 1, kNaN), make_sample(1e7, 1, 1, kNaN)};
    FeatureParams p;
    p.large_saccade = 1;
    auto fails_with = [&](const FeatureParams& q, const char* name) {
        try {
            feature_windows(s.data(), s.size(), {}, q, CancelCheck());
        } catch (const InvalidArgument& e) {
            return std::string(e.what()).find(name) != std::string::npos;
        }
        return false;
    };
    FeatureParams q = p;
    q.window_ms = 0;
    EXPECT_TRUE(fails_with(q, "window_ms"));
    q = p;
    q.step_ms = -1;
    EXPECT_TRUE(fails_with(q, "step_ms"));
    q = p;
    q.large_saccade = kNaN;
    EXPECT_TRUE(fails_with(q, "large_saccade"));
    q = p;
    q.blink_min_ms = 600;
    EXPECT_TRUE(fails_with(q, "blink_min_ms"));
    q = p;
    q.window_ms = 1;
    q.step_ms = 1e-3;
    EXPECT_THROW(feature_windows(s.data(), s.size(), {}, q, CancelCheck()), LimitExceeded);
}
