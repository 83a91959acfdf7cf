// gazepriv.gaze_trace: the type (text input and output, trace_samples) and the make_trace aggregate that
// builds one per group of sample rows. The aggregate's state, gazepriv.trace_state, has the same layout
// (spare capacity at its end) but keeps samples that share a time apart, in its text form too: partial
// states travel between parallel workers, and Citus nodes as text, without serial functions, and combine
// exactly whatever the split, because only the final function merges duplicate times.
//
// While rows are added, the state is an expanded object (a read-write pointer to the growing trace in its
// own memory context, a child of the aggregate's context), as heatmap_state is: nodeAgg and Citus adopt it
// without copying, and it grows by repalloc, which moves a large trace's pages without copying them. A flat
// state (the previous design) was copied twice whenever it grew, once by us and once by nodeAgg, each time
// into fresh pages: a third of make_trace's time.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/common/errors.hpp"
#include "core/events/gaze_trace.hpp"
#include "pg/events/gaze_trace.hpp"
#include "pg/boundary/guard.hpp"
#include "pg/boundary/memory.hpp"

extern "C" {
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/expandeddatum.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"
}

using namespace gazepriv;
using pg::TraceDatum;

namespace {

constexpr std::size_t kHeader = offsetof(TraceDatum, samples);
constexpr std::size_t kMaxSamples = (MaxAllocSize - kHeader) / sizeof(core::GazeSample);
constexpr std::size_t kInitialCapacity = 64;

std::size_t capacity(const TraceDatum* t) {
    return (VARSIZE(t) - kHeader) / sizeof(core::GazeSample);
}

bool canonical(const TraceDatum* t) {
    return (t->flags & pg::kTraceCanonical) != 0;
}

// Throws 54000 when a trace would need more than PostgreSQL's 1 GB value limit.
void require_room(std::size_t room) {
    if (room > kMaxSamples)
        throw core::LimitExceeded("a gaze trace holds at most " + std::to_string(kMaxSamples) +
                                  " samples (PostgreSQL's 1 GB value limit); split the recording, "
                                  "for example by stimulus or task");
}

// A new trace with room for `room` samples, in the current memory context; never longjmps.
TraceDatum* new_trace(std::size_t room) {
    require_room(room);
    const std::size_t bytes = kHeader + room * sizeof(core::GazeSample);
    auto* t = static_cast<TraceDatum*>(pg::palloc_or_throw(bytes));
    SET_VARSIZE(t, bytes);
    t->flags = pg::kTraceVersion << 8 | pg::kTraceCanonical;
    t->count = 0;
    return t;
}

void check_header(const TraceDatum* t) {
    if (VARSIZE(t) < kHeader || (t->flags >> 8) != pg::kTraceVersion || (t->flags & 0xFEu) != 0 ||
        t->count > capacity(t))
        throw core::CorruptData("gaze_trace value is corrupt (bad header)");
}

// Appends samples to `state`, growing it (a copy in the current context) when full.
TraceDatum* append(TraceDatum* state, const core::GazeSample* samples, std::size_t n,
                   bool samples_canonical) {
    const std::size_t needed = state->count + n;
    if (needed > capacity(state)) {
        const std::size_t room = std::max(needed, std::min(kMaxSamples, 2 * capacity(state)));
        TraceDatum* grown = new_trace(room);
        grown->flags = state->flags;
        grown->count = state->count;
        std::memcpy(grown->samples, state->samples, state->count * sizeof(core::GazeSample));
        state = grown;
    }
    const bool ordered =
        state->count == 0 || n == 0 || state->samples[state->count - 1].t_ms < samples[0].t_ms;
    if (!(ordered && samples_canonical))
        state->flags &= ~pg::kTraceCanonical;
    std::memcpy(state->samples + state->count, samples, n * sizeof(core::GazeSample));
    state->count = needed;
    return state;
}

// The state while the aggregate runs: an expanded object owning a flat trace with spare capacity.
struct TraceStateObject {
    ExpandedObjectHeader header; // first: PostgreSQL's view of the object
    TraceDatum* trace;           // in header.eoh_context
};

// The flat form is the trace without its spare capacity.
Size state_flat_size(ExpandedObjectHeader* header) {
    return kHeader + reinterpret_cast<TraceStateObject*>(header)->trace->count * sizeof(core::GazeSample);
}

void state_flatten_into(ExpandedObjectHeader* header, void* result, Size allocated_size) {
    const TraceDatum* trace = reinterpret_cast<TraceStateObject*>(header)->trace;
    Assert(allocated_size == kHeader + trace->count * sizeof(core::GazeSample));
    std::memcpy(result, trace, allocated_size);
    SET_VARSIZE(result, allocated_size);
}

const ExpandedObjectMethods trace_state_methods = {state_flat_size, state_flatten_into};

// `value` when it is one of our expanded states (read-write or read-only), else nullptr.
TraceStateObject* our_state(Datum value) {
    if (!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(value)))
        return nullptr;
    ExpandedObjectHeader* header = DatumGetEOHP(value);
    return header->eoh_methods == &trace_state_methods ? reinterpret_cast<TraceStateObject*>(header)
                                                       : nullptr;
}

