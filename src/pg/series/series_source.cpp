// Plain C-style code: it calls SPI and ereport, so no C++ object with a destructor lives here.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "pg/series/series_source.hpp"

extern "C" {
#include "postgres.h"
#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "tcop/dest.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/params.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
}

namespace gazepriv::pg {

namespace {

constexpr int kKeyBytes = 256;
constexpr uint64 kFetchRows = 10000; // rows between interrupt checks

struct KeyEntry {
    char key[kKeyBytes];
    int32 id;
};

// Dense ids for the distinct text keys of one column, with their names kept in the caller's context.
struct Interner {
    const char* column;
    HTAB* table;
    char** names;
    int32 count;
    int32 capacity;
    MemoryContext outer;
    int last_length; // the previous key, which the next row usually repeats
    int32 last_id;
    char last[kKeyBytes];
};

void interner_init(Interner* in, const char* column, MemoryContext outer) {
    HASHCTL ctl;
    memset(&ctl, 0, sizeof ctl);
    ctl.keysize = kKeyBytes;
    ctl.entrysize = sizeof(KeyEntry);
    ctl.hcxt = CurrentMemoryContext; // SPI's procedure context: gone at SPI_finish
    in->column = column;
    in->table = hash_create("gazepriv series keys", 64, &ctl, HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
    in->count = 0;
    in->capacity = 64;
    in->names = static_cast<char**>(MemoryContextAlloc(outer, sizeof(char*) * in->capacity));
    in->outer = outer;
    in->last_length = -1;
    in->last_id = -1;
}

int32 intern(Interner* in, Datum value) {
    text* t = DatumGetTextPP(value);
    const char* data = VARDATA_ANY(t);
    const int length = static_cast<int>(VARSIZE_ANY_EXHDR(t));
    if (length == in->last_length && memcmp(data, in->last, length) == 0)
        return in->last_id;
    if (length >= kKeyBytes)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("values of column \"%s\" must be shorter than %d bytes as text", in->column,
                               kKeyBytes)));
    char key[kKeyBytes];
    memset(key, 0, sizeof key);
    memcpy(key, data, length);
    bool found = false;
    auto* entry = static_cast<KeyEntry*>(hash_search(in->table, key, HASH_ENTER, &found));
    if (!found) {
        if (in->count == in->capacity) {
            in->capacity *= 2;
            in->names = static_cast<char**>(repalloc(in->names, sizeof(char*) * in->capacity));
        }
        entry->id = in->count++;
        in->names[entry->id] = MemoryContextStrdup(in->outer, key);
    }
    memcpy(in->last, key, length);
    in->last_length = length;
    in->last_id = entry->id;
    return entry->id;
}

// Renumbers the ids so that they follow the byte order of the names (a deterministic order for results
// and for per-feature bounds), and sorts the names alike.
const char* const* sort_names_for_qsort;
int compare_names(const void* a, const void* b) {
    return strcmp(sort_names_for_qsort[*static_cast<const int32*>(a)],
                  sort_names_for_qsort[*static_cast<const int32*>(b)]);
}

void sort_keys(Interner* in, int32* ids, size_t count, MemoryContext outer) {
    const int32 n = in->count;
    auto* order = static_cast<int32*>(palloc(sizeof(int32) * (n > 0 ? n : 1)));
    for (int32 i = 0; i < n; ++i)
        order[i] = i;
    sort_names_for_qsort = in->names;
    qsort(order, static_cast<size_t>(n), sizeof(int32), compare_names);
    auto* rank = static_cast<int32*>(palloc(sizeof(int32) * (n > 0 ? n : 1)));
    auto** names = static_cast<char**>(MemoryContextAlloc(outer, sizeof(char*) * (n > 0 ? n : 1)));
    for (int32 r = 0; r < n; ++r) {
        rank[order[r]] = r;
        names[r] = in->names[order[r]];
    }
    for (size_t i = 0; i < count; ++i)
        ids[i] = rank[ids[i]];
    in->names = names;
}

// Growing row buffers in the caller's context (repalloc_huge keeps a chunk in its own context).
struct Buffers {
    int32* participant;
    int32* recording;
    int32* feature;
    double* t;
    double* values;
    size_t count;
    size_t capacity;
    size_t width; // 0 until the first features array is seen
};

void* alloc_in(MemoryContext context, size_t bytes) {
    return MemoryContextAllocHuge(context, bytes);
}

void reserve(Buffers* b, MemoryContext outer, bool long_form, size_t expected) {
    if (b->count < b->capacity)
        return;
    const size_t capacity = b->capacity == 0 ? (expected > 4096 ? expected : 4096) : 2 * b->capacity;
    if (b->capacity == 0) {
        b->participant = static_cast<int32*>(alloc_in(outer, capacity * sizeof(int32)));
        b->recording = static_cast<int32*>(alloc_in(outer, capacity * sizeof(int32)));
        b->t = static_cast<double*>(alloc_in(outer, capacity * sizeof(double)));
        if (long_form)
            b->feature = static_cast<int32*>(alloc_in(outer, capacity * sizeof(int32)));
    } else {
        b->participant = static_cast<int32*>(repalloc_huge(b->participant, capacity * sizeof(int32)));
        b->recording = static_cast<int32*>(repalloc_huge(b->recording, capacity * sizeof(int32)));
        b->t = static_cast<double*>(repalloc_huge(b->t, capacity * sizeof(double)));
        if (long_form)
            b->feature = static_cast<int32*>(repalloc_huge(b->feature, capacity * sizeof(int32)));
    }
    if (b->width > 0) {
        const size_t bytes = capacity * b->width * sizeof(double);
        b->values = static_cast<double*>(b->values == nullptr ? alloc_in(outer, bytes)
                                                              : repalloc_huge(b->values, bytes));
    }
    b->capacity = capacity;
}

// The first of the candidate column names the relation has, or nullptr.
const char* column_named(Oid relation, const char* const* candidates) {
    for (const char* const* c = candidates; *c != nullptr; ++c)
        if (get_attnum(relation, *c) != InvalidAttrNumber)
            return *c;
    return nullptr;
}

// Stores one features array (or NULL) as the current row's values.
void store_features(Buffers* b, bool isnull, Datum value, MemoryContext outer, size_t* leading_missing) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    ArrayType* array = nullptr;
    int n = 0;
    if (!isnull) {
        array = DatumGetArrayTypeP(value);
        if (ARR_NDIM(array) > 1)
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("column \"features\" must hold one-dimensional arrays")));
        n = ARR_NDIM(array) == 0 ? 0 : ARR_DIMS(array)[0];
    }
    if (n == 0) { // NULL or empty: every feature of this row is missing
        if (b->width == 0)
            ++*leading_missing;
        else
            for (size_t f = 0; f < b->width; ++f)
                b->values[b->count * b->width + f] = nan;
        return;
    }
    if (b->width == 0) {
        b->width = static_cast<size_t>(n);
        b->values = static_cast<double*>(alloc_in(outer, b->capacity * b->width * sizeof(double)));
        for (size_t i = 0; i < *leading_missing * b->width; ++i)
            b->values[i] = nan;
    }
    if (static_cast<size_t>(n) != b->width)
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("every features array must have the same length (%zu), a row has %d", b->width, n)));
    const double* data = reinterpret_cast<const double*>(ARR_DATA_PTR(array));
    const bits8* nulls = ARR_NULLBITMAP(array);
    double* out = b->values + b->count * b->width;
    for (int i = 0; i < n; ++i)
        out[i] = nulls != nullptr && (nulls[i / 8] & (1 << (i % 8))) == 0 ? nan : *data++;
    if (reinterpret_cast<Pointer>(array) != DatumGetPointer(value))
        pfree(array);
}

