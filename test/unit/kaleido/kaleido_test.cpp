#include <gtest/gtest.h>

#include "invalid_argument.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/common/errors.hpp"
#include "core/kaleido/kaleido.hpp"
#include "core/noise/lattice_planar_laplace.hpp"

using namespace gazepriv::core;

namespace {

struct Stream {
    std::vector<double> t, x, y;
};

struct Outputs {
    std::vector<double> x, y, spent;
    std::vector<KaleidoAction> action;
    std::vector<double> radius;
};

Outputs run(const KaleidoPlan& plan, const Stream& s, Rng& rng) {
    const std::size_t n = s.t.size();
    Outputs r{std::vector<double>(n), std::vector<double>(n), std::vector<double>(n),
              std::vector<KaleidoAction>(n), std::vector<double>(n)};
    std::vector<unsigned char> block(kaleido_stream_bytes(plan));
    kaleido_stream_init(plan, block.data());
    kaleido_run(plan, block.data(), n, s.t.data(), s.x.data(), s.y.data(), r.x.data(), r.y.data(),
                r.action.data(), r.spent.data(), r.radius.data(), rng, CancelCheck());
    return r;
}

// A gaze-like random walk with jitter (10-40 ms gaps), repeated timestamps, dropped stretches (NaN) and
// saccades, the irregularities of the Hoppe recordings made worse.
Stream irregular_stream(Rng& rng, std::size_t n) {
    Stream s;
    double t = 0, x = 0.5, y = 0.5;
    for (std::size_t i = 0; i < n; ++i) {
        const double u = rng.uniform01();
        t += u < 0.05 ? 0.0 : (u < 0.1 ? 100 + 400 * rng.uniform01() : 10 + 30 * rng.uniform01());
        if (rng.uniform01() < 0.02) {
            x = rng.uniform01();
            y = rng.uniform01();
        } else {
            x += 0.01 * (rng.uniform01() - 0.5);
            y += 0.01 * (rng.uniform01() - 0.5);
        }
        const bool missing = (i / 50) % 7 == 3 && rng.uniform01() < 0.8;
        s.t.push_back(t);
        s.x.push_back(missing ? NAN : x);
        s.y.push_back(missing && rng.uniform01() < 0.5 ? NAN : y);
    }
    return s;
}

bool is_test(const Outputs& r, std::size_t i, std::size_t first_release) {
    return r.action[i] == KaleidoAction::Reused || r.action[i] == KaleidoAction::Exhausted ||
           (r.action[i] == KaleidoAction::Published && i != first_release);
}

std::string error_of(double epsilon, std::int64_t w, double r, double l_thresh, double t_skip, double h,
                     std::int64_t max_tests) {
    return gazepriv::test::invalid_argument_message(
        [&] { KaleidoPlan plan(kaleido_params(epsilon, w, r, l_thresh, t_skip, h, max_tests)); });
}

} // namespace

TEST(Kaleido, BadParametersNameTheParameter) {
    EXPECT_NE(error_of(0, 60, 1, NAN, 50, 2, 0).find("epsilon"), std::string::npos);
    EXPECT_NE(error_of(-1, 60, 1, NAN, 50, 2, 0).find("epsilon"), std::string::npos);
    EXPECT_NE(error_of(NAN, 60, 1, NAN, 50, 2, 0).find("epsilon"), std::string::npos);
    EXPECT_NE(error_of(1, 0, 1, NAN, 50, 2, 0).find("w must be"), std::string::npos);
    EXPECT_NE(error_of(1, 60, 0, NAN, 50, 2, 0).find("r must be"), std::string::npos);
    EXPECT_NE(error_of(1, 60, INFINITY, NAN, 50, 2, 0).find("r must be"), std::string::npos);
    EXPECT_NE(error_of(1, 60, 1, -1, 50, 2, 0).find("l_thresh"), std::string::npos);
    EXPECT_NE(error_of(1, 60, 1, NAN, -1, 2, 0).find("t_skip"), std::string::npos);
    EXPECT_NE(error_of(1, 60, 1, NAN, 50, 1, 0).find("h must be"), std::string::npos);
    EXPECT_NE(error_of(1, 60, 1, NAN, 50, 0.5, 0).find("h must be"), std::string::npos);
    EXPECT_NE(error_of(1, 60, 1, NAN, 50, 2, 61).find("max_tests"), std::string::npos);
    EXPECT_NE(error_of(1, 60, 1, NAN, 50, 2, -3).find("max_tests"), std::string::npos);
    EXPECT_NE(error_of(1e-5, 60, 1, NAN, 50, 2, 0).find("too small to publish"), std::string::npos);
    EXPECT_NE(error_of(1e300, 60, 1e-300, NAN, 50, 2, 0).find("outside the supported range"),
              std::string::npos);
    EXPECT_EQ(error_of(1, 60, 1, NAN, 50, 2, 0), "no error");
}

