// The caller's side of a budget charge: checks the context, queues the charge with the database's charge
// worker through shared memory (charge_queue.hpp), waits for its reply, and turns it into a result or an
// error. Plain C-style code: everything here can raise PostgreSQL errors, so no C++ object is ever alive.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "pg/boundary/args.hpp"
#include "pg/budget/budget.hpp"
#include "pg/budget/charge_queue.hpp"
#include "pg/budget/citus_node.hpp"
#include "pg/budget/identity.hpp"
#include "pg/boundary/guard.hpp"
#include "pg/boundary/memory.hpp"

extern "C" {
#include "postgres.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "access/parallel.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"
}

namespace gazepriv::pg {

namespace {

int charge_timeout_ms = 10000;

constexpr int kPB001 = MAKE_SQLSTATE('P', 'B', '0', '0', '1'); // over budget
constexpr int kPB002 = MAKE_SQLSTATE('P', 'B', '0', '0', '2'); // no budget / unknown dataset
constexpr int kPB003 = MAKE_SQLSTATE('P', 'B', '0', '0', '3'); // refused in this context
constexpr int kPB004 = MAKE_SQLSTATE('P', 'B', '0', '0', '4'); // worker unavailable or failed

constexpr long kPollMs = 100;          // how often a waiting caller checks that its worker is still there
constexpr long kSlotRetryMs = 10;      // how often it retries when no background worker slot is free
constexpr long kMaxLockBackoffMs = 50; // the longest pause between attempts on a locked budget row
// A request the worker took just before the deadline is answered within its batch (each lock it waits
// for is bounded by the worker's lock_timeout): the caller waits this much longer for that answer.
constexpr long kTakenGraceMs = 2000;

char* copy_string(const char* s) {
    const std::size_t n = std::strlen(s) + 1;
    char* out = static_cast<char*>(palloc_or_throw(n));
    std::memcpy(out, s, n);
    return out;
}

void copy_text(char* dst, std::size_t size, const char* src, const char* what, int sqlstate) {
    const std::size_t n = std::strlen(src);
    if (n >= size)
        ereport(ERROR, (errcode(sqlstate), errmsg("%s is longer than %zu bytes", what, size - 1)));
    std::memcpy(dst, src, n + 1);
}

} // namespace

void require_charging_context() {
    if (IsParallelWorker())
        ereport(ERROR, (errcode(kPB003), errmsg("privacy budgets cannot be charged inside a parallel worker"),
                        errhint("Mark the releasing function PARALLEL RESTRICTED.")));
    if (RecoveryInProgress())
        ereport(ERROR, (errcode(kPB003), errmsg("privacy budgets cannot be charged on a standby")));
    // Citus runs shard queries through connections named "citus_internal gpid=...": charging
    // there would charge a worker node's local ledger, once per shard. Budgets are charged only where the
    // query was issued.
    const char* app = GetConfigOption("application_name", true, false);
    if (app != nullptr && std::strncmp(app, "citus_internal", 14) == 0)
        ereport(ERROR, (errcode(kPB003),
                        errmsg("privacy budgets are charged only on the node where the query was issued, "
                               "not inside a Citus shard query")));
    if (const char* coordinator = citus_coordinator_of_worker())
        ereport(ERROR,
                (errcode(kPB003),
                 errmsg("privacy budgets are charged on the Citus coordinator%s%s, not on a worker node",
                        coordinator[0] != '\0' ? " " : "", coordinator),
                 errdetail("Datasets, budgets, release policies and the ledger live on the coordinator."),
                 errhint("Connect to the coordinator to release.")));
}

namespace {

long remaining_ms(TimestampTz deadline) {
    return TimestampDifferenceMilliseconds(GetCurrentTimestamp(), deadline);
}

void pause_ms(long ms) {
    (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, std::max(ms, 1L),
                    PG_WAIT_EXTENSION);
    ResetLatch(MyLatch);
    CHECK_FOR_INTERRUPTS();
}

void wake(int pgprocno) {
    if (pgprocno >= 0)
        SetLatch(&ProcGlobal->allProcs[pgprocno].procLatch);
}

// A charge of this backend that was cancelled may have left its slot busy: a request still queued is
// withdrawn (never applied), one being applied is waited for (it may stand; nothing was released for it).
void reclaim(ChargeSlot* slot, TimestampTz deadline) {
    uint32 expected = kSlotQueued;
    (void)pg_atomic_compare_exchange_u32(&slot->state, &expected, kSlotFree);
    while (pg_atomic_read_u32(&slot->state) == kSlotTaken) {
        const long left = remaining_ms(deadline);
        if (left <= 0)
            ereport(ERROR, (errcode(kPB004),
                            errmsg("an earlier, cancelled charge of this session is still being applied"),
                            errdetail("Nothing was released.")));
        pause_ms(std::min(left, kPollMs));
    }
    pg_atomic_write_u32(&slot->state, kSlotFree);
}

// Queues the request in the slot for this database's charge worker (starting one if there is none) and
// waits for its reply, until the deadline. True: the slot is Done. False: no worker took the request by
// the deadline and it was withdrawn (never applied). A request taken by then is waited for a little
// longer (kTakenGraceMs): its answer, a lock refusal say, is already being computed.
bool exchange(ChargeSlot* slot, TimestampTz deadline) {
    slot->database = MyDatabaseId;
    slot->reply.status = ChargeStatus::Pending;
    pg_write_barrier(); // the request before the state that publishes it
    pg_atomic_write_u32(&slot->state, kSlotQueued);
    const TimestampTz taken_deadline = TimestampTzPlusMilliseconds(deadline, kTakenGraceMs);
    for (;;) {
        if (pg_atomic_read_u32(&slot->state) == kSlotDone) {
            pg_read_barrier(); // the state before the reply it publishes
            return true;
        }
        // Each round: if the worker exited meanwhile, a request still queued is taken by the next one.
        const ChargeService worker = find_or_start_charge_service();
        wake(worker.pgprocno);
        long left = remaining_ms(deadline);
        if (left <= 0) {
            uint32 expected = kSlotQueued;
            if (pg_atomic_compare_exchange_u32(&slot->state, &expected, kSlotFree))
                return false;
            if (expected == kSlotDone)
                continue;
            left = remaining_ms(taken_deadline);
            if (left <= 0)
                ereport(ERROR,
                        (errcode(kPB004),
                         errmsg("the privacy budget charge did not complete within gazepriv.charge_timeout "
                                "(%d ms)",
                                charge_timeout_ms),
                         errdetail("The charge may stand; nothing was released.")));
        }
        pause_ms(std::min(left, worker.generation == 0 ? kSlotRetryMs : kPollMs));
    }
}

} // namespace

void define_budget_settings() {
    // Superuser-only: an analyst who could lengthen it would hold a release (and its charge) waiting on a
    // locked budget for as long as they like.
    DefineCustomIntVariable(
        "gazepriv.charge_timeout",
        "How long a release waits for its budget charge: for a charge worker, and for a "
        "budget row locked by another transaction.",
        "After it the release fails closed (PB004, or 55P03 for a lock): nothing is released.",
        &charge_timeout_ms, 10000, 100, 3600 * 1000, PGC_SUSET, GUC_UNIT_MS, nullptr, nullptr, nullptr);
    if (process_shared_preload_libraries_in_progress)
        request_charge_registry_memory();
}

Charge charge_from_cost(const char* dataset, const core::ReleaseCost& cost) {
    Charge c{};
    c.dataset = dataset;
    c.mechanism = copy_string(cost.mechanism.c_str());
    c.parameters_json = cost.parameters_json.empty() ? nullptr : copy_string(cost.parameters_json.c_str());
    c.epsilon = cost.epsilon;
    c.delta = cost.delta;
    c.rho = cost.rho;
    c.sampler_distance = cost.sampler_distance;
    c.guarantee = core::to_string(cost.guarantee);
    c.non_private = cost.non_private_choices;
    return c;
}

std::int64_t charge_release(const char* dataset, const core::ReleaseCost& cost) {
    const Charge charge = charge_from_cost(dataset, cost);
    std::int64_t ledger_id = 0;
    call_postgres([&] { ledger_id = charge_own_release(charge); });
    return ledger_id;
}

std::int64_t charge_own_release(const Charge& charge) {
    if (charge.dataset == nullptr || charge.dataset[0] == '\0')
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("a charge needs a dataset name")));
    require_charging_context(); // before the dataset is looked up: on a Citus worker there is none
    require_dataset_owner(charge.dataset);
    return charge_budget(charge, calling_role());
}

