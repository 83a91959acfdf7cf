#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <vector>

#include "core/common/errors.hpp"
#include "core/noise/random.hpp"
#include "core/series/real_fft.hpp"

using namespace gazepriv::core;

TEST(RealFft, ForwardIsTheUnnormalisedDftAndInverseRoundTrips) {
    Rng rng(81, 0);
    for (std::size_t n : {1u, 2u, 7u, 32u, 33u, 100u, 3600u}) {
        auto fft = real_fft(n);
        std::vector<double> x(n);
        for (auto& v : x)
            v = rng.uniform01() * 10 - 5;
        std::copy(x.begin(), x.end(), fft->signal());
        fft->forward();
        // Against the textbook DFT F_j = sum_t x_t e^{-2 pi i j t / n}.
        for (std::size_t j = 0; j < fft->bins(); j += std::max<std::size_t>(1, n / 7)) {
            std::complex<double> f = 0;
            for (std::size_t t = 0; t < n; ++t)
                f += x[t] * std::polar(1.0, -2 * M_PI * double(j) * double(t) / double(n));
            EXPECT_NEAR(std::abs(fft->spectrum()[j] - f), 0, 1e-9 * n) << "n=" << n << " j=" << j;
        }
        EXPECT_EQ(fft->spectrum()[0].imag(), 0.0);
        fft->inverse();
        for (std::size_t t = 0; t < n; ++t)
            ASSERT_NEAR(fft->signal()[t] / double(n), x[t], 1e-12) << "n=" << n;
    }
}

TEST(RealFft, PlansAreCachedPerSizeAndHandlesOutliveEviction) {
    auto a = real_fft(64);
    EXPECT_EQ(real_fft(64).get(), a.get()); // made once, reused
    for (std::size_t n = 1000; n < 1000 + kRealFftCacheSizes + 5; ++n)
        real_fft(n);
    EXPECT_LE(real_fft_cached_sizes(), kRealFftCacheSizes);
    EXPECT_NE(real_fft(64).get(), a.get()); // evicted and made again
    // The evicted handle still works.
    std::fill(a->signal(), a->signal() + 64, 1.0);
    a->forward();
    EXPECT_DOUBLE_EQ(a->spectrum()[0].real(), 64.0);
    EXPECT_THROW(real_fft(0), InvalidArgument);
}
