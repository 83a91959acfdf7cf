#include <gtest/gtest.h>

#include "invalid_argument.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/errors.hpp"
#include "core/series/exponential_dp.hpp"
#include "core/series/series_dataset.hpp"
#include "core/series/series_release.hpp"
#include "stats.hpp"

using namespace gazepriv::core;
using gazepriv::test::invalid_argument_message;

namespace {

// Feature-array rows built in memory: (participant, recording, t, values...).
struct Rows {
    std::vector<std::int32_t> participant, recording;
    std::vector<double> t, values;
    std::size_t width, participants, recordings;

    Rows(std::size_t w, std::size_t p, std::size_t r) : width(w), participants(p), recordings(r) {}
    void add(int p, int r, double time, std::vector<double> v) {
        participant.push_back(p);
        recording.push_back(r);
        t.push_back(time);
        values.insert(values.end(), v.begin(), v.end());
    }
    SeriesRows view() const {
        SeriesRows rows;
        rows.count = t.size();
        rows.width = width;
        rows.participant = participant.data();
        rows.recording = recording.data();
        rows.t = t.data();
        rows.values = values.data();
        rows.participants = participants;
        rows.recordings = recordings;
        return rows;
    }
};

// Participants x n smooth signals of one feature in one recording.
Rows smooth_rows(std::size_t participants, std::size_t n, std::size_t recordings = 1) {
    Rows rows(1, participants, recordings);
    for (std::size_t r = 0; r < recordings; ++r)
        for (std::size_t p = 0; p < participants; ++p)
            for (std::size_t t = 0; t < n; ++t)
                rows.add(int(p), int(r), double(t), {0.5 + 0.3 * std::sin(0.1 * t + double(p))});
    return rows;
}

} // namespace

TEST(SeriesDataset, OrdersPadsFillsAndClips) {
    Rows rows(2, 2, 2);
    // Out of order; participant 1 is shorter; a missing value; a value outside the bounds.
    rows.add(0, 0, 2.0, {3, 30});
    rows.add(0, 0, 1.0, {2, NAN});
    rows.add(1, 0, 5.0, {7, 70});
    rows.add(0, 0, 0.5, {1, 10});
    rows.add(1, 1, 0.0, {9, 90});
    const std::vector<FeatureBounds> bounds{{0, 8}, {5, 60}};
    SeriesDataset data = assemble_series(rows.view(), 0, Padding::Constant, bounds);
    ASSERT_EQ(data.groups.size(), 2u);
    const SignalGroup& g0 = data.groups[0];
    EXPECT_EQ(g0.length, 3u);
    EXPECT_EQ(g0.participants, (std::vector<std::size_t>{0, 1}));
    EXPECT_EQ(std::vector<double>(g0.signal(0, 0), g0.signal(0, 0) + 3), (std::vector<double>{1, 2, 3}));
    // Missing -> clamp(0, 5, 60) = 5; 70 clipped to 60; padding 5.
    EXPECT_EQ(std::vector<double>(g0.signal(1, 0), g0.signal(1, 0) + 3), (std::vector<double>{10, 5, 30}));
    EXPECT_EQ(std::vector<double>(g0.signal(1, 1), g0.signal(1, 1) + 3), (std::vector<double>{60, 5, 5}));
    EXPECT_EQ(data.groups[1].length, 1u);
    EXPECT_EQ(data.groups[1].signal(0, 0)[0], 8.0);
    EXPECT_TRUE(data.length_from_data);

    // Repeat-last padding; a public length truncates and pads.
    SeriesDataset repeated = assemble_series(rows.view(), 4, Padding::RepeatLast, {});
    const SignalGroup& r0 = repeated.groups[0];
    EXPECT_EQ(std::vector<double>(r0.signal(1, 0), r0.signal(1, 0) + 4),
              (std::vector<double>{10, 10, 30, 30}));
    EXPECT_EQ(std::vector<double>(r0.signal(0, 1), r0.signal(0, 1) + 4), (std::vector<double>{7, 7, 7, 7}));
    EXPECT_FALSE(repeated.length_from_data);
    SeriesDataset truncated = assemble_series(rows.view(), 2, Padding::Constant, {});
    EXPECT_EQ(truncated.groups[0].signal(0, 0)[1], 2.0);

    rows.add(1, 1, 0.0, {1, 1});
    EXPECT_EQ(invalid_argument_message([&] { assemble_series(rows.view(), 0, Padding::Constant, {}); }),
              "t must be unique within each signal: participant \"\", recording \"\" has two rows at t = 0");
}