// A state's trace to read: the expanded object's own, or the flat value (detoasted, header checked).
const TraceDatum* readable_state(Datum value) {
    if (const TraceStateObject* state = our_state(value))
        return state->trace;
    const auto* flat = reinterpret_cast<const TraceDatum*>(PG_DETOAST_DATUM(value));
    check_header(flat);
    return flat;
}

// The state to append to: `value` itself when it is our read-write expanded object owned by
// aggregate_context (what nodeAgg and Citus hand back after adopting it), otherwise a new expanded
// state holding a copy of `value`'s samples (none when `value` is NULL), with room for `extra` more.
TraceStateObject* writable_state(FunctionCallInfo fcinfo, MemoryContext aggregate_context,
                                 std::size_t extra) {
    const Datum value = PG_ARGISNULL(0) ? Datum(0) : PG_GETARG_DATUM(0);
    TraceStateObject* existing = PG_ARGISNULL(0) ? nullptr : our_state(value);
    if (existing != nullptr && VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(value)) &&
        MemoryContextGetParent(existing->header.eoh_context) == aggregate_context)
        return existing;
    const TraceDatum* from = PG_ARGISNULL(0) ? nullptr : readable_state(value);
    const std::size_t count = from == nullptr ? 0 : from->count;
    const std::size_t room = std::max(kInitialCapacity, count + extra);
    require_room(room);
    MemoryContext context =
        AllocSetContextCreate(aggregate_context, "gazepriv make_trace state", ALLOCSET_SMALL_SIZES);
    auto* state = static_cast<TraceStateObject*>(MemoryContextAlloc(context, sizeof(TraceStateObject)));
    EOH_init_header(&state->header, &trace_state_methods, context);
    state->trace =
        static_cast<TraceDatum*>(MemoryContextAlloc(context, kHeader + room * sizeof(core::GazeSample)));
    SET_VARSIZE(state->trace, kHeader + room * sizeof(core::GazeSample));
    state->trace->flags = from == nullptr ? pg::kTraceVersion << 8 | pg::kTraceCanonical : from->flags;
    state->trace->count = count;
    if (count > 0)
        std::memcpy(state->trace->samples, from->samples, count * sizeof(core::GazeSample));
    return state;
}

// Appends samples to a state, growing it in place (repalloc: a large trace's pages move, uncopied).
void append_to_state(TraceStateObject* state, const core::GazeSample* samples, std::size_t n,
                     bool samples_canonical) {
    const std::size_t needed = state->trace->count + n;
    if (needed > capacity(state->trace)) {
        const std::size_t room = std::max(needed, std::min(kMaxSamples, 2 * capacity(state->trace)));
        require_room(room);
        state->trace =
            static_cast<TraceDatum*>(repalloc(state->trace, kHeader + room * sizeof(core::GazeSample)));
        SET_VARSIZE(state->trace, kHeader + room * sizeof(core::GazeSample));
    }
    TraceDatum* t = state->trace;
    const bool ordered = t->count == 0 || n == 0 || t->samples[t->count - 1].t_ms < samples[0].t_ms;
    if (!(ordered && samples_canonical))
        t->flags &= ~pg::kTraceCanonical;
    std::memcpy(t->samples + t->count, samples, n * sizeof(core::GazeSample));
    t->count = needed;
}

