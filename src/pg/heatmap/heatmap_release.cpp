#include "pg/heatmap/heatmap_release.hpp"

#include "core/common/cancel.hpp"
#include "pg/boundary/arrays.hpp"
#include "pg/boundary/backend_rng.hpp"
#include "pg/boundary/guard.hpp"

namespace gazepriv::pg {

void release_into(const core::HeatmapReleasePlan& plan, const std::int64_t* sums, double n,
                  HeatmapFields* out) {
    const core::HeatmapParameters& p = plan.spec.parameters;
    ArrayType* values = new_float8_array(static_cast<std::size_t>(p.grid.cells()));
    core::release_heatmap(plan, sums, n, backend_rng(), float8_data(values),
                          core::CancelCheck(interrupt_pending));
    *out = heatmap_fields_for(p.grid, values);
    out->n = static_cast<std::int64_t>(n);
    out->cap = p.cap;
    out->mechanism = core::to_string(p.mechanism);
    out->epsilon = plan.cost.epsilon;
    out->delta = plan.cost.delta;
    if (p.mechanism == core::HeatmapMechanism::Gaussian) {
        out->calibration = core::to_string(p.calibration);
        out->rho = plan.cost.rho;
        out->sigma = plan.gaussian.sigma / n;
    } else {
        out->scale = plan.laplace_scale / n;
    }
    out->blur_sigma = p.blur_sigma;
}

} // namespace gazepriv::pg
