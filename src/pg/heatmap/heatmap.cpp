// Scalar heatmap functions: the specification and its cost preview, privatize (the release of an
// already computed exact map), blur, cells for BI tools, PNG pictures and utility metrics.
#include <cmath>
#include <cstring>
#include <vector>

#include "core/common/errors.hpp"
#include "core/heatmap/gaussian_blur.hpp"
#include "core/heatmap/heatmap_metrics.hpp"
#include "core/heatmap/heatmap_png.hpp"
#include "core/heatmap/heatmap_release.hpp"
#include "core/heatmap/significance.hpp"
#include "core/heatmap/stimulus_image.hpp"
#include "pg/boundary/args.hpp"
#include "pg/boundary/arrays.hpp"
#include "pg/budget/budget.hpp"
#include "pg/budget/release_cost.hpp"
#include "pg/boundary/guard.hpp"
#include "pg/heatmap/heatmap_release.hpp"
#include "pg/heatmap/heatmap_settings.hpp"
#include "pg/heatmap/heatmap_types.hpp"
#include "pg/boundary/memory.hpp"

extern "C" {
#include "access/htup_details.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/tuplestore.h"
}

using namespace gazepriv;

namespace {

const core::CancelCheck kCancel(pg::interrupt_pending);

// The cost of a release with this spec as plain values: the shared cost record and the heatmap's own columns.
struct CostRow {
    pg::Charge charge;
    double sigma, scale, noise_sd, map_sd, l2, l1;
    std::int64_t cells;
};

void plan_cost(const pg::SpecFields& fields, CostRow* row) {
    const core::HeatmapReleasePlan plan = core::plan_heatmap_release(pg::spec_from_fields(fields));
    const core::HeatmapParameters& p = plan.spec.parameters;
    const double nan = std::nan("");
    row->charge = pg::charge_from_cost(nullptr, plan.cost);
    const bool gaussian = p.mechanism == core::HeatmapMechanism::Gaussian;
    row->sigma = gaussian ? plan.gaussian.sigma : nan;
    row->scale = gaussian ? nan : plan.laplace_scale;
    row->noise_sd = plan.noise_sd();
    row->map_sd = p.observers != 0 ? plan.noise_sd() / static_cast<double>(p.observers) : nan;
    row->l2 = plan.l2_sensitivity;
    row->l1 = plan.l1_sensitivity;
    row->cells = p.grid.cells();
}

// The arguments of heatmap_spec(), with NULLs for the optional ones taking their defaults.
void spec_arguments(FunctionCallInfo fcinfo, pg::SpecFields* f) {
    f->width_null = PG_ARGISNULL(0);
    f->width = f->width_null ? 0 : PG_GETARG_INT32(0);
    f->height_null = PG_ARGISNULL(1);
    f->height = f->height_null ? 0 : PG_GETARG_INT32(1);
    f->epsilon_null = PG_ARGISNULL(2);
    f->epsilon = f->epsilon_null ? 0 : PG_GETARG_FLOAT8(2);
    if (!PG_ARGISNULL(3))
        f->delta = PG_GETARG_FLOAT8(3);
    if (!PG_ARGISNULL(4))
        f->cap = PG_GETARG_INT32(4);
    if (!PG_ARGISNULL(5))
        f->mechanism = pg::text_arg(fcinfo, 5);
    if (!PG_ARGISNULL(6))
        f->calibration = pg::text_arg(fcinfo, 6);
    if (!PG_ARGISNULL(7))
        f->blur_sigma = PG_GETARG_FLOAT8(7);
    if (!PG_ARGISNULL(8))
        f->cell_size = PG_GETARG_INT32(8);
    f->observers_null = PG_ARGISNULL(9);
    f->observers = f->observers_null ? 0 : PG_GETARG_INT64(9);
    f->dataset = PG_ARGISNULL(10) ? nullptr : pg::text_arg(fcinfo, 10);
}

void validate_spec(const pg::SpecFields& fields) {
    core::check_heatmap_release(pg::spec_from_fields(fields));
}

pg::HeatmapView heatmap_argument(FunctionCallInfo fcinfo, int i, const char* name,
                                 pg::HeatmapFields* fields) {
    pg::read_heatmap_fields(PG_GETARG_HEAPTUPLEHEADER(i), fields);
    return pg::heatmap_view(*fields, name);
}

void require_same_grid(const pg::HeatmapView& a, const pg::HeatmapView& b) {
    if (a.grid != b.grid)
        throw core::InvalidArgument("the heatmaps must have the same width, height and cell_size");
}

// privatize: the integer capped sums behind an exact map, then the release.
void privatize_map(const pg::HeatmapView& map, const pg::SpecFields& fields, pg::HeatmapFields* out) {
    const core::HeatmapReleasePlan plan = core::plan_heatmap_release(pg::spec_from_fields(fields));
    const core::HeatmapParameters& p = plan.spec.parameters;
    if (!map.exact || map.blur_sigma != 0)
        throw core::InvalidArgument("map must be an exact, unblurred map from gaze_map (mechanism 'none')");
    if (map.grid != p.grid)
        throw core::InvalidArgument("the spec's width, height and cell_size must be the map's");
    if (map.cap != p.cap)
        throw core::InvalidArgument("the spec's cap (" + std::to_string(p.cap) + ") must be the map's cap (" +
                                    std::to_string(map.cap) + ")");
    auto* sums = static_cast<std::int64_t*>(pg::palloc_or_throw(map.cells * sizeof(std::int64_t)));
    const double n_map = static_cast<double>(map.n);
    const double most = n_map * map.cap;
    for (std::size_t j = 0; j < map.cells; ++j) {
        const double s = map.values[j] * n_map;
        const double rounded = std::nearbyint(s);
        if (!(rounded >= 0 && rounded <= most && std::fabs(s - rounded) <= 1e-6 * std::max(1.0, rounded)))
            throw core::InvalidArgument("map value " + std::to_string(j + 1) +
                                        " is not a capped count divided by n: the map is not from gaze_map");
        sums[j] = static_cast<std::int64_t>(rounded);
    }
    if (plan.spec.dataset) // before any noise is drawn
        pg::charge_release(plan.spec.dataset->c_str(), plan.cost);
    pg::release_into(plan, sums, p.observers != 0 ? static_cast<double>(p.observers) : n_map, out);
}

struct PngArguments {
    const char* colormap;
    bool alpha_from_value, colorbar;
    double vmin, vmax, opacity, significance; // NaN = NULL
    const char* correction;
    const std::uint8_t* stimulus; // nullptr = NULL
    std::size_t stimulus_size;
};

// NULL as NaN (the option's default); a NaN given is refused, naming the option.
double float8_or_nan(FunctionCallInfo fcinfo, int i, const char* name) {
    if (PG_ARGISNULL(i))
        return NAN;
    const double v = PG_GETARG_FLOAT8(i);
    if (std::isnan(v))
        throw core::InvalidArgument(std::string(name) + " must be a number, not NaN");
    return v;
}

// The release's noise as the heatmap carries it (sigma or scale per cell of the map, blur in pixels).
core::MapNoise map_noise(const pg::HeatmapFields& fields) {
    core::MapNoise noise;
    noise.gaussian = std::strcmp(fields.mechanism, "laplace") != 0;
    noise.spread = std::strcmp(fields.mechanism, "none") == 0 ? 0
                   : noise.gaussian                           ? fields.sigma
                                                              : fields.scale;
    noise.blur_cells = fields.blur_sigma / fields.cell_size;
    noise.observers = static_cast<double>(fields.n);
    return noise;
}

bytea* render(const pg::HeatmapView& map, const pg::HeatmapFields& fields, const PngArguments& a) {
    core::PngOptions options;
    options.colormap = core::parse_colormap(a.colormap);
    options.alpha_from_value = a.alpha_from_value;
    options.vmin = a.vmin;
    options.vmax = a.vmax;
    options.colorbar = a.colorbar;
    const core::MapNoise noise = map_noise(fields);
    if (noise.spread > 0)
        options.noise_sd = core::noise_sd_after_blur(noise);
    if (!std::isnan(a.significance))
        options.threshold = core::significance_threshold(noise, a.significance, map.cells,
                                                         core::parse_correction(a.correction));
    core::RgbaImage stimulus;
    if (a.stimulus != nullptr) {
        stimulus = core::decode_stimulus(a.stimulus, a.stimulus_size, pg::max_stimulus_pixels(),
                                         "gazepriv.max_stimulus_pixels");
        options.stimulus = &stimulus;
    }
    options.opacity = !std::isnan(a.opacity) ? a.opacity : a.stimulus != nullptr ? 0.6 : 1.0;
    const std::vector<std::uint8_t> png = core::render_heatmap_png(map.grid, map.values, options);
    auto* out = static_cast<bytea*>(pg::palloc_or_throw(VARHDRSZ + png.size()));
    SET_VARSIZE(out, VARHDRSZ + png.size());
    std::memcpy(VARDATA(out), png.data(), png.size());
    return out;
}

} // namespace

