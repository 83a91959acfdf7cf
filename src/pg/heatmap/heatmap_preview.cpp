// heatmap_preview: the correlation a release with a spec will have with the truth, predicted from the spec's
// public facts and a stated prior of the true map (core/heatmap/heatmap_preview.hpp). IMMUTABLE: it reads no
// data, draws no noise and charges nothing, even when the spec names a dataset.
#include <cmath>
#include <cstring>
#include <vector>

#include "core/heatmap/heatmap_preview.hpp"
#include "pg/boundary/args.hpp"
#include "pg/boundary/guard.hpp"
#include "pg/heatmap/heatmap_types.hpp"

extern "C" {
#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/builtins.h"
}

using namespace gazepriv;

namespace {

const core::CancelCheck kCancel(pg::interrupt_pending);

// The spec argument (22004 when it, or its public n, is NULL).
pg::SpecFields spec_argument(FunctionCallInfo fcinfo) {
    pg::require_not_null(fcinfo, 0, "spec");
    pg::SpecFields fields;
    pg::read_spec_fields(PG_GETARG_HEAPTUPLEHEADER(0), &fields);
    if (fields.observers_null)
        pg::throw_null_argument("spec.observers (the public n the preview is for)");
    return fields;
}

// The prior is either a map (prior != nullptr) or a centre bias (centre_sd, points_per_observer). Pure C++:
// every object it makes is gone when it returns.
core::HeatmapPreview preview(const pg::SpecFields& fields, const pg::HeatmapFields* prior, double centre_sd,
                             double points_per_observer) {
    const core::HeatmapReleasePlan plan = core::plan_heatmap_release(pg::spec_from_fields(fields));
    const core::HeatmapParameters& p = plan.spec.parameters;
    std::vector<double> truth;
    double prior_blur = 0;
    if (prior != nullptr) {
        const pg::HeatmapView map = pg::heatmap_view(*prior, "prior");
        if (map.grid != p.grid)
            throw core::InvalidArgument("the prior must have the spec's width, height and cell_size");
        if (map.cap != p.cap)
            throw core::InvalidArgument("the prior's cap (" + std::to_string(map.cap) +
                                        ") must be the spec's cap (" + std::to_string(p.cap) +
                                        "): its values are counts capped at that cap");
        truth.assign(map.values, map.values + map.cells);
        prior_blur = map.blur_sigma;
    } else {
        truth = core::centre_bias_prior(p.grid, p.cap, centre_sd, points_per_observer);
    }
    return core::preview_heatmap(plan, static_cast<double>(p.observers), truth, prior_blur, kCancel);
}

Datum preview_datum(FunctionCallInfo fcinfo, const core::HeatmapPreview& preview) {
    TupleDesc desc;
    if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
        ereport(ERROR,
                (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("heatmap_preview must return a record")));
    desc = BlessTupleDesc(desc);
    Datum values[4] = {Float8GetDatum(preview.expected_cc), Float8GetDatum(preview.signal_sd),
                       Float8GetDatum(preview.noise_sd), CStringGetTextDatum(preview.verdict)};
    bool nulls[4] = {};
    return HeapTupleGetDatum(heap_form_tuple(desc, values, nulls));
}

} // namespace

// heatmap_preview(spec, prior heatmap).
GAZEPRIV_FUNCTION(heatmap_preview) {
    const pg::SpecFields fields = spec_argument(fcinfo);
    pg::require_not_null(fcinfo, 1, "prior");
    pg::HeatmapFields prior;
    pg::read_heatmap_fields(PG_GETARG_HEAPTUPLEHEADER(1), &prior);
    return preview_datum(fcinfo, preview(fields, &prior, 0, 0));
}

// heatmap_preview(spec, centre_sd, points_per_observer).
GAZEPRIV_FUNCTION(heatmap_preview_centre_bias) {
    const pg::SpecFields fields = spec_argument(fcinfo);
    pg::require_not_null(fcinfo, {nullptr, "centre_sd", "points_per_observer"});
    return preview_datum(fcinfo, preview(fields, nullptr, PG_GETARG_FLOAT8(1), PG_GETARG_FLOAT8(2)));
}
