#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/noise/discrete.hpp"
#include "core/common/errors.hpp"
#include "core/noise/fast_exact_noise.hpp"
#include "core/noise/noise.hpp"
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
double geometric_pmf(std::int64_t x, double scale) {
    const double q = std::exp(-1 / scale);
    return x < 0 ? 0 : (1 - q) * std::pow(q, static_cast<double>(x));
}

} // namespace

class FastLaplaceScale : public ::testing::TestWithParam<double> {};

// The pmf (chi-square, or KS where the support is too wide to bin), the variance and the mean, each
// shown to have the power to reject a 5% larger scale.
TEST_P(FastLaplaceScale, MatchesThePmfAndRejectsAFivePercentScaleError) {
    const double scale = GetParam();
    Rng rng(71, static_cast<std::uint64_t>(std::log2(scale) * 16 + 64));
    const RationalScale r = rational_scale_at_least(scale);
    std::vector<std::int64_t> xs(300000);
    for (auto& x : xs)
        x = fast_discrete_laplace(rng, r);
    const auto span = static_cast<std::int64_t>(20 * scale + 5);
    for (const double factor : {1.0, 1.05}) {
        double statistic = 0, limit = 0;
        if (span <= 100000) {
            statistic = chi_square_z(
                xs, [&](std::int64_t x) { return laplace_pmf(x, factor * scale); }, -span, span);
            limit = 5;
        } else {
            std::vector<double> ds(xs.begin(), xs.end());
            statistic = ks_sqrt_n(ds, [&](double x) { return laplace_cdf(x, factor * scale); });
            limit = 1.95;
        }
        if (factor == 1.0)
            EXPECT_LT(std::fabs(statistic), limit) << scale;
        else
            EXPECT_GT(statistic, limit) << scale;
    }
    EXPECT_LT(std::fabs(variance_z(xs, laplace_variance(scale), 3)), 5);
    EXPECT_GT(std::fabs(variance_z(xs, laplace_variance(1.05 * scale), 3)), 5);
    EXPECT_LT(std::fabs(gazepriv::test::moments(xs).mean) / std::sqrt(laplace_variance(scale) / xs.size()),
              5);
}

// 0x1.8p51 is t/s = 1.5 * 2^52 / 2: x's 64-bit interval straddles a multiple of the grid about once in
// 2^12 draws, so the exact comparison of x's further bits runs dozens of times.
INSTANTIATE_TEST_SUITE_P(Scales, FastLaplaceScale,
                         ::testing::Values(0.5, 0.7, 3.0, 40.0, 250.0, 1e6, 0x1.8p51));

TEST(FastGeometric, MatchesThePmfAndTheReferenceSampler) {
    Rng rng(42, 0);
    for (const double scale : {2.5, 4.0}) {
        const RationalScale units = rational_scale_at_least(scale);
        std::vector<std::int64_t> fast(300000), reference(300000);
        for (std::size_t i = 0; i < fast.size(); ++i) {
            fast[i] = static_cast<std::int64_t>(fast_discrete_geometric(rng, units));
            reference[i] = static_cast<std::int64_t>(discrete_geometric(rng, units));
        }
        const auto hi = static_cast<std::int64_t>(20 * scale);
        EXPECT_LT(std::fabs(chi_square_z(
                      fast, [&](std::int64_t x) { return geometric_pmf(x, scale); }, 0, hi)),
                  5)
            << scale;
        EXPECT_GT(chi_square_z(
                      fast, [&](std::int64_t x) { return geometric_pmf(x, scale * 1.05); }, 0, hi),
                  5)
            << scale;
        // The reference sampler on the same bins.
        EXPECT_LT(std::fabs(chi_square_z(
                      reference, [&](std::int64_t x) { return geometric_pmf(x, scale); }, 0, hi)),
                  5)
            << scale;
    }
}

