// The (k, gamma) privacy tests: band vectors, the fast counters against the straightforward ones, and the
// synthesis: every released candidate has k plausible seeds, recomputed here independently of the library.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "core/common/errors.hpp"
#include "core/pd/pd_model.hpp"
#include "core/pd/pd_synthesis.hpp"
#include "core/pd/pd_privacy_check.hpp"

using namespace gazepriv::core;
using namespace gazepriv::core::pd;

namespace {

// Correlated features in [0, 1) so that seeds share bins often enough for tests to pass and to fail.
struct Dataset {
    std::size_t rows, features;
    std::vector<double> values;
    std::vector<std::int32_t> participant, task;
    FeatureRows view() const { return {rows, features, values.data(), participant.data(), task.data()}; }
};

Dataset make_dataset(std::size_t rows, std::size_t features, int participants, int tasks,
                     std::uint64_t seed) {
    Rng rng(seed, 7);
    Dataset d{rows, features, {}, {}, {}};
    for (std::size_t r = 0; r < rows; ++r) {
        const int p = static_cast<int>(r % participants);
        d.participant.push_back(p);
        d.task.push_back(static_cast<int>(r / participants) % tasks);
        const double base = (p + 0.5) / participants;
        for (std::size_t j = 0; j < features; ++j) {
            const double v = 0.6 * base + 0.4 * rng.uniform01();
            d.values.push_back(j % 2 == 0 ? v : 1 - v * v);
        }
    }
    return d;
}

// Output buffers for every input row of a dataset.
struct Buffers {
    std::vector<std::size_t> source;
    std::vector<std::int32_t> attempts;
    std::vector<double> values;
    SynthesisOutput out;
    explicit Buffers(const Dataset& d)
        : source(d.rows), attempts(d.rows),
          values(d.rows * d.features), out{source.data(), attempts.data(), values.data(), 0} {}
};

} // namespace

TEST(PdBand, TestVectorsOfSection42) {
    const double lg = std::log(2.0);
    EXPECT_EQ(band_index(std::log(0.3), lg), 1);  // 2^-2 < 0.3 <= 2^-1
    EXPECT_EQ(band_index(std::log(0.25), lg), 2); // 2^-3 < 0.25 <= 2^-2 (a power of gamma: upper edge)
    EXPECT_EQ(band_index(std::log(1.0), lg), 0);
    EXPECT_EQ(band_index(std::log(3.0), lg), -2); // densities above 1: negative bands, 2^1 < 3 <= 2^2
    EXPECT_TRUE(std::isnan(band_index(kNoBand, lg)));
    const BandMatcher seed(std::log(0.3), lg);
    EXPECT_TRUE(seed(std::log(0.26)));
    EXPECT_TRUE(seed(std::log(0.5)));
    EXPECT_FALSE(seed(std::log(0.25)));
    EXPECT_FALSE(seed(std::log(0.51)));
    EXPECT_FALSE(seed(kNoBand));
    const BandMatcher exact(std::log(0.3), 0.0); // gamma = 1: equal probability only
    EXPECT_TRUE(exact(std::log(0.3)));
    EXPECT_FALSE(exact(std::nextafter(std::log(0.3), 0.0)));
}

