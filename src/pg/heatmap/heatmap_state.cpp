// gazepriv.heatmap_state: text and binary input/output, and the expanded-object form used while an
// aggregate runs (see heatmap_state.hpp).
#include <climits>
#include <cstring>
#include <vector>

#include "core/common/errors.hpp"
#include "pg/boundary/guard.hpp"
#include "pg/heatmap/heatmap_state.hpp"

extern "C" {
#include "libpq/pqformat.h"
#include "utils/memutils.h"
}

namespace gazepriv::pg {

namespace {

const core::CancelCheck kCancel(interrupt_pending);

Size state_get_flat_size(ExpandedObjectHeader* header);
void state_flatten_into(ExpandedObjectHeader* header, void* result, Size allocated_size);

} // namespace

const ExpandedObjectMethods heatmap_state_methods = {state_get_flat_size, state_flatten_into};

namespace {

void serialize_into_cache(void* argument) {
    auto* state = static_cast<HeatmapStateObject*>(argument);
    const std::vector<std::uint8_t> bytes = state->counts.serialize(kCancel);
    const core::MemoryArena arena = context_arena(state->header.eoh_context);
    arena.put(state->flat);
    state->flat = nullptr;
    state->flat = static_cast<std::uint8_t*>(arena.get(bytes.size()));
    std::memcpy(state->flat, bytes.data(), bytes.size());
    state->flat_size = bytes.size();
    state->flat_valid = true;
}

Size state_get_flat_size(ExpandedObjectHeader* header) {
    auto* state = reinterpret_cast<HeatmapStateObject*>(header);
    flat_form(state);
    if (state->flat_size > MaxAllocSize - VARHDRSZ)
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("a heatmap state of %zu bytes exceeds PostgreSQL's 1 GB limit for one value",
                               state->flat_size),
                        errhint("Use a larger cell_size or group the query into smaller groups.")));
    return VARHDRSZ + state->flat_size;
}

void state_flatten_into(ExpandedObjectHeader* header, void* result, Size allocated_size) {
    auto* state = reinterpret_cast<HeatmapStateObject*>(header);
    Assert(state->flat_valid && allocated_size == VARHDRSZ + state->flat_size);
    SET_VARSIZE(result, allocated_size);
    std::memcpy(VARDATA(result), state->flat, state->flat_size);
}

void* arena_allocate(void* context, std::size_t bytes) {
    if (bytes > MaxAllocHugeSize)
        return nullptr;
    return MemoryContextAllocExtended(static_cast<MemoryContext>(context), bytes,
                                      MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
}

void arena_release(void*, void* pointer) {
    pfree(pointer);
}

} // namespace

HeatmapStateObject* our_expanded_state(Datum value) {
    if (!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(value)))
        return nullptr;
    ExpandedObjectHeader* header = DatumGetEOHP(value);
    return header->eoh_methods == &heatmap_state_methods ? reinterpret_cast<HeatmapStateObject*>(header)
                                                         : nullptr;
}

void validate_flat(const std::uint8_t* bytes, std::size_t size) {
    core::HeatmapCounts::validate(bytes, size, kCancel);
}

void flat_form(HeatmapStateObject* state) {
    if (!state->flat_valid)
        guarded_call("gazepriv.heatmap_state", serialize_into_cache, state);
}

core::MemoryArena context_arena(MemoryContext context) {
    core::MemoryArena arena;
    arena.allocate = arena_allocate;
    arena.release = arena_release;
    arena.context = context;
    return arena;
}

HeatmapStateObject* new_heatmap_state(MemoryContext aggregate_context) {
    MemoryContext context =
        AllocSetContextCreate(aggregate_context, "gazepriv heatmap state", ALLOCSET_DEFAULT_SIZES);
    auto* state =
        static_cast<HeatmapStateObject*>(MemoryContextAllocZero(context, sizeof(HeatmapStateObject)));
    EOH_init_header(&state->header, &heatmap_state_methods, context);
    state->spec_image = nullptr;
    state->spec_image_size = 0;
    state->parameters_constant = false;
    state->last_participant_size = sizeof state->last_participant + 1;
    state->last_participant_key = 0;
    state->flat = nullptr;
    state->flat_size = 0;
    state->flat_valid = false;
    return state;
}

