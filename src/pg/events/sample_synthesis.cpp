// synthesize_samples: a sample stream from gaze_event rows (core/events/sample_synthesis.hpp) at the
// sampling times of a trace. Curator-side: the output is as identifying as the events it came from.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>

#include "core/common/errors.hpp"
#include "core/events/sample_synthesis.hpp"
#include "pg/boundary/args.hpp"
#include "pg/boundary/backend_rng.hpp"
#include "pg/boundary/guard.hpp"
#include "pg/boundary/memory.hpp"
#include "pg/events/gaze_trace.hpp"
#include "pg/events/sample_synthesis.hpp"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"
#include "utils/typcache.h"
}

using namespace gazepriv;

namespace {

int max_samples_setting = 10000000;

// The gaze_event columns synthesis reads, by name (the composite may come from a table with the type).
constexpr int kFields = 15;
const char* const kFieldNames[kFields] = {"event_index", "type",    "start_ms",  "end_ms",    "centroid_x",
                                          "centroid_y",  "sigma_x", "sigma_y",   "start_x",   "start_y",
                                          "end_x",       "end_y",   "profile_a", "profile_b", "profile_c"};

double number(const Datum* values, const bool* nulls, const int* column, int f) {
    return nulls[column[f]] ? NAN : DatumGetFloat8(values[column[f]]);
}

struct Events {
    core::SynthEvent* events;
    std::size_t count;
    const char* bad_type; // the first unknown type, or nullptr
    int bad_type_index;
    int null_element; // 1-based position of a NULL element or NULL type/index, or 0
};

// Reads the gaze_event[] argument with PostgreSQL calls only (no C++ object is alive).
Events read_events(ArrayType* array) {
    Events out{nullptr, 0, nullptr, 0, 0};
    Datum* elements;
    bool* element_nulls;
    int n;
    deconstruct_array(array, ARR_ELEMTYPE(array), -1, false, TYPALIGN_DOUBLE, &elements, &element_nulls, &n);
    out.events = static_cast<core::SynthEvent*>(palloc0(sizeof(core::SynthEvent) * (n + 1)));
    if (n == 0)
        return out;
    TupleDesc desc = lookup_rowtype_tupdesc(ARR_ELEMTYPE(array), -1);
    int column[kFields];
    for (int f = 0; f < kFields; ++f) {
        column[f] = -1;
        for (int a = 0; a < desc->natts; ++a)
            if (strcmp(NameStr(TupleDescAttr(desc, a)->attname), kFieldNames[f]) == 0)
                column[f] = a;
        if (column[f] < 0)
            elog(ERROR, "gaze_event has no column %s", kFieldNames[f]);
    }
    Datum* values = static_cast<Datum*>(palloc(sizeof(Datum) * desc->natts));
    bool* nulls = static_cast<bool*>(palloc(sizeof(bool) * desc->natts));
    for (int i = 0; i < n; ++i) {
        CHECK_FOR_INTERRUPTS();
        if (element_nulls[i]) {
            out.null_element = i + 1;
            break;
        }
        const HeapTupleHeader header = DatumGetHeapTupleHeader(elements[i]);
        HeapTupleData tuple;
        tuple.t_len = HeapTupleHeaderGetDatumLength(header);
        tuple.t_data = header;
        heap_deform_tuple(&tuple, desc, values, nulls);
        if (nulls[column[0]] || nulls[column[1]]) {
            out.null_element = i + 1;
            break;
        }
        core::SynthEvent& e = out.events[i];
        e.event_index = DatumGetInt32(values[column[0]]);
        const char* type = text_to_cstring(DatumGetTextPP(values[column[1]]));
        if (strcmp(type, "fixation") == 0)
            e.type = core::EventType::Fixation;
        else if (strcmp(type, "saccade") == 0)
            e.type = core::EventType::Saccade;
        else if (out.bad_type == nullptr) {
            out.bad_type = type;
            out.bad_type_index = e.event_index;
        }
        double* fields[13] = {&e.start_ms,  &e.end_ms,    &e.centroid_x, &e.centroid_y, &e.sigma_x,
                              &e.sigma_y,   &e.start_x,   &e.start_y,    &e.end_x,      &e.end_y,
                              &e.profile_a, &e.profile_b, &e.profile_c};
        for (int f = 0; f < 13; ++f)
            *fields[f] = number(values, nulls, column, f + 2);
    }
    ReleaseTupleDesc(desc);
    out.count = static_cast<std::size_t>(n);
    return out;
}

} // namespace

namespace gazepriv::pg {

void define_synthesis_settings() {
    DefineCustomIntVariable(
        "gazepriv.max_synthesized_samples", "The most samples one synthesize_samples call may return.",
        "Every event is sampled at the trace's times within its span, so overlapping events multiply the "
        "output; streams above the limit are refused (ERROR 54000) before anything is allocated. "
        "Superuser-only: it bounds the memory a call may take.",
        &max_samples_setting, 10000000, 1, INT_MAX, PGC_SUSET, 0, nullptr, nullptr, nullptr);
}

} // namespace gazepriv::pg