GAZEPRIV_FUNCTION(heatmap_spec) {
    pg::SpecFields fields;
    spec_arguments(fcinfo, &fields);
    validate_spec(fields);
    return pg::spec_datum(fcinfo, fields);
}

GAZEPRIV_FUNCTION(heatmap_release_cost) {
    pg::SpecFields fields;
    pg::read_spec_fields(PG_GETARG_HEAPTUPLEHEADER(0), &fields);
    CostRow row;
    plan_cost(fields, &row);
    TupleDesc desc;
    if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("heatmap_release_cost must return a record")));
    desc = BlessTupleDesc(desc);
    constexpr int kShared = pg::kReleaseCostColumns;
    Datum values[kShared + 7];
    bool nulls[kShared + 7] = {};
    pg::release_cost_columns(row.charge, values, nulls);
    const double numbers[] = {row.sigma, row.scale, row.noise_sd, row.map_sd, row.l2, row.l1};
    for (int i = 0; i < 6; ++i) {
        nulls[kShared + i] = std::isnan(numbers[i]);
        values[kShared + i] = nulls[kShared + i] ? Datum(0) : Float8GetDatum(numbers[i]);
    }
    values[kShared + 6] = Int64GetDatum(row.cells);
    return HeapTupleGetDatum(heap_form_tuple(desc, values, nulls));
}

