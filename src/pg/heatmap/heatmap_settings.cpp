#include "core/heatmap/heatmap_spec.hpp"
#include "pg/heatmap/heatmap_settings.hpp"

extern "C" {
#include "utils/guc.h"
}

namespace gazepriv::pg {

namespace {
int max_cells_setting = 8388608;
int max_stimulus_pixels_setting = 16777216;
} // namespace

void define_heatmap_settings() {
    DefineCustomIntVariable(
        "gazepriv.max_heatmap_cells", "The most cells a heatmap grid may have.",
        "A heatmap of r cells draws r noise values and holds r float8 values; grids above the limit are "
        "refused (ERROR 54000) before any row is read. Raise it for very large maps, or use a larger "
        "cell_size. Superuser-only: it bounds the memory an analyst's release may take.",
        &max_cells_setting, 8388608, 1, static_cast<int>(core::kMaxHeatmapCells), PGC_SUSET, 0, nullptr,
        nullptr, nullptr);
    DefineCustomIntVariable(
        "gazepriv.max_stimulus_pixels", "The most pixels a stimulus image given to heatmap_png may have.",
        "The image is decoded into 4 bytes per pixel; larger images are refused (ERROR 54000) from their "
        "header, before any pixel is decoded. Superuser-only: it bounds the memory an analyst's call may "
        "take.",
        &max_stimulus_pixels_setting, 16777216, 1, 268435456, PGC_SUSET, 0, nullptr, nullptr, nullptr);
}

std::int64_t max_stimulus_pixels() {
    return max_stimulus_pixels_setting;
}

std::int64_t max_heatmap_cells() {
    return max_cells_setting;
}

} // namespace gazepriv::pg
