#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/common/errors.hpp"
#include "core/events/gaze_events.hpp"

using namespace gazepriv::core;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kPi = 3.14159265358979323846;

std::vector<GazeSample> at_100hz(const std::vector<double>& xs, double y = 100) {
    std::vector<GazeSample> s;
    for (std::size_t k = 0; k < xs.size(); ++k)
        s.push_back(make_sample(10.0 * static_cast<double>(k), xs[k], std::isnan(xs[k]) ? kNaN : y, kNaN));
    return s;
}

// Fixation at x = 100 (samples 0..29), a saccade through 125, 150, 175 (30..32), fixation at 200
// (33..59); 100 Hz. Central-difference velocities: 0 inside fixations, 1250 px/s at samples 29 and 33,
// 2500 px/s at 30..32.
std::vector<double> two_fixations() {
    std::vector<double> xs(60, 200.0);
    for (int k = 0; k < 30; ++k)
        xs[k] = 100;
    xs[30] = 125;
    xs[31] = 150;
    xs[32] = 175;
    return xs;
}

DetectorParams ivt(double threshold) {
    DetectorParams p;
    p.method = DetectionMethod::VelocityThreshold;
    p.velocity_threshold = threshold;
    return p;
}

DetectorParams idt(double threshold, double min_ms) {
    DetectorParams p;
    p.method = DetectionMethod::DispersionThreshold;
    p.dispersion_threshold = threshold;
    p.min_fixation_ms = min_ms;
    return p;
}

std::vector<GazeEvent> detect(const std::vector<GazeSample>& s, const DetectorParams& p) {
    return detect_events(s.data(), s.size(), p, CancelCheck());
}

void expect_event(const GazeEvent& e, EventType type, std::size_t first, std::size_t last) {
    EXPECT_EQ(e.type, type);
    EXPECT_EQ(e.first_row, first);
    EXPECT_EQ(e.last_row, last);
}

} // namespace

TEST(GazeEvents, IvtFindsExactBoundariesAndStatistics) {
    const auto s = at_100hz(two_fixations());
    const auto e = detect(s, ivt(1000));
    ASSERT_EQ(e.size(), 3u);
    expect_event(e[0], EventType::Fixation, 0, 28);
    expect_event(e[1], EventType::Saccade, 29, 33);
    expect_event(e[2], EventType::Fixation, 34, 59);
    EXPECT_EQ(e[0].n_samples, 29);
    EXPECT_EQ(e[0].start_ms, 0);
    EXPECT_EQ(e[0].end_ms, 280);
    EXPECT_EQ(e[0].centroid_x, 100);
    EXPECT_EQ(e[0].centroid_y, 100);
    EXPECT_EQ(e[0].sigma_x, 0);
    EXPECT_EQ(e[0].peak_velocity, 0);
    EXPECT_TRUE(std::isnan(e[0].profile_a)); // no profile for fixations
    const GazeEvent& sac = e[1];
    EXPECT_EQ(sac.start_ms, 290);
    EXPECT_EQ(sac.end_ms, 330);
    EXPECT_EQ(sac.n_samples, 5);
    EXPECT_EQ(sac.start_x, 100);
    EXPECT_EQ(sac.end_x, 200);
    EXPECT_DOUBLE_EQ(sac.amplitude, 100);
    EXPECT_DOUBLE_EQ(sac.peak_velocity, 2500);
    EXPECT_DOUBLE_EQ(sac.mean_velocity, (1250 + 3 * 2500 + 1250) / 5.0);
    EXPECT_DOUBLE_EQ(sac.centroid_x, 150);
    EXPECT_NEAR(sac.sigma_x, std::sqrt((50.0 * 50 * 2 + 25 * 25 * 2) / 5), 1e-12);
    // The profile is symmetric around the saccade's middle (tau = 20 ms).
    EXPECT_NEAR(sac.profile_b, 20, 1e-6);
    EXPECT_GT(sac.profile_a, 2000);
    EXPECT_GT(sac.profile_c, 0);
    EXPECT_EQ(e[2].centroid_x, 200);
    EXPECT_EQ(e[2].end_ms, 590);
}

