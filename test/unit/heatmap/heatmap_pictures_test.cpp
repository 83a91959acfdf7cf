#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <tuple>
#include <vector>

#include "core/common/errors.hpp"
#include "core/heatmap/gaussian_blur.hpp"
#include "core/heatmap/heatmap_metrics.hpp"
#include "core/heatmap/heatmap_png.hpp"

using namespace gazepriv::core;

TEST(GaussianBlur, AnImpulseBecomesTheSampledGaussianKernel) {
    const int w = 61, h = 41;
    const double sigma = 3.5;
    std::vector<double> v(w * h, 0.0);
    v[20 * w + 30] = 1;
    gaussian_blur(v.data(), w, h, sigma, CancelCheck());
    const int radius = static_cast<int>(std::ceil(6 * sigma));
    double total = 0;
    for (int k = -radius; k <= radius; ++k)
        total += std::exp(-0.5 * k * k / (sigma * sigma));
    double mass = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int dx = x - 30, dy = y - 20;
            double expected = 0;
            if (std::abs(dx) <= radius && std::abs(dy) <= radius)
                expected = std::exp(-0.5 * (dx * dx + dy * dy) / (sigma * sigma)) / (total * total);
            ASSERT_NEAR(v[y * w + x], expected, 2e-7) << x << "," << y;
            mass += v[y * w + x];
        }
    EXPECT_NEAR(mass, 1, 1e-5);
}

// The buffers of the last geometry are reused: a blur gives bit for bit the same map whatever ran before it
// (the same geometry, another one, or a release's large map).
TEST(GaussianBlur, ReusedBuffersGiveTheSameResultAsFreshOnes) {
    auto map = [](int w, int h, unsigned seed) {
        std::vector<double> v(static_cast<std::size_t>(w) * h);
        for (std::size_t i = 0; i < v.size(); ++i)
            v[i] = static_cast<double>((i * 2654435761u + seed) % 97) - 40;
        return v;
    };
    std::vector<double> first = map(83, 57, 1);
    gaussian_blur(first.data(), 83, 57, 4, CancelCheck());
    for (auto [w, h, sigma] : {std::tuple{83, 57, 4.0}, std::tuple{40, 30, 2.0}, std::tuple{83, 57, 4.0},
                               std::tuple{83, 57, 4.0}}) {
        std::vector<double> other = map(w, h, 2); // different content through the same buffers
        gaussian_blur(other.data(), w, h, sigma, CancelCheck());
        std::vector<double> again = map(83, 57, 1);
        gaussian_blur(again.data(), 83, 57, 4, CancelCheck());
        ASSERT_EQ(again, first) << w << " x " << h;
    }
}

TEST(GaussianBlur, MassBlurredOffTheMapIsLostAndSigmaZeroIsIdentity) {
    std::vector<double> v(10 * 10, 0.0);
    v[0] = 4; // a corner: three quarters of the kernel fall outside
    std::vector<double> same = v;
    gaussian_blur(same.data(), 10, 10, 0, CancelCheck());
    EXPECT_EQ(same, v);
    gaussian_blur(v.data(), 10, 10, 2, CancelCheck());
    double mass = 0;
    for (double x : v)
        mass += x;
    double total = 0, inside = 0; // one axis: the kernel's weight within the map, seen from the corner
    for (int k = -12; k <= 12; ++k) {
        total += std::exp(-k * k / 8.0);
        inside += k >= 0 ? std::exp(-k * k / 8.0) : 0;
    }
    EXPECT_NEAR(mass, 4 * (inside / total) * (inside / total), 1e-5);
    EXPECT_NEAR(v[1], v[10], 1e-6); // symmetric in x and y
}