// Rows arrive one by one from the executor (no copies of the tuples, no result set in memory).
struct RowReceiver {
    DestReceiver pub; // first: the executor calls back with this pointer
    bool long_form;
    MemoryContext outer;
    Buffers* b;
    size_t* leading_missing;
    Interner *participants, *recordings, *features;
    uint64 seen;
    size_t expected_rows; // the planner's estimate (0: none), so that the buffers rarely grow
};

bool receive_row(TupleTableSlot* slot, DestReceiver* self) {
    auto* r = reinterpret_cast<RowReceiver*>(self);
    if (++r->seen % kFetchRows == 0)
        CHECK_FOR_INTERRUPTS();
    slot_getallattrs(slot);
    const Datum* v = slot->tts_values;
    const bool* null = slot->tts_isnull;
    const double time = null[2] ? 0 : DatumGetFloat8(v[2]);
    if (null[0] || null[1] || null[2] || !std::isfinite(time) || (r->long_form && null[3]))
        return true; // cannot be placed in any signal
    Buffers& b = *r->b;
    reserve(&b, r->outer, r->long_form, r->expected_rows);
    b.participant[b.count] = intern(r->participants, v[0]);
    b.recording[b.count] = intern(r->recordings, v[1]);
    b.t[b.count] = time;
    if (r->long_form) {
        b.feature[b.count] = intern(r->features, v[3]);
        if (b.values == nullptr) {
            b.width = 1;
            b.values = static_cast<double*>(alloc_in(r->outer, b.capacity * sizeof(double)));
        }
        b.values[b.count] = null[4] ? std::numeric_limits<double>::quiet_NaN() : DatumGetFloat8(v[4]);
    } else {
        store_features(&b, null[3], v[3], r->outer, r->leading_missing);
    }
    ++b.count;
    return true;
}

// The planner's row estimate of a table (pg_class.reltuples), or 0.
size_t estimated_rows(Oid relation) {
    size_t rows = 0;
    HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relation));
    if (HeapTupleIsValid(tuple)) {
        const auto* form = reinterpret_cast<Form_pg_class>(GETSTRUCT(tuple));
        if (form->relkind == RELKIND_RELATION && form->reltuples > 0 && form->reltuples < 1e9)
            rows = static_cast<size_t>(form->reltuples) + 1;
        ReleaseSysCache(tuple);
    }
    return rows;
}

