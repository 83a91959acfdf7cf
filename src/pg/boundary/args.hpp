// Reading SQL arguments in function bodies, with one behaviour for every function: a NULL where a value is
// required is ERROR 22004 (null_value_not_allowed) naming the argument; the guard adds the function's name.
#pragma once

#include <initializer_list>

#include "pg/boundary/guard.hpp"

extern "C" {
#include "postgres.h"
#include "fmgr.h"
#include "utils/builtins.h"
}

namespace gazepriv::pg {

// Throws (as a PostgresError, so that C++ frames unwind) ERROR 22004 "<name> must not be NULL".
[[noreturn]] void throw_null_argument(const char* name);

inline void require_not_null(FunctionCallInfo fcinfo, int i, const char* name) {
    if (PG_ARGISNULL(i))
        throw_null_argument(name);
}

// The arguments 0, 1, ... named in order; a nullptr name marks an argument that may be NULL.
inline void require_not_null(FunctionCallInfo fcinfo, std::initializer_list<const char*> names) {
    int i = 0;
    for (const char* name : names) {
        if (name != nullptr)
            require_not_null(fcinfo, i, name);
        ++i;
    }
}

// A text argument as a palloc'd C string (call before any C++ object is created in the body).
inline const char* text_arg(FunctionCallInfo fcinfo, int i) {
    return text_to_cstring(PG_GETARG_TEXT_PP(i));
}

} // namespace gazepriv::pg
