// The ledger guard (ledger_guard.hpp). An object access hook sees every object a DROP deletes, before it is
// deleted; for the extension's tables ledger and budgets it counts their rows and refuses. The library must
// be loaded in the session that drops: the extension's event trigger on DROP EXTENSION, DROP SCHEMA and DROP
// OWNED (gazepriv._load_ledger_guard, a C function of this library) loads it before the command runs.
// Plain C-style code: everything here can raise PostgreSQL errors.
#include "pg/budget/ledger_guard.hpp"

#include "pg/boundary/guard.hpp"

extern "C" {
#include "postgres.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/namespace.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_class.h"
#include "commands/event_trigger.h"
#include "commands/extension.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
}

#include <cstring>

namespace gazepriv::pg {

namespace {

bool allow_ledger_drop = false;
object_access_hook_type previous_hook = nullptr;

std::int64_t count_rows(Oid relation) {
    Relation rel = table_open(relation, AccessShareLock);
    Snapshot snapshot = RegisterSnapshot(GetLatestSnapshot());
    TableScanDesc scan = table_beginscan(rel, snapshot, 0, nullptr);
    TupleTableSlot* slot = table_slot_create(rel, nullptr);
    std::int64_t rows = 0;
    while (table_scan_getnextslot(scan, ForwardScanDirection, slot)) {
        ++rows;
        CHECK_FOR_INTERRUPTS();
    }
    ExecDropSingleTupleTableSlot(slot);
    table_endscan(scan);
    UnregisterSnapshot(snapshot);
    table_close(rel, AccessShareLock);
    return rows;
}

void guard_drop(ObjectAccessType access, Oid class_id, Oid object_id, int sub_id, void* arg) {
    if (previous_hook != nullptr)
        previous_hook(access, class_id, object_id, sub_id, arg);
    if (access != OAT_DROP || class_id != RelationRelationId || sub_id != 0 || allow_ledger_drop)
        return;
    // The control file fixes the extension's schema (gazepriv, not relocatable).
    if (!OidIsValid(get_extension_oid("gazepriv", true)) ||
        get_rel_namespace(object_id) != get_namespace_oid("gazepriv", true))
        return;
    const char* name = get_rel_name(object_id);
    if (name == nullptr || (std::strcmp(name, "ledger") != 0 && std::strcmp(name, "budgets") != 0))
        return;
    const std::int64_t rows = count_rows(object_id);
    if (rows == 0)
        return;
    ereport(
        ERROR,
        (errcode(ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST),
         errmsg("cannot drop extension gazepriv: gazepriv.%s holds %lld rows", name,
                static_cast<long long>(rows)),
         errdetail("Dropping the extension deletes the privacy ledger and every budget; created again, every "
                   "analyst would start afresh."),
         errhint("Export them first (pg_dump keeps them: see the README, \"Backup and restore\"; or COPY "
                 "gazepriv.ledger TO ...). To drop them deliberately, a superuser runs SET "
                 "gazepriv.allow_ledger_drop = on first.")));
}

} // namespace

void define_ledger_guard() {
    // Superuser-only: the owner of a database could otherwise reset every analyst's budget.
    DefineCustomBoolVariable(
        "gazepriv.allow_ledger_drop",
        "Lets DROP EXTENSION gazepriv delete a ledger and budgets that hold rows.",
        "Off: the drop is refused (2BP01) while gazepriv.ledger or gazepriv.budgets hold "
        "rows.",
        &allow_ledger_drop, false, PGC_SUSET, 0, nullptr, nullptr, nullptr);
    previous_hook = object_access_hook;
    object_access_hook = guard_drop;
}

} // namespace gazepriv::pg

using namespace gazepriv;

// The event trigger's function: calling it loads this library, whose _PG_init installs the guard.
GAZEPRIV_FUNCTION(_load_ledger_guard) {
    if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
        ereport(ERROR, (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                        errmsg("_load_ledger_guard() must be called as an event trigger")));
    PG_RETURN_NULL();
}
