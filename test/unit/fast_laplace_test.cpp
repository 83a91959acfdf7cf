#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/discrete.hpp"
#include "core/errors.hpp"
#include "core/fast_laplace.hpp"
#include "core/noise.hpp"
#include "stats.hpp"

using namespace gazepriv::core;
using gazepriv::test::chi_square_z;
using gazepriv::test::ks_sqrt_n;
using gazepriv::test::variance_z;

namespace {

double laplace_pmf(std::int64_t x, double scale) {
    const double q = std::exp(-1 / scale);
    return (1 - q) / (1 + q) * std::pow(q, std::fabs(static_cast<double>(x)));
}
double laplace_variance(double scale) {
    const double q = std::exp(-1 / scale), one_minus_q = -std::expm1(-1 / scale); // exact for huge scales
    return 2 * q / (one_minus_q * one_minus_q);
}
double laplace_cdf(double x, double b) {
    return x < 0 ? 0.5 * std::exp(x / b) : 1 - 0.5 * std::exp(-x / b);
}

} // namespace

class FastLaplaceScale : public ::testing::TestWithParam<double> {};

TEST_P(FastLaplaceScale, MatchesThePmfAndRejectsAFivePercentScaleError) {
    const double scale = GetParam();
    Rng rng(71, static_cast<std::uint64_t>(std::log2(scale) * 16 + 64));
    const RationalScale r = rational_scale_at_least(scale);
    std::vector<std::int64_t> xs(300000);
    for (auto& x : xs)
        x = discrete_laplace_fast(rng, r);
    const auto span = static_cast<std::int64_t>(20 * scale + 5);
    if (span <= 100000) {
        EXPECT_LT(std::fabs(chi_square_z(
                      xs, [&](std::int64_t x) { return laplace_pmf(x, scale); }, -span, span)),
                  5);
    } else {
        std::vector<double> ds(xs.begin(), xs.end());
        EXPECT_LT(ks_sqrt_n(ds, [&](double x) { return laplace_cdf(x, scale); }), 1.95);
    }
    EXPECT_LT(std::fabs(variance_z(xs, laplace_variance(scale), 3)), 5);
    EXPECT_LT(std::fabs(gazepriv::test::moments(xs).mean) / std::sqrt(laplace_variance(scale) / xs.size()),
              5);
    EXPECT_GT(std::fabs(variance_z(xs, laplace_variance(1.05 * scale), 3)), 5);
}

// 0x1.8p51 is t/s = 1.5 * 2^52 / 2: x's 64-bit interval straddles a multiple of the grid about once in
// 2^12 draws, so the exact comparison of x's further bits runs dozens of times.
INSTANTIATE_TEST_SUITE_P(Scales, FastLaplaceScale, ::testing::Values(0.5, 3.0, 250.0, 1e6, 0x1.8p51));

TEST(FastGeometric, MatchesThePmfAndTheCksSampler) {
    Rng rng(72, 0);
    const double scale = 4.0;
    const double q = std::exp(-1 / scale);
    const RationalScale r = rational_scale_at_least(scale);
    std::vector<std::int64_t> fast(300000), cks(300000);
    for (std::size_t i = 0; i < fast.size(); ++i) {
        fast[i] = static_cast<std::int64_t>(discrete_geometric_fast(rng, r));
        cks[i] = static_cast<std::int64_t>(discrete_geometric(rng, r));
    }
    const auto pmf = [&](std::int64_t x) { return x < 0 ? 0 : (1 - q) * std::pow(q, x); };
    EXPECT_LT(std::fabs(chi_square_z(fast, pmf, 0, 80)), 5);
    EXPECT_LT(std::fabs(chi_square_z(cks, pmf, 0, 80)), 5);
}

TEST(FastGeometric, ExactAtAGridBoundaryInsideTheFirstWord) {
    // t = 3, s = 1: x's first word 0x5555...5 puts 3x within 3 * 2^-64 below 1, so floor(3x) is 1
    // exactly when the rest of x is >= 1/3 (probability 2/3), else 0.
    Rng rng(73, 0);
    const RationalScale three{3, 1};
    const int n = 300000;
    int ones = 0;
    for (int i = 0; i < n; ++i) {
        const std::uint64_t g = detail::scaled_floor_for_test(three, 0, 0x5555555555555555ULL, rng);
        ASSERT_LE(g, 1u);
        ones += static_cast<int>(g);
    }
    const double p = 2.0 / 3.0;
    EXPECT_LT(std::fabs(ones / double(n) - p) / std::sqrt(p * (1 - p) / n), 5);
    // With k whole units added the answer moves by k t / s exactly.
    EXPECT_GE(detail::scaled_floor_for_test(three, 5, 0x5555555555555555ULL, rng), 15u);
    // A first word far from a boundary decides alone.
    EXPECT_EQ(detail::scaled_floor_for_test(three, 0, 0x8000000000000000ULL, rng), 1u); // floor(1.5)
    EXPECT_EQ(detail::scaled_floor_for_test(RationalScale{3, 4}, 0, 0xFFFFFFFFFFFFFFFFULL, rng), 0u);
}

