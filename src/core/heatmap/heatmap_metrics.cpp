#include "core/heatmap/heatmap_metrics.hpp"

#include <cmath>
#include <limits>

#include "core/common/errors.hpp"

namespace gazepriv::core {

namespace {

void require_cells(std::size_t cells) {
    if (cells == 0)
        throw InvalidArgument("the heatmaps have no cells");
}

} // namespace

double heatmap_mse(const double* a, const double* b, std::size_t cells) {
    require_cells(cells);
    double sum = 0;
    for (std::size_t i = 0; i < cells; ++i) {
        const double d = a[i] - b[i];
        sum += d * d;
    }
    return sum / static_cast<double>(cells);
}

double heatmap_cc(const double* a, const double* b, std::size_t cells) {
    require_cells(cells);
    double mean_a = 0, mean_b = 0;
    for (std::size_t i = 0; i < cells; ++i) {
        mean_a += a[i];
        mean_b += b[i];
    }
    mean_a /= static_cast<double>(cells);
    mean_b /= static_cast<double>(cells);
    double sab = 0, saa = 0, sbb = 0;
    for (std::size_t i = 0; i < cells; ++i) {
        const double da = a[i] - mean_a, db = b[i] - mean_b;
        sab += da * db;
        saa += da * da;
        sbb += db * db;
    }
    if (saa == 0 || sbb == 0)
        return std::numeric_limits<double>::quiet_NaN();
    return sab / std::sqrt(saa * sbb);
}

} // namespace gazepriv::core
