// The registry of charge workers and the request slots (see charge_queue.hpp). Plain C-style code.
#include <cstring>

#include "pg/budget/charge_queue.hpp"

extern "C" {
#include "postgres.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/timestamp.h"
}

namespace gazepriv::pg {

namespace {

constexpr int kMaxServices = 64;      // databases whose workers run at once
constexpr int kStartTimeoutMs = 5000; // a worker not registered by then is presumed lost and replaced
constexpr int kPB004 = MAKE_SQLSTATE('P', 'B', '0', '0', '4');

struct ServiceEntry {
    Oid database; // InvalidOid: a free entry
    uint32 generation;
    int pgprocno; // -1 until the worker registered
    TimestampTz started_at;
};

struct Registry {
    LWLock lock;
    int tranche;
    uint32 next_generation;
    dsm_handle slots_handle;
    uint32 slot_count;
    ServiceEntry services[kMaxServices];
};

Registry* registry = nullptr;
ChargeSlot* slots = nullptr;
int slot_count = 0;
shmem_request_hook_type previous_shmem_request_hook = nullptr;

Registry* attach_registry() {
    if (registry != nullptr)
        return registry;
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    bool found = false;
    auto* r = static_cast<Registry*>(ShmemInitStruct("gazepriv charge registry", sizeof(Registry), &found));
    if (!found) {
        std::memset(r, 0, sizeof *r);
        r->tranche = LWLockNewTrancheId();
        LWLockInitialize(&r->lock, r->tranche);
        r->next_generation = 1;
        r->slots_handle = DSM_HANDLE_INVALID;
    }
    LWLockRelease(AddinShmemInitLock);
    LWLockRegisterTranche(r->tranche, "gazepriv_charge_registry");
    registry = r;
    return r;
}

void reserve_registry() {
    if (previous_shmem_request_hook != nullptr)
        previous_shmem_request_hook();
    RequestAddinShmemSpace(MAXALIGN(sizeof(Registry)));
}

ServiceEntry* find_service(Registry* r, Oid database) {
    for (ServiceEntry& e : r->services)
        if (e.database == database)
            return &e;
    return nullptr;
}

bool start_worker(Registry* r, ServiceEntry* entry) {
    const uint32 generation = r->next_generation++;
    if (r->next_generation == 0)
        r->next_generation = 1; // 0 means "no worker" to callers
    BackgroundWorker worker;
    std::memset(&worker, 0, sizeof worker);
    worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
    worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
    worker.bgw_restart_time = BGW_NEVER_RESTART; // the next charge starts a new one
    snprintf(worker.bgw_library_name, BGW_MAXLEN, "gazepriv");
    snprintf(worker.bgw_function_name, BGW_MAXLEN, "gazepriv_charge_worker_main");
    snprintf(worker.bgw_name, BGW_MAXLEN, "gazepriv charge worker for database %u", MyDatabaseId);
    snprintf(worker.bgw_type, BGW_MAXLEN, "gazepriv charge worker");
    const ChargeWorkerArgs args{MyDatabaseId, static_cast<int>(entry - r->services), generation};
    static_assert(sizeof args <= BGW_EXTRALEN, "the worker's arguments fit in bgw_extra");
    std::memcpy(worker.bgw_extra, &args, sizeof args);
    if (!RegisterDynamicBackgroundWorker(&worker, nullptr))
        return false;
    entry->database = MyDatabaseId;
    entry->generation = generation;
    entry->pgprocno = -1;
    entry->started_at = GetCurrentTimestamp();
    return true;
}

// Frees the entry if it still belongs to that generation (a replacement may have taken it over).
void free_entry(Registry* r, int index, uint32 generation) {
    ServiceEntry& e = r->services[index];
    if (e.generation == generation)
        e.database = InvalidOid;
}

bool usable(const ServiceEntry* e) {
    return e != nullptr && (e->pgprocno >= 0 || !TimestampDifferenceExceeds(
                                                    e->started_at, GetCurrentTimestamp(), kStartTimeoutMs));
}

} // namespace

void request_charge_registry_memory() {
    previous_shmem_request_hook = shmem_request_hook;
    shmem_request_hook = reserve_registry;
}

ChargeSlot* charge_slots(int* count) {
    if (slots == nullptr) {
        Registry* r = attach_registry();
        LWLockAcquire(&r->lock, LW_EXCLUSIVE);
        dsm_segment* segment = nullptr;
        if (r->slots_handle == DSM_HANDLE_INVALID) {
            const uint32 n = ProcGlobal->allProcCount;
            segment = dsm_create(mul_size(n, sizeof(ChargeSlot)), 0);
            auto* s = static_cast<ChargeSlot*>(dsm_segment_address(segment));
            std::memset(s, 0, n * sizeof(ChargeSlot));
            for (uint32 i = 0; i < n; ++i)
                pg_atomic_init_u32(&s[i].state, kSlotFree);
            dsm_pin_segment(segment); // lives until the server stops or restarts
            r->slots_handle = dsm_segment_handle(segment);
            r->slot_count = n;
        } else {
            segment = dsm_attach(r->slots_handle);
            if (segment == nullptr)
                ereport(ERROR,
                        (errcode(kPB004), errmsg("could not attach the privacy budget request slots")));
        }
        dsm_pin_mapping(segment); // mapped for the life of this process
        slot_count = static_cast<int>(r->slot_count);
        slots = static_cast<ChargeSlot*>(dsm_segment_address(segment));
        LWLockRelease(&r->lock);
    }
    if (count != nullptr)
        *count = slot_count;
    return slots;
}

ChargeSlot* my_charge_slot() {
    int count = 0;
    ChargeSlot* s = charge_slots(&count);
    Assert(MyProc->pgprocno < count);
    return &s[MyProc->pgprocno];
}

ChargeService find_or_start_charge_service() {
    (void)charge_slots(nullptr); // the worker attaches them at start
    Registry* r = registry;
    LWLockAcquire(&r->lock, LW_SHARED);
    ServiceEntry* e = find_service(r, MyDatabaseId);
    if (usable(e)) {
        const ChargeService found{e->generation, e->pgprocno};
        LWLockRelease(&r->lock);
        return found;
    }
    LWLockRelease(&r->lock);

    LWLockAcquire(&r->lock, LW_EXCLUSIVE);
    e = find_service(r, MyDatabaseId);
    if (!usable(e)) {
        if (e == nullptr)
            e = find_service(r, InvalidOid);
        if (e == nullptr) {
            LWLockRelease(&r->lock);
            ereport(ERROR, (errcode(kPB004),
                            errmsg("charge workers already run for %d databases; nothing was released",
                                   kMaxServices)));
        }
        if (!start_worker(r, e)) {
            LWLockRelease(&r->lock);
            return ChargeService{0, -1};
        }
    }
    const ChargeService found{e->generation, e->pgprocno};
    LWLockRelease(&r->lock);
    return found;
}

bool register_charge_worker(int index, uint32 generation) {
    Registry* r = attach_registry();
    LWLockAcquire(&r->lock, LW_EXCLUSIVE);
    ServiceEntry& e = r->services[index];
    const bool current = e.database == MyDatabaseId && e.generation == generation;
    if (current)
        e.pgprocno = MyProc->pgprocno;
    LWLockRelease(&r->lock);
    return current;
}

bool retire_charge_worker_if_idle(int index, uint32 generation) {
    Registry* r = attach_registry();
    int count = 0;
    ChargeSlot* s = charge_slots(&count);
    // Under the registry lock: a caller queues its request before it looks the worker up under the same
    // lock, so either it is seen here or the caller finds no worker and starts one.
    LWLockAcquire(&r->lock, LW_EXCLUSIVE);
    for (int i = 0; i < count; ++i)
        if (pg_atomic_read_u32(&s[i].state) == kSlotQueued && s[i].database == MyDatabaseId) {
            LWLockRelease(&r->lock);
            return false;
        }
    free_entry(r, index, generation);
    LWLockRelease(&r->lock);
    return true;
}

void unregister_charge_worker(int index, uint32 generation) {
    Registry* r = attach_registry();
    LWLockAcquire(&r->lock, LW_EXCLUSIVE);
    free_entry(r, index, generation);
    LWLockRelease(&r->lock);
}

} // namespace gazepriv::pg