TEST(PdSeedIndex, FastCountsEqualTheStraightforwardOnes) {
    const Dataset data = make_dataset(600, 5, 12, 1, 11);
    const std::size_t m = data.features, stride = code_stride(m);
    std::vector<FeatureBins> bins(m, bins_over(0, 1, 6));
    std::vector<std::size_t> order(data.rows);
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return data.participant[a] < data.participant[b]; });
    std::vector<std::uint8_t> codes(data.rows * stride, 0);
    std::vector<std::int32_t> people(data.rows);
    for (std::size_t i = 0; i < data.rows; ++i) {
        people[i] = data.participant[order[i]];
        for (std::size_t j = 0; j < m; ++j)
            codes[i * stride + j] = bins[j].code(data.values[order[i] * m + j]);
    }
    Marginals marginals(bins);
    marginals.add_rows(codes.data(), stride, data.rows);
    marginals.finish(1.0);
    Rng rng(12, 0);
    const CancelCheck cancel;
    struct Config {
        ModelKind kind;
        Resample resample;
        std::size_t omega;
    };
    const Config configs[] = {
        {ModelKind::Marginals, Resample::Random, 0}, {ModelKind::SeedBased, Resample::Random, 2},
        {ModelKind::SeedBased, Resample::Random, 4}, {ModelKind::SeedBased, Resample::Random, 5},
        {ModelKind::SeedBased, Resample::Last, 2},   {ModelKind::SeedBased, Resample::Last, 5}};
    std::size_t nonzero = 0, checked = 0;
    for (const Config& c : configs) {
        const Model model(c.kind, c.resample, c.omega, marginals);
        const SeedIndex index(model, codes.data(), stride, people.data(), data.rows);
        CandidateScorer scorer(model);
        for (double gamma : {1.0, 1.5, 2.0, 10.0})
            for (TestKind test : {TestKind::Record, TestKind::Identity})
                for (int i = 0; i < 60; ++i) {
                    const std::size_t seed = rng.uniform_below(data.rows);
                    std::vector<std::uint8_t> y(stride, 0);
                    model.generate(index.row(seed), y.data(), rng);
                    const std::size_t slow =
                        index.count_straightforward(y.data(), seed, test, std::log(gamma));
                    const std::size_t fast =
                        index.count(scorer, y.data(), seed, test, std::log(gamma), data.rows, cancel);
                    ASSERT_EQ(fast, slow) << "omega " << c.omega << " gamma " << gamma;
                    // Early exit: asking for fewer stops at least there, never reports a pass wrongly.
                    const std::size_t capped =
                        index.count(scorer, y.data(), seed, test, std::log(gamma), 3, cancel);
                    ASSERT_EQ(capped >= 3, slow >= 3);
                    nonzero += slow > 1;
                    ++checked;
                }
    }
    EXPECT_GT(nonzero, checked / 4); // the comparison covered non-trivial counts
}

namespace {

// Independent recomputation of Pr{y = M(d)} for the seed-based Random model: enumerate every omega-subset.
double brute_probability(const std::vector<std::vector<double>>& p, const std::vector<int>& y,
                         const std::vector<int>& d, int omega) {
    const int m = static_cast<int>(y.size());
    double sum = 0;
    int subsets = 0;
    for (int mask = 0; mask < (1 << m); ++mask) {
        if (__builtin_popcount(mask) != omega)
            continue;
        ++subsets;
        bool possible = true;
        double product = 1;
        for (int j = 0; j < m; ++j) {
            if (mask >> j & 1)
                product *= p[j][y[j]];
            else if (y[j] != d[j])
                possible = false;
        }
        if (possible)
            sum += product;
    }
    return sum / subsets;
}

} // namespace

