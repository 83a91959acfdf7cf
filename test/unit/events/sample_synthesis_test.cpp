#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/common/errors.hpp"
#include "core/events/sample_synthesis.hpp"

using namespace gazepriv::core;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

SynthEvent saccade(double b, double c) {
    SynthEvent e;
    e.type = EventType::Saccade;
    e.start_ms = 0;
    e.end_ms = 100;
    e.end_x = 200;
    e.end_y = 100;
    e.profile_a = 10;
    e.profile_b = b;
    e.profile_c = c;
    return e;
}

TEST(SampleSynthesis, SaccadeProgressFollowsTheGaussianSpeedProfile) {
    const SynthEvent e = saccade(50, 15);
    EXPECT_DOUBLE_EQ(saccade_progress(e, 0), 0);
    EXPECT_DOUBLE_EQ(saccade_progress(e, 100), 1);
    EXPECT_NEAR(saccade_progress(e, 50), 0.5, 1e-15);
    EXPECT_NEAR(saccade_progress(e, 30) + saccade_progress(e, 70), 1, 1e-15); // symmetric about the peak
    double previous = 0;
    for (double tau = 1; tau <= 100; tau += 1) {
        EXPECT_GE(saccade_progress(e, tau), previous);
        previous = saccade_progress(e, tau);
    }
}

TEST(SampleSynthesis, WithoutAProfileOrResolvableMassTheSpeedIsConstant) {
    EXPECT_DOUBLE_EQ(saccade_progress(saccade(kNaN, kNaN), 25), 0.25);
    SynthEvent e = saccade(kNaN, kNaN);
    e.profile_a = kNaN;
    EXPECT_DOUBLE_EQ(saccade_progress(e, 25), 0.25);
    EXPECT_DOUBLE_EQ(saccade_progress(saccade(1e6, 1), 25), 0.25); // the peak far after the saccade
}

TEST(SampleSynthesis, SamplesAtTheTimesInsideEachEvent) {
    std::vector<double> times;
    for (int t = 0; t <= 200; t += 10)
        times.push_back(t);
    SynthEvent fixation;
    fixation.event_index = 2;
    fixation.start_ms = 105;
    fixation.end_ms = 200;
    fixation.centroid_x = 3;
    fixation.centroid_y = 4;
    const SynthEvent events[2] = {saccade(50, 15), fixation};
    const std::size_t n = synth_sample_count(events, 2, times.data(), times.size(), 1000, "limit");
    ASSERT_EQ(n, 11u + 10u);
    std::vector<SynthSample> out(n);
    Rng rng(17, 0);
    synthesize_samples(events, 2, times.data(), times.size(), rng, CancelCheck(), out.data());
    EXPECT_DOUBLE_EQ(out[5].x, 100);
    EXPECT_DOUBLE_EQ(out[5].y, 50);
    EXPECT_EQ(out[11].t_ms, 110);
    EXPECT_EQ(out[11].event_index, 2);
    EXPECT_DOUBLE_EQ(out[11].x, 3); // sigma 0: the centroid
    EXPECT_THROW(synth_sample_count(events, 2, times.data(), times.size(), 20, "limit"), LimitExceeded);
}

TEST(SampleSynthesis, RefusesUnusableEvents) {
    SynthEvent e = saccade(50, 15);
    EXPECT_NO_THROW(validate_synth_event(e));
    e.profile_c = -1;
    EXPECT_THROW(validate_synth_event(e), InvalidArgument);
    e = saccade(kNaN, 15);
    EXPECT_THROW(validate_synth_event(e), InvalidArgument);
    e = saccade(50, 15);
    e.end_ms = -1;
    EXPECT_THROW(validate_synth_event(e), InvalidArgument);
    SynthEvent f;
    f.sigma_x = -0.5;
    EXPECT_THROW(validate_synth_event(f), InvalidArgument);
    f.sigma_x = std::numeric_limits<double>::infinity();
    EXPECT_THROW(validate_synth_event(f), InvalidArgument);
}

} // namespace
