#include "pg/budget/release_cost.hpp"

extern "C" {
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
}

namespace gazepriv::pg {

void release_cost_columns(const Charge& c, Datum* values, bool* nulls) {
    values[0] = CStringGetTextDatum(c.mechanism);
    values[1] = CStringGetTextDatum(c.guarantee);
    values[2] = Float8GetDatum(c.epsilon);
    values[3] = Float8GetDatum(c.delta);
    values[4] = Float8GetDatum(c.rho < 0 ? 0 : c.rho);
    values[5] = BoolGetDatum(c.non_private);
    values[6] = DirectFunctionCall1(jsonb_in,
                                    CStringGetDatum(c.parameters_json != nullptr ? c.parameters_json : "{}"));
    for (int i = 0; i < kReleaseCostColumns; ++i)
        nulls[i] = false;
    nulls[4] = c.rho < 0;
}

Datum release_cost_datum(FunctionCallInfo fcinfo, const Charge& charge) {
    TupleDesc desc;
    if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
        ereport(ERROR,
                (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("a cost function must return a record")));
    Datum values[kReleaseCostColumns];
    bool nulls[kReleaseCostColumns];
    release_cost_columns(charge, values, nulls);
    return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls));
}

} // namespace gazepriv::pg