TEST(PdSynthesis, EveryReleasedCandidateHasKPlausibleSeedsRecomputedIndependently) {
    const Dataset data = make_dataset(480, 4, 8, 2, 21);
    const int bins = 8;
    const double gamma = 2.0;
    for (TestKind test : {TestKind::Record, TestKind::Identity}) {
        SynthesisParams params;
        params.k = test == TestKind::Record ? 12 : 6;
        params.gamma = gamma;
        params.bins = bins;
        params.model = ModelKind::SeedBased;
        params.omega = 2;
        params.test = test;
        params.max_attempts = 3;
        params.bounds = {0, 1, 0, 1, 0, 1, 0, 1};
        Buffers buffers(data);
        SynthesisOutput& out = buffers.out;
        const std::vector<std::size_t>& source = buffers.source;
        const std::vector<double>& values = buffers.values;
        Rng rng(22, 0);
        synthesize(data.view(), params, rng, CancelCheck{}, out);
        ASSERT_GT(out.count, data.rows / 4);
        ASSERT_LT(out.count, data.rows); // some seeds never pass: the test is not vacuous

        auto code = [&](double v) { return std::min(bins - 1, static_cast<int>(std::floor(v * bins))); };
        for (int task = 0; task < 2; ++task) {
            // The task's marginals, as the library should have learned them (alpha = 1).
            std::vector<std::size_t> rows;
            for (std::size_t r = 0; r < data.rows; ++r)
                if (data.task[r] == task)
                    rows.push_back(r);
            std::vector<std::vector<double>> p(data.features, std::vector<double>(bins, 0));
            for (std::size_t r : rows)
                for (std::size_t j = 0; j < data.features; ++j)
                    p[j][code(data.values[r * data.features + j])] += 1;
            for (auto& pj : p)
                for (double& c : pj)
                    c = (c + 1.0 / bins) / (rows.size() + 1.0);
            for (std::size_t o = 0; o < out.count; ++o) {
                const std::size_t seed = source[o];
                if (data.task[seed] != task)
                    continue;
                std::vector<int> y(data.features), d(data.features);
                for (std::size_t j = 0; j < data.features; ++j) {
                    const double v = values[o * data.features + j];
                    ASSERT_GE(v, 0);
                    ASSERT_LT(v, 1);
                    y[j] = code(v);
                }
                auto band_of = [&](std::size_t r) {
                    for (std::size_t j = 0; j < data.features; ++j)
                        d[j] = code(data.values[r * data.features + j]);
                    const double pr = brute_probability(p, y, d, 2);
                    return pr > 0 ? std::floor(-std::log(pr) / std::log(gamma)) : std::nan("");
                };
                const double seed_band = band_of(seed);
                ASSERT_FALSE(std::isnan(seed_band));
                std::size_t plausible = 0;
                std::set<int> people;
                for (std::size_t r : rows)
                    if (band_of(r) == seed_band) {
                        ++plausible;
                        if (data.participant[r] != data.participant[seed])
                            people.insert(data.participant[r]);
                    }
                if (test == TestKind::Record)
                    ASSERT_GE(plausible, 12u) << "output row " << o;
                else
                    ASSERT_GE(people.size(), 5u) << "output row " << o;
            }
        }
    }
}

TEST(PdSynthesis, OutputIsStratifiedAndLabelledWithTheSeed) {
    const Dataset data = make_dataset(300, 3, 10, 3, 31);
    SynthesisParams params;
    params.k = 5;
    params.gamma = 2;
    Buffers buffers(data);
    SynthesisOutput& out = buffers.out;
    const std::vector<std::size_t>& source = buffers.source;
    const std::vector<std::int32_t>& attempts = buffers.attempts;
    const std::vector<double>& values = buffers.values;
    Rng rng(32, 0);
    synthesize(data.view(), params, rng, CancelCheck{}, out);
    // Marginals are seedless: with 100 records per task >= k every candidate passes at once.
    ASSERT_EQ(out.count, data.rows);
    std::vector<int> seen(data.rows, 0);
    for (std::size_t o = 0; o < out.count; ++o) {
        ++seen[source[o]];
        EXPECT_EQ(attempts[o], 1);
        if (o > 0) { // ordered by task, then participant
            const std::size_t a = source[o - 1], b = source[o];
            EXPECT_TRUE(data.task[a] < data.task[b] ||
                        (data.task[a] == data.task[b] && data.participant[a] <= data.participant[b]));
        }
    }
    for (int s : seen)
        EXPECT_EQ(s, 1); // one synthetic row per input row: same counts per participant and task

    // k above the task size: every candidate fails; with include_failed the slots say so.
    params.k = 101;
    params.include_failed = true;
    synthesize(data.view(), params, rng, CancelCheck{}, out);
    ASSERT_EQ(out.count, data.rows);
    for (std::size_t o = 0; o < out.count; ++o) {
        EXPECT_TRUE(std::isnan(values[o * data.features]));
        EXPECT_EQ(attempts[o], 1); // seedless: every candidate would fail alike, so one attempt suffices
    }
    params.include_failed = false;
    synthesize(data.view(), params, rng, CancelCheck{}, out);
    EXPECT_EQ(out.count, 0u);
}

