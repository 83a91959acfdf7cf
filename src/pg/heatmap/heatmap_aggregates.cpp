// The heatmap aggregates: gaze_map (exact capped map), dp_heatmap (the DP release) and optimal_cap
// (Algorithm 1, non-private), for text and bigint participants.
//
// Transition and combine functions are exact and deterministic; they keep per-(participant, cell)
// capped counts (core/heatmap/heatmap_counts.hpp), so partial states from parallel workers or Citus shards
// combine exactly. They use no fn_extra cache, no fn_expr and no polymorphic arguments (Citus calls them
// through fresh FmgrInfos). Noise is drawn in one place only, dp_heatmap's final function, which never
// modifies the state (FINALFUNC_MODIFY = READ_ONLY) and refuses window use. PostgreSQL evaluates identical
// aggregate calls of one query level once: one release per distinct call.
#include <cstring>

#include "core/common/errors.hpp"
#include "core/heatmap/heatmap_counts.hpp"
#include "core/heatmap/heatmap_release.hpp"
#include "core/common/validate.hpp"
#include "pg/boundary/args.hpp"
#include "pg/boundary/aggregate_call.hpp"
#include "pg/boundary/arrays.hpp"
#include "pg/budget/budget.hpp"
#include "pg/boundary/guard.hpp"
#include "pg/heatmap/heatmap_state.hpp"
#include "pg/heatmap/heatmap_release.hpp"
#include "pg/heatmap/heatmap_settings.hpp"
#include "pg/heatmap/heatmap_types.hpp"
#include "pg/boundary/memory.hpp"

extern "C" {
#include "utils/builtins.h"
}

using namespace gazepriv;

namespace {

const core::CancelCheck kCancel(pg::interrupt_pending);

MemoryContext aggregate_context_or_error(FunctionCallInfo fcinfo, const char* name) {
    MemoryContext context = nullptr;
    if (!AggCheckCallContext(fcinfo, &context))
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("%s can only be called as part of an aggregate", name)));
    return context;
}

// Final functions run only as part of an aggregate (not called directly), and never per window frame.
void reject_window_use(FunctionCallInfo fcinfo, const char* name) {
    const int context = AggCheckCallContext(fcinfo, nullptr);
    if (context == 0)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("%s's final function can only be called as part of an aggregate", name)));
    if (context == AGG_CONTEXT_WINDOW)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("%s cannot be used as a window function", name),
                        errdetail("Every window frame would be a separate release.")));
}

// ---- parameters of the first row, and their check on every later row ---------------------------------

void init_exact_map(pg::HeatmapStateObject* state, core::ParticipantKeyKind key, std::int64_t width,
                    std::int64_t height, std::int64_t cap, std::int64_t cell_size) {
    core::HeatmapSpec spec;
    spec.parameters.grid = core::make_grid(width, height, cell_size, pg::max_heatmap_cells());
    spec.parameters.cap = static_cast<std::int32_t>(core::require_range("cap", cap, 1, INT32_MAX));
    state->counts.init(core::HeatmapAggregate::ExactMap, key, spec,
                       pg::context_arena(state->header.eoh_context));
}

void init_from_spec(pg::HeatmapStateObject* state, core::HeatmapAggregate aggregate,
                    core::ParticipantKeyKind key, const pg::SpecFields& fields) {
    const core::HeatmapSpec spec = pg::spec_from_fields(fields);
    if (aggregate == core::HeatmapAggregate::Release)
        core::plan_heatmap_release(spec); // every parameter error before the first row is counted
    state->counts.init(aggregate, key, spec, pg::context_arena(state->header.eoh_context));
}

bool same_spec(const core::HeatmapCounts& counts, const pg::SpecFields& fields) {
    const core::HeatmapSpec spec = pg::spec_from_fields(fields);
    const core::HeatmapSpec mine = counts.spec();
    return spec.parameters == mine.parameters && spec.dataset == mine.dataset;
}

[[noreturn]] void spec_changed() {
    throw core::InvalidArgument("the heatmap parameters must be the same for every row of a group");
}

// A varlena argument as stored (short header allowed), without a function call unless it is compressed or
// out of line: this runs for every row.
struct varlena* packed_varlena(Datum datum) {
    auto* value = reinterpret_cast<struct varlena*>(DatumGetPointer(datum));
    return VARATT_IS_COMPRESSED(value) || VARATT_IS_EXTERNAL(value) ? pg_detoast_datum_packed(value) : value;
}