HeatmapStateObject* writable_heatmap_state(Datum value, MemoryContext aggregate_context) {
    HeatmapStateObject* existing = our_expanded_state(value);
    if (existing != nullptr && VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(value)) &&
        MemoryContextGetParent(existing->header.eoh_context) == aggregate_context)
        return existing;
    struct varlena* flat = existing == nullptr ? PG_DETOAST_DATUM(value) : nullptr;
    HeatmapStateObject* state = new_heatmap_state(aggregate_context);
    const core::MemoryArena arena = context_arena(state->header.eoh_context);
    if (existing != nullptr)
        state->counts.copy_from(existing->counts, arena, kCancel);
    else
        state->counts.deserialize(reinterpret_cast<const std::uint8_t*>(VARDATA(flat)),
                                  VARSIZE(flat) - VARHDRSZ, arena, kCancel);
    return state;
}

const core::HeatmapCounts* readable_heatmap_state(Datum value, core::HeatmapCounts* scratch) {
    if (HeatmapStateObject* state = our_expanded_state(value))
        return &state->counts;
    struct varlena* flat = PG_DETOAST_DATUM(value);
    scratch->deserialize(reinterpret_cast<const std::uint8_t*>(VARDATA(flat)), VARSIZE(flat) - VARHDRSZ,
                         context_arena(CurrentMemoryContext), kCancel);
    return scratch;
}

} // namespace gazepriv::pg

using namespace gazepriv;

// The flat value, the text and the binary form are the same printable bytes (core/heatmap/text_varint.hpp):
// input validates them completely, output copies them.

GAZEPRIV_FUNCTION(heatmap_state_in) {
    const char* text = PG_GETARG_CSTRING(0);
    const std::size_t size = std::strlen(text);
    if (size > MaxAllocSize - VARHDRSZ)
        throw core::LimitExceeded("a heatmap state text of " + std::to_string(size) + " bytes is too long");
    pg::validate_flat(reinterpret_cast<const std::uint8_t*>(text), size);
    auto* result = static_cast<struct varlena*>(palloc(VARHDRSZ + size));
    std::memcpy(VARDATA(result), text, size);
    SET_VARSIZE(result, VARHDRSZ + size);
    PG_RETURN_POINTER(result);
}

GAZEPRIV_FUNCTION(heatmap_state_out) {
    const char* bytes;
    std::size_t size;
    if (pg::HeatmapStateObject* state = pg::our_expanded_state(PG_GETARG_DATUM(0))) {
        pg::flat_form(state); // straight from the state, without a flattened copy in between
        bytes = reinterpret_cast<const char*>(state->flat);
        size = state->flat_size;
    } else {
        struct varlena* flat = PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
        bytes = VARDATA(flat);
        size = VARSIZE(flat) - VARHDRSZ;
    }
    char* text = static_cast<char*>(palloc(size + 1));
    std::memcpy(text, bytes, size);
    text[size] = '\0';
    PG_RETURN_CSTRING(text);
}

GAZEPRIV_FUNCTION(heatmap_state_recv) {
    StringInfo buffer = reinterpret_cast<StringInfo>(PG_GETARG_POINTER(0));
    const std::size_t size = static_cast<std::size_t>(buffer->len - buffer->cursor);
    pg::validate_flat(reinterpret_cast<const std::uint8_t*>(buffer->data + buffer->cursor), size);
    auto* result = static_cast<struct varlena*>(palloc(VARHDRSZ + size));
    std::memcpy(VARDATA(result), buffer->data + buffer->cursor, size);
    buffer->cursor = buffer->len;
    SET_VARSIZE(result, VARHDRSZ + size);
    PG_RETURN_POINTER(result);
}

GAZEPRIV_FUNCTION(heatmap_state_send) {
    // The binary form is the flat value's payload: a bytea with the same bytes.
    PG_RETURN_BYTEA_P(PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(0)));
}