namespace {

std::size_t max_samples() {
    return static_cast<std::size_t>(max_samples_setting);
}

// The checks shared by both forms, after the events are read: unknown types and NULLs (PostgreSQL errors,
// raised while no C++ object is alive), then the parameters (22023 naming the event and value).
void check_events(const Events& in) {
    if (in.null_element != 0)
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                        errmsg("events must not contain NULL events, event_index or type (element %d)",
                               in.null_element)));
    if (in.bad_type != nullptr)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("event %d: unknown event type \"%s\" (expected fixation or saccade)",
                               in.bad_type_index, in.bad_type)));
    for (std::size_t i = 0; i < in.count; ++i)
        core::validate_synth_event(in.events[i]);
}

// The grid k * 1000 / rate (k an integer) over the span of the events; 54000 above the limit before the
// grid is allocated.
double* rate_grid(const Events& in, double rate_hz, std::size_t* count) {
    if (!(rate_hz > 0) || !std::isfinite(rate_hz))
        throw core::InvalidArgument("sampling_rate_hz must be positive and finite, got " +
                                    std::to_string(rate_hz));
    *count = 0;
    if (in.count == 0)
        return nullptr;
    const double period = 1000.0 / rate_hz;
    double first = in.events[0].start_ms, last = in.events[0].end_ms;
    for (std::size_t i = 0; i < in.count; ++i) {
        first = std::min(first, in.events[i].start_ms);
        last = std::max(last, in.events[i].end_ms);
    }
    const double k0 = std::ceil(first / period), k1 = std::floor(last / period);
    const double points = k1 - k0 + 1;
    if (!(points <= static_cast<double>(max_samples())))
        throw core::LimitExceeded("the sampling grid over the events would have more than " +
                                  std::to_string(max_samples()) +
                                  " times (gazepriv.max_synthesized_samples)");
    *count = points > 0 ? static_cast<std::size_t>(points) : 0;
    double* times = static_cast<double*>(pg::palloc_or_throw(sizeof(double) * (*count + 1)));
    for (std::size_t j = 0; j < *count; ++j)
        times[j] = (k0 + static_cast<double>(j)) * period;
    return times;
}

// The samples, drawn from the backend's generator or, given a secret, from one keyed from it alone (the
// keyed generator lives only here: no PostgreSQL error is raised while it is alive).
void synthesize(const Events& in, const double* times, std::size_t m, const bytea* secret,
                core::SynthSample* samples) {
    std::optional<core::Rng> keyed;
    core::synthesize_samples(
        in.events, in.count, times, m,
        pg::release_rng(
            keyed, secret == nullptr ? nullptr : reinterpret_cast<const unsigned char*>(VARDATA_ANY(secret)),
            secret == nullptr ? 0 : VARSIZE_ANY_EXHDR(secret)),
        core::CancelCheck(pg::interrupt_pending), samples);
}

// Counts (54000 before allocating), synthesises and returns the rows.
Datum emit(FunctionCallInfo fcinfo, const Events& in, const double* times, std::size_t m,
           const bytea* secret = nullptr) {
    const std::size_t total = core::synth_sample_count(in.events, in.count, times, m, max_samples(),
                                                       "gazepriv.max_synthesized_samples");
    core::SynthSample* samples =
        static_cast<core::SynthSample*>(pg::palloc_or_throw(sizeof(core::SynthSample) * (total + 1)));
    synthesize(in, times, m, secret, samples);

    InitMaterializedSRF(fcinfo, 0);
    ReturnSetInfo* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    const Datum fixation = CStringGetTextDatum("fixation"), saccade = CStringGetTextDatum("saccade");
    for (std::size_t i = 0; i < total; ++i) {
        if ((i & 1023) == 0)
            CHECK_FOR_INTERRUPTS();
        const core::SynthSample& s = samples[i];
        Datum v[5] = {Float8GetDatum(s.t_ms), Float8GetDatum(s.x), Float8GetDatum(s.y),
                      Int32GetDatum(s.event_index), s.type == core::EventType::Fixation ? fixation : saccade};
        bool n[5] = {};
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
    }
    return static_cast<Datum>(0);
}

} // namespace

// synthesize_samples(events gaze_event[], trace gaze_trace, secret bytea) -> (t_ms, x, y, event_index, type)
GAZEPRIV_FUNCTION(synthesize_samples) {
    pg::require_not_null(fcinfo, {"events", "trace"});
    const Events in = read_events(PG_GETARG_ARRAYTYPE_P(0));
    const pg::TraceView trace = pg::trace_arg(fcinfo, 1);
    const bytea* secret = PG_NARGS() > 2 && !PG_ARGISNULL(2) ? PG_GETARG_BYTEA_PP(2) : nullptr;
    check_events(in);
    double* times = static_cast<double*>(pg::palloc_or_throw(sizeof(double) * (trace.count + 1)));
    for (std::size_t s = 0; s < trace.count; ++s)
        times[s] = trace.samples[s].t_ms;
    return emit(fcinfo, in, times, trace.count, secret);
}

// synthesize_samples(events gaze_event[], sampling_rate_hz float8): at the times k * 1000 / rate.
GAZEPRIV_FUNCTION(synthesize_samples_at_rate) {
    pg::require_not_null(fcinfo, {"events", "sampling_rate_hz"});
    const Events in = read_events(PG_GETARG_ARRAYTYPE_P(0));
    const double rate = PG_GETARG_FLOAT8(1);
    check_events(in);
    std::size_t m = 0;
    const double* times = rate_grid(in, rate, &m);
    return emit(fcinfo, in, times, m);
}
