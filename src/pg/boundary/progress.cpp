#include <cstdio>
#include <cstring>

#include "pg/boundary/guard.hpp" // before PostgreSQL's headers (it includes core headers)
#include "pg/boundary/progress.hpp"

extern "C" {
#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/shmem.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
}

namespace gazepriv::pg {

namespace {

constexpr int kSlots = 64;
constexpr int kNameLen = 64;

// One running call. The owner writes between two increments of changecount (odd while writing); readers copy
// the fields and retry until they saw the same even count before and after, as pgstat's backend status does.
struct Slot {
    pg_atomic_uint32 owner; // the pid holding the slot, 0 = free
    pg_atomic_uint32 changecount;
    Oid role;            // the session's role (outside any SECURITY DEFINER or owner switch)
    bool counts_private; // running as another role on the caller's behalf: done and total describe its data
    char function[kNameLen];
    char phase[kNameLen];
    uint64 done, total;
    TimestampTz started;
};

struct SlotArray {
    Slot slots[kSlots];
};

// The main shared memory is zero-filled when the server (re)creates it, and all-zero is a valid SlotArray
// (free slots, even counts), so a backend that finds the struct needs no lock to initialise it.
SlotArray* slot_array = nullptr;
bool attach_failed = false;
Slot* mine = nullptr;
int notice_interval_ms = 0;
TimestampTz began = 0, last_notice = 0;
char running_function[kNameLen];
bool running_private = false;
shmem_request_hook_type previous_shmem_request_hook = nullptr;

void attach() {
    if (slot_array != nullptr || attach_failed)
        return;
    try {
        call_postgres([] {
            bool found = false;
            slot_array =
                static_cast<SlotArray*>(ShmemInitStruct("gazepriv progress", sizeof(SlotArray), &found));
        });
    } catch (const PostgresError&) { // out of shared memory: NOTICEs only
        attach_failed = true;
        slot_array = nullptr;
    }
}

void write_begin(Slot* s) {
    pg_atomic_fetch_add_u32(&s->changecount, 1);
    pg_write_barrier();
}

void write_end(Slot* s) {
    pg_write_barrier();
    pg_atomic_fetch_add_u32(&s->changecount, 1);
}

void release_slot() {
    if (mine == nullptr)
        return;
    write_begin(mine);
    mine->function[0] = mine->phase[0] = '\0';
    mine->done = mine->total = 0;
    write_end(mine);
    pg_atomic_write_u32(&mine->owner, 0);
    mine = nullptr;
}

void on_xact(XactEvent, void*) {
    release_slot();
}

void on_subxact(SubXactEvent event, SubTransactionId, SubTransactionId, void*) {
    if (event == SUBXACT_EVENT_ABORT_SUB)
        release_slot();
}

void on_exit(int, Datum) {
    release_slot();
}

void reserve_memory() {
    if (previous_shmem_request_hook != nullptr)
        previous_shmem_request_hook();
    RequestAddinShmemSpace(MAXALIGN(sizeof(SlotArray)));
}

void send_notice(const char* phase, uint64 done, uint64 total, TimestampTz now) {
    char message[256];
    const double seconds = static_cast<double>(now - began) / 1e6;
    if (running_private || total == 0)
        snprintf(message, sizeof message, "gazepriv.%s: %s, %.1f s", running_function, phase, seconds);
    else
        snprintf(message, sizeof message, "gazepriv.%s: %s %llu of %llu (%.0f%%), %.1f s", running_function,
                 phase, static_cast<unsigned long long>(done), static_cast<unsigned long long>(total),
                 100.0 * static_cast<double>(done) / static_cast<double>(total), seconds);
    call_postgres([&message] { ereport(NOTICE, (errmsg_internal("%s", message))); });
}

} // namespace

void define_progress_settings() {
    DefineCustomIntVariable(
        "gazepriv.progress_notice_interval", "How often a long gazepriv call reports its progress by NOTICE.",
        "0 (the default) sends none; the view gazepriv.progress shows the progress of running calls either "
        "way.",
        &notice_interval_ms, 0, 0, 24 * 3600 * 1000, PGC_USERSET, GUC_UNIT_MS, nullptr, nullptr, nullptr);
    RegisterXactCallback(on_xact, nullptr);
    RegisterSubXactCallback(on_subxact, nullptr);
    before_shmem_exit(on_exit, 0);
    if (process_shared_preload_libraries_in_progress) {
        previous_shmem_request_hook = shmem_request_hook;
        shmem_request_hook = reserve_memory;
    }
}

void progress_begin(const char* function) {
    began = last_notice = GetCurrentTimestamp();
    strlcpy(running_function, function, sizeof running_function);
    running_private = InLocalUserIdChange() || InSecurityRestrictedOperation();
    attach();
    if (slot_array != nullptr && mine == nullptr) {
        for (Slot& s : slot_array->slots) {
            uint32 expected = 0;
            if (pg_atomic_compare_exchange_u32(&s.owner, &expected, static_cast<uint32>(MyProcPid))) {
                mine = &s;
                break;
            }
        }
    }
    if (mine == nullptr)
        return;
    write_begin(mine);
    mine->role = GetOuterUserId();
    mine->counts_private = running_private;
    strlcpy(mine->function, function, sizeof mine->function);
    mine->phase[0] = '\0';
    mine->done = mine->total = 0;
    mine->started = began;
    write_end(mine);
}

void progress_report(const char* phase, std::uint64_t done, std::uint64_t total) {
    if (mine != nullptr) {
        write_begin(mine);
        strlcpy(mine->phase, phase, sizeof mine->phase);
        mine->done = done;
        mine->total = total;
        write_end(mine);
    }
    if (notice_interval_ms > 0) {
        const TimestampTz now = GetCurrentTimestamp();
        if (TimestampDifferenceExceeds(last_notice, now, notice_interval_ms)) {
            last_notice = now;
            send_notice(phase, done, total, now);
        }
    }
}

void progress_end() {
    release_slot();
}

} // namespace gazepriv::pg

