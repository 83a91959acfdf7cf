// Event detection from SQL: the viewing-geometry and detector constructors, detect_events (one row
// per fixation or saccade) and label_samples (one row per sample, for agreement with a tracker's own
// labels). All of it is curator-side preprocessing on raw data: nothing here adds noise.
#include <cmath>
#include <cstring>
#include <vector>

#include "core/common/errors.hpp"
#include "core/events/gaze_events.hpp"
#include "pg/boundary/args.hpp"
#include "pg/events/gaze_detector.hpp"
#include "pg/events/gaze_trace.hpp"
#include "pg/boundary/guard.hpp"
#include "pg/boundary/memory.hpp"

extern "C" {
#include "access/htup_details.h"
#include "executor/executor.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"
}

using namespace gazepriv;

namespace {

double field(HeapTupleHeader tuple, const char* name) {
    bool isnull;
    const Datum d = GetAttributeByName(tuple, name, &isnull);
    return isnull ? NAN : DatumGetFloat8(d);
}

const char* text_field(HeapTupleHeader tuple, const char* name) {
    bool isnull;
    const Datum d = GetAttributeByName(tuple, name, &isnull);
    return isnull ? "" : text_to_cstring(DatumGetTextPP(d));
}

double required(FunctionCallInfo fcinfo, int i, const char* name) {
    pg::require_not_null(fcinfo, i, name);
    return PG_GETARG_FLOAT8(i);
}

double optional(FunctionCallInfo fcinfo, int i) {
    return PG_ARGISNULL(i) ? NAN : PG_GETARG_FLOAT8(i);
}

Datum float8_or_null(double v, bool& isnull) {
    isnull = std::isnan(v);
    return Float8GetDatum(isnull ? 0 : v);
}

// A composite result of the function's declared type.
Datum composite(FunctionCallInfo fcinfo, Datum* values, bool* nulls) {
    TupleDesc desc;
    if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
        ereport(ERROR,
                (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("function must return a composite type")));
    return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls));
}

Datum geometry_datum(FunctionCallInfo fcinfo, const core::ViewingGeometry& g) {
    const bool linear = g.projection == core::Projection::Linear;
    Datum values[6];
    bool nulls[6] = {false, linear, linear, false, false, linear};
    values[0] = CStringGetTextDatum(core::to_string(g.projection));
    values[1] = Float8GetDatum(g.origin_x);
    values[2] = Float8GetDatum(g.origin_y);
    values[3] = Float8GetDatum(g.unit_x);
    values[4] = Float8GetDatum(g.unit_y);
    values[5] = Float8GetDatum(g.distance);
    return composite(fcinfo, values, nulls);
}

// The parts of an event_detector, read with PostgreSQL calls only; interpreted afterwards.
struct RawDetector {
    const char* method;
    const char* projection; // "" when there is no geometry
    core::DetectorParams numbers;
};

void read_geometry(HeapTupleHeader geometry, RawDetector& raw) {
    raw.projection = text_field(geometry, "projection");
    core::ViewingGeometry& out = raw.numbers.geometry;
    out.origin_x = field(geometry, "origin_x");
    out.origin_y = field(geometry, "origin_y");
    out.unit_x = field(geometry, "unit_x");
    out.unit_y = field(geometry, "unit_y");
    out.distance = field(geometry, "distance");
}

RawDetector read_detector(HeapTupleHeader d) {
    RawDetector raw;
    raw.method = text_field(d, "method");
    raw.numbers.velocity_threshold = field(d, "velocity_threshold");
    raw.numbers.dispersion_threshold = field(d, "dispersion_threshold");
    raw.numbers.min_fixation_ms = field(d, "min_fixation_ms");
    raw.numbers.velocity_window_ms = field(d, "velocity_window_ms");
    raw.numbers.max_gap_ms = field(d, "max_gap_ms");
    raw.numbers.gap_fill_ms = field(d, "gap_fill_ms");
    raw.projection = "";
    bool isnull;
    const Datum g = GetAttributeByName(d, "geometry", &isnull);
    if (!isnull)
        read_geometry(DatumGetHeapTupleHeader(g), raw);
    return raw;
}

