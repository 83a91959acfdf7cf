// The heatmap's settings: gazepriv.max_heatmap_cells, the largest grid a heatmap may have, and
// gazepriv.max_stimulus_pixels, the largest stimulus image heatmap_png decodes.
#pragma once

#include <cstdint>

extern "C" {
#include "postgres.h"
}

namespace gazepriv::pg {

// Registers the settings; called from _PG_init.
void define_heatmap_settings();
std::int64_t max_heatmap_cells();
std::int64_t max_stimulus_pixels();

} // namespace gazepriv::pg