// Whether the spec payload equals the first row's (compared inline, 8 bytes at a time: it runs per row).
bool same_spec_image(const pg::HeatmapStateObject* state, const struct varlena* payload) {
    const std::uint32_t size = static_cast<std::uint32_t>(VARSIZE_ANY_EXHDR(payload));
    if (state->spec_image == nullptr || size != state->spec_image_size)
        return false;
    const char* a = VARDATA_ANY(payload);
    const char* b = state->spec_image;
    std::uint32_t i = 0;
    for (; i + 8 <= size; i += 8) {
        std::uint64_t x, y;
        std::memcpy(&x, a + i, 8);
        std::memcpy(&y, b + i, 8);
        if (x != y)
            return false;
    }
    for (; i < size; ++i)
        if (a[i] != b[i])
            return false;
    return true;
}

// Gets or creates the state and checks that this row's parameters are the group's. `state` is our own
// read-write state when the caller found one (then no aggregate context is needed), else nullptr.
pg::HeatmapStateObject* state_for_row(FunctionCallInfo fcinfo, core::HeatmapAggregate aggregate,
                                      core::ParticipantKeyKind key, pg::HeatmapStateObject* state,
                                      const char* name) {
    MemoryContext context = nullptr;
    if (state == nullptr) {
        context = aggregate_context_or_error(fcinfo, name);
        if (!PG_ARGISNULL(0))
            state = pg::writable_heatmap_state(PG_GETARG_DATUM(0), context);
    }
    if (aggregate == core::HeatmapAggregate::ExactMap) {
        const int nargs = PG_NARGS();
        const char* names[] = {"width", "height", "cap", "cell_size"};
        std::int64_t values[4] = {0, 0, 0, 1};
        for (int i = 4; i < nargs; ++i) {
            pg::require_not_null(fcinfo, i, names[i - 4]);
            values[i - 4] = PG_GETARG_INT32(i);
        }
        if (state == nullptr) {
            state = pg::new_heatmap_state(context);
            init_exact_map(state, key, values[0], values[1], values[2], values[3]);
            state->parameters_constant =
                pg::aggregate_arguments_constant(fcinfo, 3); // after participant, x, y
        } else {
            const core::HeatmapParameters& p = state->counts.parameters();
            if (p.grid.width != values[0] || p.grid.height != values[1] || p.cap != values[2] ||
                p.grid.cell_size != values[3])
                spec_changed();
        }
        return state;
    }
    if (PG_ARGISNULL(4))
        throw core::InvalidArgument("spec must not be NULL");
    struct varlena* payload = packed_varlena(PG_GETARG_DATUM(4));
    const std::uint32_t size = static_cast<std::uint32_t>(VARSIZE_ANY_EXHDR(payload));
    if (state != nullptr && same_spec_image(state, payload))
        return state; // the same value as on the first row
    pg::SpecFields fields;
    pg::read_spec_fields(PG_GETARG_HEAPTUPLEHEADER(4), &fields);
    if (state == nullptr) {
        state = pg::new_heatmap_state(context);
        init_from_spec(state, aggregate, key, fields);
        state->parameters_constant = pg::aggregate_arguments_constant(fcinfo, 3); // after participant, x, y
    } else if (!same_spec(state->counts, fields)) {
        spec_changed();
    }
    if (state->spec_image == nullptr) {
        state->spec_image = static_cast<char*>(MemoryContextAlloc(state->header.eoh_context, size));
        std::memcpy(state->spec_image, VARDATA_ANY(payload), size);
        state->spec_image_size = size;
    }
    return state;
}

bool same_bytes(const char* a, const char* b, std::uint32_t size) { // short strings: no library call
    for (std::uint32_t i = 0; i < size; ++i)
        if (a[i] != b[i])
            return false;
    return true;
}

std::uint64_t text_key(pg::HeatmapStateObject* state, const struct varlena* participant) {
    const char* bytes = VARDATA_ANY(participant);
    const std::uint32_t size = static_cast<std::uint32_t>(VARSIZE_ANY_EXHDR(participant));
    if (size == state->last_participant_size && same_bytes(bytes, state->last_participant, size))
        return state->last_participant_key;
    const std::uint64_t key = core::text_participant_key(bytes, size);
    if (size <= sizeof state->last_participant) {
        std::memcpy(state->last_participant, bytes, size);
        state->last_participant_size = size;
        state->last_participant_key = key;
    }
    return key;
}

