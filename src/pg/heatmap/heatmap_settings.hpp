// The heatmap's settings: gazepriv.max_heatmap_cells, the largest grid a heatmap may have.
#pragma once

#include <cstdint>

extern "C" {
#include "postgres.h"
}

namespace gazepriv::pg {

// Registers the settings; called from _PG_init.
void define_heatmap_settings();
std::int64_t max_heatmap_cells();

} // namespace gazepriv::pg
