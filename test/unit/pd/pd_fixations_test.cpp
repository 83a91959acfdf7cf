// event-synth-PD for fixations: the density in log space, the identity test against other participants,
// bounded attempts.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "core/common/errors.hpp"
#include "core/pd/pd_fixations.hpp"

using namespace gazepriv::core;
using namespace gazepriv::core::pd;

namespace {

double direct_log_density(const double* x, const double* y, int t, double mx, double my, double sx,
                          double sy) {
    double s = 0;
    for (int i = 0; i < t; ++i)
        s += -std::log(2 * M_PI * sx * sy) - (x[i] - mx) * (x[i] - mx) / (2 * sx * sx) -
             (y[i] - my) * (y[i] - my) / (2 * sy * sy);
    return s;
}

struct Fixations {
    std::vector<std::int32_t> participant, task, samples;
    std::vector<double> mx, my, sx, sy;
    FixationRows view() const {
        return {participant.size(), participant.data(), task.data(), mx.data(),
                my.data(),          sx.data(),          sy.data(),   samples.data()};
    }
    void add(int p, int task_id, double x, double y, double s, int t) {
        participant.push_back(p);
        task.push_back(task_id);
        mx.push_back(x);
        my.push_back(y);
        sx.push_back(s);
        sy.push_back(s);
        samples.push_back(t);
    }
};

} // namespace

TEST(PdFixations, LogDensityFromSufficientStatisticsEqualsTheDirectSum) {
    const double x[] = {500.2, 501.7, 499.1, 500.9}, y[] = {300.0, 299.5, 301.2, 300.3};
    const SampleStats s = sample_stats(x, y, 4);
    for (double mu : {500.0, 505.0, 480.0})
        EXPECT_NEAR(fixation_log_density(s, mu, 300, 1.5, 2.0),
                    direct_log_density(x, y, 4, mu, 300, 1.5, 2.0), 1e-9);
    // A tight fixation has a density far above 1: a negative band, which must be allowed.
    const double tx[] = {500.001, 500.004, 499.998}, ty[] = {300.002, 299.997, 300.0};
    const double dense = fixation_log_density(sample_stats(tx, ty, 3), 500, 300, 0.01, 0.01);
    EXPECT_GT(dense, 20);
    EXPECT_NEAR(dense, direct_log_density(tx, ty, 3, 500, 300, 0.01, 0.01), 1e-9);
}

TEST(PdFixations, ReleasedFixationsPassTheEventTestRecomputedDirectly) {
    Fixations f;
    Rng placement(5, 1);
    for (int p = 0; p < 6; ++p)
        for (int e = 0; e < 30; ++e) // similar fixations across participants, a few sample counts
            f.add(p, 0, 500 + 20 * placement.uniform01(), 300 + 20 * placement.uniform01(),
                  3 + placement.uniform01(), 5 + e % 3);
    FixationParams params;
    params.k = 4;
    params.gamma = std::exp(4.0); // bands 4 nats wide
    params.max_attempts = 5;
    const std::size_t total = total_samples(f.view(), 1 << 20);
    std::vector<std::size_t> source(f.participant.size()), offset(f.participant.size());
    std::vector<std::int32_t> attempts(f.participant.size());
    std::vector<char> passed_storage(f.participant.size());
    bool* passed = reinterpret_cast<bool*>(passed_storage.data());
    std::vector<double> xs(total), ys(total);
    FixationOutput out{source.data(), attempts.data(), passed, offset.data(), xs.data(), ys.data(), 0};
    Rng rng(6, 0);
    synthesize_fixations(f.view(), params, rng, CancelCheck{}, out);
    ASSERT_GT(out.count, 20u);
    ASSERT_LT(out.count, f.participant.size()); // some never pass within 5 attempts
    const double lg = std::log(params.gamma);
    for (std::size_t o = 0; o < out.count; ++o) {
        ASSERT_TRUE(passed[o]);
        const std::size_t r = source[o];
        const double* x = &xs[offset[o]];
        const double* y = &ys[offset[o]];
        const int t = f.samples[r];
        const double seed_band =
            std::floor(-direct_log_density(x, y, t, f.mx[r], f.my[r], f.sx[r], f.sy[r]) / lg);
        std::set<int> others;
        for (std::size_t a = 0; a < f.participant.size(); ++a) {
            if (f.participant[a] == f.participant[r] || f.samples[a] != t)
                continue;
            const double band =
                std::floor(-direct_log_density(x, y, t, f.mx[a], f.my[a], f.sx[a], f.sy[a]) / lg);
            if (band == seed_band)
                others.insert(f.participant[a]);
        }
        EXPECT_GE(others.size(), 3u) << "fixation " << r;
    }
}

TEST(PdFixations, NeverPassingIsBoundedAndReported) {
    Fixations f;
    f.add(0, 0, 100, 100, 2, 10);
    f.add(1, 0, 900, 900, 2, 10); // far away: never plausible for participant 0's fixation
    f.add(2, 0, 100, 100, 2, 11); // same place, other sample count: probability 0
    f.add(3, 1, 100, 100, 2, 10); // same place, other task
    FixationParams params;
    params.k = 2;
    params.gamma = 2;
    params.max_attempts = 7;
    params.include_failed = true;
    const std::size_t total = total_samples(f.view(), 1000);
    std::vector<std::size_t> source(4), offset(4);
    std::vector<std::int32_t> attempts(4);
    bool passed[4];
    std::vector<double> xs(total), ys(total);
    FixationOutput out{source.data(), attempts.data(), passed, offset.data(), xs.data(), ys.data(), 0};
    Rng rng(7, 0);
    synthesize_fixations(f.view(), params, rng, CancelCheck{}, out);
    ASSERT_EQ(out.count, 4u);
    for (std::size_t o = 0; o < 4; ++o) {
        EXPECT_FALSE(passed[o]);
        EXPECT_EQ(attempts[o], 7);
    }
    params.k = 1; // k = 1 asks for no other participant
    synthesize_fixations(f.view(), params, rng, CancelCheck{}, out);
    for (std::size_t o = 0; o < 4; ++o) {
        EXPECT_TRUE(passed[o]);
        EXPECT_EQ(attempts[o], 1);
    }
    params.include_failed = false;
    params.k = 2;
    synthesize_fixations(f.view(), params, rng, CancelCheck{}, out);
    EXPECT_EQ(out.count, 0u);
}

TEST(PdFixations, RejectsBadParameters) {
    FixationParams p;
    p.k = 0;
    p.gamma = 2;
    EXPECT_THROW(validate(p), InvalidArgument);
    p.k = 2;
    p.gamma = 0.5;
    EXPECT_THROW(validate(p), InvalidArgument);
    p.gamma = 2;
    p.max_attempts = 0;
    EXPECT_THROW(validate(p), InvalidArgument);
    Fixations f;
    f.add(0, 0, 1, 1, 1, 0);
    EXPECT_THROW(total_samples(f.view(), 100), InvalidArgument);
    f.samples[0] = 1000;
    EXPECT_THROW(total_samples(f.view(), 100), LimitExceeded);
}