std::int64_t charge_budget(const Charge& charge, unsigned int role) {
    if (charge.dataset == nullptr || charge.dataset[0] == '\0')
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("a charge needs a dataset name")));
    if (!(charge.epsilon >= 0) || std::isinf(charge.epsilon))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("epsilon must be a finite number of at least 0, got %g", charge.epsilon)));
    if (!(charge.delta >= 0 && charge.delta < 1))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("delta must be at least 0 and below 1, got %g", charge.delta)));
    if (std::isnan(charge.rho) || std::isinf(charge.rho))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("rho must be a finite number of at least 0, got %g", charge.rho)));
    // Without a rho the zCDP accounting charges epsilon^2 / 2: it must be finite too, or the worker fails.
    if (charge.rho < 0 && !std::isfinite(charge.epsilon * charge.epsilon / 2))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("epsilon %g is too large to account for", charge.epsilon)));
    if (!(charge.sampler_distance >= 0 && charge.sampler_distance < 1))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("the sampler distance must be at least 0 and below 1, got %g",
                               charge.sampler_distance)));
    require_charging_context();

    ChargeSlot* slot = my_charge_slot();
    const TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), charge_timeout_ms);
    reclaim(slot, deadline);
    ChargeRequest& q = slot->request;
    q.charged_role = role;
    q.caller_pid = MyProcPid;
    q.epsilon = charge.epsilon;
    q.delta = charge.delta;
    q.rho = charge.rho;
    q.has_rho = charge.rho >= 0;
    q.sampler_distance = charge.sampler_distance;
    q.non_private = charge.non_private;
    copy_text(q.dataset, sizeof q.dataset, charge.dataset, "the dataset name",
              ERRCODE_INVALID_PARAMETER_VALUE);
    copy_text(q.mechanism, sizeof q.mechanism, charge.mechanism, "the mechanism name",
              ERRCODE_INVALID_PARAMETER_VALUE);
    copy_text(q.guarantee, sizeof q.guarantee, charge.guarantee, "the guarantee kind",
              ERRCODE_INVALID_PARAMETER_VALUE);
    copy_text(q.parameters, sizeof q.parameters,
              charge.parameters_json != nullptr ? charge.parameters_json : "{}",
              "the JSON text of the charge's parameters", ERRCODE_PROGRAM_LIMIT_EXCEEDED);

    // A budget row locked by another transaction is not waited on by the worker (it would hold up every
    // other charge): the worker replies Locked at once and the caller tries again, until the deadline.
    ChargeStatus status = ChargeStatus::Pending;
    long pause = 1;
    for (;;) {
        if (!exchange(slot, deadline)) {
            if (status == ChargeStatus::Locked)
                break; // the last attempt found the row locked; this one found no time left
            ereport(ERROR,
                    (errcode(kPB004),
                     errmsg("no charge worker took the privacy budget charge within gazepriv.charge_timeout "
                            "(%d ms)",
                            charge_timeout_ms),
                     errdetail("Nothing was charged or released."),
                     errhint("No charge worker could start (raise max_worker_processes), or it is stuck "
                             "(see pg_stat_activity).")));
        }
        status = slot->reply.status;
        if (status != ChargeStatus::Locked || remaining_ms(deadline) <= 0)
            break;
        pause_ms(std::min({pause, kMaxLockBackoffMs, remaining_ms(deadline)}));
        pause *= 2;
        if (remaining_ms(deadline) <= 0)
            break; // no time for another attempt: the row stayed locked
    }
    const std::int64_t ledger_id = slot->reply.ledger_id;
    char message[sizeof slot->reply.message];
    std::memcpy(message, slot->reply.message, sizeof message);
    message[sizeof message - 1] = '\0';
    pg_atomic_write_u32(&slot->state, kSlotFree);

    switch (status) {
    case ChargeStatus::Charged:
        return ledger_id;
    case ChargeStatus::OverBudget:
        ereport(ERROR, (errcode(kPB001), errmsg("%s", message), errdetail("Nothing was released.")));
        break;
    case ChargeStatus::NoBudget:
        ereport(ERROR, (errcode(kPB002), errmsg("%s", message), errdetail("Nothing was released."),
                        errhint("A curator grants budgets with gazepriv.grant_budget().")));
        break;
    case ChargeStatus::Invalid:
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("%s", message)));
        break;
    case ChargeStatus::Locked:
        ereport(ERROR,
                (errcode(ERRCODE_LOCK_NOT_AVAILABLE),
                 errmsg("the privacy budget on dataset \"%s\" stayed locked by another transaction for "
                        "gazepriv.charge_timeout (%d ms)",
                        charge.dataset, charge_timeout_ms),
                 errdetail("Nothing was charged or released (%s).", message)));
        break;
    case ChargeStatus::Failed:
        ereport(ERROR, (errcode(kPB004), errmsg("the privacy budget charge failed: %s", message),
                        errdetail("Nothing was charged or released.")));
        break;
    case ChargeStatus::Pending:
        break;
    }
    ereport(ERROR, (errcode(kPB004), errmsg("the privacy budget charge did not complete"),
                    errdetail("The charge worker exited without a reply; nothing was released.")));
    pg_unreachable();
}

} // namespace gazepriv::pg

