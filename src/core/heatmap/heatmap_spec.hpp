// The parameters of a gaze heatmap (Liu et al. 2019): the grid the gaze points are counted on, the cap m
// on each participant's count per cell, and how the release is made private. Pure validation; the
// privacy cost of a release is computed from these parameters in heatmap_release.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/noise/calibration.hpp"

namespace gazepriv::core {

// The most cells any grid may have, whatever the setting gazepriv.max_heatmap_cells says (2^27: a
// float8[] of that many values is 1 GiB, PostgreSQL's limit for one value).
constexpr std::int64_t kMaxHeatmapCells = (std::int64_t{1} << 27) - 1;
constexpr std::int64_t kMaxObservers = std::int64_t{1} << 53;
constexpr double kMaxBlurSigma = 1e6;
constexpr std::size_t kMaxDatasetName = 1024;

// Points (x, y) with 0 <= x < width and 0 <= y < height, in pixels, fall into square cells of
// cell_size pixels: column floor(x) / cell_size, row floor(y) / cell_size. Cells are numbered row-major.
struct GazeGrid {
    std::int32_t width = 0;
    std::int32_t height = 0;
    std::int32_t cell_size = 1;
    std::int32_t columns = 0;
    std::int32_t rows = 0;

    std::int64_t cells() const { return std::int64_t{columns} * rows; }

    // The cell of a point, or -1 when it is outside the grid, NaN or infinite.
    std::int64_t cell_of(double x, double y) const {
        if (!(x >= 0 && x < width && y >= 0 && y < height))
            return -1;
        std::int32_t column = static_cast<std::int32_t>(x); // floor: x >= 0
        std::int32_t row = static_cast<std::int32_t>(y);
        if (cell_size != 1) {
            column /= cell_size;
            row /= cell_size;
        }
        return std::int64_t{row} * columns + column;
    }

    bool operator==(const GazeGrid& o) const {
        return width == o.width && height == o.height && cell_size == o.cell_size;
    }
    bool operator!=(const GazeGrid& o) const { return !(*this == o); }
};

// Validates width, height and cell_size (InvalidArgument naming the parameter) and that the grid has at
// most max_cells cells (the setting gazepriv.max_heatmap_cells in the glue).
GazeGrid make_grid(std::int64_t width, std::int64_t height, std::int64_t cell_size, std::int64_t max_cells);

enum class HeatmapMechanism : std::uint8_t { None = 0, Gaussian = 1, Laplace = 2 };
HeatmapMechanism parse_heatmap_mechanism(const std::string& name); // "gaussian" or "laplace"
const char* to_string(HeatmapMechanism mechanism);                 // "none", "gaussian", "laplace"

// Everything of a release specification except the dataset name: plain data, so that aggregate states
// can hold it.
struct HeatmapParameters {
    GazeGrid grid;
    std::int32_t cap = 1; // m: a participant counts at most m times per cell
    HeatmapMechanism mechanism = HeatmapMechanism::Gaussian;
    GaussianCalibration calibration = GaussianCalibration::Analytic;
    double epsilon = 0;
    double delta = 0;           // Gaussian only; a Laplace release is pure epsilon-DP
    double blur_sigma = 0;      // standard deviation of the point-spread function, in pixels
    std::int64_t observers = 0; // the public n; 0 when not given (the exact participant count is used)

    bool operator==(const HeatmapParameters& o) const;
    bool operator!=(const HeatmapParameters& o) const { return !(*this == o); }
};

struct HeatmapSpec {
    HeatmapParameters parameters;
    // Accepted and carried to the release's cost record; charging a budget is wired by the budget area.
    std::optional<std::string> dataset;
};

// Validates every parameter (InvalidArgument naming it). delta must be in (0, 1) for the Gaussian
// mechanism and in [0, 1) for Laplace (where it is ignored); observers, when given, in [1, 2^53].
HeatmapSpec make_heatmap_spec(std::int64_t width, std::int64_t height, double epsilon, double delta,
                              std::int64_t cap, const std::string& mechanism, const std::string& calibration,
                              double blur_sigma, std::int64_t cell_size,
                              std::optional<std::int64_t> observers, std::optional<std::string> dataset,
                              std::int64_t max_cells);

// Re-validates parameters that came from elsewhere (a composite value, a serialized state).
void validate_heatmap_parameters(const HeatmapParameters& parameters, std::int64_t max_cells);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
