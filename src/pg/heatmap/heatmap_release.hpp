// Releasing a heatmap from its capped sums: the glue between core::release_heatmap and the heatmap composite,
// shared by the dp_heatmap aggregate and privatize().
#pragma once

#include <cstdint>

#include "core/heatmap/heatmap_release.hpp"
#include "pg/heatmap/heatmap_types.hpp"

namespace gazepriv::pg {

// The release of capped sums by a plan: noise drawn (the backend generator), divided by n, blurred, into a
// new values array; `out` describes the result (mechanism, cost, noise per cell). Raises no PostgreSQL error.
void release_into(const core::HeatmapReleasePlan& plan, const std::int64_t* sums, double n,
                  HeatmapFields* out);

} // namespace gazepriv::pg
