// The single entry path from PostgreSQL into C++. Every SQL-callable function is declared with
// GAZEPRIV_FUNCTION, which emits the C-linkage symbol PostgreSQL calls and runs the body inside
// guarded(): C++ exceptions are caught there and turned into ereport(ERROR) only after every C++ frame
// has been unwound and the exception object destroyed.
//
// Rules for bodies (checked by review; test/architecture.sh checks what a grep can: entry points only through
// GAZEPRIV_FUNCTION, PG_TRY only in call_postgres and the charge worker):
//  - No object with a non-trivial destructor may be alive across a call that can ereport (palloc,
//    text_to_cstring, construct_array, SPI, ...). Read the arguments first, run the core work in a
//    helper that returns plain values, then build the result Datum.
//  - Long loops run in core code with a CancelCheck(interrupt_pending); the core throws Cancelled and
//    the guard lets PostgreSQL raise its own cancel or terminate error.
#pragma once

#include <exception>
#include <type_traits>

#include "core/common/errors.hpp"

extern "C" {
#include "postgres.h"
#include "fmgr.h"
}

namespace gazepriv::pg {

using FunctionBody = Datum (*)(FunctionCallInfo);

// Runs body; maps core::InvalidArgument to 22023, CorruptData to XX001, LimitExceeded to 54000,
// std::bad_alloc to 53200, PostgresError to its own SQLSTATE, any other exception to XX000, and
// Cancelled to PostgreSQL's interrupt error.
Datum guarded(const char* sql_name, FunctionBody body, FunctionCallInfo fcinfo);

// The same guard for C++ work that PostgreSQL calls back outside a SQL function (expanded-object
// flattening, for example): runs callback(argument), mapping exceptions as above under `context`.
void guarded_call(const char* context, void (*callback)(void*), void* argument);

// The cancel probe handed to core loops: true when a cancel or terminate request is pending. It only
// reads PostgreSQL's flags, so it never longjmps.
bool interrupt_pending();

// A PostgreSQL error caught by call_postgres, carried through C++ frames as an exception; the guard
// raises it again with its SQLSTATE, message, detail and hint once every C++ frame is gone.
class PostgresError : public std::exception {
public:
    PostgresError(int sqlstate, const char* message, const char* detail, const char* hint);
    const char* what() const noexcept override { return message_; }
    int sqlstate() const noexcept { return sqlstate_; }
    const char* detail() const noexcept { return detail_; }
    const char* hint() const noexcept { return hint_; }

private:
    int sqlstate_;
    char message_[1024];
    char detail_[512];
    char hint_[256];
};

// Calls PostgreSQL from C++ code that has objects alive (a PostgreSQL error must never longjmp over
// them): fn runs inside PG_TRY; an error it raises becomes a PostgresError exception, so C++ unwinds
// normally. fn itself must hold no object with a destructor. The failed transaction is still aborted
// afterwards, when the guard re-raises the error.
void call_postgres(void (*fn)(void*), void* argument);
template <typename F> void call_postgres(F&& f) {
    call_postgres([](void* p) { (*static_cast<std::remove_reference_t<F>*>(p))(); }, &f);
}

} // namespace gazepriv::pg

#define GAZEPRIV_FUNCTION(sqlname)                                                                           \
    static Datum sqlname##_body(FunctionCallInfo fcinfo);                                                    \
    extern "C" {                                                                                             \
    PG_FUNCTION_INFO_V1(gazepriv_##sqlname);                                                                 \
    }                                                                                                        \
    extern "C" Datum gazepriv_##sqlname(PG_FUNCTION_ARGS) {                                                  \
        return gazepriv::pg::guarded("gazepriv." #sqlname, sqlname##_body, fcinfo);                          \
    }                                                                                                        \
    static Datum sqlname##_body(FunctionCallInfo fcinfo)
