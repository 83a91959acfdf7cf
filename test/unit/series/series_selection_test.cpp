#include <gtest/gtest.h>

#include "invalid_argument.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/noise/exponential_mechanism.hpp"
#include "core/series/series_release.hpp"
#include "core/series/series_selection.hpp"

using namespace gazepriv::core;
using gazepriv::test::invalid_argument_message;

namespace {

// One feature: participants x recordings signals of n samples, value(p, r, t).
struct Rows {
    std::vector<std::int32_t> participant, recording;
    std::vector<double> t, values;
    std::size_t participants, recordings;
    template <typename F>
    Rows(std::size_t p_count, std::size_t r_count, std::size_t n, F value)
        : participants(p_count), recordings(r_count) {
        for (std::size_t r = 0; r < r_count; ++r)
            for (std::size_t p = 0; p < p_count; ++p)
                for (std::size_t i = 0; i < n; ++i) {
                    participant.push_back(std::int32_t(p));
                    recording.push_back(std::int32_t(r));
                    t.push_back(double(i));
                    values.push_back(value(p, r, i));
                }
    }
    SeriesRows view() const {
        SeriesRows rows;
        rows.count = t.size();
        rows.width = 1;
        rows.participant = participant.data();
        rows.recording = recording.data();
        rows.t = t.data();
        rows.values = values.data();
        rows.participants = participants;
        rows.recordings = recordings;
        return rows;
    }
};

double proportion_z(double observed, double p, int n) {
    return std::fabs(observed - p) / std::sqrt(p * (1 - p) / n);
}

const FeatureBounds kBounds{0, 10};

SeriesDataset dataset(const Rows& rows) {
    return assemble_series(rows.view(), 0, Padding::Constant, {kBounds});
}

} // namespace

TEST(SeriesSelection, KUtilityIsMinusTheExpectedSquaredErrorOfFpaK) {
    // Bin 3 of a 32-sample signal: the energy outside the kept bins vanishes from k = 4 on.
    const Rows rows(2, 1, 32, [](std::size_t p, std::size_t, std::size_t t) {
        return 5 + double(p) + 2 * std::cos(2 * M_PI * 3 * double(t) / 32);
    });
    const SeriesDataset d = dataset(rows);
    const double noise_epsilon = 1e6; // no noise to speak of
    const KUtility u = k_utility(d.groups[0], 0, 32, 17, kBounds, noise_epsilon);
    ASSERT_EQ(u.utility.size(), 17u);
    // Energy of 2 cos over 32 samples: 32 * 2^2 / 2 = 64 per participant until bin 3 is kept.
    for (std::size_t k = 1; k <= 3; ++k)
        EXPECT_NEAR(double(u.utility[k - 1]) * u.grid, -128, 1e-6) << k;
    EXPECT_NEAR(double(u.utility[3]) * u.grid, 0, 1e-6);
    EXPECT_EQ(double(u.sensitivity), std::ceil(32 * 10.0 * 10.0 / 4 / u.grid)); // n (hi - lo)^2 / 4
    Rng rng(51, 0);
    for (int i = 0; i < 20; ++i) // the best k by far
        EXPECT_GE(private_k(d.groups[0], 0, 32, 17, kBounds, noise_epsilon, 1e4, rng), 4u);
}

TEST(SeriesSelection, KUtilityChangesByAtMostItsSensitivityForAnyNeighbour) {
    // Neighbours: participant 0 replaced by extreme signals (alternating bounds, a step, a constant edge).
    const auto base = [](std::size_t p, std::size_t, std::size_t t) {
        return 5 + 3 * std::sin(0.3 * double(t) + double(p));
    };
    const Rows a(4, 1, 40, base);
    const SeriesDataset da = dataset(a);
    const KUtility ua = k_utility(da.groups[0], 0, 16, 9, kBounds, 0.5);
    for (int kind = 0; kind < 3; ++kind) {
        const Rows b(4, 1, 40, [&](std::size_t p, std::size_t r, std::size_t t) {
            if (p != 0)
                return base(p, r, t);
            return kind == 0 ? (t % 2 == 0 ? 0.0 : 10.0) : kind == 1 ? (t < 20 ? 0.0 : 10.0) : 10.0;
        });
        const SeriesDataset db = dataset(b);
        const KUtility ub = k_utility(db.groups[0], 0, 16, 9, kBounds, 0.5);
        EXPECT_EQ(ua.sensitivity, ub.sensitivity); // public: n (hi - lo)^2 / 4 in units of a public grid
        EXPECT_EQ(ua.grid, ub.grid);
        for (std::size_t k = 0; k < ua.utility.size(); ++k)
            EXPECT_LE(std::llabs(ua.utility[k] - ub.utility[k]), ua.sensitivity) << kind << " " << k;
    }
}