TEST(GazeEvents, VelocityAtTheThresholdIsAFixationSample) {
    // 1250 px/s at samples 29 and 33 equals the threshold: they stay in the fixations.
    const auto e = detect(at_100hz(two_fixations()), ivt(1250));
    ASSERT_EQ(e.size(), 3u);
    expect_event(e[1], EventType::Saccade, 30, 32);
}

TEST(GazeEvents, SpreadIsThePopulationStandardDeviationOfPositions) {
    auto xs = two_fixations();
    for (int k = 0; k < 28; ++k)
        xs[k] = 100 + (k % 2 ? 1 : -1) * 0.5; // jitter with zero central difference
    const auto s = at_100hz(xs);
    const auto e = detect(s, ivt(1000));
    ASSERT_EQ(e.size(), 3u);
    double mean = 0, var = 0;
    for (int k = 0; k <= 28; ++k)
        mean += xs[k] / 29;
    for (int k = 0; k <= 28; ++k)
        var += (xs[k] - mean) * (xs[k] - mean) / 29;
    EXPECT_DOUBLE_EQ(e[0].centroid_x, mean);
    EXPECT_NEAR(e[0].sigma_x, std::sqrt(var), 1e-12);
    EXPECT_EQ(e[0].sigma_y, 0);
}

TEST(GazeEvents, MissingSamplesEndEventsUnlessGapFillBridgesThem) {
    auto xs = two_fixations();
    xs[45] = kNaN;
    const auto s = at_100hz(xs);
    auto e = detect(s, ivt(1000));
    ASSERT_EQ(e.size(), 4u);
    expect_event(e[2], EventType::Fixation, 34, 44);
    expect_event(e[3], EventType::Fixation, 46, 59);
    DetectorParams p = ivt(1000);
    p.gap_fill_ms = 20; // samples 44 and 46 are 20 ms apart
    e = detect(s, p);
    ASSERT_EQ(e.size(), 3u);
    expect_event(e[2], EventType::Fixation, 34, 59);
    EXPECT_EQ(e[2].n_samples, 25); // the missing sample is spanned but not counted
    p.gap_fill_ms = 19.9;
    EXPECT_EQ(detect(s, p).size(), 4u);
}

TEST(GazeEvents, LongIntervalsEndEventsAndUnevenTimesGiveExactVelocities) {
    // Constant motion of 0.1 px/ms sampled at 3 and 4 ms alternately: every velocity is 100 px/s.
    std::vector<GazeSample> s;
    double t = 0;
    for (int k = 0; k < 40; ++k) {
        s.push_back(make_sample(t, 0.1 * t, 0, kNaN));
        t += (k % 2) ? 4 : 3;
    }
    auto e = detect(s, ivt(99.999));
    ASSERT_EQ(e.size(), 1u);
    EXPECT_EQ(e[0].type, EventType::Saccade);
    EXPECT_NEAR(e[0].peak_velocity, 100, 1e-9);
    EXPECT_NEAR(e[0].mean_velocity, 100, 1e-9);
    // A 100 ms pause in the recording (no samples) is longer than max_gap_ms = 75: two segments.
    for (std::size_t k = 20; k < s.size(); ++k)
        s[k].t_ms += 100;
    e = detect(s, ivt(1000));
    ASSERT_EQ(e.size(), 2u);
    expect_event(e[0], EventType::Fixation, 0, 19);
    expect_event(e[1], EventType::Fixation, 20, 39);
    DetectorParams p = ivt(1000);
    p.max_gap_ms = 200;
    EXPECT_EQ(detect(s, p).size(), 1u);
}

