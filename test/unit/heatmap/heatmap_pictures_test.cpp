#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <vector>

#include "core/common/errors.hpp"
#include "core/heatmap/gaussian_blur.hpp"
#include "core/heatmap/heatmap_metrics.hpp"
#include "core/heatmap/heatmap_png.hpp"
#include "core/heatmap/significance.hpp"
#include "core/heatmap/stimulus_image.hpp"

#include <jpeglib.h>

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
    PngOptions gray;
    gray.colormap = Colormap::Gray;
    const std::vector<std::uint8_t> png = render_heatmap_png(grid, values, gray);
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
    EXPECT_THROW(parse_colormap("turbo"), InvalidArgument);
    EXPECT_EQ(parse_colormap("viridis"), Colormap::Viridis);
    EXPECT_EQ(parse_colormap("jet"), Colormap::Jet);
}

namespace {

// Decodes a PNG with libpng (an independent reader of what we write).
RgbaImage read_png(const std::vector<std::uint8_t>& png) {
    return decode_stimulus(png.data(), png.size(), 1u << 30, "test");
}

const std::uint8_t* at(const RgbaImage& image, std::uint32_t x, std::uint32_t y) {
    return image.rgba.data() + (std::size_t{y} * image.width + x) * 4;
}

// A JPEG of width x height pixels of one colour, by libjpeg.
std::vector<std::uint8_t> solid_jpeg(int width, int height, std::uint8_t r, std::uint8_t g, std::uint8_t b,
                                     bool progressive = false) {
    jpeg_compress_struct info;
    jpeg_error_mgr error;
    info.err = jpeg_std_error(&error);
    jpeg_create_compress(&info);
    unsigned char* buffer = nullptr;
    unsigned long size = 0;
    jpeg_mem_dest(&info, &buffer, &size);
    info.image_width = width;
    info.image_height = height;
    info.input_components = 3;
    info.in_color_space = JCS_RGB;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, 95, TRUE);
    if (progressive)
        jpeg_simple_progression(&info); // about ten scans: under the decoder's limit of 256
    jpeg_start_compress(&info, TRUE);
    std::vector<std::uint8_t> row(width * 3);
    for (int x = 0; x < width; ++x)
        row[3 * x] = r, row[3 * x + 1] = g, row[3 * x + 2] = b;
    while (info.next_scanline < info.image_height) {
        JSAMPROW p = row.data();
        jpeg_write_scanlines(&info, &p, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    std::vector<std::uint8_t> out(buffer, buffer + size);
    std::free(buffer);
    return out;
}

} // namespace

TEST(HeatmapPng, FixedScaleOverlayColourBarAndMask) {
    const GazeGrid grid = make_grid(4, 2, 1, kMaxHeatmapCells);
    const double values[] = {0, 1, 2, 3, 4, 5, 6, 7};
    PngOptions o;
    o.colormap = Colormap::Gray;
    o.alpha_from_value = false;
    o.vmin = 2;
    o.vmax = 6;
    RgbaImage plain = read_png(render_heatmap_png(grid, values, o));
    ASSERT_EQ(plain.width, 4u);
    EXPECT_EQ(at(plain, 1, 0)[0], 0);   // below vmin
    EXPECT_EQ(at(plain, 0, 1)[0], 128); // 4 of [2, 6]
    EXPECT_EQ(at(plain, 3, 1)[0], 255); // above vmax

    // over a red stimulus at opacity 0.5: half heat, half red, opaque
    RgbaImage red;
    red.width = red.height = 1;
    red.rgba = {255, 0, 0, 255};
    o.stimulus = &red;
    o.opacity = 0.5;
    RgbaImage over = read_png(render_heatmap_png(grid, values, o));
    EXPECT_EQ(at(over, 1, 0)[0], 128);
    EXPECT_EQ(at(over, 1, 0)[1], 0);
    EXPECT_EQ(at(over, 3, 1)[0], 255);
    EXPECT_EQ(at(over, 3, 1)[1], 128);
    EXPECT_EQ(at(over, 3, 1)[3], 255);

    // the colour bar adds a white panel to the right, the map keeps its pixels
    o.stimulus = nullptr;
    o.opacity = 1;
    o.colorbar = true;
    o.noise_sd = 0.25;
    RgbaImage bar = read_png(render_heatmap_png(grid, values, o));
    EXPECT_EQ(bar.width, 4u + 52u);
    EXPECT_EQ(bar.height, 2u);
    EXPECT_EQ(at(bar, 0, 1)[0], 128);
    EXPECT_EQ(at(bar, 55, 0)[0], 255);

    // the mask: cells above the threshold keep their colour or are outlined in white, the others fade
    o.colorbar = false;
    o.alpha_from_value = false;
    o.threshold = 4.5;
    RgbaImage masked = read_png(render_heatmap_png(grid, values, o));
    EXPECT_EQ(at(masked, 0, 0)[3], 77); // faded: 0.3 opacity
    EXPECT_EQ(at(masked, 2, 1)[3], 255);

    o.vmin = 6;
    EXPECT_THROW(render_heatmap_png(grid, values, o), InvalidArgument);
    o.vmin = NAN;
    o.vmax = INFINITY;
    EXPECT_THROW(render_heatmap_png(grid, values, o), InvalidArgument);
    o.vmax = NAN;
    o.opacity = 1.5;
    EXPECT_THROW(render_heatmap_png(grid, values, o), InvalidArgument);
}

TEST(StimulusImage, DecodesPngAndJpegAndRefusesBadOrHugeImages) {
    const std::uint8_t pixels[] = {10, 20, 30, 255, 40, 50, 60, 128};
    const std::vector<std::uint8_t> png = encode_png_rgba(2, 1, pixels);
    RgbaImage image = decode_stimulus(png.data(), png.size(), 2, "limit");
    EXPECT_EQ(image.width, 2u);
    EXPECT_EQ(std::vector<std::uint8_t>(image.rgba.begin(), image.rgba.end()),
              std::vector<std::uint8_t>(pixels, pixels + 8));
    EXPECT_THROW(decode_stimulus(png.data(), png.size(), 1, "limit"), LimitExceeded);
    std::vector<std::uint8_t> broken = png;
    broken[broken.size() - 20] ^= 0xff; // inside IDAT: the CRC no longer matches
    EXPECT_THROW(decode_stimulus(broken.data(), broken.size(), 2, "limit"), InvalidArgument);
    EXPECT_THROW(decode_stimulus(png.data(), 20, 2, "limit"), InvalidArgument); // truncated

    const std::vector<std::uint8_t> jpeg = solid_jpeg(16, 8, 200, 100, 50);
    image = decode_stimulus(jpeg.data(), jpeg.size(), 128, "limit");
    EXPECT_EQ(image.width, 16u);
    EXPECT_EQ(image.height, 8u);
    EXPECT_NEAR(at(image, 5, 5)[0], 200, 3);
    EXPECT_NEAR(at(image, 5, 5)[2], 50, 3);
    EXPECT_EQ(at(image, 5, 5)[3], 255);
    EXPECT_THROW(decode_stimulus(jpeg.data(), jpeg.size(), 127, "limit"), LimitExceeded);
    const std::vector<std::uint8_t> progressive = solid_jpeg(16, 8, 200, 100, 50, true);
    image = decode_stimulus(progressive.data(), progressive.size(), 128, "limit");
    EXPECT_NEAR(at(image, 15, 7)[1], 100, 3);
    EXPECT_THROW(decode_stimulus(jpeg.data(), jpeg.size() / 2, 128, "limit"), InvalidArgument); // truncated
    const std::uint8_t junk[] = {0xff, 0xd8, 0xff, 0, 1, 2, 3};
    EXPECT_THROW(decode_stimulus(junk, sizeof junk, 128, "limit"), InvalidArgument);
    EXPECT_THROW(decode_stimulus(junk + 3, 4, 128, "limit"), InvalidArgument); // neither format
}

TEST(Significance, ThresholdsFromTheNoiseAndTheCorrection) {
    EXPECT_NEAR(normal_upper_quantile(0.05), 1.6448536269514722, 1e-9);
    EXPECT_NEAR(normal_upper_quantile(1e-7), 5.199337582, 1e-6);
    MapNoise gaussian{true, 0.01, 0};
    EXPECT_NEAR(significance_threshold(gaussian, 0.05, 100, Correction::PerCell), 0.016448536, 1e-8);
    EXPECT_NEAR(significance_threshold(gaussian, 0.05, 100, Correction::Bonferroni),
                0.01 * normal_upper_quantile(0.0005), 1e-12);
    MapNoise laplace{false, 0.01, 0};
    EXPECT_NEAR(significance_threshold(laplace, 0.05, 1, Correction::PerCell), 0.01 * std::log(10.0), 1e-12);
    // a blur of s cells divides the sd by about 2 s sqrt(pi)
    MapNoise blurred{true, 1, 4};
    EXPECT_NEAR(noise_sd_after_blur(blurred), 1 / (8 * std::sqrt(M_PI)), 1e-6);
    blurred.gaussian = false;
    EXPECT_THROW(significance_threshold(blurred, 0.05, 1, Correction::PerCell), InvalidArgument);
    EXPECT_THROW(significance_threshold(gaussian, 0, 1, Correction::PerCell), InvalidArgument);
    EXPECT_THROW(significance_threshold(gaussian, NAN, 1, Correction::PerCell), InvalidArgument);
    EXPECT_THROW(significance_threshold(gaussian, 0.6, 1, Correction::PerCell), InvalidArgument);
    MapNoise exact{true, NAN, 0};
    EXPECT_THROW(significance_threshold(exact, 0.05, 1, Correction::PerCell), InvalidArgument);
    EXPECT_THROW(parse_correction("holm"), InvalidArgument);
}

TEST(Significance, MapAccuracyIsExactUnblurredAndABoundBlurred) {
    // Unblurred Gaussian map of n = 4: the discrete Gaussian's half-width in counts, over n.
    const MapNoise gaussian{true, 0.75, 0, 4}; // sigma 3 counts
    const MapAccuracy g = map_accuracy(gaussian, 0.95);
    EXPECT_TRUE(g.exact);
    EXPECT_DOUBLE_EQ(g.accuracy.noise_sd, 0.75);
    EXPECT_DOUBLE_EQ(g.accuracy.half_width, discrete_gaussian_half_width(3, 0.95) / 4);
    // Laplace of scale 2 counts: the discrete Laplace interval.
    const MapAccuracy l = map_accuracy({false, 0.5, 0, 4}, 0.9);
    EXPECT_DOUBLE_EQ(l.accuracy.half_width,
                     noise_accuracy(NoiseKind::DiscreteLaplace, 2, 0.9).half_width / 4);
    // Blurred: the sd after the kernel and the sub-Gaussian (Gaussian) or Chebyshev (Laplace) bound.
    const MapAccuracy b = map_accuracy({true, 1, 4, 4}, 0.95);
    EXPECT_FALSE(b.exact);
    EXPECT_NEAR(b.accuracy.half_width, b.accuracy.noise_sd * std::sqrt(2 * std::log(40.0)), 1e-12);
    const MapAccuracy bl = map_accuracy({false, 1, 4, 4}, 0.95);
    EXPECT_NEAR(bl.accuracy.half_width, bl.accuracy.noise_sd / std::sqrt(0.05), 1e-12);
    const MapAccuracy exact = map_accuracy({true, 0, 0, 4}, 0.95);
    EXPECT_EQ(exact.accuracy.half_width, 0);
    EXPECT_THROW(map_accuracy(gaussian, 1), InvalidArgument);
    EXPECT_THROW(map_accuracy({true, NAN, 0, 4}, 0.95), InvalidArgument);
}

TEST(StimulusImage, MutatedImagesAreRefusedOrDecodedNeverACrash) {
    // Hostile bytes: every mutation of a valid PNG and JPEG (bytes flipped, the file cut) either decodes
    // within the limit or is refused with InvalidArgument / LimitExceeded.
    std::vector<std::uint8_t> pixels(24 * 16 * 4);
    for (std::size_t i = 0; i < pixels.size(); ++i)
        pixels[i] = static_cast<std::uint8_t>(i * 37);
    const std::vector<std::vector<std::uint8_t>> valid = {encode_png_rgba(24, 16, pixels.data()),
                                                          solid_jpeg(24, 16, 10, 200, 30),
                                                          solid_jpeg(24, 16, 10, 200, 30, true)};
    std::uint64_t state = 2026;
    auto next = [&state] {
        return state = state * 6364136223846793005ULL + 1442695040888963407ULL, state >> 33;
    };
    int decoded = 0, refused = 0;
    for (const std::vector<std::uint8_t>& file : valid) {
        for (int trial = 0; trial < 600; ++trial) {
            std::vector<std::uint8_t> bytes = file;
            for (int k = 1 + static_cast<int>(next() % 4); k > 0; --k)
                bytes[3 + next() % (bytes.size() - 3)] ^= static_cast<std::uint8_t>(1 + next() % 255);
            if (trial % 5 == 0)
                bytes.resize(3 + next() % (bytes.size() - 3));
            try {
                const RgbaImage image = decode_stimulus(bytes.data(), bytes.size(), 1u << 20, "limit");
                EXPECT_EQ(image.rgba.size(), std::size_t{image.width} * image.height * 4);
                ++decoded;
            } catch (const InvalidArgument&) {
                ++refused;
            } catch (const LimitExceeded&) {
                ++refused;
            }
        }
    }
    EXPECT_GT(refused, 100);
    EXPECT_EQ(decoded + refused, 1800);
}