TEST(Kaleido, DefaultsFollowTheSupplement) {
    const KaleidoParams p = kaleido_params(1, 60, 0.05, NAN, 50, 2, 0);
    EXPECT_EQ(p.l_thresh, 0.05); // l_thresh defaults to r
    EXPECT_EQ(p.max_tests, 20);  // ceil(w / t_skip) with w = 60 samples = 1000 ms at 60 Hz
    EXPECT_EQ(kaleido_params(1, 60, 1, NAN, 0, 2, 0).max_tests, 60); // t_skip = 0: every sample
    EXPECT_EQ(kaleido_params(1, 60, 1, NAN, 1000, 2, 0).max_tests, 1);
    const KaleidoPlan plan(p);
    EXPECT_LE(plan.epsilon_test() * 20, 0.5);
    EXPECT_NEAR(plan.epsilon_test(), 0.025, 1e-12);
    EXPECT_EQ(plan.epsilon_publications(), 0.5);
    EXPECT_NEAR(plan.test_noise().scale(), 0.05 / 0.025, 1e-9); // Lap(r / epsilon_test)
}

TEST(Kaleido, CostIsComputedFromTheParametersAlone) {
    const ReleaseCost c = kaleido_cost(kaleido_params(1.5, 60, 30, 40, 50, 3, 10));
    EXPECT_EQ(c.epsilon, 1.5);
    EXPECT_EQ(c.delta, 0);
    EXPECT_EQ(c.rho, -1);
    EXPECT_EQ(c.guarantee, Guarantee::WEventDifferentialPrivacy);
    EXPECT_FALSE(c.non_private_choices);
    EXPECT_EQ(c.mechanism, "kaleido");
    for (const char* field : {"\"epsilon\": 1.5", "\"w\": 60", "\"window_unit\": \"samples\"", "\"r\": 30",
                              "\"l_thresh\": 40", "\"t_skip_ms\": 50", "\"h\": 3", "\"max_tests\": 10",
                              "\"epsilon_test\": 0.04999", "\"epsilon_publications\": 1", "w-event"})
        EXPECT_NE(c.parameters_json.find(field), std::string::npos) << field << " in " << c.parameters_json;
    // The canonical form a live stream stores with its state.
    EXPECT_EQ(kaleido_parameters_text(kaleido_params(1.5, 60, 30, 40, 50, 3, 10)),
              "epsilon=1.5 w=60 r=30 l_thresh=40 t_skip=50 h=3 max_tests=10");
}

TEST(Kaleido, TestVectorPublicationBudgetsHalve) {
    // epsilon = 1, h = 2, every sample tested and far from the last release: budgets 0.25, 0.125, ...
    const KaleidoPlan plan(kaleido_params(1, 1000, 1, 0, 0, 2, 1000));
    Stream s;
    for (int i = 0; i < 8; ++i) {
        s.t.push_back(i);
        s.x.push_back(i % 2 == 0 ? 0.0 : 1e9); // jumps that every test detects
        s.y.push_back(0.0);
    }
    Rng rng(61, 0);
    const Outputs r = run(plan, s, rng);
    double expected = 0.25;
    for (int i = 0; i < 8; ++i) {
        ASSERT_EQ(r.action[i], KaleidoAction::Published) << i;
        const double publication = r.spent[i] - (i == 0 ? 0.0 : plan.epsilon_test());
        EXPECT_NEAR(publication / expected, 1.0, 1e-10) << i;
        expected /= 2;
    }
}

