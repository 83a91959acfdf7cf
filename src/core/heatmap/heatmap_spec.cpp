#include "core/heatmap/heatmap_spec.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/common/validate.hpp"

namespace gazepriv::core {

GazeGrid make_grid(std::int64_t width, std::int64_t height, std::int64_t cell_size, std::int64_t max_cells) {
    require_range("width", width, 1, INT32_MAX);
    require_range("height", height, 1, INT32_MAX);
    require_range("cell_size", cell_size, 1, INT32_MAX);
    GazeGrid grid;
    grid.width = static_cast<std::int32_t>(width);
    grid.height = static_cast<std::int32_t>(height);
    grid.cell_size = static_cast<std::int32_t>(cell_size);
    grid.columns = static_cast<std::int32_t>((width + cell_size - 1) / cell_size);
    grid.rows = static_cast<std::int32_t>((height + cell_size - 1) / cell_size);
    const std::int64_t limit = std::min(max_cells, kMaxHeatmapCells);
    if (grid.cells() > limit)
        throw LimitExceeded("a " + std::to_string(width) + " x " + std::to_string(height) + " grid of " +
                            std::to_string(cell_size) + " px cells has " + std::to_string(grid.cells()) +
                            " cells, more than the limit of " + std::to_string(limit) +
                            " (setting gazepriv.max_heatmap_cells); use a larger cell_size");
    return grid;
}

namespace {
// "none" (an exact map) is printed, never accepted from a spec.
constexpr Named<HeatmapMechanism> kMechanisms[] = {{HeatmapMechanism::Gaussian, "gaussian"},
                                                   {HeatmapMechanism::Laplace, "laplace"},
                                                   {HeatmapMechanism::None, "none"}};
} // namespace

HeatmapMechanism parse_heatmap_mechanism(const std::string& name) {
    return parse_name(kMechanisms, "mechanism", name, 2);
}

const char* to_string(HeatmapMechanism mechanism) {
    return name_of(kMechanisms, mechanism);
}

bool HeatmapParameters::operator==(const HeatmapParameters& o) const {
    return grid == o.grid && cap == o.cap && mechanism == o.mechanism && calibration == o.calibration &&
           epsilon == o.epsilon && delta == o.delta && blur_sigma == o.blur_sigma && observers == o.observers;
}

void validate_heatmap_parameters(const HeatmapParameters& p, std::int64_t max_cells) {
    make_grid(p.grid.width, p.grid.height, p.grid.cell_size, max_cells);
    require_range("cap", p.cap, 1, INT32_MAX);
    require_epsilon("epsilon", p.epsilon);
    switch (p.mechanism) {
    case HeatmapMechanism::Gaussian:
        require_delta("delta", p.delta);
        break;
    case HeatmapMechanism::Laplace:
        if (!(p.delta >= 0 && p.delta < 1))
            throw InvalidArgument("delta must be at least 0 and below 1, got " + format_number(p.delta));
        break;
    case HeatmapMechanism::None:
        throw InvalidArgument("mechanism must be gaussian or laplace");
    }
    if (!(p.blur_sigma >= 0 && p.blur_sigma <= kMaxBlurSigma))
        throw InvalidArgument("blur_sigma must be a number of pixels between 0 and " +
                              format_number(kMaxBlurSigma) + ", got " + format_number(p.blur_sigma));
    if (p.observers != 0)
        require_range("observers", p.observers, 1, kMaxObservers);
}

HeatmapSpec make_heatmap_spec(std::int64_t width, std::int64_t height, double epsilon, double delta,
                              std::int64_t cap, const std::string& mechanism, const std::string& calibration,
                              double blur_sigma, std::int64_t cell_size,
                              std::optional<std::int64_t> observers, std::optional<std::string> dataset,
                              std::int64_t max_cells) {
    HeatmapSpec spec;
    HeatmapParameters& p = spec.parameters;
    p.grid = make_grid(width, height, cell_size, max_cells);
    require_range("cap", cap, 1, INT32_MAX);
    p.cap = static_cast<std::int32_t>(cap);
    p.mechanism = parse_heatmap_mechanism(mechanism);
    p.calibration = parse_gaussian_calibration(calibration);
    p.epsilon = epsilon;
    p.delta = delta;
    p.blur_sigma = blur_sigma;
    if (observers)
        p.observers = require_range("observers", *observers, 1, kMaxObservers);
    validate_heatmap_parameters(p, max_cells);
    if (dataset && dataset->size() > kMaxDatasetName)
        throw InvalidArgument("dataset must be at most " + std::to_string(kMaxDatasetName) + " bytes long");
    spec.dataset = std::move(dataset);
    return spec;
}

} // namespace gazepriv::core
