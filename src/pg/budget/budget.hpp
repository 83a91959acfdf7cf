// Charging privacy budgets from releasing functions.
//
// A charge is applied by the database's charge worker, a long-lived background worker that takes charges
// queued in shared memory (charge_queue.hpp) and commits them (with synchronous commit) in transactions of
// its own before it replies. The caller's own transaction therefore cannot undo a charge: a later
// ROLLBACK, error, cancel or crash keeps it, and nothing is released without it (fail closed). Writing from
// another process also makes charging work inside parallel plans and from aggregate final functions,
// where the caller cannot write. The worker never waits on a budget row locked by another transaction:
// the caller retries until gazepriv.charge_timeout.
#pragma once

#include <cstdint>

#include "core/common/release_cost.hpp"

namespace gazepriv::pg {

// A charge as plain data: strings are palloc'd or static, so it can be held across PostgreSQL calls.
struct Charge {
    const char* dataset;
    const char* mechanism;
    const char* parameters_json; // nullptr means {}
    double epsilon;
    double delta;
    double rho;              // < 0: the release has no zCDP form of its own
    double sampler_distance; // total variation from the mechanism rho holds for (ReleaseCost)
    const char* guarantee;   // "dp", "k-anonymity" or "plausible-deniability"
    bool non_private;
};

// Copies a cost computed by core code into a Charge (palloc_or_throw: never longjmps).
Charge charge_from_cost(const char* dataset, const core::ReleaseCost& cost);

// Charges the budget of `role` (an Oid) on the charge's dataset, of the kind its guarantee is bought with
// (dp; w-event; record-dp for record-level epsilon), and returns the ledger id. Errors: PB001 over budget,
// PB002 no budget (or no such dataset: one answer), PB003 refused in this context (parallel worker, Citus
// shard query, standby), PB004 the worker could not run or failed, 55P03 the budget row stayed locked, 22023
// invalid amounts, 54000 parameters beyond 4 kB. The analyst release functions
// (pg/budget/analyst_release.cpp) charge their caller with it. It can raise PostgreSQL errors: call it with
// no C++ object alive.
std::int64_t charge_budget(const Charge& charge, unsigned int role);

// Refuses (PB003) where no budget can be charged: a parallel worker, a standby, a Citus shard query, a Citus
// worker node (budgets live on the coordinator, which the error names). Charges check it first, and so do the
// analyst releases, before they look the dataset up. It can raise PostgreSQL errors.
void require_charging_context();

// A release made from raw data by the role whose privileges run the call (a curator's pd_synthesize,
// k_same_select, kaleido, dp_heatmap, release_series ... with dataset =>), logged on a dataset it owns:
// ERROR 42501 otherwise (pg/budget/identity.hpp), then charge_budget for that role.
std::int64_t charge_own_release(const Charge& charge);

// charge_own_release for C++ code that has objects alive: the PostgreSQL error of a refused charge becomes a
// PostgresError exception (pg/boundary/guard.hpp), so it unwinds through C++ frames and is raised by the
// guard.
std::int64_t charge_release(const char* dataset, const core::ReleaseCost& cost);

// Registers gazepriv.charge_timeout and, when gazepriv is preloaded, reserves the charge workers' registry
// in shared memory (called from _PG_init; without preloading it is taken from the server's slack).
void define_budget_settings();

} // namespace gazepriv::pg