GAZEPRIV_FUNCTION(privatize) {
    pg::HeatmapFields map_fields;
    const pg::HeatmapView map = heatmap_argument(fcinfo, 0, "map", &map_fields);
    pg::SpecFields spec;
    pg::read_spec_fields(PG_GETARG_HEAPTUPLEHEADER(1), &spec);
    pg::HeatmapFields out;
    privatize_map(map, spec, &out);
    return pg::heatmap_datum(fcinfo, out);
}

GAZEPRIV_FUNCTION(heatmap_blur) {
    pg::HeatmapFields fields;
    const pg::HeatmapView map = heatmap_argument(fcinfo, 0, "heatmap", &fields);
    const double sigma = PG_GETARG_FLOAT8(1);
    if (!(sigma >= 0 && sigma <= core::kMaxBlurSigma))
        throw core::InvalidArgument("sigma must be a number of pixels between 0 and 1000000");
    ArrayType* values = pg::new_float8_array(map.cells);
    std::memcpy(pg::float8_data(values), map.values, map.cells * sizeof(double));
    core::gaussian_blur(pg::float8_data(values), map.grid.columns, map.grid.rows, sigma / map.grid.cell_size,
                        kCancel);
    fields.values = values;
    fields.blur_sigma = std::hypot(fields.blur_sigma, sigma);
    return pg::heatmap_datum(fcinfo, fields);
}

GAZEPRIV_FUNCTION(heatmap_cells) {
    pg::HeatmapFields fields;
    const pg::HeatmapView map = heatmap_argument(fcinfo, 0, "heatmap", &fields);
    InitMaterializedSRF(fcinfo, 0);
    ReturnSetInfo* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    for (std::int32_t row = 0; row < map.grid.rows; ++row) {
        CHECK_FOR_INTERRUPTS();
        for (std::int32_t column = 0; column < map.grid.columns; ++column) {
            Datum values[3] = {Int32GetDatum(column * map.grid.cell_size),
                               Int32GetDatum(row * map.grid.cell_size),
                               Float8GetDatum(map.values[std::size_t(row) * map.grid.columns + column])};
            bool nulls[3] = {false, false, false};
            tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
        }
    }
    return Datum(0);
}