TEST(GazeEvents, ShortFixationsAndLoneSamplesAreUnclassified) {
    DetectorParams p = ivt(1000);
    p.min_fixation_ms = 251; // fixation 0..28 lasts 280 ms, fixation 34..59 250 ms
    auto e = detect(at_100hz(two_fixations()), p);
    ASSERT_EQ(e.size(), 2u);
    expect_event(e[0], EventType::Fixation, 0, 28);
    expect_event(e[1], EventType::Saccade, 29, 33);
    // A sample alone between missing ones has no velocity and joins no event.
    e = detect(at_100hz({1, kNaN, 5, kNaN, 1, 1, 1}), ivt(1000));
    ASSERT_EQ(e.size(), 1u);
    expect_event(e[0], EventType::Fixation, 4, 6);
    EXPECT_TRUE(detect(at_100hz({}), ivt(1)).empty());
    EXPECT_TRUE(detect(at_100hz({kNaN, kNaN}), ivt(1)).empty());
}

TEST(GazeEvents, VelocityWindowWidensTheDifference) {
    DetectorParams p = ivt(1300);
    p.velocity_window_ms = 40; // samples k-2 .. k+2
    const auto e = detect(at_100hz(two_fixations()), p);
    // v(28) = (125 - 100) / 40 ms = 625, v(29) = 1250, v(30) = 1875, v(31) = 2500, v(32) = 1875.
    ASSERT_EQ(e.size(), 3u);
    expect_event(e[1], EventType::Saccade, 30, 32);
    EXPECT_DOUBLE_EQ(e[1].peak_velocity, 100.0 / 40 * 1000);
}

TEST(GazeEvents, IdtFindsExactBoundaries) {
    // Dispersion threshold 10 px, 100 ms windows (11 samples at 100 Hz).
    auto xs = two_fixations();
    const auto e = detect(at_100hz(xs), idt(10, 100));
    ASSERT_EQ(e.size(), 3u);
    expect_event(e[0], EventType::Fixation, 0, 29);
    expect_event(e[1], EventType::Saccade, 30, 32);
    expect_event(e[2], EventType::Fixation, 33, 59);
    // A jitter of 4 px in x plus 4 px in y is a dispersion of 8: still one fixation.
    std::vector<GazeSample> s = at_100hz(xs);
    for (int k = 0; k < 30; ++k) {
        s[k].x += (k % 3) * 2;
        s[k].y += (k % 5 == 0) ? 4 : 0;
    }
    EXPECT_EQ(detect(s, idt(10, 100)).size(), 3u);
    EXPECT_EQ(detect(s, idt(7.99, 100))[0].type, EventType::Saccade); // 8 > 7.99: no fixation there
    // Not enough samples for the window: no fixation, everything is a saccade.
    const auto short_trace = detect(at_100hz({1, 1, 1, 1}), idt(10, 100));
    ASSERT_EQ(short_trace.size(), 1u);
    expect_event(short_trace[0], EventType::Saccade, 0, 3);
}

TEST(GazeEvents, IdtDropsTheFirstSampleUntilTheWindowFits) {
    // Samples 0..2 are spread out; the fixation starts at 3 once the window fits in 2 px.
    const auto e = detect(at_100hz({0, 50, 100, 200, 201, 200, 201, 200, 201}), idt(2, 30));
    ASSERT_EQ(e.size(), 2u);
    expect_event(e[0], EventType::Saccade, 0, 2);
    expect_event(e[1], EventType::Fixation, 3, 8);
    EXPECT_DOUBLE_EQ(e[1].centroid_x, (200 * 3 + 201 * 3) / 6.0);
}

