// Every analyst release function (release_count, release_heatmap, release_kaleido, release_k_same_select,
// pd_release, release_feature_series) is this C function, SECURITY INVOKER. In order:
//  1. the caller is GetUserId() on entry: the role whose privileges run the call is the role charged;
//  2. as the catalog's owner, `_plan_<name>(caller, arguments...)` checks the caller's budget on the dataset
//     (one answer for "not registered" and "no budget"), reads the dataset's release policy, refuses
//     arguments that would change what the policy fixes, and returns the plan: the charge (computed from the
//     arguments and registered public facts only), the query that makes the release, and for results that do
//     not compose (served once) the stored first release and the dataset's secret;
//  3. the caller's budget is charged (pg/budget/budget.hpp), unless a stored release is served again: a
//     served-once release, or the caller's own release of the same call within the dataset's freshness window
//     (_repeat_release);
//  4. as the dataset's owner, in a security-restricted operation, the query runs with the function's own
//     arguments as $1..$n (and the secret as $n+1): code in a registered view runs with its owner's rights;
//  5. the release is stored (as the catalog's owner, table releases, with its ledger id and the call) and
//     returned from the store, so that the caller, a repeat and every later reader of the my_* views read
//     the same values. Results are kept as JSON rows, except a heatmap, kept as itself (column heatmap): a
//     map of millions of floats took seconds to convert to JSON numbers and back.
// Plain C-style code: everything here can raise PostgreSQL errors.
#include "pg/boundary/guard.hpp"
#include "pg/budget/budget.hpp"
#include "pg/budget/identity.hpp"

extern "C" {
#include "postgres.h"
#include "access/htup_details.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"
}

using namespace gazepriv;

namespace {

// The columns of gazepriv._release_plan.
enum PlanColumn {
    kDataset = 1,
    kReader,
    kMechanism,
    kGuarantee,
    kEpsilon,
    kDelta,
    kRho,
    kSamplerDistance,
    kNonPrivate,
    kParameters,
    kQuery,
    kServedOnce,
    kStored,
    kSecret,
    kPlanColumns = kSecret
};

// The function's own arguments, as SPI parameters $1..$n (and a spare slot for the secret).
struct Arguments {
    int count;
    Oid* types;
    Datum* values;
    char* nulls;
};

struct ReleasePlan {
    pg::Charge charge;
    Oid reader;
    const char* query;
    const char* served_once; // the policy under which it is served once, or nullptr
    Datum stored;            // jsonb rows, when a served-once release exists
    Datum secret;            // bytea, or 0
};

struct Function {
    const char* name;
    bool returns_set;
    Oid result_type;
    bool returns_heatmap; // its one value is kept typed, in column heatmap of the store
};

// A release as the store keeps it: its rows (jsonb), or a heatmap; 0 for what it is not.
struct Stored {
    Datum rows;
    Datum heatmap;
};

Function describe(FunctionCallInfo fcinfo, Arguments* args) {
    HeapTuple proc = SearchSysCache1(PROCOID, ObjectIdGetDatum(fcinfo->flinfo->fn_oid));
    if (!HeapTupleIsValid(proc))
        elog(ERROR, "cache lookup failed for function %u", fcinfo->flinfo->fn_oid);
    const auto* form = reinterpret_cast<Form_pg_proc>(GETSTRUCT(proc));
    Function f{pstrdup(NameStr(form->proname)), form->proretset, form->prorettype,
               !form->proretset && form->prorettype == GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
                                                                       CStringGetDatum("heatmap"),
                                                                       ObjectIdGetDatum(form->pronamespace))};
    args->count = form->pronargs;
    args->types = static_cast<Oid*>(palloc(sizeof(Oid) * (args->count + 2)));
    args->values = static_cast<Datum*>(palloc(sizeof(Datum) * (args->count + 2)));
    args->nulls = static_cast<char*>(palloc(args->count + 3));
    for (int i = 0; i < args->count; ++i) {
        args->types[i] = form->proargtypes.values[i];
        args->values[i] = PG_ARGISNULL(i) ? 0 : PG_GETARG_DATUM(i);
        args->nulls[i] = PG_ARGISNULL(i) ? 'n' : ' ';
    }
    args->nulls[args->count] = '\0';
    ReleaseSysCache(proc);
    return f;
}

// "$first, $first+1, ..." for count parameters.
const char* placeholders(int first, int count) {
    StringInfoData s;
    initStringInfo(&s);
    for (int i = 0; i < count; ++i)
        appendStringInfo(&s, "%s$%d", i == 0 ? "" : ", ", first + i);
    return s.data;
}