core::DetectorParams interpret(const RawDetector& raw) {
    core::DetectorParams p = raw.numbers;
    p.method = core::parse_detection_method(raw.method);
    if (raw.projection[0] == '\0')
        p.geometry = core::ViewingGeometry();
    else
        p.geometry.projection = core::parse_projection(raw.projection);
    core::validate_detector(p);
    return p;
}

// Builds an event_detector from constructor arguments 1..5 and the optional geometry (argument 5).
Datum detector_datum(FunctionCallInfo fcinfo, core::DetectionMethod method) {
    const bool ivt = method == core::DetectionMethod::VelocityThreshold;
    RawDetector raw;
    raw.method = core::to_string(method);
    raw.projection = "";
    const double threshold = required(fcinfo, 0, ivt ? "velocity_threshold" : "dispersion_threshold");
    raw.numbers.velocity_threshold = ivt ? threshold : NAN;
    raw.numbers.dispersion_threshold = ivt ? NAN : threshold;
    raw.numbers.min_fixation_ms = required(fcinfo, 1, "min_fixation_ms");
    raw.numbers.velocity_window_ms = required(fcinfo, 2, "velocity_window_ms");
    raw.numbers.max_gap_ms = required(fcinfo, 3, "max_gap_ms");
    raw.numbers.gap_fill_ms = required(fcinfo, 4, "gap_fill_ms");
    const bool has_geometry = !PG_ARGISNULL(5);
    if (has_geometry)
        read_geometry(PG_GETARG_HEAPTUPLEHEADER(5), raw);
    interpret(raw); // throws for bad values before anything is built
    Datum values[8];
    bool nulls[8] = {};
    values[0] = CStringGetTextDatum(raw.method);
    values[1] = float8_or_null(raw.numbers.velocity_threshold, nulls[1]);
    values[2] = float8_or_null(raw.numbers.dispersion_threshold, nulls[2]);
    values[3] = Float8GetDatum(raw.numbers.min_fixation_ms);
    values[4] = Float8GetDatum(raw.numbers.velocity_window_ms);
    values[5] = Float8GetDatum(raw.numbers.max_gap_ms);
    values[6] = Float8GetDatum(raw.numbers.gap_fill_ms);
    values[7] = has_geometry ? PG_GETARG_DATUM(5) : 0;
    nulls[7] = !has_geometry;
    return composite(fcinfo, values, nulls);
}

struct Detected {
    pg::TraceView trace;
    core::GazeEvent* events;
    std::size_t count;
    ReturnSetInfo* rows; // the materialised result, initialised
};

// Runs the detector; the events are copied into palloc'd memory so that no C++ object outlives it.
void detect(Detected& d, const core::DetectorParams& p) {
    const std::vector<core::GazeEvent> events =
        core::detect_events(d.trace.samples, d.trace.count, p, core::CancelCheck(pg::interrupt_pending));
    d.events =
        static_cast<core::GazeEvent*>(pg::palloc_or_throw(events.size() * sizeof(core::GazeEvent) + 1));
    std::memcpy(d.events, events.data(), events.size() * sizeof(core::GazeEvent));
    d.count = events.size();
}

} // namespace

namespace gazepriv::pg {

core::DetectorParams detector_arg(FunctionCallInfo fcinfo, int i) {
    return interpret(read_detector(PG_GETARG_HEAPTUPLEHEADER(i)));
}

} // namespace gazepriv::pg

GAZEPRIV_FUNCTION(screen_geometry) {
    const double w = required(fcinfo, 0, "width_px"), h = required(fcinfo, 1, "height_px");
    const double wmm = required(fcinfo, 2, "width_mm"), hmm = required(fcinfo, 3, "height_mm");
    const double d = required(fcinfo, 4, "distance_mm");
    const core::ViewingGeometry g =
        core::screen_geometry(w, h, wmm, hmm, d, optional(fcinfo, 5), optional(fcinfo, 6));
    return geometry_datum(fcinfo, g);
}

GAZEPRIV_FUNCTION(camera_geometry) { // STRICT
    const core::ViewingGeometry g = core::camera_geometry(PG_GETARG_FLOAT8(0), PG_GETARG_FLOAT8(1),
                                                          PG_GETARG_FLOAT8(2), PG_GETARG_FLOAT8(3));
    return geometry_datum(fcinfo, g);
}

