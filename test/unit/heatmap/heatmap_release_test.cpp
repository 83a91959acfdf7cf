#include <gtest/gtest.h>

#include "invalid_argument.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "core/common/errors.hpp"
#include "core/heatmap/heatmap_release.hpp"
#include "core/heatmap/significance.hpp"
#include "stats.hpp"

using namespace gazepriv::core;
using gazepriv::test::variance_z;

namespace {

HeatmapSpec spec(const char* mechanism, double epsilon, int width, int height, int cap = 1,
                 const char* calibration = "analytic") {
    return make_heatmap_spec(width, height, epsilon, 1e-5, cap, mechanism, calibration, 0, 1, std::nullopt,
                             std::nullopt, kMaxHeatmapCells);
}

// Noise of many cells of one release: (value * n - sum).
std::vector<double> noise_of(const HeatmapReleasePlan& plan, double n, std::uint64_t seed) {
    const std::size_t cells = static_cast<std::size_t>(plan.spec.parameters.grid.cells());
    std::vector<std::int64_t> sums(cells);
    for (std::size_t j = 0; j < cells; ++j)
        sums[j] = static_cast<std::int64_t>(j % 5);
    std::vector<double> values(cells);
    Rng rng(seed, 0);
    release_heatmap(plan, sums.data(), n, rng, values.data(), CancelCheck());
    std::vector<double> noise(cells);
    for (std::size_t j = 0; j < cells; ++j) {
        noise[j] = values[j] * n - static_cast<double>(sums[j]);
        EXPECT_NEAR(noise[j], std::nearbyint(noise[j]), 1e-6); // integer noise on integer sums
    }
    return noise;
}

} // namespace

TEST(HeatmapRelease, GaussianCostIsTheRequestedEpsilonDeltaAndItsRho) {
    const HeatmapReleasePlan plan = plan_heatmap_release(spec("gaussian", 1, 562, 762));
    EXPECT_DOUBLE_EQ(plan.l2_sensitivity, std::sqrt(562.0 * 762.0));
    EXPECT_DOUBLE_EQ(plan.l1_sensitivity, 562.0 * 762.0);
    EXPECT_EQ(plan.cost.epsilon, 1);
    EXPECT_EQ(plan.cost.delta, 1e-5);
    EXPECT_NEAR(plan.cost.rho,
                plan.l2_sensitivity * plan.l2_sensitivity / (2 * plan.gaussian.sigma * plan.gaussian.sigma),
                1e-15);
    EXPECT_EQ(plan.cost.guarantee, Guarantee::DifferentialPrivacy);
    EXPECT_FALSE(plan.cost.non_private_choices);
    EXPECT_EQ(plan.cost.mechanism, "dp_heatmap");
    // Liu et al.'s example at n = 20: about 122 per cell of the normalised map.
    EXPECT_NEAR(plan.gaussian.sigma / 20, 122.07, 0.05);
    for (const char* field : {"\"calibration\": \"analytic\"", "\"cells\": 428244", "\"certificate\"",
                              "\"sampler\": \"table\"", "\"dataset\": null", "\"neighbours\""})
        EXPECT_NE(plan.cost.parameters_json.find(field), std::string::npos) << field;
}

TEST(HeatmapRelease, LaplaceCostIsPureEpsilon) {
    const HeatmapReleasePlan plan = plan_heatmap_release(spec("laplace", 0.5, 10, 10, 3));
    EXPECT_EQ(plan.cost.delta, 0);
    EXPECT_EQ(plan.cost.rho, -1);
    EXPECT_DOUBLE_EQ(plan.laplace_scale, 3 * 100 / 0.5);
}

class NoiseScale : public ::testing::TestWithParam<const char*> {};

TEST_P(NoiseScale, GaussianCellsHaveTheCalibratedSigmaAndAFivePercentErrorIsDetected) {
    const char* calibration = GetParam();
    const double eps = std::string(calibration) == "dwork_roth" ? 0.5 : 1.0;
    const HeatmapReleasePlan plan = plan_heatmap_release(spec("gaussian", eps, 300, 300, 1, calibration));
    const std::vector<double> noise = noise_of(plan, 7, 5);
    const double s2 = plan.gaussian.sigma * plan.gaussian.sigma;
    EXPECT_LT(std::fabs(variance_z(noise, s2, 0)), 5);
    EXPECT_GT(std::fabs(variance_z(noise, 1.05 * 1.05 * s2, 0)), 5);
}

