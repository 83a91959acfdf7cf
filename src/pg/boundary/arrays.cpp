#include <climits>
#include <string>

#include "core/common/errors.hpp"
#include "pg/boundary/arrays.hpp"
#include "pg/boundary/memory.hpp"

extern "C" {
#include "catalog/pg_type_d.h"
}

namespace gazepriv::pg {

Float8Span float8_elements(ArrayType* array, const char* name) {
    if (ARR_ELEMTYPE(array) != FLOAT8OID)
        throw core::InternalError(std::string(name) + " is not a float8[]");
    if (ARR_NDIM(array) == 0)
        return {nullptr, 0};
    if (ARR_NDIM(array) != 1)
        throw core::InvalidArgument(std::string(name) + " must be a one-dimensional array, got " +
                                    std::to_string(ARR_NDIM(array)) + " dimensions");
    if (ARR_HASNULL(array)) {
        // array_contains_nulls would be exact, but any null bitmap here means at least one NULL is
        // possible; scan the bitmap ourselves (no PostgreSQL call).
        const bits8* bitmap = ARR_NULLBITMAP(array);
        const int n = ARR_DIMS(array)[0];
        for (int i = 0; i < n; ++i)
            if ((bitmap[i / 8] & (1 << (i % 8))) == 0)
                throw core::InvalidArgument(std::string(name) + " must not contain NULL elements (element " +
                                            std::to_string(i + 1) + " is NULL)");
    }
    return {reinterpret_cast<const double*>(ARR_DATA_PTR(array)),
            static_cast<std::size_t>(ARR_DIMS(array)[0])};
}

ArrayType* new_float8_array(std::size_t n) {
    if (n > static_cast<std::size_t>(INT_MAX) / sizeof(double))
        throw core::LimitExceeded("an array of " + std::to_string(n) +
                                  " elements exceeds PostgreSQL's limit");
    const std::size_t bytes = ARR_OVERHEAD_NONULLS(1) + n * sizeof(double);
    auto* array = static_cast<ArrayType*>(palloc_or_throw(bytes));
    SET_VARSIZE(array, bytes);
    array->ndim = 1;
    array->dataoffset = 0; // no null bitmap
    array->elemtype = FLOAT8OID;
    ARR_DIMS(array)[0] = static_cast<int>(n);
    ARR_LBOUND(array)[0] = 1;
    return array;
}

} // namespace gazepriv::pg