TEST(SeriesSelection, PrivateKFollowsTheExponentialMechanismsProbabilities) {
    const Rows rows(6, 1, 24, [](std::size_t p, std::size_t, std::size_t t) {
        return 5 + 2 * std::cos(2 * M_PI * double(t) / 24 + double(p));
    });
    const SeriesDataset d = dataset(rows);
    const double noise_epsilon = 50, epsilon = 1;
    const KUtility u = k_utility(d.groups[0], 0, 24, 6, kBounds, noise_epsilon);
    const std::vector<double> p = exponential_mechanism_probabilities(u.utility, u.sensitivity, epsilon);
    Rng rng(52, 0);
    const int n = 20000;
    std::vector<int> hits(6, 0);
    for (int i = 0; i < n; ++i)
        ++hits[private_k(d.groups[0], 0, 24, 6, kBounds, noise_epsilon, epsilon, rng) - 1];
    for (std::size_t k = 0; k < 6; ++k)
        if (p[k] > 1e-6)
            EXPECT_LT(proportion_z(double(hits[k]) / n, p[k], n), 5) << k + 1;
        else
            EXPECT_EQ(hits[k], 0) << k + 1;
}

TEST(SeriesSelection, PrivateBoundsFindTheQuantilesWithEnoughParticipantsAndEpsilon) {
    // 200 participants, values uniform on [2, 6] (public bounds [0, 10]).
    const Rows rows(200, 2, 50, [](std::size_t p, std::size_t r, std::size_t t) {
        return 2 + 4 * double((p * 7 + r * 3 + t * 13) % 50) / 49;
    });
    const SeriesDataset d = dataset(rows);
    Rng rng(53, 0);
    const FeatureBounds b = private_bounds(d.groups, 0, kBounds, 0.05, 0.95, 50, rng);
    EXPECT_NEAR(b.lo, 2.2, 0.25);
    EXPECT_NEAR(b.hi, 5.8, 0.25);
    for (int i = 0; i < 50; ++i) { // always inside the public bounds, lo < hi, even at tiny epsilon
        const FeatureBounds c = private_bounds(d.groups, 0, kBounds, 0.05, 0.95, 1e-3, rng);
        EXPECT_GE(c.lo, kBounds.lo);
        EXPECT_LE(c.hi, kBounds.hi);
        EXPECT_LT(c.lo, c.hi);
    }
}

TEST(SeriesSelection, ReleaseKeepsItsCostAndLabelsTheShares) {
    const Rows rows(5, 2, 40, [](std::size_t p, std::size_t r, std::size_t t) {
        return 4 + double(p % 2) + double(r) + std::sin(0.2 * double(t));
    });
    SeriesReleaseConfig config;
    config.method = SeriesMethod::Cfpa;
    config.chunk = 16;
    config.epsilon = 1;
    config.bounds = {kBounds};
    const double public_cost = prepare_series_release(rows.view(), config).plan.cost.epsilon;
    config.k_share = 0.1;
    config.bounds_share = 0.2;
    PreparedSeries prepared = prepare_series_release(rows.view(), config);
    EXPECT_EQ(prepared.plan.cost.epsilon, public_cost); // 1 x 1 feature x (3 + 3) chunks
    EXPECT_EQ(public_cost, 6);
    const std::string& json = prepared.plan.cost.parameters_json;
    EXPECT_NE(json.find("\"k_rule\": \"private\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"k_share\": 0.1"), std::string::npos) << json;
    EXPECT_NE(json.find("\"bounds_share\": 0.2"), std::string::npos) << json;
    EXPECT_NE(json.find("\"noise_share\": 0.7"), std::string::npos) << json;
    Rng rng(54, 0);
    release_series(prepared, config, rng);
    ASSERT_EQ(prepared.selection.k.size(), 2u); // per recording and feature
    ASSERT_EQ(prepared.selection.bounds.size(), 1u);
    const FeatureBounds b = prepared.selection.bounds[0];
    for (const SignalGroup& g : prepared.data.groups)
        for (std::size_t p = 0; p < g.participants.size(); ++p)
            for (std::size_t t = 0; t < g.length; ++t) {
                EXPECT_GE(g.signal(0, p)[t], b.lo);
                EXPECT_LE(g.signal(0, p)[t], b.hi);
            }
}

TEST(SeriesSelection, RefusesBadShares) {
    const Rows rows(3, 1, 8, [](std::size_t, std::size_t, std::size_t t) { return double(t); });
    SeriesReleaseConfig config;
    config.epsilon = 1;
    config.bounds = {kBounds};
    for (const double share : {-0.1, 1.0, 1.5, double(NAN), double(INFINITY)}) {
        config.k_share = share;
        EXPECT_NE(invalid_argument_message([&] { check_series_release_config(config); }).find("k_share"),
                  std::string::npos);
    }
    config.k_share = 0.6;
    config.bounds_share = 0.4;
    EXPECT_NE(invalid_argument_message([&] { check_series_release_config(config); }).find("below 1"),
              std::string::npos);
    config.bounds_share = 0.1;
    config.method = SeriesMethod::Dcfpa;
    EXPECT_NE(invalid_argument_message([&] { check_series_release_config(config); }).find("fpa and cfpa"),
              std::string::npos);
    config.method = SeriesMethod::Fpa;
    config.sensitivity = SensitivityMode::Empirical;
    EXPECT_NE(invalid_argument_message([&] { check_series_release_config(config); }).find("clipped"),
              std::string::npos);
}