TEST(GazeEvents, ScreenGeometryGivesExactVisualAngles) {
    // 1 mm pixels, eye 1000 mm in front of pixel (0, 0): x = 1000 tan(10 deg) is 10 degrees away.
    DetectorParams p = ivt(50);
    p.geometry = screen_geometry(1000, 1000, 1000, 1000, 1000, 0, 0);
    const double x10 = 1000 * std::tan(10 * kPi / 180);
    std::vector<GazeSample> s;
    for (int k = 0; k < 10; ++k)
        s.push_back(make_sample(10.0 * k, k < 5 ? 0 : x10, 0, kNaN));
    auto e = detect(s, p);
    ASSERT_EQ(e.size(), 3u);
    EXPECT_NEAR(e[1].amplitude, 10, 1e-9);
    EXPECT_NEAR(e[1].peak_velocity, 10.0 / 0.02, 1e-6); // 10 degrees over 20 ms
    // Off-axis the same pixel distance is a smaller angle: exact angle between the gaze vectors.
    s.clear();
    const double a = 500, b = 600;
    for (int k = 0; k < 10; ++k)
        s.push_back(make_sample(10.0 * k, k < 5 ? a : b, 300, kNaN));
    e = detect(s, p);
    ASSERT_EQ(e.size(), 3u);
    const double ua[3] = {a, 300, 1000}, ub[3] = {b, 300, 1000};
    const double dot = ua[0] * ub[0] + ua[1] * ub[1] + ua[2] * ub[2];
    const double na = std::sqrt(ua[0] * ua[0] + ua[1] * ua[1] + ua[2] * ua[2]);
    const double nb = std::sqrt(ub[0] * ub[0] + ub[1] * ub[1] + ub[2] * ub[2]);
    EXPECT_NEAR(e[1].amplitude, std::acos(dot / (na * nb)) * 180 / kPi, 1e-9);
    // Non-square pixels: 0.5 mm per pixel vertically.
    p.geometry = screen_geometry(1000, 1000, 1000, 500, 1000, 0, 0);
    s.clear();
    for (int k = 0; k < 10; ++k)
        s.push_back(make_sample(10.0 * k, 0, k < 5 ? 0 : 2 * x10, kNaN));
    e = detect(s, p);
    ASSERT_EQ(e.size(), 3u);
    EXPECT_NEAR(e[1].amplitude, 10, 1e-9);
    EXPECT_EQ(e[1].end_y, 2 * x10); // positions stay in input units
}

TEST(GazeEvents, LinearAndCameraGeometries) {
    DetectorParams p = ivt(1000.0 / 40); // 1000 px/s at 40 px per degree
    p.geometry = linear_geometry(40, kNaN);
    auto e = detect(at_100hz(two_fixations()), p);
    ASSERT_EQ(e.size(), 3u);
    expect_event(e[1], EventType::Saccade, 29, 33);
    EXPECT_DOUBLE_EQ(e[1].amplitude, 100.0 / 40);
    EXPECT_DOUBLE_EQ(e[1].peak_velocity, 2500.0 / 40);
    // A normalised scene camera with a 90 degree horizontal field: the right edge is 45 degrees out.
    p.geometry = camera_geometry(90, 60, 1, 1);
    std::vector<GazeSample> s;
    for (int k = 0; k < 10; ++k)
        s.push_back(make_sample(10.0 * k, k < 5 ? 0.5 : 1.0, 0.5, kNaN));
    e = detect(s, p);
    ASSERT_EQ(e.size(), 3u);
    EXPECT_NEAR(e[1].amplitude, 45, 1e-9);
}

TEST(GazeEvents, IdtOnAFlatPlaneUsesDegrees) {
    DetectorParams p = idt(1, 30); // 1 degree
    p.geometry = screen_geometry(1000, 1000, 1000, 1000, 1000, 0, 0);
    const double half_degree = 1000 * std::tan(0.5 * kPi / 180);
    std::vector<GazeSample> s;
    for (int k = 0; k < 10; ++k)
        s.push_back(make_sample(10.0 * k, (k % 2) * half_degree, (k % 2) * half_degree * 0.999, kNaN));
    EXPECT_EQ(detect(s, p).size(), 1u); // 0.5 + 0.4995 degrees <= 1
    for (auto& sample : s)
        sample.y *= 1.01;
    EXPECT_EQ(detect(s, p)[0].type, EventType::Saccade);
}

