// The transport between releasing backends and the charge workers: one long-lived background worker per
// database applies charges that backends queue in shared memory, and replies after its transaction
// committed. Plain data and C-style functions (they raise PostgreSQL errors; no C++ object is alive).
//
// Where things live (nothing needs shared_preload_libraries):
//  - the registry (a lock, the request slots' segment handle, one entry per database whose worker runs) is
//    a small struct in the main shared memory, created by the first backend that charges (from the slack
//    PostgreSQL leaves for such structs, as contrib's autoprewarm does when it is not preloaded; reserved
//    at start-up when gazepriv is preloaded);
//  - the request slots, one per PGPROC (a backend has at most one charge in flight), are a dynamic shared
//    memory segment created by the first charge and pinned until the server stops or restarts.
//
// A slot's state moves Free -> Queued (the caller) -> Taken (the worker, by compare-and-swap) -> Done (the
// worker, after its transaction committed or aborted) -> Free (the caller, after reading the reply). The
// caller withdraws a request that is still Queued (Queued -> Free, compare-and-swap), so a request is
// either applied once or never.
#pragma once

extern "C" {
#include "postgres.h"
#include "port/atomics.h"
}

namespace gazepriv::pg {

enum class ChargeStatus : uint32 {
    Pending = 0, // no reply yet
    Charged,
    OverBudget,
    NoBudget,
    Invalid,
    Locked, // the budget row (or a table) was locked by another transaction: nothing was charged, try again
    Failed, // the worker's transaction failed or the worker exited before committing: nothing was charged
};

struct ChargeRequest {
    static constexpr int kNameLen = 256;
    static constexpr int kParametersLen = 4096; // JSON text of the ledger's parameters, with its NUL
    Oid charged_role;
    int caller_pid;
    double epsilon;
    double delta;
    double rho;
    bool has_rho;
    double sampler_distance;
    bool non_private;
    char dataset[kNameLen];
    char mechanism[kNameLen];
    char guarantee[32];
    char parameters[kParametersLen];
};

struct ChargeReply {
    ChargeStatus status;
    int64 ledger_id;
    char message[1024];
};

enum SlotState : uint32 { kSlotFree = 0, kSlotQueued, kSlotTaken, kSlotDone };

struct ChargeSlot {
    pg_atomic_uint32 state;
    Oid database; // the worker of this database takes the request
    ChargeRequest request;
    ChargeReply reply;
};

// The request slots, indexed by the caller's PGPROC number; attaches (and creates) the segment on first
// use in this process.
ChargeSlot* charge_slots(int* count);

// The slot of the calling backend.
ChargeSlot* my_charge_slot();

// What a caller needs to know of its database's worker.
struct ChargeService {
    uint32 generation; // 0: no worker (none could be started yet)
    int pgprocno;      // the worker's PGPROC, -1 while it starts
};

// The worker of this database, started if there is none (or if the last one started did not come up in
// time). generation 0: no background worker slot was free; try again.
ChargeService find_or_start_charge_service();

// The worker's side: registration at start (false: superseded, exit), retirement when idle (false: a
// request arrived, keep going), and removal at exit.
bool register_charge_worker(int index, uint32 generation);
bool retire_charge_worker_if_idle(int index, uint32 generation);
void unregister_charge_worker(int index, uint32 generation);

// What the worker's start-up reads from bgw_extra.
struct ChargeWorkerArgs {
    Oid database;
    int index;
    uint32 generation;
};

// Reserves the registry at server start (called from _PG_init when gazepriv is preloaded).
void request_charge_registry_memory();

} // namespace gazepriv::pg
