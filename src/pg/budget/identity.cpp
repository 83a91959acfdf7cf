#include "pg/budget/identity.hpp"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type_d.h"
#include "catalog/namespace.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
}

namespace gazepriv::pg {

namespace {

// The control file fixes the schema (schema = gazepriv, not relocatable).
constexpr const char* kSchema = "gazepriv";

Oid extension_schema() {
    return get_namespace_oid(kSchema, false);
}

void pin(const char* name, const char* value) {
    (void)set_config_option(name, value, PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
}

} // namespace

Oid calling_role() {
    return GetUserId();
}

const char* catalog_schema() {
    return quote_identifier(kSchema);
}

Oid catalog_owner() {
    const Oid datasets = get_relname_relid("datasets", extension_schema());
    HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(datasets));
    if (!HeapTupleIsValid(tuple))
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE), errmsg("the gazepriv catalog is missing")));
    const Oid owner = reinterpret_cast<Form_pg_class>(GETSTRUCT(tuple))->relowner;
    ReleaseSysCache(tuple);
    return owner;
}

RoleSwitch switch_role(Oid role) {
    RoleSwitch saved;
    GetUserIdAndSecContext(&saved.saved_user, &saved.saved_context);
    SetUserIdAndSecContext(role, saved.saved_context | SECURITY_LOCAL_USERID_CHANGE |
                                     SECURITY_RESTRICTED_OPERATION);
    saved.guc_level = NewGUCNestLevel();
    pin("search_path", "pg_catalog, pg_temp");
    pin("extra_float_digits", "3");
    return saved;
}

void restore_role(const RoleSwitch& saved) {
    AtEOXact_GUC(true, saved.guc_level);
    SetUserIdAndSecContext(saved.saved_user, saved.saved_context);
}

Oid dataset_owner(const char* dataset) {
    const RoleSwitch saved = switch_role(catalog_owner());
    if (SPI_connect() != SPI_OK_CONNECT)
        elog(ERROR, "SPI_connect failed");
    Oid types[1] = {TEXTOID};
    Datum values[1] = {CStringGetTextDatum(dataset)};
    const char* query = psprintf("SELECT (%s._dataset($1)).owner::oid", catalog_schema());
    if (SPI_execute_with_args(query, 1, types, values, nullptr, true, 1) != SPI_OK_SELECT)
        elog(ERROR, "reading the dataset's owner failed");
    Oid owner = InvalidOid;
    bool isnull = true;
    if (SPI_processed == 1) {
        const Datum value = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
        if (!isnull)
            owner = DatumGetObjectId(value);
    }
    SPI_finish();
    restore_role(saved);
    return owner;
}

void require_dataset_owner(const char* dataset) {
    const Oid owner = dataset_owner(dataset);
    if (!OidIsValid(owner))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("dataset \"%s\" is not registered", dataset)));
    if (!has_privs_of_role(calling_role(), owner))
        ereport(ERROR,
                (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                 errmsg("must be owner of dataset \"%s\" to charge it", dataset),
                 errdetail("Releases over raw data charge only the datasets their caller owns; analysts "
                           "release through the release functions.")));
}

} // namespace gazepriv::pg