TEST(SeriesDataset, LongRowsAndBounds) {
    // Long form: one value per row with a feature id.
    std::vector<std::int32_t> participant{0, 0, 1, 1, 0}, recording{0, 0, 0, 0, 0}, feature{0, 1, 0, 1, 0};
    std::vector<double> t{0, 0, 0, 0, 1}, values{1, 2, 3, 4, 5};
    SeriesRows rows;
    rows.count = t.size();
    rows.participant = participant.data();
    rows.recording = recording.data();
    rows.feature = feature.data();
    rows.t = t.data();
    rows.values = values.data();
    rows.participants = 2;
    rows.recordings = 1;
    rows.features = 2;
    SeriesDataset data = assemble_series(rows, 0, Padding::Constant, {});
    EXPECT_EQ(data.features, 2u);
    EXPECT_EQ(data.groups[0].length, 2u);
    EXPECT_EQ(data.groups[0].signal(0, 0)[1], 5.0);
    EXPECT_EQ(data.groups[0].signal(1, 1)[0], 4.0);
    EXPECT_EQ(data.groups[0].signal(1, 1)[1], 0.0);

    const double two[] = {1, 2}, six[] = {1, 2, 3, 4, 5, 6}, bad[] = {2, 1};
    EXPECT_EQ(parse_bounds(two, 1, 2).size(), 1u);
    EXPECT_EQ(expand_bounds(parse_bounds(two, 1, 2), 3).size(), 3u);
    EXPECT_EQ(invalid_argument_message([&] { expand_bounds(parse_bounds(six, 3, 2), 2); }),
              "bounds must have one [lo, hi] row per feature (2) or a single one, got 3");
    EXPECT_EQ(invalid_argument_message([&] { parse_bounds(bad, 1, 2); }),
              "bounds must be finite with lo < hi (row 1 is [2, 1])");
    EXPECT_NE(invalid_argument_message([&] { parse_bounds(six, 2, 3); }), "no error");
}

TEST(SeriesRelease, EquationSevenOnAHandExample) {
    // Three participants, n = 4: L2 distances sqrt2, 5, sqrt21; L1 distances 2, 7, 7.
    const std::vector<double> p0{0, 0, 0, 0}, p1{1, 1, 0, 0}, p2{0, 3, 0, 4};
    const double* s[] = {p0.data(), p1.data(), p2.data()};
    EXPECT_DOUBLE_EQ(pairwise_max_distance(s, 3, 4, 4, 2)[0], 5.0);
    EXPECT_DOUBLE_EQ(pairwise_max_distance(s, 3, 4, 4, 1)[0], 7.0);
    // Chunks of 2: first halves max 3 (p0-p2), second halves max 4.
    EXPECT_EQ(pairwise_max_distance(s, 3, 4, 2, 2), (std::vector<double>{3, 4}));
    // Chunks of 3: [0..3) max 3 (p0-p2: 0,3,0 beats p1-p2: 1,-2,0), last chunk of one sample max 4.
    const auto three = pairwise_max_distance(s, 3, 4, 3, 2);
    EXPECT_DOUBLE_EQ(three[0], 3.0);
    EXPECT_DOUBLE_EQ(three[1], 4.0);
    EXPECT_EQ(pairwise_max_distance(s, 1, 4, 4, 2)[0], 0.0);
}