GAZEPRIV_FUNCTION(linear_geometry) {
    const double ppd = required(fcinfo, 0, "pixels_per_degree");
    const core::ViewingGeometry g = core::linear_geometry(ppd, optional(fcinfo, 1));
    return geometry_datum(fcinfo, g);
}

GAZEPRIV_FUNCTION(ivt) {
    return detector_datum(fcinfo, core::DetectionMethod::VelocityThreshold);
}

GAZEPRIV_FUNCTION(idt) {
    return detector_datum(fcinfo, core::DetectionMethod::DispersionThreshold);
}

namespace {

// The common start of detect_events and label_samples: the arguments (trace, detector), the events,
// and the result set to fill.
Detected detect_from_arguments(FunctionCallInfo fcinfo) {
    Detected d;
    d.trace = pg::trace_arg(fcinfo, 0);
    const core::DetectorParams params = pg::detector_arg(fcinfo, 1);
    detect(d, params);
    InitMaterializedSRF(fcinfo, 0);
    d.rows = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    return d;
}

} // namespace

GAZEPRIV_FUNCTION(detect_events) { // STRICT
    const Detected d = detect_from_arguments(fcinfo);
    const Datum fixation = CStringGetTextDatum("fixation"), saccade = CStringGetTextDatum("saccade");
    for (std::size_t i = 0; i < d.count; ++i) {
        if ((i & 1023) == 0)
            CHECK_FOR_INTERRUPTS();
        const core::GazeEvent& e = d.events[i];
        Datum v[20];
        bool n[20] = {};
        v[0] = Int32GetDatum(static_cast<int32>(i + 1));
        v[1] = e.type == core::EventType::Fixation ? fixation : saccade;
        v[2] = Float8GetDatum(e.start_ms);
        v[3] = Float8GetDatum(e.end_ms);
        v[4] = Float8GetDatum(e.end_ms - e.start_ms);
        v[5] = Int32GetDatum(static_cast<int32>(e.n_samples));
        const double numbers[14] = {e.centroid_x,    e.centroid_y, e.sigma_x,   e.sigma_y,   e.start_x,
                                    e.start_y,       e.end_x,      e.end_y,     e.amplitude, e.peak_velocity,
                                    e.mean_velocity, e.profile_a,  e.profile_b, e.profile_c};
        for (int k = 0; k < 14; ++k)
            v[6 + k] = float8_or_null(numbers[k], n[6 + k]);
        tuplestore_putvalues(d.rows->setResult, d.rows->setDesc, v, n);
    }
    return (Datum)0;
}

GAZEPRIV_FUNCTION(label_samples) { // STRICT
    const Detected d = detect_from_arguments(fcinfo);
    const pg::TraceView& trace = d.trace;
    Datum labels[4];
    for (core::SampleLabel l : {core::SampleLabel::Missing, core::SampleLabel::Unclassified,
                                core::SampleLabel::Fixation, core::SampleLabel::Saccade})
        labels[static_cast<int>(l)] = CStringGetTextDatum(core::to_string(l));
    std::size_t next = 0; // the first event that does not end before the current row
    for (std::size_t r = 0; r < trace.count; ++r) {
        if ((r & 1023) == 0)
            CHECK_FOR_INTERRUPTS();
        const core::GazeSample& s = trace.samples[r];
        while (next < d.count && d.events[next].last_row < r)
            ++next;
        const bool inside = next < d.count && d.events[next].first_row <= r;
        core::SampleLabel label =
            core::has_gaze(s) ? core::SampleLabel::Unclassified : core::SampleLabel::Missing;
        if (inside)
            label = d.events[next].type == core::EventType::Fixation ? core::SampleLabel::Fixation
                                                                     : core::SampleLabel::Saccade;
        Datum v[5];
        bool n[5] = {};
        v[0] = Float8GetDatum(s.t_ms);
        v[1] = float8_or_null(s.x, n[1]);
        v[2] = float8_or_null(s.y, n[2]);
        v[3] = labels[static_cast<int>(label)];
        v[4] = Int32GetDatum(static_cast<int32>(next + 1));
        n[4] = !inside;
        tuplestore_putvalues(d.rows->setResult, d.rows->setDesc, v, n);
    }
    return (Datum)0;
}
