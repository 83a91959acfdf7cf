// The noise_radius every Kaleido output carries: it holds (>= 95 % of publications lie within it of the true
// position), it is not loose, and it is a function of public facts only (parameters and actions).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "core/kaleido/kaleido.hpp"
#include "core/noise/lattice_planar_laplace.hpp"

using namespace gazepriv::core;

namespace {

struct Released {
    std::vector<double> x, y, radius;
    std::vector<KaleidoAction> action;
};

// A stream whose every sample jumps 1000 units from the last (so every test publishes), with a uniform
// offset that moves the true positions relative to the lattice.
Released jumping_stream(const KaleidoPlan& plan, std::size_t n, Rng& data, Rng& noise,
                        std::vector<double>& tx, std::vector<double>& ty) {
    std::vector<double> t(n);
    tx.assign(n, 0);
    ty.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        t[i] = static_cast<double>(i);
        tx[i] = (i % 2 == 0 ? 0.0 : 1000.0) + data.uniform01();
        ty[i] = data.uniform01() - 0.5;
    }
    Released r{std::vector<double>(n), std::vector<double>(n), std::vector<double>(n),
               std::vector<KaleidoAction>(n)};
    std::vector<unsigned char> block(kaleido_stream_bytes(plan));
    kaleido_stream_init(plan, block.data());
    kaleido_run(plan, block.data(), n, t.data(), tx.data(), ty.data(), r.x.data(), r.y.data(),
                r.action.data(), nullptr, r.radius.data(), noise, CancelCheck());
    return r;
}

} // namespace

TEST(KaleidoAccuracy, NinetyFivePercentOfPublicationsLieWithinTheirRadius) {
    // w = 20 with every sample publishing: budgets from (epsilon - epsilon/h)/2 down to exhaustion, so the
    // radii span several orders of magnitude; the ratio distance / radius is what must hold.
    const KaleidoPlan plan(kaleido_params(1.0, 20, 0.05, NAN, 0, 2, 20));
    Rng data(71, 0), noise(72, 0);
    std::vector<double> ratio, tx, ty;
    std::size_t exhausted = 0;
    for (int stream = 0; stream < 400; ++stream) {
        const Released r = jumping_stream(plan, 200, data, noise, tx, ty);
        for (std::size_t i = 0; i < r.x.size(); ++i) {
            if (r.action[i] != KaleidoAction::Published) {
                ASSERT_EQ(r.action[i], KaleidoAction::Exhausted) << i; // every test detects the jump
                ++exhausted;
                continue;
            }
            ASSERT_GT(r.radius[i], 0) << i;
            ratio.push_back(std::hypot(r.x[i] - tx[i], r.y[i] - ty[i]) / r.radius[i]);
        }
    }
    const double n = static_cast<double>(ratio.size());
    ASSERT_GT(n, 40000);
    EXPECT_GT(exhausted, 0u); // small budgets were reached
    const double within =
        static_cast<double>(std::count_if(ratio.begin(), ratio.end(), [](double q) { return q <= 1; })) / n;
    // The bound is tight (the lattice adds 2^-16 noise scales): coverage is 95 % up to sampling error.
    const double se = std::sqrt(0.95 * 0.05 / n);
    EXPECT_GT(within, 0.95 - 4 * se);
    EXPECT_LT(within, 0.95 + 4 * se);
    std::nth_element(ratio.begin(), ratio.begin() + static_cast<std::ptrdiff_t>(0.95 * n), ratio.end());
    const double p95 = ratio[static_cast<std::size_t>(0.95 * n)];
    EXPECT_GT(p95, 0.8) << "the radius is loose";
    EXPECT_LT(p95, 1.02);
    std::printf("coverage %.4f of %.0f publications, empirical 95th percentile %.4f of the radius\n", within,
                n, p95);
}

TEST(KaleidoAccuracy, TheFirstRadiusFollowsFromTheParameters) {
    const KaleidoParams p = kaleido_params(1.0, 60, 0.05, NAN, 50, 2, 0);
    const KaleidoPlan plan(p);
    std::vector<unsigned char> block(kaleido_stream_bytes(plan));
    kaleido_stream_init(plan, block.data());
    Rng rng(73, 0);
    const KaleidoOutput first = kaleido_step(plan, block.data(), 0, 0.3, 0.4, rng);
    ASSERT_EQ(first.action, KaleidoAction::Published);
    // epsilon_pub = (epsilon - epsilon/h)/2 = 0.25: about 4.7439 r / 0.25 = 0.949.
    EXPECT_EQ(first.noise_radius,
              LatticePlanarLaplace::for_budget(p.r, plan.first_publication())->accuracy_radius(0.95));
    EXPECT_NEAR(first.noise_radius, 4.743864518 * 0.05 / 0.25, 2e-4);
}

TEST(KaleidoAccuracy, TheRadiusIsAFunctionOfTheActionsOnly) {
    // Attack: two streams with other positions (and other noise) but the same actions must carry the same
    // radii, or the column would reveal what the points do not.
    const KaleidoPlan plan(kaleido_params(2.0, 10, 0.5, NAN, 0, 3, 10));
    Rng data_a(74, 0), noise_a(75, 0), data_b(76, 0), noise_b(77, 0);
    std::vector<double> tx, ty;
    const Released a = jumping_stream(plan, 300, data_a, noise_a, tx, ty);
    const Released b = jumping_stream(plan, 300, data_b, noise_b, tx, ty);
    ASSERT_EQ(a.action, b.action);
    EXPECT_NE(a.x, b.x);
    EXPECT_EQ(a.radius, b.radius);
}