Datum transition(FunctionCallInfo fcinfo, core::HeatmapAggregate aggregate, core::ParticipantKeyKind key,
                 const char* name) {
    if (PG_ARGISNULL(1)) { // rows without a participant are ignored
        aggregate_context_or_error(fcinfo, name);
        if (PG_ARGISNULL(0))
            PG_RETURN_NULL();
        PG_RETURN_DATUM(PG_GETARG_DATUM(0));
    }
    // The common case, every row after a group's first: our state, parameters constant or unchanged.
    pg::HeatmapStateObject* state = PG_ARGISNULL(0) ? nullptr : pg::own_heatmap_state(PG_GETARG_DATUM(0));
    if (state == nullptr ||
        (!state->parameters_constant && (aggregate == core::HeatmapAggregate::ExactMap || PG_ARGISNULL(4) ||
                                         !same_spec_image(state, packed_varlena(PG_GETARG_DATUM(4))))))
        state = state_for_row(fcinfo, aggregate, key, state, name);
    std::uint64_t participant_key;
    if (key == core::ParticipantKeyKind::TextHash)
        participant_key = text_key(state, packed_varlena(PG_GETARG_DATUM(1)));
    else
        participant_key = static_cast<std::uint64_t>(PG_GETARG_INT64(1));
    const std::uint32_t participant = state->counts.participant(participant_key);
    if (!PG_ARGISNULL(2) && !PG_ARGISNULL(3))
        state->counts.add_point(participant, PG_GETARG_FLOAT8(2), PG_GETARG_FLOAT8(3));
    state->flat_valid = false;
    PG_RETURN_DATUM(pg::heatmap_state_datum(state));
}

double observers_of(const core::HeatmapCounts& counts) {
    const std::int64_t observers = counts.parameters().observers;
    return observers != 0 ? static_cast<double>(observers) : static_cast<double>(counts.participants());
}

// The release: plan (the cost), exact sums, noise, blur. Fills `out` with plain values only.
void release(const core::HeatmapCounts& counts, pg::HeatmapFields* out) {
    const core::HeatmapReleasePlan plan = core::plan_heatmap_release(counts.spec());
    if (counts.spec().dataset) // charged once per released group, before any noise is drawn
        pg::charge_release(counts.spec().dataset->c_str(), plan.cost);
    const core::GazeGrid& grid = plan.spec.parameters.grid;
    const std::size_t cells = static_cast<std::size_t>(grid.cells());
    auto* sums = static_cast<std::int64_t*>(pg::palloc_or_throw(cells * sizeof(std::int64_t)));
    counts.cell_sums(sums, kCancel);
    pg::release_into(plan, sums, observers_of(counts), out);
}

void exact_map(const core::HeatmapCounts& counts, pg::HeatmapFields* out) {
    const core::GazeGrid& grid = counts.parameters().grid;
    const std::size_t cells = static_cast<std::size_t>(grid.cells());
    ArrayType* values = pg::new_float8_array(cells);
    double* v = pg::float8_data(values);
    auto* sums = static_cast<std::int64_t*>(pg::palloc_or_throw(cells * sizeof(std::int64_t)));
    counts.cell_sums(sums, kCancel);
    const double n = static_cast<double>(counts.participants());
    for (std::size_t j = 0; j < cells; ++j)
        v[j] = static_cast<double>(sums[j]) / n;
    pfree(sums);
    *out = pg::heatmap_fields_for(grid, values);
    out->n = static_cast<std::int64_t>(counts.participants());
    out->cap = counts.parameters().cap;
}

std::int64_t best_cap(const core::HeatmapCounts& counts) {
    const double n = observers_of(counts);
    return core::optimal_cap(
               counts.spec(), n, counts.max_count(kCancel),
               [&](auto&& visit) { counts.for_each_cell(visit, kCancel); }, kCancel)
        .cap;
}

const core::HeatmapCounts* final_state(FunctionCallInfo fcinfo, core::HeatmapCounts* scratch,
                                       core::HeatmapAggregate expected) {
    const core::HeatmapCounts* counts = pg::readable_heatmap_state(PG_GETARG_DATUM(0), scratch);
    if (counts->aggregate() != expected)
        throw core::InvalidArgument("the heatmap state was made by a different aggregate");
    return counts;
}

} // namespace