INSTANTIATE_TEST_SUITE_P(Calibrations, NoiseScale, ::testing::Values("analytic", "liu2019", "dwork_roth"));

TEST(HeatmapRelease, LaplaceCellsHaveTheDiscreteLaplaceVariance) {
    const HeatmapReleasePlan plan = plan_heatmap_release(spec("laplace", 4, 200, 200));
    const std::vector<double> noise = noise_of(plan, 3, 6);
    const double b = plan.laplace_scale; // 10000
    const double q = std::exp(-1 / b), var = 2 * q / ((1 - q) * (1 - q));
    EXPECT_NEAR(plan.noise_sd(), std::sqrt(var), 1e-9 * std::sqrt(var));
    EXPECT_LT(std::fabs(variance_z(noise, var, 3)), 5);
    EXPECT_GT(std::fabs(variance_z(noise, 1.05 * 1.05 * var, 3)), 5);
}

TEST(HeatmapRelease, HugeEpsilonReleasesTheExactMap) {
    for (const char* mechanism : {"gaussian", "laplace"}) {
        const HeatmapReleasePlan plan = plan_heatmap_release(spec(mechanism, 1e9, 40, 30));
        for (double x : noise_of(plan, 4, 7))
            ASSERT_EQ(x, 0) << mechanism;
    }
}

TEST(HeatmapRelease, OptimalCapMinimisesTheoremFourOnesExpectedMse) {
    // Two cells: in one, three participants with counts 1, 4 and 9; in the other one with 2.
    const HeatmapSpec s = spec("gaussian", 50, 2, 1);
    const double n = 3;
    const std::vector<std::vector<std::uint32_t>> cells = {{1, 4, 9}, {2}};
    auto visit = [&](auto&& f) {
        for (const auto& c : cells)
            f(c.data(), c.size());
    };
    const CapCandidate best = optimal_cap(s, n, 9, visit, CancelCheck());
    // Brute force over m with the same noise model.
    HeatmapSpec unit = s;
    const HeatmapReleasePlan plan = plan_heatmap_release(unit);
    double best_mse = std::numeric_limits<double>::infinity();
    std::int64_t best_m = 0;
    for (std::int64_t m = 1; m <= 9; ++m) {
        double bias = 0;
        for (const auto& c : cells) {
            double d = 0;
            for (auto v : c)
                d += std::max<double>(0, static_cast<double>(v) - m);
            bias += (d / n) * (d / n);
        }
        const double mse = noise_variance_at_cap(plan, m) / (n * n) + bias / 2;
        if (mse < best_mse) {
            best_mse = mse;
            best_m = m;
        }
    }
    EXPECT_EQ(best.cap, best_m);
    EXPECT_NEAR(best.expected_mse, best_mse, 1e-12 * best_mse);
    EXPECT_GT(best.cap, 1); // with this much epsilon, capping at 1 costs more bias than noise
    // A small epsilon makes the noise dominate: cap 1.
    EXPECT_EQ(optimal_cap(spec("gaussian", 0.1, 2, 1), n, 9, visit, CancelCheck()).cap, 1);
}

TEST(HeatmapRelease, ReleaseRefusesNoObservers) {
    const HeatmapReleasePlan plan = plan_heatmap_release(spec("gaussian", 1, 2, 2));
    std::int64_t sums[4] = {};
    double values[4];
    Rng rng(1, 0);
    EXPECT_THROW(release_heatmap(plan, sums, 0, rng, values, CancelCheck()), InvalidArgument);
}

