// The gazepriv.gaze_trace type as stored by PostgreSQL, shared by the trace, event and feature glue.
#pragma once

#include <cstddef>

#include "core/events/gaze_trace.hpp"

extern "C" {
#include "postgres.h"
#include "fmgr.h"
}

namespace gazepriv::pg {

// A gaze_trace varlena: a header, then samples row by row. The same layout is the state of the
// make_trace aggregate, where the varlena may be larger than `count` samples (spare capacity).
struct TraceDatum {
    int32 vl_len_;
    uint32 flags; // kTraceVersion << 8 | kTraceCanonical when the samples are sorted with unique times
    uint64 count;
    core::GazeSample samples[FLEXIBLE_ARRAY_MEMBER];
};

constexpr uint32 kTraceCanonical = 1;
constexpr uint32 kTraceVersion = 1;

struct TraceView {
    const core::GazeSample* samples;
    std::size_t count;
};

// Reads argument i as a canonical trace. Call at the top of a body, before any C++ object exists: it
// detoasts (which can raise a PostgreSQL error), then checks the header (XX001 when corrupt) and
// canonicalises a palloc'd copy when the samples are not strictly ordered.
TraceView trace_arg(FunctionCallInfo fcinfo, int i);

} // namespace gazepriv::pg
