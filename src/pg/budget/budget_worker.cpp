// The charge worker: a long-lived background worker per database that takes the charges queued in the
// request slots (charge_queue.hpp), applies a batch of them in one transaction, each in a subtransaction
// of its own, commits it durably, and only then replies. It exits after a short idle time, so that it
// neither holds a worker slot nor keeps DROP DATABASE waiting when nobody charges.
// Plain C-style code (PostgreSQL errors, no C++ objects).
#include <cstring>

#include "pg/budget/charge_queue.hpp"

extern "C" {
#include "postgres.h"
#include "access/xact.h"
#include "catalog/pg_authid_d.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

PGDLLEXPORT void gazepriv_charge_worker_main(Datum main_arg);
}

using gazepriv::pg::ChargeRequest;
using gazepriv::pg::ChargeSlot;
using gazepriv::pg::ChargeStatus;

namespace {

constexpr int kMaxBatch = 64;      // charges committed together
constexpr long kIdleExitMs = 2000; // below DROP DATABASE's 5 s wait for other sessions to leave
// A wait for any lock other than the budget row (which _apply_charge takes NOWAIT) ends after this:
// tables locked by a superuser must not park the charges of every other dataset.
constexpr const char* kLockTimeout = "10ms";

constexpr const char* kApplyCharge =
    "SELECT status, message, ledger_id FROM gazepriv._apply_charge($1, $2, $3, "
    "$4::jsonb, $5, $6, $7, $8, $9, $10, $11)";

int worker_index = 0;
uint32 worker_generation = 0;
ChargeSlot* slots = nullptr;
int slot_count = 0;
int scan_from = 0;
SPIPlanPtr apply_plan = nullptr;

// The batch in flight, for the exit callback.
ChargeSlot* batch[kMaxBatch];
int batch_size = 0;
bool batch_committed = false;

void set_reply(ChargeSlot* slot, ChargeStatus status, const char* message) {
    slot->reply.status = status;
    snprintf(slot->reply.message, sizeof slot->reply.message, "%s", message != nullptr ? message : "");
}

// The reply is complete before the state says so; then the caller is woken.
void publish(ChargeSlot* slot) {
    pg_write_barrier();
    pg_atomic_write_u32(&slot->state, gazepriv::pg::kSlotDone);
    SetLatch(&ProcGlobal->allProcs[slot - slots].procLatch);
}

void publish_batch() {
    for (int i = 0; i < batch_size; ++i)
        publish(batch[i]);
    batch_size = 0;
}

// Runs after InitPostgres's own exit callback aborted any open transaction (registered before it, so
// called after it): a charge taken but not committed was not made.
void on_worker_exit(int, Datum) {
    LWLockReleaseAll();
    for (int i = 0; i < batch_size; ++i)
        if (!batch_committed)
            set_reply(batch[i], ChargeStatus::Failed,
                      "the charge worker exited before its transaction committed; nothing was charged");
    publish_batch();
    gazepriv::pg::unregister_charge_worker(worker_index, worker_generation);
}

int take_queued() {
    int n = 0;
    for (int k = 0; k < slot_count && n < kMaxBatch; ++k) {
        const int i = (scan_from + k) % slot_count;
        ChargeSlot* slot = &slots[i];
        uint32 expected = gazepriv::pg::kSlotQueued;
        if (pg_atomic_read_u32(&slot->state) != expected || slot->database != MyDatabaseId)
            continue;
        if (!pg_atomic_compare_exchange_u32(&slot->state, &expected, gazepriv::pg::kSlotTaken))
            continue;                         // withdrawn meanwhile
        if (slot->database != MyDatabaseId) { // re-queued by another database's backend meanwhile: hand back
            pg_atomic_write_u32(&slot->state, gazepriv::pg::kSlotQueued);
            continue;
        }
        batch[n++] = slot;
    }
    scan_from = (scan_from + 1) % slot_count; // no slot is always served last
    return n;
}

ChargeStatus status_from_text(const char* s) {
    if (std::strcmp(s, "charged") == 0)
        return ChargeStatus::Charged;
    if (std::strcmp(s, "over_budget") == 0)
        return ChargeStatus::OverBudget;
    if (std::strcmp(s, "no_budget") == 0) // also for an unknown dataset: one answer
        return ChargeStatus::NoBudget;
    if (std::strcmp(s, "invalid") == 0)
        return ChargeStatus::Invalid;
    return ChargeStatus::Failed;
}

void prepare_apply_plan() {
    if (apply_plan != nullptr)
        return;
    Oid types[11] = {TEXTOID,   OIDOID,  TEXTOID, TEXTOID, FLOAT8OID, FLOAT8OID,
                     FLOAT8OID, TEXTOID, BOOLOID, INT4OID, FLOAT8OID};
    SPIPlanPtr plan = SPI_prepare(kApplyCharge, 11, types);
    if (plan == nullptr)
        elog(ERROR, "could not prepare the charge: %s", SPI_result_code_string(SPI_result));
    SPI_keepplan(plan); // re-planned by the plan cache if the extension is dropped and created again
    apply_plan = plan;
}

// Runs gazepriv._apply_charge, the single place where budgets are spent, for one request.
void apply_charge(ChargeSlot* slot) {
    const ChargeRequest& q = slot->request;
    Datum values[11] = {CStringGetTextDatum(q.dataset),
                        ObjectIdGetDatum(q.charged_role),
                        CStringGetTextDatum(q.mechanism),
                        CStringGetTextDatum(q.parameters),
                        Float8GetDatum(q.epsilon),
                        Float8GetDatum(q.delta),
                        Float8GetDatum(q.rho),
                        CStringGetTextDatum(q.guarantee),
                        BoolGetDatum(q.non_private),
                        Int32GetDatum(q.caller_pid),
                        Float8GetDatum(q.sampler_distance)};
    char nulls[11];
    std::memset(nulls, ' ', sizeof nulls);
    if (!q.has_rho)
        nulls[6] = 'n';
    const int rc = SPI_execute_plan(apply_plan, values, nulls, false, 1);
    if (rc != SPI_OK_SELECT || SPI_processed != 1)
        elog(ERROR, "gazepriv._apply_charge returned no row");
    HeapTuple row = SPI_tuptable->vals[0];
    TupleDesc desc = SPI_tuptable->tupdesc;
    const char* status = SPI_getvalue(row, desc, 1);
    set_reply(slot, status_from_text(status != nullptr ? status : ""), SPI_getvalue(row, desc, 2));
    bool isnull = false;
    const Datum id = SPI_getbinval(row, desc, 3, &isnull);
    slot->reply.ledger_id = isnull ? 0 : DatumGetInt64(id);
    SPI_freetuptable(SPI_tuptable);
}

// One charge in a subtransaction: its error (a locked budget row, say) fails it alone, not the batch.
void apply_in_subtransaction(ChargeSlot* slot) {
    MemoryContext context = CurrentMemoryContext;
    ResourceOwner owner = CurrentResourceOwner;
    BeginInternalSubTransaction(nullptr);
    MemoryContextSwitchTo(context);
    PG_TRY();
    {
        apply_charge(slot);
        ReleaseCurrentSubTransaction();
        MemoryContextSwitchTo(context);
        CurrentResourceOwner = owner;
    }
    PG_CATCH();
    {
        MemoryContextSwitchTo(context);
        ErrorData* error = CopyErrorData();
        FlushErrorState();
        RollbackAndReleaseCurrentSubTransaction();
        MemoryContextSwitchTo(context);
        CurrentResourceOwner = owner;
        set_reply(slot,
                  error->sqlerrcode == ERRCODE_LOCK_NOT_AVAILABLE ? ChargeStatus::Locked
                                                                  : ChargeStatus::Failed,
                  error->message);
        FreeErrorData(error);
    }
    PG_END_TRY();
}

// Applies the batch and commits it (synchronously: durable before any reply), then replies to everyone.
void process_batch() {
    MemoryContext context = CurrentMemoryContext;
    PG_TRY();
    {
        SetCurrentStatementStartTimestamp();
        StartTransactionCommand();
        SPI_connect();
        PushActiveSnapshot(GetTransactionSnapshot());
        pgstat_report_activity(STATE_RUNNING, "gazepriv: charging privacy budgets");
        prepare_apply_plan();
        for (int i = 0; i < batch_size; ++i)
            apply_in_subtransaction(batch[i]);
        SPI_finish();
        PopActiveSnapshot();
        CommitTransactionCommand();
        batch_committed = true;
    }
    PG_CATCH();
    {
        MemoryContextSwitchTo(context);
        ErrorData* error = CopyErrorData();
        FlushErrorState();
        AbortCurrentTransaction();
        for (int i = 0; i < batch_size; ++i)
            set_reply(batch[i], ChargeStatus::Failed, error->message);
        FreeErrorData(error);
    }
    PG_END_TRY();
    publish_batch();
    pgstat_report_activity(STATE_IDLE, nullptr);
    pgstat_report_stat(false); // the ledger's and budgets' counters, for autovacuum
}

} // namespace

