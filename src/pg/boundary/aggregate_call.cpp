#include "pg/boundary/guard.hpp" // before PostgreSQL's headers (it includes core ones)
#include "pg/boundary/aggregate_call.hpp"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "nodes/pg_list.h"
#include "nodes/primnodes.h"
#include "utils/syscache.h"
}

namespace gazepriv::pg {

namespace {

// Whether aggregate's transition function is the function being called.
bool transition_of(Oid aggregate, FunctionCallInfo fcinfo) {
    HeapTuple tuple = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggregate));
    if (!HeapTupleIsValid(tuple))
        return false;
    const Oid transition = reinterpret_cast<Form_pg_aggregate>(GETSTRUCT(tuple))->aggtransfn;
    ReleaseSysCache(tuple);
    return transition == fcinfo->flinfo->fn_oid;
}

bool constant_or_parameter(const Node* expression) {
    return IsA(expression, Const) ||
           (IsA(expression, Param) && reinterpret_cast<const Param*>(expression)->paramkind == PARAM_EXTERN);
}

// The argument expressions of the aggregate call this transition function serves, or NIL when unknown: the
// Aggref's own, or, under Citus' worker_partial_agg('our_aggregate'::regprocedure, ROW(arguments...)), the
// fields of that ROW (Citus passes a multi-argument aggregate's arguments to the shards as one row).
List* call_arguments(const Aggref* aggref, FunctionCallInfo fcinfo) {
    List* arguments = NIL;
    for (int i = 0; i < list_length(aggref->args); ++i)
        arguments = lappend(arguments, static_cast<TargetEntry*>(list_nth(aggref->args, i))->expr);
    if (transition_of(aggref->aggfnoid, fcinfo))
        return arguments;
    if (list_length(arguments) != 2)
        return NIL;
    const auto* aggregate = static_cast<const Node*>(linitial(arguments));
    const auto* row = static_cast<const Node*>(lsecond(arguments));
    if (!IsA(aggregate, Const) || reinterpret_cast<const Const*>(aggregate)->consttype != REGPROCEDUREOID ||
        reinterpret_cast<const Const*>(aggregate)->constisnull || !IsA(row, RowExpr))
        return NIL;
    if (!transition_of(DatumGetObjectId(reinterpret_cast<const Const*>(aggregate)->constvalue), fcinfo))
        return NIL;
    return reinterpret_cast<const RowExpr*>(row)->args;
}

} // namespace

bool aggregate_arguments_constant(FunctionCallInfo fcinfo, int first) {
    bool constant = false;
    call_postgres([&] {
        const Aggref* aggref = AggGetAggref(fcinfo);
        if (aggref == nullptr || aggref->aggorder != NIL || aggref->aggdistinct != NIL)
            return;
        List* arguments = call_arguments(aggref, fcinfo);
        if (list_length(arguments) != PG_NARGS() - 1)
            return;
        for (int i = first; i < list_length(arguments); ++i)
            if (!constant_or_parameter(static_cast<const Node*>(list_nth(arguments, i))))
                return;
        constant = true;
    });
    return constant;
}

} // namespace gazepriv::pg