// Column `c` of the current SPI row, copied out of SPI's memory (0 when NULL).
Datum column(int c, bool* isnull) {
    const Datum value = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, c, isnull);
    if (*isnull)
        return 0;
    const Oid type = SPI_gettypeid(SPI_tuptable->tupdesc, c);
    int16 length;
    bool by_value;
    get_typlenbyval(type, &length, &by_value);
    return SPI_datumTransfer(value, by_value, length);
}

// Runs query as role and returns column 1 of its one row (ERROR `failure` when it returns anything else).
Datum one_value_as(Oid role, const char* query, int count, Oid* types, Datum* values, const char* nulls,
                   bool read_only, const char* failure, bool* isnull) {
    const pg::RoleSwitch saved = pg::switch_role(role);
    if (SPI_execute_with_args(query, count, types, values, nulls, read_only, 0) != SPI_OK_SELECT ||
        SPI_processed != 1)
        elog(ERROR, "%s", failure);
    const Datum value = column(1, isnull);
    pg::restore_role(saved);
    return value;
}

// The call's own arguments behind one leading argument $1 (the caller for the plan, the name for the
// request).
struct QueryArguments {
    Oid* types;
    Datum* values;
    char* nulls;
};
QueryArguments behind(Oid type, Datum value, const Arguments& args) {
    QueryArguments q{static_cast<Oid*>(palloc(sizeof(Oid) * (args.count + 1))),
                     static_cast<Datum*>(palloc(sizeof(Datum) * (args.count + 1))),
                     static_cast<char*>(palloc(args.count + 2))};
    q.types[0] = type;
    q.values[0] = value;
    q.nulls[0] = ' ';
    for (int i = 0; i < args.count; ++i) {
        q.types[i + 1] = args.types[i];
        q.values[i + 1] = args.values[i];
        q.nulls[i + 1] = args.nulls[i];
    }
    q.nulls[args.count + 1] = '\0';
    return q;
}

const char* text_column(int c, const char* what) {
    bool isnull;
    const Datum value = column(c, &isnull);
    if (isnull)
        elog(ERROR, "the release plan has no %s", what);
    return TextDatumGetCString(value);
}

double float_column(int c) {
    bool isnull;
    const Datum value = column(c, &isnull);
    return isnull ? -1 : DatumGetFloat8(value);
}

// Step 2, as the catalog's owner.
ReleasePlan make_plan(const Function& f, Oid caller, const Arguments& args) {
    const QueryArguments q = behind(REGROLEOID, ObjectIdGetDatum(caller), args);
    const char* query =
        psprintf("SELECT * FROM %s.%s(%s)", pg::catalog_schema(),
                 quote_identifier(psprintf("_plan_%s", f.name)), placeholders(1, args.count + 1));
    const pg::RoleSwitch saved = pg::switch_role(pg::catalog_owner());
    if (SPI_execute_with_args(query, args.count + 1, q.types, q.values, q.nulls, true, 1) != SPI_OK_SELECT ||
        SPI_processed != 1 || SPI_tuptable->tupdesc->natts != kPlanColumns)
        elog(ERROR, "%s did not return a release plan", query);
    ReleasePlan plan{};
    bool isnull;
    plan.charge.dataset = text_column(kDataset, "dataset");
    plan.reader = DatumGetObjectId(column(kReader, &isnull));
    if (isnull)
        elog(ERROR, "the release plan has no reader");
    plan.charge.mechanism = text_column(kMechanism, "mechanism");
    plan.charge.guarantee = text_column(kGuarantee, "guarantee");
    plan.charge.epsilon = float_column(kEpsilon);
    plan.charge.delta = float_column(kDelta);
    plan.charge.rho = float_column(kRho);
    plan.charge.sampler_distance = DatumGetFloat8(column(kSamplerDistance, &isnull));
    plan.charge.non_private = DatumGetBool(column(kNonPrivate, &isnull));
    const Datum parameters = column(kParameters, &isnull);
    plan.charge.parameters_json =
        isnull ? nullptr : JsonbToCString(nullptr, &DatumGetJsonbP(parameters)->root, 0);
    plan.query = text_column(kQuery, "query");
    const Datum served_once = column(kServedOnce, &isnull);
    plan.served_once = isnull ? nullptr : TextDatumGetCString(served_once);
    plan.stored = column(kStored, &isnull);
    plan.secret = column(kSecret, &isnull);
    pg::restore_role(saved);
    return plan;
}

