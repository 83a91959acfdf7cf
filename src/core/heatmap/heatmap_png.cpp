#include "core/heatmap/heatmap_png.hpp"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/common/errors.hpp"
#include "core/common/names.hpp"

namespace gazepriv::core {

namespace {

struct Rgb {
    std::uint8_t r, g, b;
};

// 17 evenly spaced samples of matplotlib's inferno, viridis, magma and plasma maps (Nathaniel J. Smith,
// Stefan van der Walt and Eric Firing, CC0) and of cividis (Nuñez, Anderton and Renslow, PLOS ONE 2018),
// interpolated linearly in between.
constexpr Rgb kInferno[17] = {{0, 0, 4},       {11, 7, 36},    {33, 12, 74},  {61, 9, 101},   {87, 16, 110},
                              {113, 25, 110},  {138, 34, 106}, {163, 44, 97}, {188, 55, 84},  {210, 70, 68},
                              {228, 90, 49},   {241, 115, 29}, {249, 142, 9}, {252, 172, 17}, {249, 203, 53},
                              {242, 234, 105}, {252, 255, 164}};
constexpr Rgb kViridis[17] = {{68, 1, 84},    {72, 24, 106},  {71, 45, 123},  {66, 64, 134},  {59, 82, 139},
                              {51, 99, 141},  {44, 114, 142}, {38, 130, 142}, {33, 145, 140}, {31, 160, 136},
                              {40, 174, 128}, {63, 188, 115}, {94, 201, 98},  {132, 212, 75}, {173, 220, 48},
                              {216, 226, 25}, {253, 231, 37}};
constexpr Rgb kMagma[17] = {{0, 0, 4},       {10, 8, 34},    {29, 17, 71},   {54, 16, 107},   {81, 18, 124},
                            {106, 28, 129},  {131, 38, 129}, {156, 46, 127}, {183, 55, 121},  {208, 65, 111},
                            {231, 82, 99},   {245, 107, 92}, {252, 137, 97}, {254, 167, 114}, {254, 196, 136},
                            {253, 226, 163}, {252, 253, 191}};
constexpr Rgb kPlasma[17] = {{13, 8, 135},   {49, 5, 151},   {76, 2, 161},   {102, 0, 167},  {126, 3, 168},
                             {149, 17, 161}, {170, 35, 149}, {188, 53, 135}, {204, 71, 120}, {218, 90, 106},
                             {230, 108, 92}, {240, 128, 78}, {248, 149, 64}, {253, 172, 51}, {253, 197, 39},
                             {248, 223, 37}, {240, 249, 33}};
constexpr Rgb kCividis[17] = {
    {0, 34, 78},     {0, 46, 106},    {26, 56, 111},   {50, 67, 109},   {67, 78, 108},   {83, 90, 109},
    {97, 101, 111},  {111, 112, 115}, {125, 124, 120}, {140, 136, 120}, {155, 148, 118}, {171, 160, 114},
    {188, 174, 108}, {205, 187, 99},  {222, 201, 88},  {240, 216, 70},  {254, 232, 56}};

std::uint8_t byte(double v) {
    return static_cast<std::uint8_t>(std::lround(255 * std::clamp(v, 0.0, 1.0)));
}

Rgb colour(Colormap map, double t) {
    if (map == Colormap::Gray)
        return {byte(t), byte(t), byte(t)};
    if (map == Colormap::Jet) // MATLAB's jet: blue, cyan, yellow, red (not perceptually uniform)
        return {byte(1.5 - std::fabs(4 * t - 3)), byte(1.5 - std::fabs(4 * t - 2)),
                byte(1.5 - std::fabs(4 * t - 1))};
    const Rgb* table = map == Colormap::Inferno   ? kInferno
                       : map == Colormap::Viridis ? kViridis
                       : map == Colormap::Magma   ? kMagma
                       : map == Colormap::Plasma  ? kPlasma
                                                  : kCividis;
    const double x = t * 16;
    const int i = std::min(15, static_cast<int>(x));
    const double f = x - i;
    auto lerp = [f](std::uint8_t a, std::uint8_t b) {
        return static_cast<std::uint8_t>(std::lround(a + f * (static_cast<double>(b) - a)));
    };
    return {lerp(table[i].r, table[i + 1].r), lerp(table[i].g, table[i + 1].g),
            lerp(table[i].b, table[i + 1].b)};
}

// A 3 x 5 pixel font for the colour bar's numbers ('#' = ink), enough for "%.3g", "sd=" and "thr=".
struct Glyph {
    char c;
    const char* rows[5];
};
constexpr Glyph kFont[] = {
    {'0', {"###", "#.#", "#.#", "#.#", "###"}}, {'1', {".#.", "##.", ".#.", ".#.", "###"}},
    {'2', {"###", "..#", "###", "#..", "###"}}, {'3', {"###", "..#", "###", "..#", "###"}},
    {'4', {"#.#", "#.#", "###", "..#", "..#"}}, {'5', {"###", "#..", "###", "..#", "###"}},
    {'6', {"###", "#..", "###", "#.#", "###"}}, {'7', {"###", "..#", "..#", "..#", "..#"}},
    {'8', {"###", "#.#", "###", "#.#", "###"}}, {'9', {"###", "#.#", "###", "..#", "###"}},
    {'.', {"...", "...", "...", "...", ".#."}}, {'-', {"...", "...", "###", "...", "..."}},
    {'+', {"...", ".#.", "###", ".#.", "..."}}, {'e', {"###", "#..", "##.", "#..", "###"}},
    {'s', {".##", "#..", ".#.", "..#", "##."}}, {'d', {"..#", "..#", ".##", "#.#", ".##"}},
    {'=', {"...", "###", "...", "###", "..."}}, {'p', {"...", "##.", "#.#", "##.", "#.."}},
    {'<', {"..#", ".#.", "#..", ".#.", "..#"}}, {'t', {".#.", "###", ".#.", ".#.", "..#"}},
    {'h', {"#..", "#..", "##.", "#.#", "#.#"}}, {'r', {"...", "#.#", "##.", "#..", "#.."}},
};

// An RGBA canvas with clipped drawing.
struct Canvas {
    std::uint32_t width, height;
    std::vector<std::uint8_t> rgba;
    void put(long x, long y, Rgb c) {
        if (x < 0 || y < 0 || x >= long(width) || y >= long(height))
            return;
        std::uint8_t* px = rgba.data() + (std::size_t(y) * width + std::size_t(x)) * 4;
        px[0] = c.r, px[1] = c.g, px[2] = c.b, px[3] = 255;
    }
    void text(long x, long y, long scale, const std::string& s) {
        for (char ch : s) {
            for (const Glyph& g : kFont)
                if (g.c == ch)
                    for (long r = 0; r < 5 * scale; ++r)
                        for (long q = 0; q < 3 * scale; ++q)
                            if (g.rows[r / scale][q / scale] == '#')
                                put(x + q, y + r, {0, 0, 0});
            x += 4 * scale;
        }
    }
};

std::string number(double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3g", v);
    return buffer;
}

// The scale's ends from the options or the map; InvalidArgument for a scale that cannot be drawn.
void value_scale(const double* values, std::size_t cells, const PngOptions& o, double* lo, double* hi) {
    if (!std::isnan(o.vmin) && !std::isfinite(o.vmin))
        throw InvalidArgument("vmin must be a finite number");
    if (!std::isnan(o.vmax) && !std::isfinite(o.vmax))
        throw InvalidArgument("vmax must be a finite number");
    *lo = std::isnan(o.vmin) ? 0 : o.vmin;
    if (!std::isnan(o.vmax)) {
        *hi = o.vmax;
    } else {
        *hi = *lo;
        for (std::size_t j = 0; j < cells; ++j)
            if (std::isfinite(values[j]))
                *hi = std::max(*hi, values[j]);
    }
    if (!std::isnan(o.vmin) && !std::isnan(o.vmax) && !(o.vmin < o.vmax))
        throw InvalidArgument("vmin must be below vmax");
}

// The colour bar panel drawn into columns [x0, canvas.width) of an opaque white area.
void draw_colour_bar(Canvas& canvas, std::uint32_t x0, std::uint32_t map_height, double lo, double hi,
                     const PngOptions& o) {
    const long f = std::clamp<long>(map_height / 160, 1, 4);
    for (std::uint32_t y = 0; y < canvas.height; ++y)
        for (std::uint32_t x = x0; x < canvas.width; ++x)
            canvas.put(x, y, {255, 255, 255});
    const bool masked = std::isfinite(o.threshold);
    if (std::isfinite(o.noise_sd))
        canvas.text(x0 + 2 * f, 2 * f, f, "sd=" + number(o.noise_sd));
    if (masked) // the threshold, also when it lies outside the scale (then no cell is outlined)
        canvas.text(x0 + 2 * f, 9 * f, f, "thr=" + number(o.threshold));
    const long top = (masked ? 17 : 10) * f, bottom = long(map_height) - 4 * f, bar_x = x0 + 2 * f,
               bar_w = 6 * f;
    if (bottom - top < 2)
        return;
    auto y_of = [&](double v) { return bottom - std::lround((v - lo) / (hi - lo) * double(bottom - top)); };
    for (long y = top; y <= bottom; ++y) {
        const Rgb c = colour(o.colormap, double(bottom - y) / double(bottom - top));
        for (long x = bar_x; x < bar_x + bar_w; ++x)
            canvas.put(x, y, c);
    }
    const long text_x = bar_x + bar_w + 2 * f;
    canvas.text(text_x, top - 2 * f, f, number(hi));
    canvas.text(text_x, bottom - 3 * f, f, number(lo));
    if (masked && o.threshold > lo && o.threshold < hi) {
        const long y = y_of(o.threshold);
        for (long x = bar_x - f; x < bar_x + bar_w + f; ++x)
            for (long k = 0; k < f; ++k)
                canvas.put(x, y + k, {0, 0, 0});
        canvas.text(text_x, y - 2 * f, f, number(o.threshold));
    } else {
        canvas.text(text_x, (top + bottom) / 2 - 2 * f, f, number((lo + hi) / 2));
    }
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
        {Colormap::Inferno, "inferno"}, {Colormap::Viridis, "viridis"}, {Colormap::Magma, "magma"},
        {Colormap::Plasma, "plasma"},   {Colormap::Cividis, "cividis"}, {Colormap::Gray, "gray"},
        {Colormap::Jet, "jet"}};
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

std::vector<std::uint8_t> render_heatmap_png(const GazeGrid& grid, const double* values,
                                             const PngOptions& o) {
    if (!(o.opacity >= 0 && o.opacity <= 1))
        throw InvalidArgument("opacity must be between 0 and 1");
    const std::size_t cells = static_cast<std::size_t>(grid.cells());
    double lo, hi;
    value_scale(values, cells, o, &lo, &hi);
    const bool per_pixel = std::int64_t{grid.width} * grid.height <= (std::int64_t{1} << 24);
    const std::uint32_t width = per_pixel ? grid.width : grid.columns;
    const std::uint32_t height = per_pixel ? grid.height : grid.rows;
    const std::int32_t step = per_pixel ? grid.cell_size : 1;
    const std::uint32_t panel = o.colorbar ? 52 * std::clamp<std::uint32_t>(height / 160, 1, 4) : 0;
    Canvas canvas{width + panel, height, std::vector<std::uint8_t>(std::size_t{width + panel} * height * 4)};
    const bool masked = std::isfinite(o.threshold);
    auto cell_of = [&](long x, long y) {
        return std::size_t(y / step) * grid.columns + std::size_t(x / step);
    };
    auto significant = [&](long x, long y) {
        return x >= 0 && y >= 0 && x < long(width) && y < long(height) && values[cell_of(x, y)] > o.threshold;
    };
    for (std::uint32_t y = 0; y < height; ++y) {
        for (std::uint32_t x = 0; x < width; ++x) {
            const double v = values[cell_of(x, y)];
            const double t = hi > lo && std::isfinite(v) ? std::clamp((v - lo) / (hi - lo), 0.0, 1.0) : 0.0;
            const Rgb c = colour(o.colormap, t);
            double a = o.opacity * (o.alpha_from_value ? t : 1.0);
            double r = c.r, g = c.g, b = c.b;
            if (masked && significant(x, y)) {
                // the outline of the significant cells: white on their edge pixels
                if (!significant(long(x) - 1, y) || !significant(long(x) + 1, y) ||
                    !significant(x, long(y) - 1) || !significant(x, long(y) + 1))
                    r = g = b = 255, a = 1;
            } else if (masked) {
                a *= 0.3; // faded: noise alone could give this value
            }
            std::uint8_t* px = canvas.rgba.data() + (std::size_t{y} * canvas.width + x) * 4;
            if (o.stimulus == nullptr) {
                px[0] = byte(r / 255), px[1] = byte(g / 255), px[2] = byte(b / 255), px[3] = byte(a);
                continue;
            }
            // the heat over the stimulus (itself over white where it is transparent): opaque result
            const RgbaImage& s = *o.stimulus;
            const std::uint8_t* under =
                s.rgba.data() + (std::size_t(std::uint64_t{y} * s.height / height) * s.width +
                                 std::uint64_t{x} * s.width / width) *
                                    4;
            const double ua = under[3] / 255.0;
            for (int k = 0; k < 3; ++k) {
                const double base = under[k] * ua + 255 * (1 - ua);
                const double heat = k == 0 ? r : k == 1 ? g : b;
                px[k] = byte((heat * a + base * (1 - a)) / 255);
            }
            px[3] = 255;
        }
    }
    if (o.colorbar)
        draw_colour_bar(canvas, width, height, lo, hi, o);
    return encode_png_rgba(canvas.width, canvas.height, canvas.rgba.data());
}

} // namespace gazepriv::core