TEST(Kaleido, EveryWindowOfIrregularStreamsSpendsAtMostEpsilon) {
    Rng rng(62, 0);
    for (const auto& [w, max_tests, t_skip, l_thresh] :
         std::vector<std::tuple<std::int64_t, std::int64_t, double, double>>{
             {60, 20, 50, 0.05}, {60, 3, 50, 0.0}, {10, 10, 0, 0.2}, {300, 20, 50, 0.01}, {1, 1, 0, 0.0}}) {
        const KaleidoPlan plan(kaleido_params(1.0, w, 0.05, l_thresh, t_skip, 2, max_tests));
        const Stream s = irregular_stream(rng, 20000);
        const Outputs r = run(plan, s, rng);
        const std::size_t first =
            std::find(r.action.begin(), r.action.end(), KaleidoAction::Published) - r.action.begin();
        ASSERT_LT(first, r.action.size());
        long double window = 0;
        double naive_max = 0;
        std::int64_t tests = 0, max_seen = 0;
        for (std::size_t i = 0; i < s.t.size(); ++i) {
            window += r.spent[i];
            tests += is_test(r, i, first);
            if (i >= static_cast<std::size_t>(w)) {
                window -= r.spent[i - w];
                tests -= is_test(r, i - w, first);
            }
            ASSERT_LE(window, 1.0L) << "window ending at " << i;
            ASSERT_LE(tests, max_tests);
            max_seen = std::max(max_seen, tests);
            // The floating-point sum of the reported values stays below epsilon too.
            double naive = 0;
            for (std::size_t k = i + 1 > static_cast<std::size_t>(w) ? i + 1 - w : 0; k <= i; ++k)
                naive += r.spent[k];
            naive_max = std::max(naive_max, naive);
        }
        EXPECT_LE(naive_max, 1.0);
        EXPECT_GT(naive_max, 0.5); // publications do use the budget
        if (w > 1)
            EXPECT_EQ(max_seen, max_tests); // the cap binds on these streams
    }
}

TEST(Kaleido, SkippedReusedCappedAndMissingSamplesRepeatTheLastRelease) {
    Rng rng(63, 0);
    const KaleidoPlan plan(kaleido_params(2.0, 60, 0.05, 0.05, 50, 2, 5));
    Stream s = irregular_stream(rng, 5000);
    // Leading missing samples: nothing to repeat yet, and the first sample with a position publishes.
    for (int i = 0; i < 3; ++i) {
        s.x[i] = NAN;
        s.y[i] = INFINITY;
    }
    const Outputs r = run(plan, s, rng);
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(r.action[i], KaleidoAction::Missing);
        EXPECT_TRUE(std::isnan(r.x[i]));
        EXPECT_EQ(r.spent[i], 0);
        EXPECT_TRUE(std::isnan(r.radius[i])); // no point, no accuracy
    }
    EXPECT_GT(r.radius[3], 0);
    EXPECT_EQ(r.action[3], KaleidoAction::Published);
    int counts[6] = {0, 0, 0, 0, 0, 0};
    for (std::size_t i = 4; i < s.t.size(); ++i) {
        ++counts[static_cast<int>(r.action[i])];
        if (r.action[i] == KaleidoAction::Published) {
            EXPECT_FALSE(r.x[i] == r.x[i - 1] && r.y[i] == r.y[i - 1]);
            continue;
        }
        EXPECT_EQ(r.x[i], r.x[i - 1]) << i;
        EXPECT_EQ(r.y[i], r.y[i - 1]) << i;
        EXPECT_EQ(r.radius[i], r.radius[i - 1]) << i; // the accuracy of the point it repeats
        const bool tested = r.action[i] == KaleidoAction::Reused || r.action[i] == KaleidoAction::Exhausted;
        EXPECT_EQ(r.spent[i], tested ? plan.epsilon_test() : 0.0) << i;
    }
    for (KaleidoAction a : {KaleidoAction::Published, KaleidoAction::Reused, KaleidoAction::Skipped,
                            KaleidoAction::Capped, KaleidoAction::Missing})
        EXPECT_GT(counts[static_cast<int>(a)], 0) << to_string(a);
}