// The query's arguments: the function's own, then the secret.
void add_secret(Arguments* args, Datum secret) {
    args->types[args->count] = BYTEAOID;
    args->values[args->count] = secret;
    args->nulls[args->count] = secret == 0 ? 'n' : ' ';
    args->nulls[args->count + 1] = '\0';
}

// The call itself, {"function": name, "arguments": [...]}: with the charged parameters, what makes two
// releases the same (read as the catalog's owner, with floats printed exactly).
Datum request_of(const Function& f, const Arguments& args) {
    const QueryArguments q = behind(TEXTOID, CStringGetTextDatum(f.name), args);
    const char* query = psprintf(
        "SELECT pg_catalog.jsonb_build_object('function', $1, 'arguments', pg_catalog.jsonb_build_array(%s))",
        placeholders(2, args.count));
    bool isnull;
    return one_value_as(pg::catalog_owner(), query, args.count + 1, q.types, q.values, q.nulls, true,
                        "describing the release call failed", &isnull);
}

// Step 3: the caller's stored release of the same call within the freshness window, or nothing.
Stored repeat(const ReleasePlan& plan, Oid caller, Datum request) {
    Oid types[5] = {REGROLEOID, TEXTOID, TEXTOID, TEXTOID, JSONBOID};
    Datum values[5] = {
        ObjectIdGetDatum(caller), CStringGetTextDatum(plan.charge.dataset),
        CStringGetTextDatum(plan.charge.mechanism),
        CStringGetTextDatum(plan.charge.parameters_json != nullptr ? plan.charge.parameters_json : "{}"),
        request};
    const char* query =
        psprintf("SELECT r.result, r.heatmap FROM %s._repeat_release($1, $2, $3, $4::jsonb, $5) r",
                 pg::catalog_schema());
    const pg::RoleSwitch saved = pg::switch_role(pg::catalog_owner());
    // Not read-only: a fresh snapshot sees the release stored by an earlier call of the same statement.
    if (SPI_execute_with_args(query, 5, types, values, nullptr, false, 0) != SPI_OK_SELECT ||
        SPI_processed > 1)
        elog(ERROR, "looking up a stored release failed");
    Stored stored{};
    if (SPI_processed == 1) {
        bool isnull;
        stored.rows = column(1, &isnull);
        stored.heatmap = column(2, &isnull);
    }
    pg::restore_role(saved);
    return stored;
}

// Step 4: the release's rows as one jsonb array of objects (a function of one value: [{"value": ...}]), or
// its heatmap.
Stored run_release(const Function& f, const ReleasePlan& plan, const Arguments& args) {
    const char* query =
        f.returns_heatmap ? psprintf("SELECT r.v FROM (%s) r(v)", plan.query)
        : f.returns_set
            ? psprintf("SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(r)), '[]') FROM (%s) r",
                       plan.query)
            : psprintf(
                  "SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('value', r.v)), '[]') "
                  "FROM (%s) r(v)",
                  plan.query);
    bool isnull;
    const Datum value = one_value_as(plan.reader, query, args.count + 1, args.types, args.values, args.nulls,
                                     false, "the release query did not run", &isnull);
    if (f.returns_heatmap && isnull)
        elog(ERROR, "the release query returned no heatmap");
    return f.returns_heatmap ? Stored{0, value} : Stored{value, 0};
}

// Step 5: stores a release and returns what is stored (for a served-once release, a concurrent first
// request may have stored the identical release before; a heatmap, never served once, is stored as given
// and not copied back).
Stored store(const ReleasePlan& plan, const Function& f, Oid caller, std::int64_t ledger_id,
             const Stored& release, Datum request) {
    Oid types[9] = {INT8OID,  TEXTOID, TEXTOID,  REGROLEOID,   TEXTOID,
                    JSONBOID, TEXTOID, JSONBOID, f.result_type};
    Datum values[9] = {
        Int64GetDatum(ledger_id),
        CStringGetTextDatum(plan.charge.dataset),
        plan.served_once != nullptr ? CStringGetTextDatum(plan.served_once) : 0,
        ObjectIdGetDatum(caller),
        CStringGetTextDatum(plan.charge.parameters_json != nullptr ? plan.charge.parameters_json : "{}"),
        release.rows,
        CStringGetTextDatum(plan.charge.mechanism),
        request,
        release.heatmap};
    const char nulls[10] = {
        ' ', ' ', plan.served_once != nullptr ? ' ' : 'n', ' ', ' ', release.rows != 0 ? ' ' : 'n',
        ' ', ' ', release.heatmap != 0 ? ' ' : 'n',        '\0'};
    const char* query = psprintf("SELECT %s._store_release($1, $2, $3, $4, $5::jsonb, $6, $7, $8%s)",
                                 pg::catalog_schema(), f.returns_heatmap ? ", $9" : "");
    bool isnull;
    const Datum rows = one_value_as(pg::catalog_owner(), query, f.returns_heatmap ? 9 : 8, types, values,
                                    nulls, false, "storing the release failed", &isnull);
    return f.returns_heatmap ? release : Stored{rows, 0};
}

