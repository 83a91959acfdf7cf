#include "core/heatmap/heatmap_png.hpp"

#include <zlib.h>

#include <algorithm>
#include <cmath>

#include "core/common/errors.hpp"
#include "core/common/names.hpp"

namespace gazepriv::core {

namespace {

struct Rgb {
    std::uint8_t r, g, b;
};

// 17 evenly spaced samples of matplotlib's inferno and viridis maps (Nathaniel J. Smith, Stefan van der
// Walt and Eric Firing, CC0), interpolated linearly in between.
constexpr Rgb kInferno[17] = {{0, 0, 4},       {11, 7, 36},    {33, 12, 74},  {61, 9, 101},   {87, 16, 110},
                              {113, 25, 110},  {138, 34, 106}, {163, 44, 97}, {188, 55, 84},  {210, 70, 68},
                              {228, 90, 49},   {241, 115, 29}, {249, 142, 9}, {252, 172, 17}, {249, 203, 53},
                              {242, 234, 105}, {252, 255, 164}};
constexpr Rgb kViridis[17] = {{68, 1, 84},    {72, 24, 106},  {71, 45, 123},  {66, 64, 134},  {59, 82, 139},
                              {51, 99, 141},  {44, 114, 142}, {38, 130, 142}, {33, 145, 140}, {31, 160, 136},
                              {40, 174, 128}, {63, 188, 115}, {94, 201, 98},  {132, 212, 75}, {173, 220, 48},
                              {216, 226, 25}, {253, 231, 37}};

Rgb colour(Colormap map, double t) {
    if (map == Colormap::Gray) {
        const auto v = static_cast<std::uint8_t>(std::lround(255 * t));
        return {v, v, v};
    }
    const Rgb* table = map == Colormap::Inferno ? kInferno : kViridis;
    const double x = t * 16;
    const int i = std::min(15, static_cast<int>(x));
    const double f = x - i;
    auto lerp = [f](std::uint8_t a, std::uint8_t b) {
        return static_cast<std::uint8_t>(std::lround(a + f * (static_cast<double>(b) - a)));
    };
    return {lerp(table[i].r, table[i + 1].r), lerp(table[i].g, table[i + 1].g),
            lerp(table[i].b, table[i + 1].b)};
}

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
    for (int s = 24; s >= 0; s -= 8)
        out.push_back(static_cast<std::uint8_t>(v >> s));
}

void put_chunk(std::vector<std::uint8_t>& out, const char type[4], const std::uint8_t* data, std::size_t n) {
    put_u32(out, static_cast<std::uint32_t>(n));
    const std::size_t start = out.size();
    out.insert(out.end(), type, type + 4);
    out.insert(out.end(), data, data + n);
    put_u32(out, static_cast<std::uint32_t>(crc32_z(0, out.data() + start, n + 4)));
}

} // namespace

Colormap parse_colormap(const std::string& name) {
    static constexpr Named<Colormap> kColormaps[] = {
        {Colormap::Inferno, "inferno"}, {Colormap::Viridis, "viridis"}, {Colormap::Gray, "gray"}};
    return parse_name(kColormaps, "colormap", name);
}

std::vector<std::uint8_t> encode_png_rgba(std::uint32_t width, std::uint32_t height,
                                          const std::uint8_t* rgba) {
    if (width == 0 || height == 0 || width > (1u << 24) || height > (1u << 24))
        throw InvalidArgument("a PNG must be between 1 and 2^24 pixels wide and high");
    const std::size_t stride = std::size_t{width} * 4;
    std::vector<std::uint8_t> raw((stride + 1) * height);
    for (std::uint32_t y = 0; y < height; ++y) {
        std::uint8_t* line = raw.data() + y * (stride + 1);
        line[0] = 0; // filter type None
        std::copy(rgba + y * stride, rgba + (y + 1) * stride, line + 1);
    }
    uLongf packed_size = compressBound(static_cast<uLong>(raw.size()));
    std::vector<std::uint8_t> packed(packed_size);
    if (compress2(packed.data(), &packed_size, raw.data(), static_cast<uLong>(raw.size()), 6) != Z_OK)
        throw InternalError("zlib could not compress the picture");

    std::vector<std::uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    std::vector<std::uint8_t> header;
    put_u32(header, width);
    put_u32(header, height);
    header.insert(header.end(), {8, 6, 0, 0, 0}); // 8 bits, RGBA, deflate, no filter method, no interlace
    put_chunk(png, "IHDR", header.data(), header.size());
    put_chunk(png, "IDAT", packed.data(), packed_size);
    put_chunk(png, "IEND", nullptr, 0);
    return png;
}

std::vector<std::uint8_t> render_heatmap_png(const GazeGrid& grid, const double* values, Colormap colormap,
                                             bool alpha_from_value) {
    const std::size_t cells = static_cast<std::size_t>(grid.cells());
    double top = 0;
    for (std::size_t j = 0; j < cells; ++j)
        if (std::isfinite(values[j]))
            top = std::max(top, values[j]);
    const bool per_pixel = std::int64_t{grid.width} * grid.height <= (std::int64_t{1} << 24);
    const std::uint32_t width = per_pixel ? grid.width : grid.columns;
    const std::uint32_t height = per_pixel ? grid.height : grid.rows;
    const std::int32_t step = per_pixel ? grid.cell_size : 1;
    std::vector<std::uint8_t> rgba(std::size_t{width} * height * 4);
    for (std::uint32_t y = 0; y < height; ++y) {
        for (std::uint32_t x = 0; x < width; ++x) {
            const double v = values[std::size_t(y / step) * grid.columns + x / step];
            const double t = top > 0 && std::isfinite(v) ? std::clamp(v / top, 0.0, 1.0) : 0.0;
            const Rgb c = colour(colormap, t);
            std::uint8_t* px = rgba.data() + (std::size_t{y} * width + x) * 4;
            px[0] = c.r;
            px[1] = c.g;
            px[2] = c.b;
            px[3] = alpha_from_value ? static_cast<std::uint8_t>(std::lround(255 * t)) : 255;
        }
    }
    return encode_png_rgba(width, height, rgba.data());
}

} // namespace gazepriv::core