TEST(Kaleido, TheTestUsesLaplaceNoiseOfScaleROverEpsilonTest) {
    // Two-sample streams: the first publishes at a random release; the second sample is placed at
    // distance d from that release, so it is tested at exactly d. P(reuse) = P(Lap(b) <= l - d).
    const KaleidoPlan plan(kaleido_params(2.0, 10, 0.5, 0.3, 0, 2, 4));
    const double b = plan.test_noise().scale(), d = 0.3 + b; // P(reuse) = e^-1 / 2
    EXPECT_NEAR(b, 0.5 / (2.0 / 2 / 4), 1e-6);
    Rng rng(64, 0);
    std::vector<unsigned char> block(kaleido_stream_bytes(plan));
    const int n = 200000;
    int reused = 0;
    for (int i = 0; i < n; ++i) {
        kaleido_stream_init(plan, block.data());
        const KaleidoOutput first = kaleido_step(plan, block.data(), 0, 0.25, 0.75, rng);
        const KaleidoOutput second = kaleido_step(plan, block.data(), 1, first.x + d, first.y, rng);
        reused += second.action == KaleidoAction::Reused;
    }
    const double p = 0.5 * std::exp(-1.0), p_off = 0.5 * std::exp(-1 / 1.05);
    const double se = std::sqrt(p * (1 - p) / n);
    EXPECT_NEAR(reused / static_cast<double>(n), p, 5 * se);
    EXPECT_GT(std::fabs(reused / static_cast<double>(n) - p_off), 5 * se); // a 5% scale error is detected
}

TEST(Kaleido, BadTimestampsAreRejectedAndLeaveTheStateUnchanged) {
    const KaleidoPlan plan(kaleido_params(1, 60, 1, NAN, 50, 2, 0));
    std::vector<unsigned char> block(kaleido_stream_bytes(plan));
    kaleido_stream_init(plan, block.data());
    Rng rng(65, 0);
    kaleido_step(plan, block.data(), 10, 1, 1, rng);
    kaleido_step(plan, block.data(), 20, 1, 1, rng);
    std::vector<unsigned char> before(kaleido_stream_serialized_size(block.data()));
    kaleido_stream_serialize(block.data(), before.data());
    EXPECT_THROW(kaleido_step(plan, block.data(), 19.9, 1, 1, rng), InvalidArgument);
    EXPECT_THROW(kaleido_step(plan, block.data(), NAN, 1, 1, rng), InvalidArgument);
    EXPECT_THROW(kaleido_step(plan, block.data(), INFINITY, 1, 1, rng), InvalidArgument);
    std::vector<unsigned char> after(kaleido_stream_serialized_size(block.data()));
    kaleido_stream_serialize(block.data(), after.data());
    EXPECT_EQ(before, after);
    // Equal timestamps are allowed (within t_skip: skipped), and the stream goes on.
    EXPECT_EQ(kaleido_step(plan, block.data(), 20, 1, 1, rng).action, KaleidoAction::Skipped);
    EXPECT_NE(kaleido_step(plan, block.data(), 100, 1, 1, rng).action, KaleidoAction::Missing);
}

TEST(Kaleido, AStreamSplitAcrossStoredStatesEqualsOneRun) {
    Rng data_rng(66, 0);
    const Stream s = irregular_stream(data_rng, 6000);
    const KaleidoPlan plan(kaleido_params(1, 60, 0.05, NAN, 50, 2, 0));
    Rng a(67, 0), b(67, 0);
    const Outputs whole = run(plan, s, a);
    // The same stream in chunks, the state stored and restored between them (as the live trigger does).
    std::vector<unsigned char> block(kaleido_stream_bytes(plan)), stored;
    kaleido_stream_init(plan, block.data());
    std::size_t at = 0;
    for (std::size_t chunk : {1u, 7u, 500u, 1u, 2000u, 3491u}) {
        if (!stored.empty()) {
            std::vector<unsigned char> fresh(kaleido_stream_bytes(plan), 0xAB);
            kaleido_stream_deserialize(plan, stored.data(), stored.size(), fresh.data());
            block = fresh;
        }
        for (std::size_t i = at; i < at + chunk; ++i) {
            const KaleidoOutput o = kaleido_step(plan, block.data(), s.t[i], s.x[i], s.y[i], b);
            ASSERT_EQ(o.action, whole.action[i]) << i;
            ASSERT_TRUE(o.x == whole.x[i] || (std::isnan(o.x) && std::isnan(whole.x[i]))) << i;
            ASSERT_EQ(o.epsilon_spent, whole.spent[i]) << i;
            ASSERT_TRUE(o.noise_radius == whole.radius[i] ||
                        (std::isnan(o.noise_radius) && std::isnan(whole.radius[i])))
                << i; // the last release's radius survives storage
        }
        at += chunk;
        stored.resize(kaleido_stream_serialized_size(block.data()));
        kaleido_stream_serialize(block.data(), stored.data());
    }
    EXPECT_EQ(at, s.t.size());
}

