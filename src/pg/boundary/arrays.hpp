// float8[] arguments and results without PostgreSQL errors inside C++ code.
#pragma once

#include <cstddef>

extern "C" {
#include "postgres.h"
#include "fmgr.h"
#include "utils/array.h"
}

namespace gazepriv::pg {

struct Float8Span {
    const double* data;
    std::size_t size;
};

// Reads a float8[] argument: call PG_GETARG_ARRAYTYPE_P (which may detoast) at the top of the body,
// before any C++ object exists, then pass the array here. Throws core::InvalidArgument naming `name`
// for NULL elements or more than one dimension. An empty array gives size 0.
Float8Span float8_elements(ArrayType* array, const char* name);

// A new one-dimensional float8[] of n elements (uninitialised), allocated with palloc_or_throw; fill
// float8_data(result) and return PointerGetDatum(result).
ArrayType* new_float8_array(std::size_t n);
inline double* float8_data(ArrayType* array) {
    return reinterpret_cast<double*>(ARR_DATA_PTR(array));
}

} // namespace gazepriv::pg
