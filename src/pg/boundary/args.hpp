// Small helpers for reading SQL arguments in function bodies.
#pragma once

extern "C" {
#include "postgres.h"
#include "fmgr.h"
#include "utils/builtins.h"
}

namespace gazepriv::pg {

// A text argument as a palloc'd C string (call before any C++ object is created in the body).
inline const char* text_arg(FunctionCallInfo fcinfo, int i) {
    return text_to_cstring(PG_GETARG_TEXT_PP(i));
}

} // namespace gazepriv::pg
