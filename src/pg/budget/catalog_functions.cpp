// The one place where the extension owner's rights are used from a caller's session: the curator functions
// (register_dataset, grant_budget, revoke_budget, set_release_policy, reset_release, drop_dataset) are all
// this C function, SECURITY INVOKER. It takes the caller from GetUserId() (so nobody can claim to be someone
// else), switches to the catalog's owner, and calls the internal function of the same name with a leading
// underscore, `_name(caller, arguments...)`, whose fixed statements check ownership and write the catalog.
// The internal functions are not executable by PUBLIC: the switch is the only way to them.
// Plain C-style code: everything here can raise PostgreSQL errors.
#include "pg/boundary/guard.hpp"
#include "pg/budget/identity.hpp"

extern "C" {
#include "postgres.h"
#include "access/htup_details.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
}

using namespace gazepriv;

GAZEPRIV_FUNCTION(catalog_function) {
    const Oid caller = pg::calling_role();
    const Oid fn = fcinfo->flinfo->fn_oid;
    HeapTuple proc = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
    if (!HeapTupleIsValid(proc))
        elog(ERROR, "cache lookup failed for function %u", fn);
    const auto* form = reinterpret_cast<Form_pg_proc>(GETSTRUCT(proc));
    const int nargs = form->pronargs;
    const Oid result_type = form->prorettype;
    const char* internal = psprintf("_%s", NameStr(form->proname));
    Oid* types = static_cast<Oid*>(palloc(sizeof(Oid) * (nargs + 1)));
    Datum* values = static_cast<Datum*>(palloc(sizeof(Datum) * (nargs + 1)));
    char* nulls = static_cast<char*>(palloc(nargs + 2));
    types[0] = REGROLEOID;
    values[0] = ObjectIdGetDatum(caller);
    nulls[0] = ' ';
    StringInfoData query;
    initStringInfo(&query);
    appendStringInfo(&query, "SELECT %s.%s($1", pg::catalog_schema(), quote_identifier(internal));
    for (int i = 0; i < nargs; ++i) {
        types[i + 1] = form->proargtypes.values[i];
        values[i + 1] = PG_ARGISNULL(i) ? 0 : PG_GETARG_DATUM(i);
        nulls[i + 1] = PG_ARGISNULL(i) ? 'n' : ' ';
        appendStringInfo(&query, ", $%d", i + 2);
    }
    appendStringInfoChar(&query, ')');
    ReleaseSysCache(proc);

    const pg::RoleSwitch saved = pg::switch_role(pg::catalog_owner());
    if (SPI_connect() != SPI_OK_CONNECT)
        elog(ERROR, "SPI_connect failed");
    if (SPI_execute_with_args(query.data, nargs + 1, types, values, nulls, false, 1) != SPI_OK_SELECT ||
        SPI_processed != 1)
        elog(ERROR, "%s returned no row", internal);
    bool isnull = true;
    Datum result = 0;
    if (result_type != VOIDOID) {
        result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
        if (!isnull) {
            int16 length;
            bool by_value;
            get_typlenbyval(result_type, &length, &by_value);
            result = SPI_datumTransfer(result, by_value, length);
        }
    }
    SPI_finish();
    pg::restore_role(saved);
    if (result_type == VOIDOID)
        PG_RETURN_VOID();
    if (isnull)
        PG_RETURN_NULL();
    return result;
}

// _new_secret(): 32 bytes from the operating system's strong random source, the secret of a dataset's
// served-once releases.
GAZEPRIV_FUNCTION(_new_secret) {
    constexpr int kBytes = 32;
    auto* secret = static_cast<bytea*>(palloc(VARHDRSZ + kBytes));
    SET_VARSIZE(secret, VARHDRSZ + kBytes);
    if (!pg_strong_random(VARDATA(secret), kBytes))
        ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("could not generate a random secret")));
    PG_RETURN_BYTEA_P(secret);
}