TEST(PdSynthesis, SplitSeedsOnlyTheRecordsThatDidNotLearnTheModel) {
    const Dataset data = make_dataset(400, 3, 8, 2, 41);
    SynthesisParams params;
    params.k = 2;
    params.gamma = 2;
    params.split = 0.5;
    Buffers buffers(data);
    SynthesisOutput& out = buffers.out;
    Rng rng(42, 0);
    synthesize(data.view(), params, rng, CancelCheck{}, out);
    EXPECT_EQ(out.count, 200u); // 100 of each task's 200 records learn, the other 100 seed
}

TEST(PdSynthesis, PublicRecordsBoundTheSlotsOfEveryTask) {
    // 3 tasks of 100 records; a public bound of 30 records per task: 30 slots each, the first in participant
    // order, and the release is the same under the same secret-keyed generator.
    const Dataset data = make_dataset(300, 3, 10, 3, 61);
    SynthesisParams params;
    params.k = 5;
    params.gamma = 2;
    params.records = 30;
    Buffers a(data), b(data);
    const unsigned char secret[32] = {9};
    Rng rng_a(Rng::Secret{secret, sizeof secret}), rng_b(Rng::Secret{secret, sizeof secret});
    synthesize(data.view(), params, rng_a, CancelCheck{}, a.out);
    synthesize(data.view(), params, rng_b, CancelCheck{}, b.out);
    ASSERT_EQ(a.out.count, 90u);
    std::vector<int> per_task(3, 0);
    for (std::size_t o = 0; o < a.out.count; ++o)
        ++per_task[data.task[a.source[o]]];
    EXPECT_EQ(per_task, (std::vector<int>{30, 30, 30}));
    EXPECT_EQ(a.source, b.source);
    EXPECT_EQ(a.values, b.values);
    params.records = 0;
    EXPECT_THROW(validate(params), InvalidArgument);
}

TEST(PdSynthesis, RandomizedThresholdPassesWithTheDiscreteLaplaceProbability) {
    // Seedless marginals: k' = n for every candidate, so a candidate passes iff n >= k + Z. With n = 40,
    // k = 45, epsilon0 = 0.5: P(Z <= -5) = e^-2.5 / (1 + e^-0.5) for the discrete Laplace of scale 2.
    const Dataset data = make_dataset(40, 2, 4, 1, 51);
    SynthesisParams params;
    params.k = 45;
    params.gamma = 2;
    params.epsilon0 = 0.5;
    params.t = 10;
    params.model_epsilon = 1e6; // the model's noise is irrelevant here
    params.bounds = {0, 1, 0, 1};
    Buffers buffers(data);
    SynthesisOutput& out = buffers.out;
    Rng rng(52, 0);
    double passed = 0, trials = 0;
    for (int run = 0; run < 1000; ++run) {
        synthesize(data.view(), params, rng, CancelCheck{}, out);
        passed += static_cast<double>(out.count);
        trials += 40;
    }
    auto z = [&](double p) { return (passed - trials * p) / std::sqrt(trials * p * (1 - p)); };
    const double p_exact = std::exp(-2.5) / (1 + std::exp(-0.5));
    EXPECT_LT(std::fabs(z(p_exact)), 4.5);
    // Power: the same draws reject epsilon0 off by 5% (scale 2.1) and the continuous Laplace's 0.5 e^-2.5.
    const double e = 0.5 / 1.05;
    EXPECT_GT(std::fabs(z(std::exp(-5 * e) / (1 + std::exp(-e)))), 4.5);
    EXPECT_GT(std::fabs(z(0.5 * std::exp(-2.5))), 4.5);
}