GAZEPRIV_FUNCTION(heatmap_png) {
    if (PG_ARGISNULL(0))
        PG_RETURN_NULL();
    pg::require_not_null(fcinfo, {nullptr, "colormap", "alpha_from_value", nullptr, nullptr, "colorbar",
                                  nullptr, nullptr, nullptr, "correction"});
    pg::HeatmapFields fields;
    const pg::HeatmapView map = heatmap_argument(fcinfo, 0, "heatmap", &fields);
    PngArguments a{};
    a.colormap = pg::text_arg(fcinfo, 1);
    a.alpha_from_value = PG_GETARG_BOOL(2);
    a.vmin = float8_or_nan(fcinfo, 3, "vmin");
    a.vmax = float8_or_nan(fcinfo, 4, "vmax");
    a.colorbar = PG_GETARG_BOOL(5);
    if (!PG_ARGISNULL(6)) {
        const bytea* stimulus = PG_GETARG_BYTEA_PP(6);
        a.stimulus = reinterpret_cast<const std::uint8_t*>(VARDATA_ANY(stimulus));
        a.stimulus_size = VARSIZE_ANY_EXHDR(stimulus);
    }
    a.opacity = float8_or_nan(fcinfo, 7, "opacity");
    a.significance = float8_or_nan(fcinfo, 8, "significance");
    a.correction = pg::text_arg(fcinfo, 9);
    PG_RETURN_BYTEA_P(render(map, fields, a));
}

GAZEPRIV_FUNCTION(heatmap_significance_threshold) {
    pg::require_not_null(fcinfo, {"heatmap", "significance", "correction"});
    pg::HeatmapFields fields;
    const pg::HeatmapView map = heatmap_argument(fcinfo, 0, "heatmap", &fields);
    const double level = PG_GETARG_FLOAT8(1);
    const char* correction = pg::text_arg(fcinfo, 2);
    PG_RETURN_FLOAT8(core::significance_threshold(map_noise(fields), level, map.cells,
                                                  core::parse_correction(correction)));
}

// heatmap_accuracy(heatmap, confidence) -> (noise_sd, half_width, exact) of every cell.
GAZEPRIV_FUNCTION(heatmap_accuracy) {
    pg::require_not_null(fcinfo, {"heatmap", "confidence"});
    pg::HeatmapFields fields;
    heatmap_argument(fcinfo, 0, "heatmap", &fields);
    const core::MapAccuracy a = core::map_accuracy(map_noise(fields), PG_GETARG_FLOAT8(1));
    TupleDesc desc;
    if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
        ereport(ERROR,
                (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("heatmap_accuracy must return a record")));
    Datum values[3] = {Float8GetDatum(a.accuracy.noise_sd), Float8GetDatum(a.accuracy.half_width),
                       BoolGetDatum(a.exact)};
    bool nulls[3] = {};
    return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls));
}

// heatmap_epsilon_for_accuracy(spec, half_width, confidence): the accuracy inverse of heatmap_accuracy.
GAZEPRIV_FUNCTION(heatmap_epsilon_for_accuracy) {
    pg::require_not_null(fcinfo, {"spec", "half_width", "confidence"});
    pg::SpecFields fields;
    pg::read_spec_fields(PG_GETARG_HEAPTUPLEHEADER(0), &fields);
    PG_RETURN_FLOAT8(core::epsilon_for_map_accuracy(pg::spec_from_fields(fields), PG_GETARG_FLOAT8(1),
                                                    PG_GETARG_FLOAT8(2)));
}

GAZEPRIV_FUNCTION(heatmap_mse) {
    pg::HeatmapFields fa, fb;
    const pg::HeatmapView a = heatmap_argument(fcinfo, 0, "a", &fa);
    const pg::HeatmapView b = heatmap_argument(fcinfo, 1, "b", &fb);
    require_same_grid(a, b);
    PG_RETURN_FLOAT8(core::heatmap_mse(a.values, b.values, a.cells));
}

GAZEPRIV_FUNCTION(heatmap_cc) {
    pg::HeatmapFields fa, fb;
    const pg::HeatmapView a = heatmap_argument(fcinfo, 0, "a", &fa);
    const pg::HeatmapView b = heatmap_argument(fcinfo, 1, "b", &fb);
    require_same_grid(a, b);
    const double cc = core::heatmap_cc(a.values, b.values, a.cells);
    if (std::isnan(cc))
        PG_RETURN_NULL();
    PG_RETURN_FLOAT8(cc);
}
