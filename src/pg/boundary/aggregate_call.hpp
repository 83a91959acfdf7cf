// What a transition function may learn about the aggregate call it serves.
#pragma once

extern "C" {
#include "postgres.h"
#include "fmgr.h"
}

namespace gazepriv::pg {

// Whether the call's arguments from index `first` on (0-based, state excluded) are constants or query
// parameters, which cannot change between the rows of one aggregate run, so a per-row check of them can be
// skipped. Under Citus, where worker_partial_agg calls our transition functions with its own Aggref, the
// arguments are read from the row it packs them into. False when unknown (a window aggregate, any other
// caller). Raises no PostgreSQL error (C++ objects may be alive).
bool aggregate_arguments_constant(FunctionCallInfo fcinfo, int first);

} // namespace gazepriv::pg
