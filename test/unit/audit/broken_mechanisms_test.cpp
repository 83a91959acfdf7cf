#include <gtest/gtest.h>

#include <cmath>

#include "broken_mechanisms.hpp"
#include "core/noise/noise.hpp"
#include "loss.hpp"

using namespace gazepriv::audit;
using gazepriv::core::Rng;

// Mironov's reachability test: every output of the textbook sampler is reachable from its own input, and
// many outputs of x = 0 are not reachable from x = 1 (the attack the audit's control relies on).
TEST(AuditControls, TextbookLaplaceReachability) {
    Rng rng(20, 1); // a test of the attack's arithmetic, not of noise
    int unreachable_from_1 = 0;
    for (int i = 0; i < 2000; ++i) {
        const double y = textbook_laplace(0, 10, rng);
        EXPECT_TRUE(textbook_laplace_reachable(y, 0, 10)) << y;
        unreachable_from_1 += !textbook_laplace_reachable(y, 1, 10);
        const double z = textbook_laplace(1, 10, rng);
        EXPECT_TRUE(textbook_laplace_reachable(z, 1, 10)) << z;
    }
    EXPECT_GT(unreachable_from_1, 1000);
    // The grid mechanism's outputs say nothing of the kind: on its 2^-37 grid, both inputs reach the same
    // set.
    const auto grid = gazepriv::core::GridLaplace::mechanism(1, 0.1, 1);
    for (int i = 0; i < 200; ++i) {
        const double y = grid.release(0, rng);
        EXPECT_EQ(std::ldexp(y, 37), std::floor(std::ldexp(y, 37)));
    }
}

TEST(AuditControls, KaleidoLossOfIdenticalStreamsIsZeroAndAntisymmetric) {
    const std::vector<Point> d{{0, 0}, {0, 0}, {0, 0}}, d_prime{{0, 0}, {1, 0}, {1, 0}};
    const std::vector<StreamOutput> out{{0.5, 0.2, StreamAction::Published, 1},
                                        {0.5, 0.2, StreamAction::Reused, 0.5},
                                        {3, 1, StreamAction::Published, 0.75}};
    EXPECT_EQ(kaleido_loss(out, d, d, 1, 1, 0.5), 0);
    EXPECT_NEAR(kaleido_loss(out, d, d_prime, 1, 1, 0.5), -kaleido_loss(out, d_prime, d, 1, 1, 0.5), 1e-12);
    // The publication at sample 2 (budget 0.75 - 0.5) is at (3, 1): nearer to d' by 0.83 r.
    const double planar = 0.25 * (std::hypot(2.0, 1.0) - std::hypot(3.0, 1.0));
    EXPECT_LT(kaleido_loss(out, d, d_prime, 1, 1, 0.5), 0);
    EXPECT_LT(planar, 0);
}

TEST(AuditControls, LiteralKaleidoTestsEverySampleOfASlowStream) {
    Rng rng(21, 1);
    const LiteralKaleido literal{4, 1, 1, 100, 2, 6};
    EXPECT_DOUBLE_EQ(literal.epsilon_test(), 2); // n_test = ceil(6 / 6) = 1 at 60 Hz
    std::vector<double> t;
    std::vector<Point> g;
    for (int i = 0; i < 8; ++i) {
        t.push_back(100.0 * i);
        g.push_back({0, 0});
    }
    const std::vector<StreamOutput> out = literal.run(t, g, rng);
    double window = 0;
    for (int i = 1; i <= 6; ++i)
        window += out[static_cast<std::size_t>(i)].epsilon_spent;
    EXPECT_GE(window, 6 * 2.0); // six tests of epsilon / 2 each in one window: the overspend
}