void receiver_startup(DestReceiver*, int, TupleDesc) {}
void receiver_shutdown(DestReceiver*) {}
void receiver_destroy(DestReceiver*) {}

} // namespace

void read_series_source(Oid relation, const char* participant_column, SeriesSource* out, Datum only) {
    static const char* const recording_names[] = {"recording", "task", nullptr};
    static const char* const t_names[] = {"t", "window", nullptr};
    static const char* const features_name[] = {"features", nullptr};
    static const char* const feature_name[] = {"feature", nullptr};
    static const char* const value_name[] = {"value", nullptr};

    const char* relname = get_rel_name(relation);
    if (relname == nullptr)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("source relation %u does not exist", relation)));
    if (get_attnum(relation, participant_column) == InvalidAttrNumber)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("source has no column \"%s\" (participant_column)", participant_column)));
    const char* recording = column_named(relation, recording_names);
    const char* t = column_named(relation, t_names);
    if (t == nullptr)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("source needs a column \"t\" or \"window\" that orders each signal")));
    const bool long_form = column_named(relation, features_name) == nullptr;
    if (long_form &&
        (column_named(relation, feature_name) == nullptr || column_named(relation, value_name) == nullptr))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("source needs either a column \"features\" (an array per row) or the columns "
                               "\"feature\" and \"value\"")));

    StringInfoData query;
    initStringInfo(&query);
    appendStringInfo(&query, "SELECT (%s)::text, ", quote_identifier(participant_column));
    appendStringInfo(&query, recording != nullptr ? "(%s)::text, " : "''::text, ",
                     recording != nullptr ? quote_identifier(recording) : "");
    appendStringInfo(&query, "(%s)::float8, ", quote_identifier(t));
    if (long_form)
        appendStringInfoString(&query, "(feature)::text, (value)::float8");
    else
        appendStringInfoString(&query, "(features)::float8[]");
    appendStringInfo(&query, " FROM %s",
                     quote_qualified_identifier(get_namespace_name(get_rel_namespace(relation)), relname));
    ParamListInfo params = nullptr;
    if (only != 0) {
        if (recording == nullptr)
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("recordings needs a column \"recording\" or \"task\" in the source")));
        appendStringInfo(&query, " WHERE (%s)::text = ANY ($1)", quote_identifier(recording));
        params = makeParamList(1);
        params->numParams = 1;
        params->params[0].value = only;
        params->params[0].isnull = false;
        params->params[0].pflags = PARAM_FLAG_CONST;
        params->params[0].ptype = TEXTARRAYOID;
    }

    MemoryContext outer = CurrentMemoryContext;
    Buffers b;
    memset(&b, 0, sizeof b);
    size_t leading_missing = 0;
    Interner participants, recordings, features;

    if (SPI_connect() != SPI_OK_CONNECT)
        ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("SPI_connect failed")));
    interner_init(&participants, participant_column, outer);
    interner_init(&recordings, recording != nullptr ? recording : "recording", outer);
    interner_init(&features, "feature", outer);
    RowReceiver receiver;
    memset(&receiver, 0, sizeof receiver);
    receiver.pub.receiveSlot = receive_row;
    receiver.pub.rStartup = receiver_startup;
    receiver.pub.rShutdown = receiver_shutdown;
    receiver.pub.rDestroy = receiver_destroy;
    receiver.pub.mydest = DestNone;
    receiver.long_form = long_form;
    receiver.outer = outer;
    receiver.b = &b;
    receiver.leading_missing = &leading_missing;
    receiver.participants = &participants;
    receiver.recordings = &recordings;
    receiver.features = &features;
    receiver.expected_rows = estimated_rows(relation);
    SPIExecuteOptions options;
    memset(&options, 0, sizeof options);
    options.read_only = true;
    options.params = params;
    options.dest = &receiver.pub;
    // With a receiver of its own (DestNone) SPI reports a SELECT as SPI_OK_UTILITY.
    const int status = SPI_execute_extended(query.data, &options);
    if (status != SPI_OK_SELECT && status != SPI_OK_UTILITY)
        ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                        errmsg("reading the source failed: %s", SPI_result_code_string(status))));
    sort_keys(&participants, b.participant, b.count, outer);
    sort_keys(&recordings, b.recording, b.count, outer);
    if (long_form)
        sort_keys(&features, b.feature, b.count, outer);
    SPI_finish();

    if (b.count == 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("source has no usable rows")));
    if (b.width == 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("column \"features\" is NULL or empty in every row")));

    *out = SeriesSource{};
    core::SeriesRows& rows = out->rows;
    rows.count = b.count;
    rows.width = b.width;
    rows.participant = b.participant;
    rows.recording = b.recording;
    rows.feature = long_form ? b.feature : nullptr;
    rows.t = b.t;
    rows.values = b.values;
    rows.participants = static_cast<size_t>(participants.count);
    rows.recordings = static_cast<size_t>(recordings.count);
    rows.features = long_form ? static_cast<size_t>(features.count) : b.width;
    rows.participant_names = participants.names;
    rows.recording_names = recordings.names;
    out->feature_names = long_form ? features.names : nullptr;
    out->has_recording = recording != nullptr;
}

} // namespace gazepriv::pg
