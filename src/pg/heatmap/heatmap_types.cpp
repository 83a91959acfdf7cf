#include <cmath>
#include <limits>
#include <string>

#include "core/common/errors.hpp"
#include "pg/boundary/args.hpp"
#include "pg/boundary/arrays.hpp"
#include "pg/boundary/guard.hpp"
#include "pg/heatmap/heatmap_settings.hpp"
#include "pg/heatmap/heatmap_types.hpp"

extern "C" {
#include "access/htup_details.h"
#include "executor/executor.h"
#include "funcapi.h"
#include "utils/builtins.h"
}

namespace gazepriv::pg {

namespace {

constexpr double kNull = std::numeric_limits<double>::quiet_NaN();

enum SpecField {
    kWidth = 1,
    kHeight,
    kEpsilon,
    kDelta,
    kCap,
    kMechanism,
    kCalibration,
    kBlur,
    kCellSize,
    kObservers,
    kDataset,
    kSpecFields = kDataset
};
enum HeatmapField {
    kHWidth = 1,
    kHHeight,
    kHCellSize,
    kHColumns,
    kHRows,
    kHValues,
    kHN,
    kHCap,
    kHMechanism,
    kHCalibration,
    kHEpsilon,
    kHDelta,
    kHRho,
    kHSigma,
    kHScale,
    kHBlur,
    kHeatmapFields = kHBlur
};

TupleDesc result_descriptor(FunctionCallInfo fcinfo) {
    TupleDesc desc;
    if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("function returning a composite called in a context that cannot accept it")));
    return BlessTupleDesc(desc);
}

Datum text_or_null(const char* s, bool* isnull) {
    *isnull = s == nullptr;
    return s == nullptr ? Datum(0) : CStringGetTextDatum(s);
}

Datum float_or_null(double v, bool* isnull) {
    *isnull = std::isnan(v);
    return *isnull ? Datum(0) : Float8GetDatum(v);
}

const char* text_field(HeapTupleHeader tuple, int field, const char* fallback) {
    bool isnull = false;
    const Datum d = GetAttributeByNum(tuple, field, &isnull);
    return isnull ? fallback : text_to_cstring(DatumGetTextPP(d));
}

} // namespace

HeatmapFields::HeatmapFields() : epsilon(kNull), delta(kNull), rho(kNull), sigma(kNull), scale(kNull) {}

void read_spec_fields(HeapTupleHeader tuple, SpecFields* f) {
    // Fields that are NULL keep SpecFields' defaults (the only place the defaults live).
    bool isnull = false;
    Datum d = GetAttributeByNum(tuple, kWidth, &isnull);
    f->width_null = isnull;
    if (!isnull)
        f->width = DatumGetInt32(d);
    d = GetAttributeByNum(tuple, kHeight, &isnull);
    f->height_null = isnull;
    if (!isnull)
        f->height = DatumGetInt32(d);
    d = GetAttributeByNum(tuple, kEpsilon, &isnull);
    f->epsilon_null = isnull;
    if (!isnull)
        f->epsilon = DatumGetFloat8(d);
    d = GetAttributeByNum(tuple, kDelta, &isnull);
    if (!isnull)
        f->delta = DatumGetFloat8(d);
    d = GetAttributeByNum(tuple, kCap, &isnull);
    if (!isnull)
        f->cap = DatumGetInt32(d);
    f->mechanism = text_field(tuple, kMechanism, f->mechanism);
    f->calibration = text_field(tuple, kCalibration, f->calibration);
    d = GetAttributeByNum(tuple, kBlur, &isnull);
    if (!isnull)
        f->blur_sigma = DatumGetFloat8(d);
    d = GetAttributeByNum(tuple, kCellSize, &isnull);
    if (!isnull)
        f->cell_size = DatumGetInt32(d);
    d = GetAttributeByNum(tuple, kObservers, &isnull);
    f->observers_null = isnull;
    if (!isnull)
        f->observers = DatumGetInt64(d);
    f->dataset = text_field(tuple, kDataset, nullptr);
}

core::HeatmapSpec spec_from_fields(const SpecFields& f) {
    if (f.width_null)
        throw_null_argument("width");
    if (f.height_null)
        throw_null_argument("height");
    if (f.epsilon_null)
        throw_null_argument("epsilon");
    std::optional<std::int64_t> observers;
    if (!f.observers_null)
        observers = f.observers;
    std::optional<std::string> dataset;
    if (f.dataset != nullptr)
        dataset = std::string(f.dataset);
    return core::make_heatmap_spec(f.width, f.height, f.epsilon, f.delta, f.cap, f.mechanism, f.calibration,
                                   f.blur_sigma, f.cell_size, observers, std::move(dataset),
                                   max_heatmap_cells());
}

Datum spec_datum(FunctionCallInfo fcinfo, const SpecFields& f) {
    TupleDesc desc = result_descriptor(fcinfo);
    Datum values[kSpecFields];
    bool nulls[kSpecFields] = {};
    values[kWidth - 1] = Int32GetDatum(static_cast<std::int32_t>(f.width));
    values[kHeight - 1] = Int32GetDatum(static_cast<std::int32_t>(f.height));
    values[kEpsilon - 1] = Float8GetDatum(f.epsilon);
    values[kDelta - 1] = Float8GetDatum(f.delta);
    values[kCap - 1] = Int32GetDatum(static_cast<std::int32_t>(f.cap));
    values[kMechanism - 1] = CStringGetTextDatum(f.mechanism);
    values[kCalibration - 1] = CStringGetTextDatum(f.calibration);
    values[kBlur - 1] = Float8GetDatum(f.blur_sigma);
    values[kCellSize - 1] = Int32GetDatum(static_cast<std::int32_t>(f.cell_size));
    nulls[kObservers - 1] = f.observers_null;
    values[kObservers - 1] = f.observers_null ? Datum(0) : Int64GetDatum(f.observers);
    values[kDataset - 1] = text_or_null(f.dataset, &nulls[kDataset - 1]);
    return HeapTupleGetDatum(heap_form_tuple(desc, values, nulls));
}

