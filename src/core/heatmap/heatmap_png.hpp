// Pictures of heatmaps a person can open: values mapped through a colour map into an RGBA PNG, written
// with zlib alone, optionally over the stimulus, with a colour bar and a significance mask. Rendering is
// post-processing of the released values.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/heatmap/heatmap_spec.hpp"
#include "core/heatmap/stimulus_image.hpp"

namespace gazepriv::core {

enum class Colormap { Inferno, Viridis, Magma, Plasma, Cividis, Gray, Jet };
Colormap parse_colormap(const std::string& name); // "inferno", "viridis", "magma", "plasma", "cividis", ...

struct PngOptions {
    Colormap colormap = Colormap::Inferno;
    bool alpha_from_value = true;        // the heat's opacity follows the scaled value
    double vmin = NAN, vmax = NAN;       // the scale's ends; NaN: 0 and the map's maximum
    double opacity = 1;                  // the heat's largest opacity (over the stimulus)
    bool colorbar = false;               // a panel on the right: the colours with their values
    double noise_sd = NAN;               // printed on the colour bar ("sd=") when finite
    double threshold = NAN;              // significance: cells above it are outlined, the others faded
    const RgbaImage* stimulus = nullptr; // drawn under the heat, scaled (nearest pixel) to the map's extent
};

// One pixel per screen pixel of the grid's width x height (each cell's colour repeated over its
// cell_size x cell_size pixels), or one per cell when that would exceed 2^24 pixels; the colour bar adds a
// panel to the right. Values are scaled from vmin to vmax and clamped (noise can make cells negative).
// InvalidArgument for a non-finite or empty scale or an opacity outside [0, 1].
std::vector<std::uint8_t> render_heatmap_png(const GazeGrid& grid, const double* values,
                                             const PngOptions& options);

// A PNG file (colour type 6, 8 bits) from width x height RGBA pixels, row-major.
std::vector<std::uint8_t> encode_png_rgba(std::uint32_t width, std::uint32_t height,
                                          const std::uint8_t* rgba);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
