// Pictures of heatmaps a person can open: values mapped through a colour map into an RGBA PNG, written
// with zlib alone. Rendering is post-processing of the released values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/heatmap/heatmap_spec.hpp"

namespace gazepriv::core {

enum class Colormap { Inferno, Viridis, Gray };
Colormap parse_colormap(const std::string& name); // "inferno", "viridis", "gray"

// One RGBA pixel per screen pixel of the grid's width x height (each cell's colour repeated over its
// cell_size x cell_size pixels), or one per cell when that would exceed 2^24 pixels. Values are scaled
// from 0 (clamped: noise can make cells negative) to the map's maximum; with alpha_from_value the
// opacity follows the scaled value, so the picture can be laid over the stimulus.
std::vector<std::uint8_t> render_heatmap_png(const GazeGrid& grid, const double* values, Colormap colormap,
                                             bool alpha_from_value);

// A PNG file (colour type 6, 8 bits) from width x height RGBA pixels, row-major.
std::vector<std::uint8_t> encode_png_rgba(std::uint32_t width, std::uint32_t height,
                                          const std::uint8_t* rgba);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