TEST(SeriesRelease, PlanCostsEveryChunkOfEveryRecordingUnderParticipantSemantics) {
    Rows rows(3, 2, 2);
    for (int p = 0; p < 2; ++p) {
        for (int t = 0; t < 100; ++t)
            rows.add(p, 0, t, {1, 2, 3});
        for (int t = 0; t < 70; ++t)
            rows.add(p, 1, t, {1, 2, 3});
    }
    SeriesReleaseConfig config;
    config.method = SeriesMethod::Cfpa;
    config.epsilon = 0.1;
    config.chunk = 32;
    config.bounds = {{0, 4}};
    const PreparedSeries prepared = prepare_series_release(rows.view(), config);
    // 3 features x (4 + 3 chunks) x 0.1, and the paper's 3 x 0.1.
    EXPECT_EQ(prepared.plan.chunks, (std::vector<std::size_t>{4, 3}));
    EXPECT_NEAR(prepared.plan.cost.epsilon, 2.1, 1e-12);
    EXPECT_NEAR(prepared.plan.paper_epsilon, 0.3, 1e-12);
    EXPECT_EQ(prepared.plan.cost.mechanism, "cfpa");
    EXPECT_TRUE(prepared.plan.cost.non_private_choices); // the length was read from the data
    EXPECT_NE(prepared.plan.cost.parameters_json.find("\"padded length read from the data\""),
              std::string::npos);
    EXPECT_EQ(prepared.plan.k, (std::vector<std::size_t>{1, 1})); // the public rule at epsilon 0.1

    config.length = 64;
    config.semantics = ChunkSemantics::Chunk;
    const PreparedSeries strict = prepare_series_release(rows.view(), config);
    EXPECT_FALSE(strict.plan.cost.non_private_choices);
    EXPECT_NEAR(strict.plan.cost.epsilon, 0.3, 1e-12); // opted into the paper's chunk-level relation
    EXPECT_NEAR(strict.plan.participant_epsilon, 0.1 * 3 * 4, 1e-12);

    config.method = SeriesMethod::Fpa;
    config.semantics = ChunkSemantics::Participant;
    config.k = 40;
    EXPECT_EQ(invalid_argument_message([&] { prepare_series_release(rows.view(), config); }),
              "k must be between 1 and 33 (floor(n/2) + 1 for signals of 64 samples), got 40");
    config.k = 0;
    config.sensitivity = SensitivityMode::Empirical;
    const PreparedSeries empirical = prepare_series_release(rows.view(), config);
    EXPECT_TRUE(empirical.plan.cost.non_private_choices);
    EXPECT_NEAR(empirical.plan.cost.epsilon, 0.1 * 3 * 2, 1e-12); // FPA: one "chunk" per recording
    config.bounds.clear();
    EXPECT_EQ(invalid_argument_message([&] { prepare_series_release(rows.view(), config); }),
              "no error"); // empirical needs none
}

TEST(SeriesRelease, ClippedSensitivitiesComeFromTheBounds) {
    const Rows rows = smooth_rows(3, 70);
    SeriesReleaseConfig config;
    config.epsilon = 1;
    config.bounds = {{-1, 2}};
    config.chunk = 32;
    for (SeriesMethod method :
         {SeriesMethod::Lpa, SeriesMethod::Fpa, SeriesMethod::Cfpa, SeriesMethod::Dcfpa}) {
        config.method = method;
        const PreparedSeries prepared = prepare_series_release(rows.view(), config);
        const auto s = series_sensitivities(config, prepared.plan, prepared.data.groups[0], 0);
        switch (method) {
        case SeriesMethod::Lpa:
            EXPECT_EQ(s, (std::vector<double>{70 * 3.0}));
            break;
        case SeriesMethod::Fpa:
            EXPECT_EQ(s, (std::vector<double>{std::sqrt(70.0) * 3}));
            break;
        case SeriesMethod::Cfpa:
            EXPECT_EQ(s, (std::vector<double>{std::sqrt(32.0) * 3, std::sqrt(32.0) * 3, std::sqrt(6.0) * 3}));
            break;
        case SeriesMethod::Dcfpa:
            EXPECT_EQ(s,
                      (std::vector<double>{std::sqrt(125.0) * 3, std::sqrt(125.0) * 3, std::sqrt(21.0) * 3}));
            break;
        }
    }
    // The rounding allowance is negligible next to the L1 sensitivity sqrt(n k) Delta_2 (n = 3600, k = 10).
    EXPECT_LT(fft_rounding_l1(3600, 19, 2.0) / (std::sqrt(3600.0 * 10) * std::sqrt(3600.0) * 2), 1e-12);
}

