// The SQL type gazepriv.heatmap_state: the transition state of the heatmap aggregates.
//
// Flat form (what parallel workers and Citus shards ship): a varlena holding HeatmapCounts' versioned
// serialization, which is printable, so the text and binary forms are the same bytes. Input validates
// everything (checksum, structure, ranges), so a corrupted state is an error (XX001), never a crash.
//
// In memory, while rows are added, the state is a PostgreSQL expanded object (a read-write pointer to
// a HeatmapCounts in its own memory context, a child of the aggregate's context), so the transition
// function updates it in place instead of copying a growing value for every row. PostgreSQL and Citus
// adopt such a pointer without copying (nodeAgg's and Citus' HandleTransition check
// DatumIsReadWriteExpandedObject and the context's parent); wherever a flat value is needed, PostgreSQL
// flattens it through the callbacks below.
#pragma once

#include <cstring>

#include "core/heatmap/heatmap_counts.hpp"

extern "C" {
#include "postgres.h"
#include "fmgr.h"
#include "utils/expandeddatum.h"
}

namespace gazepriv::pg {

struct HeatmapStateObject {
    ExpandedObjectHeader header; // first: PostgreSQL's view of the object
    core::HeatmapCounts counts;
    // The spec argument's bytes on the first row (Release and OptimalCap), to notice a spec that changes
    // between rows of one group.
    char* spec_image;
    std::uint32_t spec_image_size;
    // Whether the parameter arguments are constants or query parameters (then rows need no check).
    bool parameters_constant;
    // The last text participant and its key, to skip hashing consecutive rows of one participant.
    char last_participant[32];
    std::uint32_t last_participant_size; // > sizeof last_participant: none
    std::uint64_t last_participant_key;
    // The flat form, cached between PostgreSQL's get-size and flatten callbacks.
    std::uint8_t* flat;
    std::size_t flat_size;
    bool flat_valid;
};

extern const ExpandedObjectMethods heatmap_state_methods;

// `value` when it is a read-write pointer to one of our expanded states, else nullptr. A transition
// function only ever receives such a pointer back from nodeAgg (or Citus) after they adopted it as a
// child of the aggregate's memory context, so it may be modified in place.
inline HeatmapStateObject* own_heatmap_state(Datum value) {
    if (!VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(value)))
        return nullptr;
    // DatumGetEOHP's body, inline: this runs for every row.
    varatt_expanded pointer;
    std::memcpy(&pointer, VARDATA_EXTERNAL(DatumGetPointer(value)), sizeof pointer);
    ExpandedObjectHeader* header = pointer.eohptr;
    return header->eoh_methods == &heatmap_state_methods ? reinterpret_cast<HeatmapStateObject*>(header)
                                                         : nullptr;
}

// `value` when it is one of our expanded states (read-write or read-only), else nullptr.
HeatmapStateObject* our_expanded_state(Datum value);

// Validates a flat state's bytes completely (throws CorruptData), without keeping anything.
void validate_flat(const std::uint8_t* bytes, std::size_t size);

// Makes state->flat the state's serialized form (cached until the state changes).
void flat_form(HeatmapStateObject* state);

// An arena allocating in a memory context without ever raising a PostgreSQL error.
core::MemoryArena context_arena(MemoryContext context);

// A new, empty state whose memory context is a child of aggregate_context.
HeatmapStateObject* new_heatmap_state(MemoryContext aggregate_context);

// The state to modify: `value` itself when it is our read-write expanded object owned by
// aggregate_context, otherwise a new expanded copy (validated when `value` is flat).
HeatmapStateObject* writable_heatmap_state(Datum value, MemoryContext aggregate_context);

// Read-only access: the expanded object's counts, or `scratch` filled from the flat form (validated,
// allocated in the current memory context).
const core::HeatmapCounts* readable_heatmap_state(Datum value, core::HeatmapCounts* scratch);

inline Datum heatmap_state_datum(HeatmapStateObject* state) {
    return EOHPGetRWDatum(&state->header);
}

} // namespace gazepriv::pg
