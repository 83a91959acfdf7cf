// Reading PD source rows through an SPI cursor, in batches, into growing palloc'd arrays.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pg/boundary/memory.hpp"
#include "pg/pd/pd_source.hpp"

extern "C" {
#include "postgres.h"
#include "access/htup_details.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
}

namespace gazepriv::pg {

namespace {

constexpr long kBatch = 10000;
constexpr int kMaxColumns = 16;

// "schema"."relation" of an existing relation, or ERROR 42P01.
char* relation_name(Oid relation) {
    const char* name = get_rel_name(relation);
    if (name == nullptr)
        ereport(ERROR,
                (errcode(ERRCODE_UNDEFINED_TABLE), errmsg("relation with OID %u does not exist", relation)));
    return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relation)), name);
}

// Grows an array in `context` to hold at least `needed` elements of `size` bytes.
void* grow(MemoryContext context, void* array, std::size_t& capacity, std::size_t needed, std::size_t size) {
    if (needed <= capacity)
        return array;
    std::size_t next = capacity == 0 ? 1024 : capacity;
    while (next < needed)
        next *= 2;
    capacity = next;
    return array == nullptr ? MemoryContextAllocHuge(context, next * size)
                            : repalloc_huge(array, next * size);
}

// A text value as a string in `context`; consecutive rows usually repeat it, so they share one copy (compared
// in place, without converting).
char* text_value(Datum d, bool isnull, const char* what, char* previous, MemoryContext context) {
    if (isnull)
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("%s must not be NULL", what)));
    text* t = DatumGetTextPP(d);
    const char* bytes = VARDATA_ANY(t);
    const std::size_t length = VARSIZE_ANY_EXHDR(t);
    if (previous != nullptr && std::strncmp(previous, bytes, length) == 0 && previous[length] == '\0')
        return previous;
    char* copy = static_cast<char*>(MemoryContextAlloc(context, length + 1));
    std::memcpy(copy, bytes, length);
    copy[length] = '\0';
    return copy;
}

// Runs `query` through a read-only cursor and calls visit(values, nulls) with every row's columns.
template <typename Visit> void scan(const char* query, Visit visit) {
    if (SPI_connect() != SPI_OK_CONNECT)
        ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("SPI_connect failed")));
    SPIPlanPtr plan = SPI_prepare(query, 0, nullptr);
    if (plan == nullptr)
        ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("could not prepare: %s", query)));
    Portal portal = SPI_cursor_open(nullptr, plan, nullptr, nullptr, true);
    // Detoasted arrays of a batch live here and are freed with it.
    const MemoryContext batch =
        AllocSetContextCreate(CurrentMemoryContext, "gazepriv pd rows", ALLOCSET_DEFAULT_SIZES);
    Datum values[kMaxColumns];
    bool nulls[kMaxColumns];
    for (;;) {
        SPI_cursor_fetch(portal, true, kBatch);
        if (SPI_processed == 0)
            break;
        if (SPI_tuptable->tupdesc->natts > kMaxColumns)
            ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("unexpected number of columns")));
        const MemoryContext previous = MemoryContextSwitchTo(batch);
        for (uint64 i = 0; i < SPI_processed; ++i) {
            CHECK_FOR_INTERRUPTS();
            heap_deform_tuple(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, values, nulls);
            visit(values, nulls);
        }
        MemoryContextSwitchTo(previous);
        MemoryContextReset(batch);
        SPI_freetuptable(SPI_tuptable);
    }
    SPI_cursor_close(portal);
    SPI_finish();
}

bool finite_float(Datum d, bool isnull, double* out) {
    if (isnull)
        return false;
    *out = DatumGetFloat8(d);
    return std::isfinite(*out);
}

} // namespace