TEST(SeriesRelease, HugeEpsilonReleasesTheClippedInputAndEmpiricalMatchesEquationSeven) {
    const Rows rows = smooth_rows(4, 100, 2);
    SeriesReleaseConfig config;
    config.epsilon = 1e12;
    config.bounds = {{0, 0.7}}; // clips the peaks
    config.chunk = 32;
    Rng rng(111, 0);
    for (SeriesMethod method :
         {SeriesMethod::Lpa, SeriesMethod::Fpa, SeriesMethod::Cfpa, SeriesMethod::Dcfpa}) {
        config.method = method;
        config.k = method == SeriesMethod::Lpa ? 0 : method == SeriesMethod::Fpa ? 51 : 17;
        PreparedSeries prepared = prepare_series_release(rows.view(), config);
        const SeriesDataset before = prepared.data;
        release_series(prepared, config, rng);
        for (std::size_t g = 0; g < 2; ++g)
            for (std::size_t p = 0; p < 4; ++p)
                for (std::size_t t = 0; t < 100; ++t)
                    ASSERT_NEAR(prepared.data.groups[g].signal(0, p)[t], before.groups[g].signal(0, p)[t],
                                1e-8)
                        << to_string(method);
    }
    // Empirical: the per-chunk sensitivity is Eq. 7 on the (difference) chunks.
    config.sensitivity = SensitivityMode::Empirical;
    config.bounds.clear();
    config.method = SeriesMethod::Dcfpa;
    const PreparedSeries prepared = prepare_series_release(rows.view(), config);
    const SignalGroup& group = prepared.data.groups[0];
    std::vector<double> d(4 * 100);
    std::vector<const double*> rows_of_d;
    for (std::size_t p = 0; p < 4; ++p) {
        chunk_differences(group.signal(0, p), 100, 32, d.data() + p * 100);
        rows_of_d.push_back(d.data() + p * 100);
    }
    EXPECT_EQ(series_sensitivities(config, prepared.plan, group, 0),
              pairwise_max_distance(rows_of_d.data(), 4, 100, 32, 2));
}

TEST(SeriesRelease, IdenticalParticipantsHaveZeroSensitivityAndGetNoNoise) {
    Rows rows(1, 3, 1);
    for (int p = 0; p < 3; ++p)
        for (int t = 0; t < 16; ++t)
            rows.add(p, 0, t, {double(t % 5)});
    SeriesReleaseConfig config;
    config.method = SeriesMethod::Lpa;
    config.epsilon = 0.01;
    config.sensitivity = SensitivityMode::Empirical;
    PreparedSeries prepared = prepare_series_release(rows.view(), config);
    Rng rng(112, 0);
    release_series(prepared, config, rng);
    for (int t = 0; t < 16; ++t)
        EXPECT_EQ(prepared.data.groups[0].signal(0, 2)[t], double(t % 5));
    // A single participant has no pair: Eq. 7 is refused.
    Rows one(1, 1, 1);
    one.add(0, 0, 0, {1});
    EXPECT_EQ(invalid_argument_message([&] { prepare_series_release(one.view(), config); }),
              "sensitivity => 'empirical' (Eq. 7) needs at least two participants in every recording");
}

TEST(SeriesRelease, ConfigErrorsBeforeData) {
    SeriesReleaseConfig config;
    config.epsilon = 1;
    config.bounds = {{0, 1}};
    config.method = SeriesMethod::Lpa;
    config.k = 3;
    EXPECT_EQ(invalid_argument_message([&] { check_series_release_config(config); }),
              "k applies to fpa, cfpa and dcfpa, not to lpa: leave it NULL");
    config.method = SeriesMethod::Cfpa;
    config.chunk = 1;
    EXPECT_EQ(invalid_argument_message([&] { check_series_release_config(config); }),
              "chunk must be at least 2, got 1");
    config.chunk = 8;
    config.k = 6;
    EXPECT_EQ(invalid_argument_message([&] { check_series_release_config(config); }),
              "k must be between 1 and 5 (floor(chunk/2) + 1), got 6");
    config.k = 0;
    config.bounds.clear();
    EXPECT_NE(
        invalid_argument_message([&] { check_series_release_config(config); }).find("needs public bounds"),
        std::string::npos);
    config.epsilon = NAN;
    EXPECT_EQ(invalid_argument_message([&] { check_series_release_config(config); }),
              "epsilon must be a finite number of at least 1e-06, got NaN");
    EXPECT_THROW(parse_series_method("cfpa128"), InvalidArgument);
    EXPECT_THROW(parse_sensitivity_mode("exact"), InvalidArgument);
    EXPECT_THROW(parse_chunk_semantics("none"), InvalidArgument);
}