TEST(GaussianBlur, WideKernelsOnSmallMapsAndFftSizes) {
    std::vector<double> v(3 * 2, 1.0);
    gaussian_blur(v.data(), 3, 2, 1000, CancelCheck()); // the kernel is almost flat over the map
    const double flat = 6 / (2 * M_PI * 1000 * 1000);
    for (double x : v)
        EXPECT_NEAR(x / flat, 1, 1e-3);
    EXPECT_EQ(fast_fft_size(1), 8);
    EXPECT_EQ(fast_fft_size(11), 16);
    EXPECT_EQ(fast_fft_size(1680), 1680); // 2^4 * 3 * 5 * 7
    EXPECT_EQ(fast_fft_size(1681), 1728); // 2^6 * 3^3
    EXPECT_EQ(fast_fft_size(1860), 1920); // not 1875 = 3 * 5^4
    EXPECT_THROW(gaussian_blur(v.data(), 3, 2, -1, CancelCheck()), InvalidArgument);
}

TEST(HeatmapMetrics, MseAndPearson) {
    const double a[] = {0, 1, 2, 3}, b[] = {1, 3, 5, 7}, c[] = {3, 2, 1, 0}, k[] = {5, 5, 5, 5};
    EXPECT_DOUBLE_EQ(heatmap_mse(a, a, 4), 0);
    EXPECT_DOUBLE_EQ(heatmap_mse(a, b, 4), (1 + 4 + 9 + 16) / 4.0);
    EXPECT_NEAR(heatmap_cc(a, b, 4), 1, 1e-15);
    EXPECT_NEAR(heatmap_cc(a, c, 4), -1, 1e-15);
    EXPECT_TRUE(std::isnan(heatmap_cc(a, k, 4)));
    EXPECT_THROW(heatmap_mse(a, b, 0), InvalidArgument);
}

TEST(HeatmapPng, IsAValidRgbaPngOfTheScreenExtent) {
    const GazeGrid grid = make_grid(5, 3, 2, kMaxHeatmapCells); // 3 x 2 cells
    const double values[] = {0, 1, 2, -1, 4, NAN};
    const std::vector<std::uint8_t> png = render_heatmap_png(grid, values, Colormap::Gray, true);
    const std::uint8_t signature[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    ASSERT_GT(png.size(), 57u);
    EXPECT_TRUE(std::equal(signature, signature + 8, png.begin()));
    auto u32 = [&](std::size_t at) {
        return std::uint32_t(png[at]) << 24 | png[at + 1] << 16 | png[at + 2] << 8 | png[at + 3];
    };
    EXPECT_EQ(u32(16), 5u); // IHDR width: the screen extent, not the cells
    EXPECT_EQ(u32(20), 3u);
    EXPECT_EQ(png[24], 8);
    EXPECT_EQ(png[25], 6);
    // Inflate IDAT and check the pixels: value / max through gray, alpha = value / max, negatives and NaN at
    // 0.
    const std::size_t idat = 8 + 25;
    const std::uint32_t length = u32(idat);
    std::vector<std::uint8_t> raw(3 * (1 + 5 * 4));
    uLongf raw_size = raw.size();
    ASSERT_EQ(uncompress(raw.data(), &raw_size, png.data() + idat + 8, length), Z_OK);
    ASSERT_EQ(raw_size, raw.size());
    auto pixel = [&](int x, int y) { return raw.data() + y * 21 + 1 + x * 4; };
    EXPECT_EQ(pixel(0, 0)[0], 0);
    EXPECT_EQ(pixel(2, 0)[0], 64); // cell 1 (value 1 of max 4)
    EXPECT_EQ(pixel(2, 0)[3], 64);
    EXPECT_EQ(pixel(4, 1)[0], 128); // cell 2
    EXPECT_EQ(pixel(0, 2)[0], 0);   // negative noise clamps to 0
    EXPECT_EQ(pixel(2, 2)[0], 255); // the maximum
    EXPECT_EQ(pixel(4, 2)[3], 0);   // NaN
    EXPECT_THROW(parse_colormap("jet"), InvalidArgument);
    EXPECT_EQ(parse_colormap("viridis"), Colormap::Viridis);
}