TEST(Kaleido, CorruptStatesAreRejected) {
    const KaleidoPlan plan(kaleido_params(1, 60, 1, NAN, 50, 2, 0));
    std::vector<unsigned char> block(kaleido_stream_bytes(plan));
    kaleido_stream_init(plan, block.data());
    Rng rng(68, 0);
    for (int i = 0; i < 200; ++i)
        kaleido_step(plan, block.data(), i * 16.7, std::sin(i), std::cos(i), rng);
    std::vector<unsigned char> good(kaleido_stream_serialized_size(block.data()));
    kaleido_stream_serialize(block.data(), good.data());
    std::vector<unsigned char> target(kaleido_stream_bytes(plan));
    EXPECT_NO_THROW(kaleido_stream_deserialize(plan, good.data(), good.size(), target.data()));
    EXPECT_THROW(kaleido_stream_deserialize(plan, good.data(), good.size() - 1, target.data()), CorruptData);
    EXPECT_THROW(kaleido_stream_deserialize(plan, good.data(), 10, target.data()), CorruptData);
    auto with = [&](std::size_t offset, unsigned char value) {
        std::vector<unsigned char> bad = good;
        bad[offset] ^= value;
        return bad;
    };
    auto bad_version = with(0, 1);
    EXPECT_THROW(kaleido_stream_deserialize(plan, bad_version.data(), bad_version.size(), target.data()),
                 CorruptData);
    auto bad_sum = with(offsetof(KaleidoStreamHeader, window_units), 1);
    EXPECT_THROW(kaleido_stream_deserialize(plan, bad_sum.data(), bad_sum.size(), target.data()),
                 CorruptData);
    std::vector<unsigned char> no_release = good; // a stream that published, without a release
    const double nan = NAN;
    std::memcpy(no_release.data() + offsetof(KaleidoStreamHeader, release_x), &nan, sizeof nan);
    EXPECT_THROW(kaleido_stream_deserialize(plan, no_release.data(), no_release.size(), target.data()),
                 CorruptData);
    for (const double radius :
         {double(NAN), 0.0, -1.0, double(INFINITY)}) { // a release without a valid radius
        std::vector<unsigned char> bad = good;
        std::memcpy(bad.data() + offsetof(KaleidoStreamHeader, release_radius), &radius, sizeof radius);
        EXPECT_THROW(kaleido_stream_deserialize(plan, bad.data(), bad.size(), target.data()), CorruptData)
            << radius;
    }
    // A state of other parameters (another ring capacity).
    const KaleidoPlan other(kaleido_params(1, 60, 1, NAN, 50, 2, 7));
    std::vector<unsigned char> other_block(kaleido_stream_bytes(other));
    EXPECT_THROW(kaleido_stream_deserialize(other, good.data(), good.size(), other_block.data()),
                 CorruptData);
}

TEST(Kaleido, DefaultMaxTestsFollowsTheStreamsMedianInterval) {
    std::vector<double> t500, t60, irregular;
    for (int i = 0; i < 1000; ++i) {
        t500.push_back(2.0 * i);                                    // 500 Hz
        t60.push_back(1000.0 / 60.0 * i);                           // 60 Hz
        irregular.push_back(i % 10 == 0 ? 4.0 * i + 500 : 4.0 * i); // 250 Hz with outliers
    }
    std::sort(irregular.begin(), irregular.end());
    // w = 60 samples: 120 ms at 500 Hz, so ceil(120 / 50) = 3 tests, where the 60 Hz rule gives 20.
    EXPECT_EQ(kaleido_stream_max_tests(t500.data(), t500.size(), 60, 50), 3);
    EXPECT_EQ(kaleido_params(1, 60, 1, NAN, 50, 2, 0).max_tests, 20);
    EXPECT_EQ(kaleido_stream_max_tests(t60.data(), t60.size(), 60, 50), 20);
    EXPECT_EQ(kaleido_stream_max_tests(irregular.data(), irregular.size(), 60, 50), 5); // median 4 ms
    EXPECT_EQ(kaleido_stream_max_tests(t500.data(), t500.size(), 60, 0.5), 60);         // at most w
    EXPECT_EQ(kaleido_stream_max_tests(t500.data(), t500.size(), 60, 1e9), 1);          // at least 1
    EXPECT_EQ(kaleido_stream_max_tests(t500.data(), 1, 60, 50), 0);          // no interval: the 60 Hz rule
    EXPECT_EQ(kaleido_stream_max_tests(t500.data(), t500.size(), 60, 0), 0); // t_skip 0: the rule (w tests)
}