TEST(FastLaplace, UnsupportedScalesFallBackToTheSameDistribution) {
    Rng rng(74, 0);
    const RationalScale odd{7, 3}; // s not a power of two
    const double scale = 7.0 / 3.0;
    std::vector<std::int64_t> xs(200000);
    for (auto& x : xs)
        x = discrete_laplace_fast(rng, odd);
    EXPECT_LT(std::fabs(chi_square_z(
                  xs, [&](std::int64_t x) { return laplace_pmf(x, scale); }, -60, 60)),
              5);
}

TEST(FastLaplace, ReleaseMatchesTheGridMechanism) {
    const GridLaplace m = GridLaplace::mechanism(2.0, 0.5, 1000);
    Rng rng(75, 0);
    std::vector<double> noise(300000);
    for (auto& v : noise) {
        const double y = release_fast(m, 10.0 / 3.0, rng);
        ASSERT_EQ(y / m.grid(), std::nearbyint(y / m.grid())); // on the grid
        v = y - std::nearbyint(10.0 / 3.0 / m.grid()) * m.grid();
    }
    EXPECT_LT(ks_sqrt_n(noise, [&](double x) { return laplace_cdf(x, m.scale()); }), 1.95);
    EXPECT_LT(std::fabs(variance_z(noise, 2 * m.scale() * m.scale(), 3)), 5);
    EXPECT_GT(std::fabs(variance_z(noise, 2 * 1.05 * m.scale() * 1.05 * m.scale(), 3)), 5);
    // Bulk release, in place.
    std::vector<double> v(1000, 1.25);
    release_fast(m, v.data(), v.data(), v.size(), rng);
    double mean = 0;
    for (double y : v)
        mean += y / v.size();
    EXPECT_NEAR(mean, 1.25, 5 * std::sqrt(2.0) * m.scale() / std::sqrt(1000.0));
    // Huge epsilon: the value itself (rounded to a grid far below its precision).
    const GridLaplace fine = GridLaplace::mechanism(1.0, 1e12, 1);
    EXPECT_NEAR(release_fast(fine, 3.14159, rng), 3.14159, 1e-9);
    // Values far from zero in grid units take the general path, with its errors.
    EXPECT_NEAR(release_fast(fine, 1e5, rng), 1e5, 1e-6); // 1.2e29 grid steps
    EXPECT_THROW(release_fast(m, std::nan(""), rng), InvalidArgument);
    EXPECT_THROW(release_fast(m, INFINITY, rng), InvalidArgument);
}

namespace {

// Reference parity of the decreasing run for the same heads, with 64-bit deviates (ties below the
// heads have probability 2^-48 per comparison: negligible here).
bool reference_run_is_even(std::uint64_t heads, Rng& rng) {
    std::uint64_t previous = 0;
    bool even = true;
    for (int i = 0;; ++i) {
        const std::uint64_t head = i < 4 ? (heads >> (48 - 16 * i)) & 0xFFFF : rng.next_u64() >> 48;
        const std::uint64_t u = (head << 48) | (rng.next_u64() >> 16);
        if (i > 0) {
            if (!(u < previous))
                return even;
            even = !even;
        }
        previous = u;
    }
}

} // namespace

TEST(FastGeometric, TiesAndLongRunsOfTheHeadsAreSettledExactly) {
    // Heads that tie at the deciding comparison, or describe a run longer than three, take the exact
    // slow path; its parity frequencies must match a reference with full-width deviates.
    const std::uint64_t cases[] = {
        0x8000'8000'9000'1000ULL, // x and U1 tie; U2 > U1 ends the run: even exactly when U1 > x (1/2)
        0x9000'5000'5000'7000ULL, // U1 and U2 tie after x > U1: even exactly when U2 < U1 (1/2)
        0x9000'5000'3000'3000ULL, // U2 and U3 tie after x > U1 > U2
        0xF000'C000'8000'4000ULL, // x > U1 > U2 > U3: the run goes on
        0x0100'00FF'00FE'00FDULL, // a long run of nearly equal heads
    };
    Rng rng(76, 0);
    const int n = 200000;
    for (std::uint64_t heads : cases) {
        int fast = 0, reference = 0;
        for (int i = 0; i < n; ++i) {
            fast += detail::run_is_even_for_test(heads, rng);
            reference += reference_run_is_even(heads, rng);
        }
        const double p = (fast + reference) / (2.0 * n);
        const double z = (fast - reference) / std::sqrt(2.0 * n * p * (1 - p) + 1e-12);
        EXPECT_LT(std::fabs(z), 5) << std::hex << heads << std::dec << " fast " << fast << " reference "
                                   << reference;
    }
}