// The aggregate's contexts: refuses direct calls and window use (a growing trace per row would be
// quadratic, and the state is modified in place). Returns the aggregate's memory context.
MemoryContext require_plain_aggregate(FunctionCallInfo fcinfo, const char* what) {
    MemoryContext aggregate_context = nullptr;
    const int context = AggCheckCallContext(fcinfo, &aggregate_context);
    if (context == 0)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("%s can only be called by the make_trace aggregate", what)));
    if (context == AGG_CONTEXT_WINDOW)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("gazepriv.make_trace cannot be used as a window function")));
    return aggregate_context;
}

Datum transition(FunctionCallInfo fcinfo, bool with_pupil) {
    MemoryContext aggregate_context = require_plain_aggregate(fcinfo, "gazepriv._make_trace_sfunc");
    if (PG_ARGISNULL(1)) { // a sample without a time cannot be placed: skipped like NULLs in sum()
        if (PG_ARGISNULL(0))
            PG_RETURN_NULL();
        PG_RETURN_DATUM(PG_GETARG_DATUM(0));
    }
    auto arg = [&](int i) { return PG_ARGISNULL(i) ? NAN : PG_GETARG_FLOAT8(i); };
    const core::GazeSample s =
        core::make_sample(PG_GETARG_FLOAT8(1), arg(2), arg(3), with_pupil ? arg(4) : NAN);
    TraceStateObject* state = writable_state(fcinfo, aggregate_context, 1);
    append_to_state(state, &s, 1, true);
    PG_RETURN_DATUM(EOHPGetRWDatum(&state->header));
}

} // namespace

namespace gazepriv::pg {

TraceView trace_arg(FunctionCallInfo fcinfo, int i) {
    auto* t = reinterpret_cast<TraceDatum*>(PG_DETOAST_DATUM(PG_GETARG_DATUM(i)));
    check_header(t);
    if (canonical(t) && core::is_canonical(t->samples, t->count))
        return {t->samples, t->count};
    // Only a corrupt or hand-made value gets here: the aggregate and the input function canonicalise.
    auto* copy = static_cast<core::GazeSample*>(palloc_or_throw(t->count * sizeof(core::GazeSample) + 1));
    std::memcpy(copy, t->samples, t->count * sizeof(core::GazeSample));
    return {copy, core::canonicalize(copy, t->count, core::CancelCheck(interrupt_pending))};
}

} // namespace gazepriv::pg

namespace {

// Parses text into a palloc'd trace, or copies the parse error into `error`. A trace is canonicalised; a
// state keeps its samples as written (duplicate times apart).
TraceDatum* parse(const char* text, bool state, char* error, std::size_t error_size) {
    std::vector<core::GazeSample> samples;
    std::string message;
    if (!(state ? core::parse_samples(text, samples, message) : core::parse_trace(text, samples, message))) {
        const std::size_t n = std::min(message.size(), error_size - 1);
        std::memcpy(error, message.data(), n);
        error[n] = '\0';
        return nullptr;
    }
    return append(new_trace(samples.size()), samples.data(), samples.size(),
                  core::is_canonical(samples.data(), samples.size()));
}

char* format(pg::TraceView t) {
    const std::string text = core::format_trace(t.samples, t.count);
    auto* out = static_cast<char*>(pg::palloc_or_throw(text.size() + 1));
    std::memcpy(out, text.c_str(), text.size() + 1);
    return out;
}

} // namespace

