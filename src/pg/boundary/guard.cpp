#include <cstring>
#include <exception>
#include <new>

#include "pg/boundary/args.hpp"
#include "pg/boundary/guard.hpp"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
}

namespace gazepriv::pg {

namespace {

void copy_message(char* dst, std::size_t size, const char* src) {
    std::size_t n = std::strlen(src);
    if (n >= size)
        n = size - 1;
    std::memcpy(dst, src, n);
    dst[n] = '\0';
}

int sqlstate_for(core::ErrorKind kind) {
    switch (kind) {
    case core::ErrorKind::InvalidParameter:
        return ERRCODE_INVALID_PARAMETER_VALUE;
    case core::ErrorKind::DataCorrupted:
        return ERRCODE_DATA_CORRUPTED;
    case core::ErrorKind::LimitExceeded:
        return ERRCODE_PROGRAM_LIMIT_EXCEEDED;
    case core::ErrorKind::Internal:
        break;
    }
    return ERRCODE_INTERNAL_ERROR;
}

// The installed SQL objects' version (pg_extension.extversion), or nullptr when gazepriv is not installed.
char* installed_version() {
    ScanKeyData key;
    ScanKeyInit(&key, Anum_pg_extension_extname, BTEqualStrategyNumber, F_NAMEEQ,
                CStringGetDatum("gazepriv"));
    Relation extensions = table_open(ExtensionRelationId, AccessShareLock);
    SysScanDesc scan = systable_beginscan(extensions, ExtensionNameIndexId, true, nullptr, 1, &key);
    char* version = nullptr;
    HeapTuple tuple = systable_getnext(scan);
    if (HeapTupleIsValid(tuple)) {
        bool isnull = true;
        Datum datum =
            heap_getattr(tuple, Anum_pg_extension_extversion, RelationGetDescr(extensions), &isnull);
        if (!isnull)
            version = text_to_cstring(DatumGetTextPP(datum));
    }
    systable_endscan(scan);
    table_close(extensions, AccessShareLock);
    return version;
}

// A library built for one version, called through another version's SQL objects, would read argument
// lists and aggregate states of another layout: refuse until the objects are updated (checked once per
// backend, on its first call; not while an extension script runs, since it may be mid-way through updates).
bool catalog_matches_library = false;
void check_catalog_version() {
    if (creating_extension)
        return;
    char* version = installed_version();
    if (version == nullptr || strcmp(version, GAZEPRIV_VERSION) == 0) {
        catalog_matches_library = true;
        return;
    }
    ereport(ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("the gazepriv library is version %s but this database's gazepriv objects are version %s",
                    GAZEPRIV_VERSION, version),
             errhint("Run ALTER EXTENSION gazepriv UPDATE, or see the README's \"Upgrade\" section.")));
}

} // namespace

bool interrupt_pending() {
    return QueryCancelPending || ProcDiePending;
}

namespace {

// Runs f; maps its exceptions as described in guard.hpp.
template <typename F> Datum run_guarded(const char* sql_name, F&& f) {
    // Only plain data survives the catch blocks: the ereport below happens after the exception object
    // has been destroyed, so its longjmp skips no destructor. The buffers are written only on the error
    // path (zero-filling them on every call cost ~10% of a heatmap aggregate's per-row time).
    char message[1024];
    char detail[512];
    char hint[256];
    int sqlstate = ERRCODE_INTERNAL_ERROR;
    bool cancelled = false;
    bool from_postgres = false;
    try {
        return f();
    } catch (const core::Cancelled&) {
        cancelled = true;
    } catch (const PostgresError& e) {
        from_postgres = true;
        sqlstate = e.sqlstate();
        copy_message(message, sizeof message, e.what());
        copy_message(detail, sizeof detail, e.detail());
        copy_message(hint, sizeof hint, e.hint());
    } catch (const core::Error& e) {
        sqlstate = sqlstate_for(e.kind());
        copy_message(message, sizeof message, e.what());
    } catch (const std::bad_alloc&) {
        sqlstate = ERRCODE_OUT_OF_MEMORY;
        copy_message(message, sizeof message, "out of memory");
    } catch (const std::exception& e) {
        copy_message(message, sizeof message, e.what());
    } catch (...) {
        copy_message(message, sizeof message, "unknown C++ exception");
    }
    if (cancelled) {
        CHECK_FOR_INTERRUPTS(); // raises the server's own 57014 / 57P01 error
        ereport(ERROR, (errcode(ERRCODE_QUERY_CANCELED), errmsg("canceling statement due to user request")));
    }
    if (from_postgres)
        ereport(ERROR, (errcode(sqlstate), errmsg("%s", message), detail[0] ? errdetail("%s", detail) : 0,
                        hint[0] ? errhint("%s", hint) : 0, errcontext("%s", sql_name)));
    if (sqlstate == ERRCODE_INTERNAL_ERROR)
        ereport(ERROR, (errcode(sqlstate), errmsg("%s: internal error: %s", sql_name, message)));
    ereport(ERROR, (errcode(sqlstate), errmsg("%s", message), errcontext("%s", sql_name)));
    pg_unreachable();
}

} // namespace

Datum guarded(const char* sql_name, FunctionBody body, FunctionCallInfo fcinfo) {
    if (unlikely(!catalog_matches_library))
        check_catalog_version(); // before any C++ object exists: it may ereport
    return run_guarded(sql_name, [&] { return body(fcinfo); });
}

void guarded_call(const char* context, void (*callback)(void*), void* argument) {
    run_guarded(context, [&] {
        callback(argument);
        return Datum(0);
    });
}

} // namespace gazepriv::pg

namespace gazepriv::pg {

PostgresError::PostgresError(int sqlstate, const char* message, const char* detail, const char* hint)
    : sqlstate_(sqlstate) {
    copy_message(message_, sizeof message_, message != nullptr ? message : "");
    copy_message(detail_, sizeof detail_, detail != nullptr ? detail : "");
    copy_message(hint_, sizeof hint_, hint != nullptr ? hint : "");
}

void throw_null_argument(const char* name) {
    char message[256];
    snprintf(message, sizeof message, "%s must not be NULL", name);
    throw PostgresError(ERRCODE_NULL_VALUE_NOT_ALLOWED, message, nullptr, nullptr);
}

void call_postgres(void (*fn)(void*), void* argument) {
    MemoryContext context = CurrentMemoryContext;
    ErrorData* volatile error = nullptr; // assigned after the longjmp
    PG_TRY();
    { fn(argument); }
    PG_CATCH();
    {
        MemoryContextSwitchTo(context);
        error = CopyErrorData();
        FlushErrorState();
    }
    PG_END_TRY();
    if (error != nullptr)
        throw PostgresError(error->sqlerrcode, error->message, error->detail, error->hint);
}

} // namespace gazepriv::pg