void read_heatmap_fields(HeapTupleHeader tuple, HeatmapFields* f) {
    auto int_field = [&](int field) {
        bool isnull = false;
        const Datum d = GetAttributeByNum(tuple, field, &isnull);
        return isnull ? 0 : DatumGetInt32(d);
    };
    auto float_field = [&](int field) {
        bool isnull = false;
        const Datum d = GetAttributeByNum(tuple, field, &isnull);
        return isnull ? kNull : DatumGetFloat8(d);
    };
    f->width = int_field(kHWidth);
    f->height = int_field(kHHeight);
    f->cell_size = int_field(kHCellSize);
    f->columns = int_field(kHColumns);
    f->rows = int_field(kHRows);
    bool isnull = false;
    Datum d = GetAttributeByNum(tuple, kHValues, &isnull);
    f->values = isnull ? nullptr : DatumGetArrayTypeP(d);
    d = GetAttributeByNum(tuple, kHN, &isnull);
    f->n = isnull ? 0 : DatumGetInt64(d);
    f->cap = int_field(kHCap);
    f->mechanism = text_field(tuple, kHMechanism, nullptr);
    f->calibration = text_field(tuple, kHCalibration, nullptr);
    f->epsilon = float_field(kHEpsilon);
    f->delta = float_field(kHDelta);
    f->rho = float_field(kHRho);
    f->sigma = float_field(kHSigma);
    f->scale = float_field(kHScale);
    const double blur = float_field(kHBlur);
    f->blur_sigma = std::isnan(blur) ? 0 : blur;
}

HeatmapView heatmap_view(const HeatmapFields& f, const char* what) {
    const std::string name(what);
    HeatmapView view{};
    try {
        view.grid = core::make_grid(f.width, f.height, f.cell_size, core::kMaxHeatmapCells);
    } catch (const core::InvalidArgument& e) {
        throw core::InvalidArgument(name + ": " + e.what());
    }
    if (view.grid.columns != f.columns || view.grid.rows != f.rows)
        throw core::InvalidArgument(name + ": columns and rows do not match width, height and cell_size");
    if (f.values == nullptr)
        throw core::InvalidArgument(name + ": values must not be NULL");
    const Float8Span values = float8_elements(f.values, (name + ".values").c_str());
    if (values.size != static_cast<std::size_t>(view.grid.cells()))
        throw core::InvalidArgument(name + ": values has " + std::to_string(values.size) + " elements for " +
                                    std::to_string(view.grid.cells()) + " cells");
    if (f.n < 1)
        throw core::InvalidArgument(name + ": n must be at least 1");
    if (f.mechanism == nullptr)
        throw core::InvalidArgument(name + ": mechanism must not be NULL");
    view.values = values.data;
    view.cells = values.size;
    view.n = f.n;
    view.cap = f.cap;
    view.exact = std::string(f.mechanism) == "none";
    view.blur_sigma = f.blur_sigma;
    return view;
}

HeatmapFields heatmap_fields_for(const core::GazeGrid& grid, ArrayType* values) {
    HeatmapFields f;
    f.width = grid.width;
    f.height = grid.height;
    f.cell_size = grid.cell_size;
    f.columns = grid.columns;
    f.rows = grid.rows;
    f.values = values;
    return f;
}

Datum heatmap_datum(FunctionCallInfo fcinfo, const HeatmapFields& f) {
    TupleDesc desc = result_descriptor(fcinfo);
    Datum values[kHeatmapFields];
    bool nulls[kHeatmapFields] = {};
    values[kHWidth - 1] = Int32GetDatum(f.width);
    values[kHHeight - 1] = Int32GetDatum(f.height);
    values[kHCellSize - 1] = Int32GetDatum(f.cell_size);
    values[kHColumns - 1] = Int32GetDatum(f.columns);
    values[kHRows - 1] = Int32GetDatum(f.rows);
    values[kHValues - 1] = PointerGetDatum(f.values);
    values[kHN - 1] = Int64GetDatum(f.n);
    values[kHCap - 1] = Int32GetDatum(f.cap);
    values[kHMechanism - 1] = CStringGetTextDatum(f.mechanism);
    values[kHCalibration - 1] = text_or_null(f.calibration, &nulls[kHCalibration - 1]);
    values[kHEpsilon - 1] = float_or_null(f.epsilon, &nulls[kHEpsilon - 1]);
    values[kHDelta - 1] = float_or_null(f.delta, &nulls[kHDelta - 1]);
    values[kHRho - 1] = float_or_null(f.rho, &nulls[kHRho - 1]);
    values[kHSigma - 1] = float_or_null(f.sigma, &nulls[kHSigma - 1]);
    values[kHScale - 1] = float_or_null(f.scale, &nulls[kHScale - 1]);
    values[kHBlur - 1] = Float8GetDatum(f.blur_sigma);
    return HeapTupleGetDatum(heap_form_tuple(desc, values, nulls));
}

} // namespace gazepriv::pg