TEST(FastGeometric, LargeScalesTakeTheBoundaryPathAndStayExponential) {
    // Scale 0.7 * 2^52 (t about 2^52.5, s = 2): floor(lambda E) needs the digits after the first 64 bits
    // of the fraction once in 2^12 draws, so the exact boundary comparison runs here.
    Rng rng(43, 0);
    const double scale = std::ldexp(0.7, 52);
    const RationalScale units = rational_scale_at_least(scale);
    std::vector<double> xs(200000);
    for (auto& x : xs)
        x = static_cast<double>(fast_discrete_geometric(rng, units)) / scale;
    EXPECT_LT(ks_sqrt_n(xs, [](double x) { return x < 0 ? 0 : 1 - std::exp(-x); }), 1.95);
    EXPECT_GT(ks_sqrt_n(xs, [](double x) { return x < 0 ? 0 : 1 - std::exp(-x / 1.05); }), 1.95);
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

TEST(FastGeometric, EveryNumberOfRejectedTrialsIsExact) {
    // floor((t/s)(k + x)) = q + floor((r + t x)/s) for t k = q s + r, whatever k: no bound on the trials.
    Rng rng(77, 0);
    const std::uint64_t half = 0x8000000000000000ULL;                   // x = 1/2 (to 64 bits)
    EXPECT_EQ(detail::scaled_floor_for_test({3, 4}, 5, half, rng), 4u); // 3/4 * 5.5 = 4.125
    EXPECT_EQ(detail::scaled_floor_for_test({3, 1}, std::uint64_t{1} << 60, half, rng),
              3 * (std::uint64_t{1} << 60) + 1);
    // s = 2^62, t = 2^56 - 1 and k = 2^63: t k / s = (2^56 - 1) 2, and t x / s < 1.
    EXPECT_EQ(detail::scaled_floor_for_test({(std::uint64_t{1} << 56) - 1, std::uint64_t{1} << 62},
                                            std::uint64_t{1} << 63, half, rng),
              ((std::uint64_t{1} << 56) - 1) * 2);
    // t = 3 2^20, s = 2^21 (3/2), k = 1025: 1537.5 + 0.75 = 1538.25.
    EXPECT_EQ(detail::scaled_floor_for_test({3 << 20, 1 << 21}, 1025, half, rng), 1538u);
}

TEST(FastGeometric, DeepTiesAreComparedExactly) {
    // The rest of x equal to 1/3 on 0 to 9 whole 64-bit digits (beyond the inline storage from 2 on),
    // one deviate reused: the comparison must still give 2/3.
    Rng rng(78, 0);
    const std::size_t n = 200000;
    const double p = 2.0 / 3.0;
    const double hits = static_cast<double>(detail::rest_at_least_a_third_for_test(9, n, rng));
    EXPECT_LT(std::fabs(hits / n - p) / std::sqrt(p * (1 - p) / n), 5);
    EXPECT_GT(std::fabs(hits / n - 1.05 * p) / std::sqrt(p * (1 - p) / n), 5); // power: 5% off fails
}

TEST(FastLaplace, UnsupportedScalesFallBackToTheSameDistribution) {
    Rng rng(74, 0);
    const RationalScale odd{7, 3}; // s not a power of two
    const double scale = 7.0 / 3.0;
    std::vector<std::int64_t> xs(200000);
    for (auto& x : xs)
        x = fast_discrete_laplace(rng, odd);
    EXPECT_LT(std::fabs(chi_square_z(
                  xs, [&](std::int64_t x) { return laplace_pmf(x, scale); }, -60, 60)),
              5);
    EXPECT_GT(chi_square_z(
                  xs, [&](std::int64_t x) { return laplace_pmf(x, 1.05 * scale); }, -60, 60),
              5);
}

TEST(FastGridLaplace, ReleaseMatchesTheGridMechanism) {
    for (const GridLaplace& m :
         {GridLaplace::mechanism(1.0, 0.5, 1), GridLaplace::mechanism(2.0, 0.5, 1000)}) {
        Rng rng(75, 0);
        std::vector<double> noise(300000);
        const double center = std::nearbyint(10.0 / 3.0 / m.grid()) * m.grid();
        for (auto& v : noise) {
            const double y = fast_grid_laplace_release(m, 10.0 / 3.0, rng);
            ASSERT_EQ(y / m.grid(), std::nearbyint(y / m.grid())); // on the grid
            v = y - center;
        }
        EXPECT_LT(ks_sqrt_n(noise, [&](double x) { return laplace_cdf(x, m.scale()); }), 1.95);
        EXPECT_GT(ks_sqrt_n(noise, [&](double x) { return laplace_cdf(x, 1.05 * m.scale()); }), 1.95);
        EXPECT_LT(std::fabs(variance_z(noise, 2 * m.scale() * m.scale(), 3)), 5);
        EXPECT_GT(std::fabs(variance_z(noise, 2 * 1.05 * m.scale() * 1.05 * m.scale(), 3)), 5);
    }
    const GridLaplace m = GridLaplace::mechanism(2.0, 0.5, 1000);
    Rng rng(79, 0);
    // Array release, in place.
    std::vector<double> v(1000, 1.25);
    fast_grid_laplace_release(m, v.data(), v.data(), v.size(), rng);
    double mean = 0;
    for (double y : v)
        mean += y / v.size();
    EXPECT_NEAR(mean, 1.25, 5 * std::sqrt(2.0) * m.scale() / std::sqrt(1000.0));
    // Huge epsilon: the value itself (rounded to a grid far below its precision).
    const GridLaplace fine = GridLaplace::mechanism(1.0, 1e12, 1);
    EXPECT_NEAR(fast_grid_laplace_release(fine, 3.14159, rng), 3.14159, 1e-9);
    // Values far from zero in grid units take the general path, with its errors.
    EXPECT_NEAR(fast_grid_laplace_release(fine, 1e5, rng), 1e5, 1e-6); // 1.2e29 grid steps
    EXPECT_THROW(fast_grid_laplace_release(m, std::nan(""), rng), InvalidArgument);
    EXPECT_THROW(fast_grid_laplace_release(m, INFINITY, rng), InvalidArgument);
    EXPECT_THROW(fast_grid_laplace_release(GridLaplace::with_scale(1e-10), 1e300, rng), InvalidArgument);
}

TEST(FastGridExponential, RadiusIsPlanarLaplaceOnTheSameGridAsTheReference) {
    Rng rng(44, 0);
    const int n = 300000;
    std::vector<double> xs(n);
    const FastGridExponential half = FastGridExponential::with_mean(1.0);
    for (auto& x : xs) {
        x = fast_planar_laplace_radius(rng, 1.0);
        ASSERT_EQ(std::nearbyint(x / half.grid()), x / half.grid()); // on the 2^-40 grid
    }
    EXPECT_EQ(half.grid(), std::ldexp(1.0, -40));
    // C(rho) = 1 - (1 + rho) e^-rho for epsilon = 1; C^-1(0.5) = 1.67835 (doc/privacy/noise.md §5).
    EXPECT_LT(ks_sqrt_n(xs, [](double r) { return r < 0 ? 0 : 1 - (1 + r) * std::exp(-r); }), 1.95);
    EXPECT_GT(ks_sqrt_n(xs, [](double r) { return r < 0 ? 0 : 1 - (1 + r / 1.05) * std::exp(-r / 1.05); }),
              1.95);
    EXPECT_NEAR(gazepriv::test::moments(xs).mean, 2.0, 5 * std::sqrt(2.0 / n));
    for (auto [p, q] : std::vector<std::pair<double, double>>{
             {0.1, 0.53181}, {0.5, 1.67835}, {0.9, 3.88972}, {0.99, 6.63835}}) {
        double below = 0;
        for (double x : xs)
            below += x <= q;
        EXPECT_NEAR(below / n, p, 5 * std::sqrt(p * (1 - p) / n)) << p;
    }
    // The reference sampler draws the same distribution (two-sample check through the same CDF).
    std::vector<double> ref(100000);
    for (auto& x : ref)
        x = planar_laplace_radius(rng, 1.0);
    EXPECT_LT(ks_sqrt_n(ref, [](double r) { return r < 0 ? 0 : 1 - (1 + r) * std::exp(-r); }), 1.95);
    EXPECT_THROW(fast_planar_laplace_radius(rng, 0), InvalidArgument);
    EXPECT_THROW(FastGridExponential::with_mean(NAN), InvalidArgument);
}

TEST(FastGridExponential, BitLevelHelpersMatchTheReference) {
    Rng rng(46, 0);
    for (int i = 0; i < 100000; ++i) {
        const double v = std::ldexp(1 + rng.uniform01(), static_cast<int>(rng.uniform_below(200)) - 100);
        ASSERT_EQ(fast_grid_below(v, 40), grid_below(v, 40)) << v;
        ASSERT_EQ(fast_grid_below(v, 16), grid_below(v, 16)) << v;
        const double scale = std::ldexp(1 + rng.uniform01(), static_cast<int>(rng.uniform_below(52)));
        const RationalScale a = fast_rational_scale_at_least(scale), b = rational_scale_at_least(scale);
        ASSERT_EQ(a.t, b.t) << scale;
        ASSERT_EQ(a.s, b.s) << scale;
    }
    for (double v : {0x1.0p-1074, 0x1.0p-1030, 1e300, 0x1.0p52})
        EXPECT_EQ(fast_grid_below(v, 40), grid_below(v, 40)) << v;
    EXPECT_EQ(fast_rational_scale_at_least(0.3).t, rational_scale_at_least(0.3).t);
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