void gazepriv_charge_worker_main(Datum) {
    gazepriv::pg::ChargeWorkerArgs args;
    std::memcpy(&args, MyBgworkerEntry->bgw_extra, sizeof args);
    worker_index = args.index;
    worker_generation = args.generation;
    pqsignal(SIGTERM, die);
    pqsignal(SIGHUP, SignalHandlerForConfigReload);
    BackgroundWorkerUnblockSignals();
    before_shmem_exit(on_worker_exit, 0);

    BackgroundWorkerInitializeConnectionByOid(args.database, BOOTSTRAP_SUPERUSERID, 0);
    // Durable before the reply; the same transaction semantics whatever the database's defaults.
    SetConfigOption("synchronous_commit", "on", PGC_SUSET, PGC_S_OVERRIDE);
    SetConfigOption("lock_timeout", kLockTimeout, PGC_SUSET, PGC_S_OVERRIDE);
    SetConfigOption("default_transaction_isolation", "read committed", PGC_SUSET, PGC_S_OVERRIDE);
    SetConfigOption("default_transaction_read_only", "off", PGC_SUSET, PGC_S_OVERRIDE);
    slots = gazepriv::pg::charge_slots(&slot_count);
    if (!gazepriv::pg::register_charge_worker(worker_index, worker_generation))
        proc_exit(0); // superseded by a worker started after this one was presumed lost

    TimestampTz idle_since = GetCurrentTimestamp();
    for (;;) {
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
        if (ConfigReloadPending) {
            ConfigReloadPending = false;
            ProcessConfigFile(PGC_SIGHUP);
        }
        batch_committed = false;
        batch_size = take_queued();
        if (batch_size > 0) {
            process_batch();
            idle_since = GetCurrentTimestamp();
            continue;
        }
        const long idle_ms = TimestampDifferenceMilliseconds(idle_since, GetCurrentTimestamp());
        if (idle_ms >= kIdleExitMs) {
            if (gazepriv::pg::retire_charge_worker_if_idle(worker_index, worker_generation))
                proc_exit(0);
            idle_since = GetCurrentTimestamp();
            continue;
        }
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, kIdleExitMs - idle_ms,
                        PG_WAIT_EXTENSION);
    }
}