TEST(Kaleido, DefaultMaxTestsOfBadTimestampsIsTheRule) {
    const double nan_t[] = {0, NAN, 4}, decreasing[] = {0, 4, 2}, infinite[] = {0, INFINITY, 1e308};
    EXPECT_EQ(kaleido_stream_max_tests(nan_t, 3, 60, 50), 0);
    EXPECT_EQ(kaleido_stream_max_tests(decreasing, 3, 60, 50), 0);
    EXPECT_EQ(kaleido_stream_max_tests(infinite, 3, 60, 50), 0);
}

TEST(Kaleido, DefaultTSkipIsFiftyMillisecondsInWholeSamples) {
    std::vector<double> t500, t60, jittered, t30, t5;
    for (int i = 0; i < 1000; ++i) {
        t500.push_back(2.0 * i);
        t60.push_back(1000.0 / 60.0 * i);
        jittered.push_back(std::floor(1000.0 / 60.0 * i)); // intervals of 16 and 17 ms
        t30.push_back(1000.0 / 30.0 * i);
        t5.push_back(200.0 * i);
    }
    // 500 Hz: 50 ms is 25 samples; t_skip = 24.5 intervals = 49 ms; 60 samples hold ceil(60 / 25) = 3 tests.
    EXPECT_DOUBLE_EQ(kaleido_stream_skip(t500.data(), t500.size()).t_skip, 49);
    EXPECT_EQ(kaleido_stream_skip(t500.data(), t500.size()).samples, 25);
    EXPECT_EQ(kaleido_tests_per_window(60, 25), 3);
    // 60 Hz: every third sample, also with 16/17 ms jitter (t_skip = 2.5 intervals, about 41 ms, where 50 ms
    // would wait for a fourth sample whenever three intervals sum to 49).
    EXPECT_EQ(kaleido_stream_skip(t60.data(), t60.size()).samples, 3);
    const KaleidoStreamSkip jitter = kaleido_stream_skip(jittered.data(), jittered.size());
    EXPECT_EQ(jitter.samples, 3);
    EXPECT_GT(jitter.t_skip, 34); // two intervals are at most 34 ms: skipped
    EXPECT_LT(jitter.t_skip, 48); // three are at least 49 ms: tested
    EXPECT_EQ(kaleido_tests_per_window(60, 3), 20);
    // 30 Hz: 50 ms rounds to 2 samples, 30 tests per 60 samples (50 ms as given would count ceil(60 x 33.3 /
    // 50) = 40 slots for the same 30 tests).
    EXPECT_EQ(kaleido_stream_skip(t30.data(), t30.size()).samples, 2);
    EXPECT_EQ(kaleido_tests_per_window(60, 2), 30);
    // 5 Hz: every sample is tested; no stream, or a constant timestamp: the supplement's 50 ms.
    EXPECT_EQ(kaleido_stream_skip(t5.data(), t5.size()).samples, 1);
    EXPECT_DOUBLE_EQ(kaleido_stream_skip(t5.data(), t5.size()).t_skip, 100);
    EXPECT_EQ(kaleido_tests_per_window(60, 1), 60);
    EXPECT_DOUBLE_EQ(kaleido_stream_skip(t5.data(), 1).t_skip, 50);
    EXPECT_EQ(kaleido_stream_skip(t5.data(), 1).samples, 0);
    const double constant[] = {3, 3, 3}, decreasing[] = {0, 4, 2}, tiny[] = {0, 1e-300, 2e-300};
    EXPECT_EQ(kaleido_stream_skip(constant, 3).samples, 0);
    EXPECT_EQ(kaleido_stream_skip(decreasing, 3).samples, 0);
    EXPECT_EQ(kaleido_tests_per_window(60, kaleido_stream_skip(tiny, 3).samples), 1);
    EXPECT_EQ(kaleido_tests_per_window(0, 3), 0);
}