namespace {

struct SlotCopy {
    uint32 pid;
    Oid role;
    bool counts_private;
    char function[gazepriv::pg::kNameLen];
    char phase[gazepriv::pg::kNameLen];
    uint64 done, total;
    TimestampTz started;
};

// A consistent copy of a slot; false when it is free (or kept changing).
bool read_slot(gazepriv::pg::Slot& s, SlotCopy* out) {
    for (int attempt = 0; attempt < 1000; ++attempt) {
        const uint32 before = pg_atomic_read_u32(&s.changecount);
        pg_read_barrier();
        out->pid = pg_atomic_read_u32(&s.owner);
        out->role = s.role;
        out->counts_private = s.counts_private;
        std::memcpy(out->function, s.function, sizeof out->function);
        std::memcpy(out->phase, s.phase, sizeof out->phase);
        out->done = s.done;
        out->total = s.total;
        out->started = s.started;
        pg_read_barrier();
        if (before == pg_atomic_read_u32(&s.changecount) && (before & 1) == 0) {
            out->function[sizeof out->function - 1] = out->phase[sizeof out->phase - 1] = '\0';
            return out->pid != 0 && out->function[0] != '\0';
        }
    }
    return false;
}

} // namespace

// The rows of gazepriv.progress: plain C over the slots (no C++ object is alive across PostgreSQL calls).
GAZEPRIV_FUNCTION(progress_of_calls) {
    using namespace gazepriv::pg;
    InitMaterializedSRF(fcinfo, 0);
    ReturnSetInfo* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    attach();
    if (slot_array == nullptr)
        return Datum(0);
    const bool all_stats = has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);
    for (Slot& s : slot_array->slots) {
        SlotCopy c;
        if (!read_slot(s, &c) || !(all_stats || has_privs_of_role(GetUserId(), c.role)))
            continue;
        const bool hide = c.counts_private && !all_stats;
        Datum values[6] = {Int32GetDatum(static_cast<int32>(c.pid)),
                           CStringGetTextDatum(c.function),
                           CStringGetTextDatum(c.phase),
                           Int64GetDatum(static_cast<int64>(c.done)),
                           Int64GetDatum(static_cast<int64>(c.total)),
                           TimestampTzGetDatum(c.started)};
        bool nulls[6] = {false, false, c.phase[0] == '\0', hide, hide || c.total == 0, false};
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    }
    return Datum(0);
}