TEST(GazeEvents, ProfileOfASyntheticSaccadeIsRecovered) {
    // Position = integral of a Gaussian velocity profile: a = 400 deg/s, b = 30 ms after t0, c = 8 ms,
    // sampled at 1 kHz in pixels at 20 px per degree.
    const double a = 400, b = 30, c = 8, t0 = 200, ppd = 20;
    const double amplitude = a * c * std::sqrt(2 * kPi) / 1000; // degrees
    std::vector<GazeSample> s;
    for (int k = 0; k < 500; ++k) {
        const double t = k;
        const double deg = amplitude * 0.5 * std::erfc(-(t - t0 - b) / (c * std::sqrt(2.0)));
        s.push_back(make_sample(t, 300 + deg * ppd, 200, kNaN));
    }
    DetectorParams p = ivt(30);
    p.geometry = linear_geometry(ppd, kNaN);
    const auto e = detect(s, p);
    ASSERT_EQ(e.size(), 3u);
    const GazeEvent& sac = e[1];
    ASSERT_EQ(sac.type, EventType::Saccade);
    // The flanks below 30 deg/s (|t - peak| > 18 ms, 2.3% of the path) belong to the fixations.
    EXPECT_NEAR(sac.amplitude, amplitude, 0.03 * amplitude);
    EXPECT_LT(sac.amplitude, amplitude);
    // Central differences over 2 ms widen the profile by a box of 2 ms: c^2 + 1/3.
    EXPECT_NEAR(sac.profile_c, c, 0.02 * c);
    EXPECT_NEAR(sac.profile_a, a, 0.02 * a);
    EXPECT_NEAR(sac.start_ms + sac.profile_b, t0 + b, 0.1);
    EXPECT_NEAR(sac.peak_velocity, a, 0.01 * a);
}

TEST(GazeEvents, BadParametersAreRejectedByName) {
    const auto s = at_100hz(two_fixations());
    auto message = [&](const DetectorParams& p) {
        try {
            detect(s, p);
        } catch (const InvalidArgument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message(ivt(0)).find("velocity_threshold"), std::string::npos);
    EXPECT_NE(message(ivt(-1)).find("velocity_threshold"), std::string::npos);
    EXPECT_NE(message(ivt(kNaN)).find("velocity_threshold"), std::string::npos);
    EXPECT_NE(message(idt(0, 100)).find("dispersion_threshold"), std::string::npos);
    EXPECT_NE(message(idt(1, -1)).find("min_fixation_ms"), std::string::npos);
    DetectorParams p = ivt(1);
    p.max_gap_ms = 0;
    EXPECT_NE(message(p).find("max_gap_ms"), std::string::npos);
    p = ivt(1);
    p.velocity_window_ms = INFINITY;
    EXPECT_NE(message(p).find("velocity_window_ms"), std::string::npos);
    p = ivt(1);
    p.gap_fill_ms = -1;
    EXPECT_NE(message(p).find("gap_fill_ms"), std::string::npos);
    EXPECT_THROW(screen_geometry(0, 1, 1, 1, 1, kNaN, kNaN), InvalidArgument);
    EXPECT_THROW(screen_geometry(1, 1, 1, 1, -5, kNaN, kNaN), InvalidArgument);
    EXPECT_THROW(camera_geometry(180, 30, 1, 1), InvalidArgument);
    EXPECT_THROW(linear_geometry(0, kNaN), InvalidArgument);
    EXPECT_THROW(linear_geometry(10, -1), InvalidArgument);
    // A non-canonical trace never reaches the detector from SQL; the core refuses it.
    std::vector<GazeSample> unsorted = {make_sample(2, 0, 0, kNaN), make_sample(1, 0, 0, kNaN)};
    EXPECT_THROW(detect(unsorted, ivt(1)), InternalError);
}

TEST(GazeEvents, CancellationStopsLongTraces) {
    std::vector<GazeSample> s;
    for (int k = 0; k < 100000; ++k)
        s.push_back(make_sample(k, k % 7, 0, kNaN));
    static int calls = 0;
    calls = 0;
    const CancelCheck cancel([] { return ++calls > 3; });
    EXPECT_THROW(detect_events(s.data(), s.size(), ivt(1), cancel), Cancelled);
}

TEST(GazeEvents, LabelsHaveNames) {
    EXPECT_STREQ(to_string(SampleLabel::Missing), "missing");
    EXPECT_STREQ(to_string(SampleLabel::Unclassified), "unclassified");
    EXPECT_STREQ(to_string(SampleLabel::Fixation), "fixation");
    EXPECT_STREQ(to_string(SampleLabel::Saccade), "saccade");
}