TEST(ExponentialDp, LaplaceVariantScaleAndCost) {
    const Rows rows = smooth_rows(3, 50, 2);
    ExponentialDpConfig config;
    config.epsilon = 2;
    config.bounds = {{0, 1}};
    PreparedExponentialDp prepared = prepare_exponential_dp(rows.view(), config);
    EXPECT_EQ(prepared.plan.ranges, (std::vector<double>{1.0}));
    // 1 feature x (50 + 50) values per participant x epsilon / 2.
    EXPECT_NEAR(prepared.plan.cost.epsilon, 100.0, 1e-12);
    EXPECT_NEAR(prepared.plan.paper_epsilon, 2.0, 1e-12);
    EXPECT_TRUE(prepared.plan.cost.non_private_choices); // t_max read from the data
    const SeriesDataset before = prepared.data;
    Rng rng(113, 0);
    std::vector<double> noise;
    for (int run = 0; run < 400; ++run) {
        PreparedExponentialDp copy = prepared;
        release_exponential_dp(copy, config, rng);
        for (std::size_t p = 0; p < 3; ++p)
            for (std::size_t t = 0; t < 50; ++t)
                noise.push_back(copy.data.groups[0].signal(0, p)[t] - before.groups[0].signal(0, p)[t]);
    }
    const double b = 2 * 1.0 / 2; // 2 delta / epsilon
    EXPECT_LT(std::fabs(gazepriv::test::variance_z(noise, 2 * b * b, 3)), 5);
    EXPECT_GT(std::fabs(gazepriv::test::variance_z(noise, 2 * 1.05 * b * 1.05 * b, 3)), 5);
}

TEST(ExponentialDp, PaperVariantIsTheLogOfAnExponential) {
    // r = +-ln(y) / (lambda t) with y ~ Exp(mean 1/lambda): E r^2 = (ln(1/lambda) - gamma)^2 + pi^2/6,
    // divided by (lambda t)^2. Not Laplace: its magnitude grows with log t.
    const double lambda = 0.004, gamma = 0.5772156649015329;
    const std::size_t t_max = 50;
    Rng rng(114, 0);
    std::vector<double> r(200000);
    for (auto& v : r)
        v = steil_noise(lambda, t_max, rng);
    const double mu = std::log(1 / lambda) - gamma;
    const double second = (mu * mu + M_PI * M_PI / 6) / std::pow(lambda * double(t_max), 2);
    const auto m = gazepriv::test::moments(r);
    EXPECT_NEAR(m.mean, 0, 5 * std::sqrt(second / r.size()));
    EXPECT_NEAR((m.variance + m.mean * m.mean) / second, 1, 0.02);

    const Rows rows = smooth_rows(2, 10);
    ExponentialDpConfig config;
    config.epsilon = 1;
    config.variant = ExponentialDpVariant::Paper;
    config.sensitivity = SensitivityMode::Empirical;
    const PreparedExponentialDp prepared = prepare_exponential_dp(rows.view(), config);
    EXPECT_NEAR(prepared.plan.cost.epsilon, 1.0, 1e-12); // the paper's claim, flagged
    EXPECT_TRUE(prepared.plan.cost.non_private_choices);
    EXPECT_NE(prepared.plan.cost.parameters_json.find("\"dp_proof\": false"), std::string::npos);
    EXPECT_EQ(prepared.plan.cost.mechanism, "exponential_dp_paper");
}

TEST(SeriesRelease, SignalsAreWrittenIntoTheCallersStorage) {
    // The glue has the release written straight into its result arrays.
    const Rows rows = smooth_rows(3, 40, 2);
    std::vector<std::vector<double>> arrays;
    arrays.reserve(64);
    std::size_t calls = 0;
    const SignalStorage storage = [&](std::size_t, std::size_t, std::size_t length) {
        ++calls;
        arrays.emplace_back(length, -1.0);
        return arrays.back().data();
    };
    SeriesReleaseConfig config;
    config.method = SeriesMethod::Cfpa;
    config.epsilon = 1e12;
    config.bounds = {{0, 1}};
    config.chunk = 16;
    PreparedSeries prepared = prepare_series_release(rows.view(), config, CancelCheck(), storage);
    EXPECT_EQ(calls, 6u); // 2 recordings x 3 participants x 1 feature
    EXPECT_TRUE(prepared.data.groups[0].owned.empty());
    Rng rng(115, 0);
    release_series(prepared, config, rng);
    EXPECT_EQ(prepared.data.groups[1].signal(0, 2), arrays[5].data());
    EXPECT_NEAR(arrays[5][7], std::clamp(0.5 + 0.3 * std::sin(0.1 * 7 + 2.0), 0.0, 1.0), 1e-6);

    ExponentialDpConfig edp;
    edp.epsilon = 1;
    edp.bounds = {{0, 1}};
    calls = 0;
    prepare_exponential_dp(rows.view(), edp, CancelCheck(), storage);
    EXPECT_EQ(calls, 6u);
}