// The stored rows as the function's result rows (read as the caller, with the settings pinned).
void emit_stored(FunctionCallInfo fcinfo, Datum rows) {
    InitMaterializedSRF(fcinfo, 0);
    auto* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    TupleDesc result = rsinfo->setDesc;
    StringInfoData columns;
    initStringInfo(&columns);
    for (int c = 0; c < result->natts; ++c) {
        const Form_pg_attribute a = TupleDescAttr(result, c);
        appendStringInfo(&columns, "%s%s %s", c == 0 ? "" : ", ", quote_identifier(NameStr(a->attname)),
                         format_type_be_qualified(a->atttypid));
    }
    const char* query = psprintf("SELECT * FROM pg_catalog.jsonb_to_recordset($1) AS r(%s)", columns.data);
    Oid types[1] = {JSONBOID};
    Datum values[1] = {rows};
    const pg::RoleSwitch saved = pg::switch_role(pg::calling_role());
    if (SPI_execute_with_args(query, 1, types, values, nullptr, true, 0) != SPI_OK_SELECT)
        elog(ERROR, "reading the stored release failed");
    Datum* datums = static_cast<Datum*>(palloc(sizeof(Datum) * result->natts));
    bool* nulls = static_cast<bool*>(palloc(sizeof(bool) * result->natts));
    for (uint64 i = 0; i < SPI_processed; ++i) {
        heap_deform_tuple(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, datums, nulls);
        tuplestore_putvalues(rsinfo->setResult, result, datums, nulls);
    }
    pg::restore_role(saved);
}

// The stored value of a function that returns one (read as the caller, with the settings pinned).
Datum emit_stored_value(const Function& f, Datum rows, bool* isnull) {
    const char* query = psprintf("SELECT r.value FROM pg_catalog.jsonb_to_recordset($1) AS r(value %s)",
                                 format_type_be_qualified(f.result_type));
    Oid types[1] = {JSONBOID};
    Datum values[1] = {rows};
    return one_value_as(pg::calling_role(), query, 1, types, values, nullptr, true,
                        "the stored release is not one value", isnull);
}

} // namespace

GAZEPRIV_FUNCTION(analyst_release) {
    pg::require_charging_context(); // a clear refusal on a Citus worker, rather than "no budget"
    const Oid caller = pg::calling_role();
    Arguments args;
    const Function f = describe(fcinfo, &args);
    if (SPI_connect() != SPI_OK_CONNECT)
        elog(ERROR, "SPI_connect failed");
    const ReleasePlan plan = make_plan(f, caller, args);
    const Datum request = request_of(f, args);
    add_secret(&args, plan.secret);
    Stored stored = plan.served_once != nullptr ? Stored{plan.stored, 0} : repeat(plan, caller, request);
    if (stored.rows == 0 && stored.heatmap == 0) {
        const std::int64_t ledger_id = pg::charge_budget(plan.charge, caller);
        stored = store(plan, f, caller, ledger_id, run_release(f, plan, args), request);
    }
    const bool stored_map = f.returns_heatmap && stored.heatmap != 0;
    if (!stored_map && stored.rows == 0) // a row written around the release functions
        ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
                        errmsg("the stored release is not a result of %s", f.name)));
    Datum result = 0;
    bool isnull = true;
    if (stored_map) {
        result = stored.heatmap;
        isnull = false;
    } else if (f.returns_set)
        emit_stored(fcinfo, stored.rows);
    else
        result = emit_stored_value(f, stored.rows, &isnull); // also a map stored as JSON rows
    SPI_finish();
    if (f.returns_set)
        return static_cast<Datum>(0);
    if (isnull)
        PG_RETURN_NULL();
    // A repeat's map may still be a pointer into the store's TOAST table: the caller gets the value itself.
    return f.returns_heatmap ? PointerGetDatum(PG_DETOAST_DATUM(result)) : result;
}