using namespace gazepriv;

// charge_budget(dataset, mechanism, epsilon, delta, rho, parameters jsonb, guarantee, non_private)
GAZEPRIV_FUNCTION(charge_budget) {
    pg::require_not_null(
        fcinfo, {"dataset", "mechanism", "epsilon", "delta", nullptr, nullptr, "guarantee", "non_private"});
    pg::Charge c{};
    c.dataset = text_to_cstring(PG_GETARG_TEXT_PP(0));
    c.mechanism = text_to_cstring(PG_GETARG_TEXT_PP(1));
    c.epsilon = PG_GETARG_FLOAT8(2);
    c.delta = PG_GETARG_FLOAT8(3);
    c.rho = PG_ARGISNULL(4) ? -1 : PG_GETARG_FLOAT8(4);
    if (!PG_ARGISNULL(4) && !(c.rho >= 0))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("rho must be a finite number of at least 0 or NULL, got %g", c.rho)));
    c.parameters_json = PG_ARGISNULL(5) ? nullptr : JsonbToCString(nullptr, &PG_GETARG_JSONB_P(5)->root, 0);
    c.guarantee = text_to_cstring(PG_GETARG_TEXT_PP(6));
    c.non_private = PG_GETARG_BOOL(7);
    PG_RETURN_INT64(pg::charge_own_release(c));
}