TEST(SeriesRelease, ClampsIntoThePublicBoundsByDefault) {
    const Rows rows = smooth_rows(3, 64, 2);
    SeriesReleaseConfig config;
    config.method = SeriesMethod::Fpa;
    config.epsilon = 0.5;
    config.k = 4;
    config.bounds = {{0, 1}};
    Rng rng(117, 0);
    std::size_t outside_raw = 0;
    for (bool clamp : {true, false}) {
        config.clamp = clamp;
        PreparedSeries prepared = prepare_series_release(rows.view(), config);
        release_series(prepared, config, rng);
        std::size_t outside = 0;
        for (const SignalGroup& group : prepared.data.groups)
            for (std::size_t p = 0; p < group.participants.size(); ++p)
                for (std::size_t t = 0; t < group.length; ++t)
                    outside += group.signal(0, p)[t] < 0 || group.signal(0, p)[t] > 1;
        if (clamp)
            EXPECT_EQ(outside, 0u);
        else
            outside_raw = outside;
    }
    EXPECT_GT(outside_raw, 100u); // the raw release leaves the bounds (noise sd ~ sqrt(8 (4k-3)/n) / epsilon)
}

// series_accuracy's noise_sd against the measured noise of real releases (clamp off, values inside the
// bounds so the clip does nothing), and its half-width's coverage.
TEST(SeriesAccuracy, PredictsTheMeasuredNoiseOfReleases) {
    const Rows rows = smooth_rows(4, 64, 1);
    Rng rng(119, 0);
    struct Case {
        SeriesMethod method;
        std::size_t k;
        bool exact;
    };
    for (const Case c : {Case{SeriesMethod::Lpa, 0, true}, Case{SeriesMethod::Fpa, 1, true},
                         Case{SeriesMethod::Fpa, 5, false}, Case{SeriesMethod::Cfpa, 1, true},
                         Case{SeriesMethod::Cfpa, 4, false}, Case{SeriesMethod::Dcfpa, 1, true},
                         Case{SeriesMethod::Dcfpa, 3, false}}) {
        SeriesReleaseConfig config;
        config.method = c.method;
        config.epsilon = 2;
        config.k = c.k;
        config.chunk = 16;
        config.bounds = {{-1, 2}};
        config.clamp = false;
        const SeriesAccuracy predicted = series_accuracy(config, config.bounds[0], 64, 0.95);
        EXPECT_EQ(predicted.exact, c.exact) << to_string(c.method);
        PreparedSeries prepared = prepare_series_release(rows.view(), config);
        double sum_squares = 0, max_position = 0;
        std::size_t count = 0, inside = 0;
        std::vector<double> per_position(64, 0);
        const int runs = 300;
        for (int run = 0; run < runs; ++run) {
            PreparedSeries copy = prepared;
            release_series(copy, config, rng);
            for (std::size_t p = 0; p < 4; ++p)
                for (std::size_t t = 0; t < 64; ++t) {
                    const double e =
                        copy.data.groups[0].signal(0, p)[t] - prepared.data.groups[0].signal(0, p)[t];
                    sum_squares += e * e;
                    per_position[t] += e * e;
                    inside += std::fabs(e) <= predicted.half_width;
                    ++count;
                }
        }
        for (double s : per_position)
            max_position = std::max(max_position, s / (4 * runs));
        const double measured_max_sd = std::sqrt(max_position), measured_sd = std::sqrt(sum_squares / count);
        const double coverage = static_cast<double>(inside) / static_cast<double>(count);
        if (c.method == SeriesMethod::Dcfpa) { // the noise grows along a chunk: the largest sd, at its end
            if (c.exact)
                EXPECT_NEAR(predicted.noise_sd / measured_max_sd, 1, 0.1);
            else
                EXPECT_GE(predicted.noise_sd, 0.9 * measured_max_sd) << "an upper bound";
            EXPECT_GE(coverage, 0.95);
        } else {
            EXPECT_NEAR(predicted.noise_sd / measured_sd, 1, 0.1) << to_string(c.method) << " k " << c.k;
            EXPECT_NEAR(coverage, 0.95, c.exact ? 0.02 : 0.03) << to_string(c.method) << " k " << c.k;
        }
    }
}
