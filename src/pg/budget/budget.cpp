// The caller's side of a budget charge: checks the context, hands the charge to a background worker
// through dynamic shared memory, waits for it, and turns its reply into a result or an error.
// Plain C-style code: everything here can raise PostgreSQL errors, so no C++ object is ever alive.
#include <cmath>
#include <cstring>

#include "pg/boundary/args.hpp"
#include "pg/budget/budget.hpp"
#include "pg/budget/budget_message.hpp"
#include "pg/boundary/guard.hpp"
#include "pg/boundary/memory.hpp"

extern "C" {
#include "postgres.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "access/parallel.h"
#include "catalog/pg_authid_d.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/latch.h"
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

char* copy_string(const char* s) {
    const std::size_t n = std::strlen(s) + 1;
    char* out = static_cast<char*>(palloc_or_throw(n));
    std::memcpy(out, s, n);
    return out;
}

void copy_text(char* dst, std::size_t size, const char* src, const char* what) {
    const std::size_t n = std::strlen(src);
    if (n >= size)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("%s is longer than %zu bytes", what, size - 1)));
    std::memcpy(dst, src, n + 1);
}

void refuse_where_charging_is_impossible() {
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
}

BackgroundWorkerHandle* start_worker(dsm_handle handle) {
    BackgroundWorker worker;
    std::memset(&worker, 0, sizeof worker);
    worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
    worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
    worker.bgw_restart_time = BGW_NEVER_RESTART;
    snprintf(worker.bgw_library_name, BGW_MAXLEN, "gazepriv");
    snprintf(worker.bgw_function_name, BGW_MAXLEN, "gazepriv_charge_worker_main");
    snprintf(worker.bgw_name, BGW_MAXLEN, "gazepriv budget charge for PID %d", MyProcPid);
    snprintf(worker.bgw_type, BGW_MAXLEN, "gazepriv budget charge");
    worker.bgw_main_arg = UInt32GetDatum(handle);
    worker.bgw_notify_pid = MyProcPid;

    // All worker slots can be busy (parallel queries, other charges): wait for one, up to the timeout.
    const TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), charge_timeout_ms);
    for (;;) {
        BackgroundWorkerHandle* h = nullptr;
        if (RegisterDynamicBackgroundWorker(&worker, &h))
            return h;
        if (GetCurrentTimestamp() >= deadline)
            ereport(ERROR,
                    (errcode(kPB004),
                     errmsg("no background worker slot became free within gazepriv.charge_timeout (%d ms) "
                            "to charge the privacy budget; nothing was released",
                            charge_timeout_ms),
                     errhint("Raise max_worker_processes.")));
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 10, PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
    }
}

} // namespace

void define_budget_settings() {
    DefineCustomIntVariable(
        "gazepriv.charge_timeout",
        "How long a release waits for a background worker slot and for the budget row lock.",
        "After it, the release fails closed with ERROR PB004: nothing is released.", &charge_timeout_ms,
        10000, 100, 3600 * 1000, PGC_USERSET, GUC_UNIT_MS, nullptr, nullptr, nullptr);
}

Charge charge_from_cost(const char* dataset, const core::ReleaseCost& cost) {
    Charge c{};
    c.dataset = dataset;
    c.mechanism = copy_string(cost.mechanism.c_str());
    c.parameters_json = cost.parameters_json.empty() ? nullptr : copy_string(cost.parameters_json.c_str());
    c.epsilon = cost.epsilon;
    c.delta = cost.delta;
    c.rho = cost.rho;
    c.guarantee = core::to_string(cost.guarantee);
    c.non_private = cost.non_private_choices;
    return c;
}

std::int64_t charge_release(const char* dataset, const core::ReleaseCost& cost) {
    const Charge charge = charge_from_cost(dataset, cost);
    std::int64_t ledger_id = 0;
    call_postgres([&] { ledger_id = charge_budget(charge); });
    return ledger_id;
}

std::int64_t charge_budget(const Charge& charge) {
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
    refuse_where_charging_is_impossible();

    const char* parameters = charge.parameters_json != nullptr ? charge.parameters_json : "{}";
    const Size parameters_len = std::strlen(parameters) + 1;
    dsm_segment* segment = dsm_create(offsetof(ChargeMessage, parameters) + parameters_len, 0);
    auto* m = static_cast<ChargeMessage*>(dsm_segment_address(segment));
    std::memset(m, 0, offsetof(ChargeMessage, parameters));
    m->database = MyDatabaseId;
    m->worker_role = BOOTSTRAP_SUPERUSERID;
    m->charged_role = GetOuterUserId();
    m->caller_pid = MyProcPid;
    m->lock_timeout_ms = charge_timeout_ms;
    m->epsilon = charge.epsilon;
    m->delta = charge.delta;
    m->rho = charge.rho;
    m->has_rho = charge.rho >= 0;
    m->non_private = charge.non_private;
    copy_text(m->dataset, sizeof m->dataset, charge.dataset, "the dataset name");
    copy_text(m->mechanism, sizeof m->mechanism, charge.mechanism, "the mechanism name");
    copy_text(m->guarantee, sizeof m->guarantee, charge.guarantee, "the guarantee kind");
    m->status = ChargeStatus::Pending;
    m->parameters_len = parameters_len;
    std::memcpy(m->parameters, parameters, parameters_len);

    BackgroundWorkerHandle* worker = start_worker(dsm_segment_handle(segment));
    // Interruptible: a cancel here leaves the worker to finish, so the charge may stand and nothing is
    // released (fail closed).
    if (WaitForBackgroundWorkerShutdown(worker) == BGWH_POSTMASTER_DIED)
        ereport(FATAL, (errcode(ERRCODE_ADMIN_SHUTDOWN), errmsg("postmaster exited during a budget charge")));

    const ChargeStatus status = m->status;
    const std::int64_t ledger_id = m->ledger_id;
    char message[sizeof m->message];
    std::memcpy(message, m->message, sizeof message);
    message[sizeof message - 1] = '\0';
    dsm_detach(segment);

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
    case ChargeStatus::Failed:
        ereport(ERROR, (errcode(kPB004), errmsg("the privacy budget charge failed: %s", message),
                        errdetail("Nothing was released.")));
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
    PG_RETURN_INT64(pg::charge_budget(c));
}
