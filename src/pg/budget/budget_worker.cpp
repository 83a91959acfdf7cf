// The charge worker: a dynamic background worker that applies one budget charge in a transaction of
// its own and commits it durably before replying. Plain C-style code (PostgreSQL errors, no C++ objects).
#include <cstring>

#include "pg/budget/budget_message.hpp"

extern "C" {
#include "postgres.h"
#include "access/xact.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"

PGDLLEXPORT void gazepriv_charge_worker_main(Datum main_arg);
}

using gazepriv::pg::ChargeMessage;
using gazepriv::pg::ChargeStatus;

namespace {

void set_message(ChargeMessage* m, const char* text) {
    snprintf(m->message, sizeof m->message, "%s", text != nullptr ? text : "");
}

ChargeStatus status_from_text(const char* s) {
    if (std::strcmp(s, "charged") == 0)
        return ChargeStatus::Charged;
    if (std::strcmp(s, "over_budget") == 0)
        return ChargeStatus::OverBudget;
    if (std::strcmp(s, "no_budget") == 0 || std::strcmp(s, "unknown_dataset") == 0)
        return ChargeStatus::NoBudget;
    if (std::strcmp(s, "invalid") == 0)
        return ChargeStatus::Invalid;
    return ChargeStatus::Failed;
}

// Runs gazepriv._apply_charge; fills m->message and m->ledger_id, returns the status (not yet published).
ChargeStatus apply_charge(ChargeMessage* m) {
    Oid types[10] = {TEXTOID,   OIDOID,    TEXTOID, TEXTOID, FLOAT8OID,
                     FLOAT8OID, FLOAT8OID, TEXTOID, BOOLOID, INT4OID};
    Datum values[10] = {CStringGetTextDatum(m->dataset),
                        ObjectIdGetDatum(m->charged_role),
                        CStringGetTextDatum(m->mechanism),
                        CStringGetTextDatum(m->parameters),
                        Float8GetDatum(m->epsilon),
                        Float8GetDatum(m->delta),
                        Float8GetDatum(m->rho),
                        CStringGetTextDatum(m->guarantee),
                        BoolGetDatum(m->non_private),
                        Int32GetDatum(m->caller_pid)};
    char nulls[10];
    std::memset(nulls, ' ', sizeof nulls);
    if (!m->has_rho)
        nulls[6] = 'n';
    const int rc = SPI_execute_with_args("SELECT status, message, ledger_id FROM gazepriv._apply_charge($1, "
                                         "$2, $3, $4::jsonb, $5, $6, $7, $8, $9, $10)",
                                         10, types, values, nulls, false, 1);
    if (rc != SPI_OK_SELECT || SPI_processed != 1)
        elog(ERROR, "gazepriv._apply_charge returned no row");
    HeapTuple row = SPI_tuptable->vals[0];
    TupleDesc desc = SPI_tuptable->tupdesc;
    const char* status = SPI_getvalue(row, desc, 1);
    set_message(m, SPI_getvalue(row, desc, 2));
    bool isnull = false;
    const Datum id = SPI_getbinval(row, desc, 3, &isnull);
    m->ledger_id = isnull ? 0 : DatumGetInt64(id);
    return status_from_text(status != nullptr ? status : "");
}

} // namespace

void gazepriv_charge_worker_main(Datum main_arg) {
    pqsignal(SIGTERM, die);
    BackgroundWorkerUnblockSignals();

    CurrentResourceOwner = ResourceOwnerCreate(nullptr, "gazepriv budget charge");
    dsm_segment* segment = dsm_attach(DatumGetUInt32(main_arg));
    if (segment == nullptr)
        proc_exit(1); // the caller is gone; it released nothing
    auto* m = static_cast<ChargeMessage*>(dsm_segment_address(segment));

    BackgroundWorkerInitializeConnectionByOid(m->database, m->worker_role, 0);
    // The charge must survive a crash as soon as the caller proceeds: commit synchronously.
    SetConfigOption("synchronous_commit", "on", PGC_SUSET, PGC_S_OVERRIDE);
    char timeout[32];
    snprintf(timeout, sizeof timeout, "%d", m->lock_timeout_ms);
    SetConfigOption("lock_timeout", timeout, PGC_SUSET, PGC_S_OVERRIDE);
    SetConfigOption("statement_timeout", timeout, PGC_SUSET, PGC_S_OVERRIDE);

    ChargeStatus status = ChargeStatus::Failed;
    MemoryContext worker_context = CurrentMemoryContext;
    PG_TRY();
    {
        SetCurrentStatementStartTimestamp();
        StartTransactionCommand();
        SPI_connect();
        PushActiveSnapshot(GetTransactionSnapshot());
        pgstat_report_activity(STATE_RUNNING, "gazepriv: charging a privacy budget");
        status = apply_charge(m);
        SPI_finish();
        PopActiveSnapshot();
        CommitTransactionCommand(); // durable before the reply below
        pgstat_report_activity(STATE_IDLE, nullptr);
    }
    PG_CATCH();
    {
        MemoryContextSwitchTo(worker_context);
        ErrorData* error = CopyErrorData();
        FlushErrorState();
        set_message(m, error->message);
        status = ChargeStatus::Failed;
        AbortCurrentTransaction();
    }
    PG_END_TRY();

    pg_write_barrier(); // the reply fields before the status the caller reads
    m->status = status;
    dsm_detach(segment);
    proc_exit(0);
}
