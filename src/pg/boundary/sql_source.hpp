// Reading a source named by the caller (a table or view, or a query) through SPI, for the curator-facing
// functions that take one. Plain C-style code: everything here can raise PostgreSQL errors, so call it
// with no C++ object alive.
#pragma once

#include <cstddef>

extern "C" {
#include "postgres.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/memutils.h"
}

namespace gazepriv::pg {

// The FROM item for a source: "(<query>) AS gazepriv_source" when the text starts with SELECT, WITH,
// VALUES, TABLE or "(" (a trailing semicolon is dropped), otherwise the schema-qualified name of the table
// or view it names (ERROR 42P01 if none). ERROR 22023 for an empty source. The query runs with the caller's
// privileges; a data-modifying WITH is rejected by PostgreSQL inside the subquery.
const char* source_from_item(const char* source);

// Starts a set-returning function that reads a source: a materialized result (a tuplestore in
// rsinfo->setResult) and an SPI connection; the caller ends with SPI_finish().
ReturnSetInfo* start_source_srf(FunctionCallInfo fcinfo);

// After SPI_connect: a read-only cursor over "SELECT <select_list> FROM <from item of source> <rest>".
Portal open_source(const char* select_list, const char* source, const char* rest = "");

// Rows fetched from a cursor per round trip.
constexpr long kFetchRows = 8192;

// Calls row(tuple, descriptor) for every row of the cursor, kFetchRows at a time, then closes it. `row` may
// raise PostgreSQL errors (it must hold no object with a destructor).
template <typename Row> void for_each_row(Portal portal, Row row) {
    for (;;) {
        SPI_cursor_fetch(portal, true, kFetchRows);
        if (SPI_processed == 0)
            break;
        for (uint64 i = 0; i < SPI_processed; ++i) {
            row(SPI_tuptable->vals[i], SPI_tuptable->tupdesc);
            CHECK_FOR_INTERRUPTS();
        }
        SPI_freetuptable(SPI_tuptable);
    }
    SPI_cursor_close(portal);
}

// A column that must not be NULL: ERROR 22023 "the source has a row whose <what> is NULL" otherwise.
Datum required_value(HeapTuple tuple, TupleDesc descriptor, int column, const char* what);

// A growable array in the current memory context. Trivially destructible, so it may live across PostgreSQL
// calls in guarded bodies (it is freed with its memory context).
template <typename T> struct PgArray {
    T* data = nullptr;
    std::size_t size = 0;
    std::size_t capacity = 0;

    void push(const T& value) {
        if (size == capacity)
            grow(size + 1);
        data[size++] = value;
    }
    void grow(std::size_t needed) {
        std::size_t c = capacity == 0 ? 1024 : capacity;
        while (c < needed)
            c *= 2;
        data = static_cast<T*>(data == nullptr ? MemoryContextAllocHuge(CurrentMemoryContext, c * sizeof(T))
                                               : repalloc_huge(data, c * sizeof(T)));
        capacity = c;
    }
};

// A text datum as a C string; returns `previous` itself when equal (rows usually repeat their strings).
const char* text_value(Datum value, const char* previous);

// Appends the elements of a float8[] datum, NULL elements as NaN (so the row counts as unusable); returns
// false (appending nothing) if the array has more than one dimension.
bool append_float8_array(Datum value, PgArray<double>& values);

} // namespace gazepriv::pg
