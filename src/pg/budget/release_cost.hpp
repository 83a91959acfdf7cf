// The one cost record: every *_cost function returns the columns of the composite gazepriv.release_cost
// first (mechanism, guarantee, epsilon, delta, rho, non_private_choices, parameters), built here from the
// Charge a release would make, then any columns of its own.
#pragma once

#include "pg/budget/budget.hpp"

extern "C" {
#include "postgres.h"
#include "fmgr.h"
}

namespace gazepriv::pg {

constexpr int kReleaseCostColumns = 7;

// Fills values[0..6] and nulls[0..6] (rho is NULL when the release has no zCDP form). Calls PostgreSQL:
// no C++ object may be alive.
void release_cost_columns(const Charge& charge, Datum* values, bool* nulls);

// The result of a function returning gazepriv.release_cost (or a record starting with its columns and
// nothing else).
Datum release_cost_datum(FunctionCallInfo fcinfo, const Charge& charge);

} // namespace gazepriv::pg
