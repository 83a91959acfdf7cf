#include "pg/boundary/guard.hpp" // before PostgreSQL's headers (it includes core ones)
#include "pg/boundary/aggregate_call.hpp"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "nodes/pg_list.h"
#include "nodes/primnodes.h"
#include "utils/syscache.h"
}

namespace gazepriv::pg {

bool aggregate_arguments_constant(FunctionCallInfo fcinfo, int first) {
    bool constant = false;
    call_postgres([&] {
        const Aggref* aggref = AggGetAggref(fcinfo);
        if (aggref == nullptr || aggref->aggorder != NIL || aggref->aggdistinct != NIL ||
            list_length(aggref->args) != PG_NARGS() - 1)
            return;
        HeapTuple tuple = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggref->aggfnoid));
        if (!HeapTupleIsValid(tuple))
            return;
        const Oid transition = reinterpret_cast<Form_pg_aggregate>(GETSTRUCT(tuple))->aggtransfn;
        ReleaseSysCache(tuple);
        if (transition != fcinfo->flinfo->fn_oid)
            return;
        for (int i = first; i < list_length(aggref->args); ++i) {
            const auto* argument = static_cast<const TargetEntry*>(list_nth(aggref->args, i));
            const Node* expression = reinterpret_cast<const Node*>(argument->expr);
            const bool parameter = IsA(expression, Param) &&
                                   reinterpret_cast<const Param*>(expression)->paramkind == PARAM_EXTERN;
            if (!IsA(expression, Const) && !parameter)
                return;
        }
        constant = true;
    });
    return constant;
}

} // namespace gazepriv::pg
