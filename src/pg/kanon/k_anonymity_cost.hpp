// The ledger records of the k-anonymity releases as charges (computed by core::kanon, before any data is
// read), and the text[] arguments they take. Call with no C++ object alive: they can raise PostgreSQL errors.
#pragma once

#include "pg/budget/budget.hpp"

extern "C" {
#include "postgres.h"
#include "utils/array.h"
}

namespace gazepriv::pg {

// dataset may be null (the charge is then only computed, which validates k).
Charge k_same_select_charge(const char* dataset, int k, const char* class_column, bool across_tasks,
                            const char* source);
// ranges may be null (optimised ranges: a data-dependent choice).
Charge demographics_charge(const char* mechanism, const char* dataset, int k, const char* gender_column,
                           const char* age_column, const char* const* ranges, int n_ranges,
                           const char* source);

// The elements of a text[] argument as C strings; ERROR 22023 naming the parameter for NULL elements.
const char** text_array_arg(ArrayType* array, const char* name, int* n);

} // namespace gazepriv::pg
