// SQL: k_same_select_cost(...) and generalize_demographics_cost(...): the ledger record a k-anonymity
// release writes, computed by the same functions the releases charge with.
#include <string>
#include <vector>

#include "core/kanon/k_anonymity_cost.hpp"
#include "pg/boundary/args.hpp"
#include "pg/boundary/guard.hpp"
#include "pg/budget/release_cost.hpp"
#include "pg/kanon/k_anonymity_cost.hpp"

extern "C" {
#include "postgres.h"
#include "access/htup_details.h"
#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
}

using namespace gazepriv;

namespace gazepriv::pg {

Charge k_same_select_charge(const char* dataset, int k, const char* class_column, bool across_tasks,
                            const char* source) {
    return charge_from_cost(dataset, core::kanon::k_same_select_cost(k, class_column, across_tasks, source));
}

Charge demographics_charge(const char* mechanism, const char* dataset, int k, const char* gender_column,
                           const char* age_column, const char* const* ranges, int n_ranges,
                           const char* source) {
    const std::vector<std::string> given =
        ranges == nullptr ? std::vector<std::string>{} : std::vector<std::string>(ranges, ranges + n_ranges);
    return charge_from_cost(
        dataset, core::kanon::generalize_demographics_cost(mechanism, k, gender_column, age_column,
                                                           ranges == nullptr ? nullptr : &given, source));
}

const char** text_array_arg(ArrayType* array, const char* name, int* n) {
    Datum* elements;
    bool* nulls;
    deconstruct_array(array, TEXTOID, -1, false, TYPALIGN_INT, &elements, &nulls, n);
    const char** out = static_cast<const char**>(palloc(sizeof(const char*) * (*n + 1)));
    for (int i = 0; i < *n; ++i) {
        if (nulls[i])
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("%s must not contain NULL elements", name)));
        out[i] = TextDatumGetCString(elements[i]);
    }
    return out;
}

} // namespace gazepriv::pg

// k_same_select_cost(k int, class_column name, across_tasks boolean, source text)
GAZEPRIV_FUNCTION(k_same_select_cost) {
    pg::require_not_null(fcinfo, {"k", nullptr, "across_tasks"});
    const int k = PG_GETARG_INT32(0);
    const char* class_column = PG_ARGISNULL(1) ? nullptr : pstrdup(NameStr(*PG_GETARG_NAME(1)));
    const bool across_tasks = PG_GETARG_BOOL(2);
    const char* source = PG_ARGISNULL(3) ? nullptr : text_to_cstring(PG_GETARG_TEXT_PP(3));
    return pg::release_cost_datum(fcinfo,
                                  pg::k_same_select_charge(nullptr, k, class_column, across_tasks, source));
}

// generalize_demographics_cost(k int, quasi_identifiers text[], ranges text[], source text)
GAZEPRIV_FUNCTION(generalize_demographics_cost) {
    pg::require_not_null(fcinfo, {"k", "quasi_identifiers"});
    const int k = PG_GETARG_INT32(0);
    int n_qi = 0, n_ranges = 0;
    const char** qi = pg::text_array_arg(PG_GETARG_ARRAYTYPE_P(1), "quasi_identifiers", &n_qi);
    if (n_qi != 2)
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("quasi_identifiers must name two columns, the gender and the age, got %d", n_qi)));
    const char** ranges =
        PG_ARGISNULL(2) ? nullptr : pg::text_array_arg(PG_GETARG_ARRAYTYPE_P(2), "ranges", &n_ranges);
    const char* source = PG_ARGISNULL(3) ? nullptr : text_to_cstring(PG_GETARG_TEXT_PP(3));
    return pg::release_cost_datum(fcinfo, pg::demographics_charge("generalize_demographics", nullptr, k,
                                                                  qi[0], qi[1], ranges, n_ranges, source));
}