TEST(PdSynthesis, RejectsBadParametersBeforeReadingData) {
    SynthesisParams ok;
    ok.k = 5;
    ok.gamma = 2;
    EXPECT_NO_THROW(validate(ok));
    auto bad = [&](auto change) {
        SynthesisParams p = ok;
        change(p);
        EXPECT_THROW(validate(p), InvalidArgument);
    };
    bad([](SynthesisParams& p) { p.k = 0; });
    bad([](SynthesisParams& p) { p.gamma = 0.5; });
    bad([](SynthesisParams& p) { p.gamma = std::nan(""); });
    bad([](SynthesisParams& p) { p.gamma = INFINITY; });
    bad([](SynthesisParams& p) { p.bins = 1; });
    bad([](SynthesisParams& p) { p.omega = 2; }); // marginals take no omega
    bad([](SynthesisParams& p) { p.model = ModelKind::SeedBased; });
    bad([](SynthesisParams& p) {
        p.model = ModelKind::SeedBased;
        p.omega = 0;
    });
    bad([](SynthesisParams& p) { p.alpha = -1; });
    bad([](SynthesisParams& p) { p.split = 1; });
    bad([](SynthesisParams& p) { p.max_attempts = 0; });
    bad([](SynthesisParams& p) { p.bounds = {0, 1, 2}; });
    bad([](SynthesisParams& p) { p.bounds = {1, 1}; });
    bad([](SynthesisParams& p) { p.t = 3; });          // t without epsilon0
    bad([](SynthesisParams& p) { p.epsilon0 = 0.5; }); // no t or delta, no model_epsilon
    bad([](SynthesisParams& p) {
        p.epsilon0 = 0.5;
        p.t = 3;
    }); // no model_epsilon
    bad([](SynthesisParams& p) {
        p.epsilon0 = 0.5;
        p.t = 5; // t must be below k
        p.model_epsilon = 1;
    });
    bad([](SynthesisParams& p) {
        p.epsilon0 = 0.5;
        p.t = 3;
        p.model_epsilon = 1;
        p.test = TestKind::Identity;
    });
    SynthesisParams seed_based = ok;
    seed_based.model = ModelKind::SeedBased;
    seed_based.omega = 6;
    EXPECT_THROW(validate_for_features(seed_based, 5), InvalidArgument); // omega above m
    seed_based.omega = 2;
    EXPECT_THROW(validate_for_features(seed_based, 65), InvalidArgument); // random resampling: m <= 64
    seed_based.resample = Resample::Last;
    EXPECT_NO_THROW(validate_for_features(seed_based, 65));
    EXPECT_THROW(validate_for_features(ok, 0), InvalidArgument);
    EXPECT_THROW(validate_for_features(ok, 1001), LimitExceeded);
}

namespace {
std::vector<std::pair<std::uint64_t, std::uint64_t>> progress_calls;
void record_progress(const char* phase, std::uint64_t done, std::uint64_t total) {
    EXPECT_STREQ(phase, "synthesizing");
    progress_calls.emplace_back(done, total);
}
} // namespace

TEST(PdSynthesis, ReportsSlotsDoneOfAllTasksSlots) {
    const Dataset data = make_dataset(300, 3, 10, 3, 31); // 3 tasks of 100 records
    SynthesisParams params;
    params.k = 5;
    params.gamma = 2;
    params.split = 0.25; // 25 records per task only learn: 75 slots per task
    Buffers buffers(data);
    Rng rng(33, 0);
    progress_calls.clear();
    synthesize(data.view(), params, rng, CancelCheck{}, buffers.out, Progress(record_progress));
    ASSERT_EQ(progress_calls.size(), 226u); // one per slot, then the end
    for (std::size_t i = 0; i < progress_calls.size(); ++i)
        EXPECT_EQ(progress_calls[i], std::make_pair(std::uint64_t(i), std::uint64_t(225)));
    params.split = 0;
    params.records = 40; // a public bound: at most 40 slots per task
    progress_calls.clear();
    synthesize(data.view(), params, rng, CancelCheck{}, buffers.out, Progress(record_progress));
    EXPECT_EQ(progress_calls.back(), std::make_pair(std::uint64_t(120), std::uint64_t(120)));
}