GAZEPRIV_FUNCTION(_gaze_map_sfunc_text) {
    return transition(fcinfo, core::HeatmapAggregate::ExactMap, core::ParticipantKeyKind::TextHash,
                      "gaze_map");
}

GAZEPRIV_FUNCTION(_gaze_map_sfunc_bigint) {
    return transition(fcinfo, core::HeatmapAggregate::ExactMap, core::ParticipantKeyKind::Integer,
                      "gaze_map");
}

GAZEPRIV_FUNCTION(_dp_heatmap_sfunc_text) {
    return transition(fcinfo, core::HeatmapAggregate::Release, core::ParticipantKeyKind::TextHash,
                      "dp_heatmap");
}

GAZEPRIV_FUNCTION(_dp_heatmap_sfunc_bigint) {
    return transition(fcinfo, core::HeatmapAggregate::Release, core::ParticipantKeyKind::Integer,
                      "dp_heatmap");
}

GAZEPRIV_FUNCTION(_optimal_cap_sfunc_text) {
    return transition(fcinfo, core::HeatmapAggregate::OptimalCap, core::ParticipantKeyKind::TextHash,
                      "optimal_cap");
}

GAZEPRIV_FUNCTION(_optimal_cap_sfunc_bigint) {
    return transition(fcinfo, core::HeatmapAggregate::OptimalCap, core::ParticipantKeyKind::Integer,
                      "optimal_cap");
}

// Not strict: on a group's first partial state PostgreSQL would otherwise copy it as the starting state,
// flattening (serialising) the leader's own expanded state only to read it back on the next call. Flat
// states (from parallel workers, or Citus shards via the text input) merge straight from their bytes.
GAZEPRIV_FUNCTION(_heatmap_combine) {
    MemoryContext context = aggregate_context_or_error(fcinfo, "heatmap combine");
    if (PG_ARGISNULL(1)) {
        if (PG_ARGISNULL(0))
            PG_RETURN_NULL();
        PG_RETURN_DATUM(PG_GETARG_DATUM(0));
    }
    if (PG_ARGISNULL(0))
        PG_RETURN_DATUM(pg::heatmap_state_datum(pg::writable_heatmap_state(PG_GETARG_DATUM(1), context)));
    pg::HeatmapStateObject* state = pg::writable_heatmap_state(PG_GETARG_DATUM(0), context);
    if (const pg::HeatmapStateObject* other = pg::our_expanded_state(PG_GETARG_DATUM(1))) {
        state->counts.merge(other->counts, kCancel);
    } else {
        struct varlena* flat = PG_DETOAST_DATUM(PG_GETARG_DATUM(1));
        state->counts.merge_serialized(reinterpret_cast<const std::uint8_t*>(VARDATA(flat)),
                                       VARSIZE(flat) - VARHDRSZ, kCancel);
    }
    state->flat_valid = false;
    PG_RETURN_DATUM(pg::heatmap_state_datum(state));
}

GAZEPRIV_FUNCTION(_gaze_map_final) {
    reject_window_use(fcinfo, "gaze_map");
    core::HeatmapCounts scratch;
    const core::HeatmapCounts* counts = final_state(fcinfo, &scratch, core::HeatmapAggregate::ExactMap);
    pg::HeatmapFields out;
    exact_map(*counts, &out);
    return pg::heatmap_datum(fcinfo, out);
}

GAZEPRIV_FUNCTION(_dp_heatmap_final) {
    reject_window_use(fcinfo, "dp_heatmap");
    core::HeatmapCounts scratch;
    const core::HeatmapCounts* counts = final_state(fcinfo, &scratch, core::HeatmapAggregate::Release);
    pg::HeatmapFields out;
    release(*counts, &out);
    return pg::heatmap_datum(fcinfo, out);
}

GAZEPRIV_FUNCTION(_optimal_cap_final) {
    reject_window_use(fcinfo, "optimal_cap");
    core::HeatmapCounts scratch;
    const core::HeatmapCounts* counts = final_state(fcinfo, &scratch, core::HeatmapAggregate::OptimalCap);
    PG_RETURN_INT32(static_cast<std::int32_t>(best_cap(*counts)));
}