GAZEPRIV_FUNCTION(gaze_trace_in) {
    const char* text = PG_GETARG_CSTRING(0);
    char error[512];
    TraceDatum* t = parse(text, false, error, sizeof error);
    if (t == nullptr)
        ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                        errmsg("invalid input syntax for type gazepriv.gaze_trace: %s", error)));
    PG_RETURN_POINTER(t);
}

GAZEPRIV_FUNCTION(gaze_trace_out) {
    const pg::TraceView t = pg::trace_arg(fcinfo, 0);
    PG_RETURN_CSTRING(format(t));
}

GAZEPRIV_FUNCTION(trace_state_in) {
    const char* text = PG_GETARG_CSTRING(0);
    char error[512];
    TraceDatum* t = parse(text, true, error, sizeof error);
    if (t == nullptr)
        ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                        errmsg("invalid input syntax for type gazepriv.trace_state: %s", error)));
    PG_RETURN_POINTER(t);
}

GAZEPRIV_FUNCTION(trace_state_out) { // every sample as held: no sorting, no merging of duplicate times
    const TraceDatum* t = readable_state(PG_GETARG_DATUM(0));
    PG_RETURN_CSTRING(format({t->samples, t->count}));
}

GAZEPRIV_FUNCTION(make_trace_sfunc) {
    return transition(fcinfo, false);
}

GAZEPRIV_FUNCTION(make_trace_pupil_sfunc) {
    return transition(fcinfo, true);
}

GAZEPRIV_FUNCTION(make_trace_combinefunc) { // STRICT: PostgreSQL handles NULL states
    MemoryContext aggregate_context = require_plain_aggregate(fcinfo, "gazepriv._make_trace_combinefunc");
    const TraceDatum* b = readable_state(PG_GETARG_DATUM(1));
    TraceStateObject* a = writable_state(fcinfo, aggregate_context, b->count);
    // Partial traces of parallel workers are each nearly in time order (workers read increasing
    // blocks): sorting each (O(n) when nearly sorted) and merging them is linear, where sorting their
    // concatenation at the end would not be. Duplicate times are merged only by the final function,
    // so that their mean weighs every sample once.
    const std::size_t na = a->trace->count;
    append_to_state(a, b->samples, b->count, (b->flags & pg::kTraceCanonical) != 0);
    TraceDatum* out = a->trace;
    core::combine_partial(out->samples, na, out->count, core::CancelCheck(pg::interrupt_pending));
    if (!core::is_canonical(out->samples, out->count))
        out->flags &= ~pg::kTraceCanonical;
    else
        out->flags |= pg::kTraceCanonical;
    PG_RETURN_DATUM(EOHPGetRWDatum(&a->header));
}

GAZEPRIV_FUNCTION(make_trace_finalfunc) { // STRICT, READ_ONLY: the state is copied, never changed
    require_plain_aggregate(fcinfo, "gazepriv._make_trace_finalfunc");
    const TraceDatum* state = readable_state(PG_GETARG_DATUM(0));
    TraceDatum* t = new_trace(state->count);
    std::memcpy(t->samples, state->samples, state->count * sizeof(core::GazeSample));
    t->count = state->count;
    if (!canonical(state)) {
        t->count = core::canonicalize(t->samples, t->count, core::CancelCheck(pg::interrupt_pending));
        SET_VARSIZE(t, kHeader + t->count * sizeof(core::GazeSample));
    }
    PG_RETURN_POINTER(t);
}

GAZEPRIV_FUNCTION(trace_samples) { // STRICT
    const pg::TraceView t = pg::trace_arg(fcinfo, 0);
    InitMaterializedSRF(fcinfo, 0);
    auto* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    for (std::size_t i = 0; i < t.count; ++i) {
        if ((i & 1023) == 0)
            CHECK_FOR_INTERRUPTS();
        const core::GazeSample& s = t.samples[i];
        Datum v[4] = {Float8GetDatum(s.t_ms), Float8GetDatum(s.x), Float8GetDatum(s.y),
                      Float8GetDatum(s.pupil)};
        bool n[4] = {false, std::isnan(s.x), std::isnan(s.y), std::isnan(s.pupil)};
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
    }
    return (Datum)0;
}
