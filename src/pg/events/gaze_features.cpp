// Windowed feature vectors from SQL: feature_windows (one row per window, the shape the k-same,
// plausible-deniability and FPA releases read), feature_names and feature_catalog. Curator-side
// preprocessing on raw data: nothing here adds noise.
#include <cstring>
#include <vector>

#include "core/events/gaze_events.hpp"
#include "core/events/gaze_features.hpp"
#include "pg/boundary/arrays.hpp"
#include "pg/events/gaze_detector.hpp"
#include "pg/events/gaze_trace.hpp"
#include "pg/boundary/guard.hpp"
#include "pg/boundary/memory.hpp"

extern "C" {
#include "catalog/pg_type_d.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"
}

using namespace gazepriv;

namespace {

struct Windows {
    double* start_ms;
    double* values; // core::kFeatureCount per window
    std::size_t count;
};

// Detects the events and computes the windows; results are copied into palloc'd memory so that no
// C++ object outlives this call.
Windows compute(pg::TraceView t, const core::DetectorParams& detector, const core::FeatureParams& features) {
    core::validate_features(features); // before the (longer) detection
    const core::CancelCheck cancel(pg::interrupt_pending);
    const std::vector<core::GazeEvent> events = core::detect_events(t.samples, t.count, detector, cancel);
    const core::FeatureTable f = core::feature_windows(t.samples, t.count, events, features, cancel);
    Windows w;
    w.count = f.start_ms.size();
    w.start_ms = static_cast<double*>(pg::palloc_or_throw(w.count * sizeof(double) + 1));
    w.values = static_cast<double*>(pg::palloc_or_throw(f.values.size() * sizeof(double) + 1));
    std::memcpy(w.start_ms, f.start_ms.data(), w.count * sizeof(double));
    std::memcpy(w.values, f.values.data(), f.values.size() * sizeof(double));
    return w;
}

} // namespace

GAZEPRIV_FUNCTION(feature_windows) { // STRICT
    const pg::TraceView trace = pg::trace_arg(fcinfo, 0);
    const core::DetectorParams detector = pg::detector_arg(fcinfo, 1);
    core::FeatureParams params;
    params.large_saccade = PG_GETARG_FLOAT8(2);
    params.window_ms = PG_GETARG_FLOAT8(3);
    params.step_ms = PG_GETARG_FLOAT8(4);
    params.blink_min_ms = PG_GETARG_FLOAT8(5);
    params.blink_max_ms = PG_GETARG_FLOAT8(6);
    const Windows w = compute(trace, detector, params);

    InitMaterializedSRF(fcinfo, 0);
    auto* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    for (std::size_t i = 0; i < w.count; ++i) {
        if ((i & 1023) == 0)
            CHECK_FOR_INTERRUPTS();
        ArrayType* features = pg::new_float8_array(core::kFeatureCount);
        std::memcpy(pg::float8_data(features), w.values + i * core::kFeatureCount,
                    core::kFeatureCount * sizeof(double));
        Datum v[4] = {Int32GetDatum(static_cast<int32>(i + 1)), Float8GetDatum(w.start_ms[i]),
                      Float8GetDatum(w.start_ms[i] + params.window_ms), PointerGetDatum(features)};
        bool n[4] = {};
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
    }
    return (Datum)0;
}

GAZEPRIV_FUNCTION(feature_names) {
    Datum names[core::kFeatureCount];
    for (std::size_t i = 0; i < core::kFeatureCount; ++i)
        names[i] = CStringGetTextDatum(core::feature_catalog()[i].name);
    PG_RETURN_ARRAYTYPE_P(construct_array(names, core::kFeatureCount, TEXTOID, -1, false, TYPALIGN_INT));
}

GAZEPRIV_FUNCTION(feature_catalog) {
    InitMaterializedSRF(fcinfo, 0);
    auto* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    for (std::size_t i = 0; i < core::kFeatureCount; ++i) {
        const core::FeatureInfo& f = core::feature_catalog()[i];
        Datum v[4] = {Int32GetDatum(static_cast<int32>(i + 1)), CStringGetTextDatum(f.name),
                      CStringGetTextDatum(f.unit), CStringGetTextDatum(f.description)};
        bool n[4] = {};
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
    }
    return (Datum)0;
}