FeatureSource read_feature_source(Oid relation, const char* participant_column, const char* task_column,
                                  const char* window_column, const char* features_column, bool ordered) {
    const MemoryContext outer = CurrentMemoryContext;
    const char* query = psprintf(
        "SELECT %s::text, %s::text, %s, %s::float8[] FROM %s%s", quote_identifier(participant_column),
        quote_identifier(task_column),
        window_column != nullptr ? psprintf("%s::int4", quote_identifier(window_column)) : "NULL::int4",
        quote_identifier(features_column), relation_name(relation), ordered ? " ORDER BY 1, 2, 3" : "");
    FeatureSource s;
    std::size_t row_capacity = 0, value_capacity = 0, window_capacity = 0, null_capacity = 0,
                task_capacity = 0;
    scan(query, [&](const Datum* values, const bool* nulls) {
        if (nulls[3])
            return;
        ArrayType* array = DatumGetArrayTypeP(values[3]);
        const int n = ArrayGetNItems(ARR_NDIM(array), ARR_DIMS(array));
        if (ARR_NDIM(array) > 1)
            ereport(ERROR,
                    (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                     errmsg("features must be one-dimensional arrays, got %d dimensions", ARR_NDIM(array))));
        if (n == 0)
            ereport(ERROR,
                    (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("features must not be empty arrays")));
        if (ARR_HASNULL(array))
            return; // a NULL element: the row cannot be used
        const double* v = reinterpret_cast<const double*>(ARR_DATA_PTR(array));
        for (int j = 0; j < n; ++j)
            if (!std::isfinite(v[j]))
                return;
        if (s.features == 0)
            s.features = static_cast<std::size_t>(n);
        else if (static_cast<std::size_t>(n) != s.features)
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("features arrays must all have the same length: found %zu and %d",
                                   s.features, n)));
        const std::size_t r = s.rows;
        s.values =
            static_cast<double*>(grow(outer, s.values, value_capacity, (r + 1) * s.features, sizeof(double)));
        std::memcpy(s.values + r * s.features, v, s.features * sizeof(double));
        s.participant = static_cast<char**>(grow(outer, s.participant, row_capacity, r + 1, sizeof(char*)));
        s.task = static_cast<char**>(grow(outer, s.task, task_capacity, r + 1, sizeof(char*)));
        s.window =
            static_cast<std::int32_t*>(grow(outer, s.window, window_capacity, r + 1, sizeof(std::int32_t)));
        s.window_null = static_cast<bool*>(grow(outer, s.window_null, null_capacity, r + 1, sizeof(bool)));
        s.participant[r] =
            text_value(values[0], nulls[0], "participant", r > 0 ? s.participant[r - 1] : nullptr, outer);
        s.task[r] = text_value(values[1], nulls[1], "task", r > 0 ? s.task[r - 1] : nullptr, outer);
        s.window_null[r] = nulls[2];
        s.window[r] = nulls[2] ? 0 : DatumGetInt32(values[2]);
        s.rows = r + 1;
    });
    return s;
}

FixationSource read_fixation_source(Oid relation) {
    const MemoryContext outer = CurrentMemoryContext;
    const char* query =
        psprintf("SELECT participant::text, task::text, fixation::int4, mu_x::float8, mu_y::float8, "
                 "sigma_x::float8, sigma_y::float8, samples::int4 FROM %s",
                 relation_name(relation));
    FixationSource s;
    std::size_t caps[9] = {0};
    scan(query, [&](const Datum* values, const bool* nulls) {
        double mx, my, sx, sy;
        if (!finite_float(values[3], nulls[3], &mx) || !finite_float(values[4], nulls[4], &my) ||
            !finite_float(values[5], nulls[5], &sx) || !finite_float(values[6], nulls[6], &sy) || !(sx > 0) ||
            !(sy > 0))
            return;
        if (nulls[7] || DatumGetInt32(values[7]) < 1)
            return;
        const std::size_t r = s.rows;
        s.participant = static_cast<char**>(grow(outer, s.participant, caps[0], r + 1, sizeof(char*)));
        s.task = static_cast<char**>(grow(outer, s.task, caps[1], r + 1, sizeof(char*)));
        s.fixation =
            static_cast<std::int32_t*>(grow(outer, s.fixation, caps[2], r + 1, sizeof(std::int32_t)));
        s.fixation_null = static_cast<bool*>(grow(outer, s.fixation_null, caps[3], r + 1, sizeof(bool)));
        s.mu_x = static_cast<double*>(grow(outer, s.mu_x, caps[4], r + 1, sizeof(double)));
        s.mu_y = static_cast<double*>(grow(outer, s.mu_y, caps[5], r + 1, sizeof(double)));
        s.sigma_x = static_cast<double*>(grow(outer, s.sigma_x, caps[6], r + 1, sizeof(double)));
        s.sigma_y = static_cast<double*>(grow(outer, s.sigma_y, caps[7], r + 1, sizeof(double)));
        s.samples = static_cast<std::int32_t*>(grow(outer, s.samples, caps[8], r + 1, sizeof(std::int32_t)));
        s.participant[r] =
            text_value(values[0], nulls[0], "participant", r > 0 ? s.participant[r - 1] : nullptr, outer);
        s.task[r] = text_value(values[1], nulls[1], "task", r > 0 ? s.task[r - 1] : nullptr, outer);
        s.fixation_null[r] = nulls[2];
        s.fixation[r] = nulls[2] ? 0 : DatumGetInt32(values[2]);
        s.mu_x[r] = mx;
        s.mu_y[r] = my;
        s.sigma_x[r] = sx;
        s.sigma_y[r] = sy;
        s.samples[r] = DatumGetInt32(values[7]);
        s.rows = r + 1;
    });
    return s;
}