TEST(HeatmapRelease, EpsilonForMapAccuracyIsTheSmallestThatMeetsIt) {
    for (const char* mechanism : {"gaussian", "laplace"})
        for (double blur : {0.0, 3.0}) {
            const HeatmapSpec spec = make_heatmap_spec(40, 30, 1, 1e-5, 1, mechanism, "analytic", blur, 1, 8,
                                                       std::nullopt, 1000000);
            const double eps = epsilon_for_map_accuracy(spec, 0.25, 0.95);
            const auto width = [&](double e) {
                HeatmapSpec at = spec;
                at.parameters.epsilon = e;
                const HeatmapReleasePlan plan = plan_heatmap_release(at);
                const bool gaussian = at.parameters.mechanism == HeatmapMechanism::Gaussian;
                return map_accuracy(
                           {gaussian, (gaussian ? plan.gaussian.sigma : plan.laplace_scale) / 8, blur, 8},
                           0.95)
                    .accuracy.half_width;
            };
            EXPECT_LE(width(eps), 0.25) << mechanism << blur;
            EXPECT_GT(width(eps * (1 - 1e-6)), 0.25) << mechanism << blur;
        }
    HeatmapSpec no_observers = make_heatmap_spec(40, 30, 1, 1e-5, 1, "gaussian", "analytic", 0, 1,
                                                 std::nullopt, std::nullopt, 1000000);
    EXPECT_THROW(epsilon_for_map_accuracy(no_observers, 0.25, 0.95), InvalidArgument);
    no_observers.parameters.observers = 8;
    EXPECT_THROW(epsilon_for_map_accuracy(no_observers, NAN, 0.95), InvalidArgument);
    EXPECT_THROW(epsilon_for_map_accuracy(no_observers, -1, 0.95), InvalidArgument);
}

TEST(HeatmapSpec, ParametersAreValidatedWithTheirNames) {
    auto message = [](auto f) { return gazepriv::test::invalid_argument_message(f); };
    auto make = [](std::int64_t w, std::int64_t h, double eps, double delta, std::int64_t cap,
                   const char* mech, const char* cal, double blur, std::int64_t cell,
                   std::optional<std::int64_t> obs) {
        return [=] {
            make_heatmap_spec(w, h, eps, delta, cap, mech, cal, blur, cell, obs, std::nullopt, 1000000);
        };
    };
    EXPECT_NE(message(make(0, 5, 1, 1e-5, 1, "gaussian", "analytic", 0, 1, {})).find("width"),
              std::string::npos);
    EXPECT_NE(message(make(5, -1, 1, 1e-5, 1, "gaussian", "analytic", 0, 1, {})).find("height"),
              std::string::npos);
    EXPECT_NE(message(make(5, 5, 0, 1e-5, 1, "gaussian", "analytic", 0, 1, {})).find("epsilon"),
              std::string::npos);
    EXPECT_NE(message(make(5, 5, NAN, 1e-5, 1, "gaussian", "analytic", 0, 1, {})).find("epsilon"),
              std::string::npos);
    EXPECT_NE(message(make(5, 5, 1, 0, 1, "gaussian", "analytic", 0, 1, {})).find("delta"),
              std::string::npos);
    EXPECT_NE(message(make(5, 5, 1, 1, 1, "gaussian", "analytic", 0, 1, {})).find("delta"),
              std::string::npos);
    EXPECT_EQ(message(make(5, 5, 1, 0, 1, "laplace", "analytic", 0, 1, {})), "no error");
    EXPECT_NE(message(make(5, 5, 1, 1e-5, 0, "gaussian", "analytic", 0, 1, {})).find("cap"),
              std::string::npos);
    EXPECT_NE(message(make(5, 5, 1, 1e-5, 1, "uniform", "analytic", 0, 1, {})).find("mechanism"),
              std::string::npos);
    EXPECT_NE(message(make(5, 5, 1, 1e-5, 1, "gaussian", "exact", 0, 1, {})).find("calibration"),
              std::string::npos);
    EXPECT_NE(message(make(5, 5, 1, 1e-5, 1, "gaussian", "analytic", -1, 1, {})).find("blur_sigma"),
              std::string::npos);
    EXPECT_NE(message(make(5, 5, 1, 1e-5, 1, "gaussian", "analytic", INFINITY, 1, {})).find("blur_sigma"),
              std::string::npos);
    EXPECT_NE(message(make(5, 5, 1, 1e-5, 1, "gaussian", "analytic", 0, 0, {})).find("cell_size"),
              std::string::npos);
    EXPECT_NE(message(make(5, 5, 1, 1e-5, 1, "gaussian", "analytic", 0, 1, 0)).find("observers"),
              std::string::npos);
    // A grid over the cell limit is a size limit (54000 through the glue), naming the setting.
    try {
        make(2000, 2000, 1, 1e-5, 1, "gaussian", "analytic", 0, 1, {})();
        ADD_FAILURE() << "a grid over the cell limit was accepted";
    } catch (const LimitExceeded& e) {
        EXPECT_NE(std::string(e.what()).find("gazepriv.max_heatmap_cells"), std::string::npos);
    }
    EXPECT_EQ(message(make(2000, 2000, 1, 1e-5, 1, "gaussian", "analytic", 0, 2, {})), "no error");
}