EventSource read_event_source(Oid relation) {
    const MemoryContext outer = CurrentMemoryContext;
    const char* query = psprintf(
        "SELECT participant::text, task::text, event_index::int4, type::text, start_ms::float8, "
        "end_ms::float8, "
        "centroid_x::float8, centroid_y::float8, sigma_x::float8, sigma_y::float8, amplitude::float8, "
        "profile_a::float8, profile_b::float8, profile_c::float8 FROM %s ORDER BY 1, 2, 5, 3",
        relation_name(relation));
    EventSource s;
    std::size_t caps[4 + 10] = {0};
    scan(query, [&](const Datum* values, const bool* nulls) {
        if (nulls[2] || nulls[3])
            ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                            errmsg("event_index and type must not be NULL")));
        const std::int32_t index = DatumGetInt32(values[2]);
        const char* type = TextDatumGetCString(values[3]);
        const bool saccade = std::strcmp(type, "saccade") == 0;
        if (!saccade && std::strcmp(type, "fixation") != 0)
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("event %d: unknown event type \"%s\" (expected fixation or saccade)",
                                   index, type)));
        const std::size_t r = s.rows;
        s.participant = static_cast<char**>(grow(outer, s.participant, caps[0], r + 1, sizeof(char*)));
        s.task = static_cast<char**>(grow(outer, s.task, caps[1], r + 1, sizeof(char*)));
        s.event_index =
            static_cast<std::int32_t*>(grow(outer, s.event_index, caps[2], r + 1, sizeof(std::int32_t)));
        s.saccade = static_cast<bool*>(grow(outer, s.saccade, caps[3], r + 1, sizeof(bool)));
        s.participant[r] =
            text_value(values[0], nulls[0], "participant", r > 0 ? s.participant[r - 1] : nullptr, outer);
        s.task[r] = text_value(values[1], nulls[1], "task", r > 0 ? s.task[r - 1] : nullptr, outer);
        s.event_index[r] = index;
        s.saccade[r] = saccade;
        for (int f = 0; f < 10; ++f) {
            s.number[f] = static_cast<double*>(grow(outer, s.number[f], caps[4 + f], r + 1, sizeof(double)));
            s.number[f][r] = nulls[4 + f] ? NAN : DatumGetFloat8(values[4 + f]);
        }
        s.rows = r + 1;
    });
    return s;
}

std::int32_t* dense_ids(char* const* names, std::size_t rows) {
    std::unordered_map<std::string_view, std::int32_t> id;
    for (std::size_t r = 0; r < rows; ++r)
        id.emplace(names[r], 0);
    std::vector<std::string_view> sorted;
    sorted.reserve(id.size());
    for (const auto& entry : id)
        sorted.push_back(entry.first);
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i)
        id[sorted[i]] = static_cast<std::int32_t>(i);
    auto* ids = static_cast<std::int32_t*>(palloc_or_throw(rows * sizeof(std::int32_t) + 1));
    for (std::size_t r = 0; r < rows; ++r)
        ids[r] = id[names[r]];
    return ids;
}

} // namespace gazepriv::pg
