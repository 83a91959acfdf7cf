// SQL: k_same_select(source, k, ...): the k-same-select sequence release of feature windows.
// Phases: arguments and cost (charged to the ledger when a dataset is named), rows read through SPI into
// palloc'd arrays, the core release in a C++ helper that copies its result into palloc'd memory, tuples.
#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

#include "core/kanon/k_same.hpp"
#include "pg/boundary/args.hpp"
#include "pg/boundary/arrays.hpp"
#include "pg/boundary/backend_rng.hpp"
#include "pg/boundary/guard.hpp"
#include "pg/kanon/k_anonymity_cost.hpp"
#include "pg/boundary/memory.hpp"
#include "pg/boundary/sql_source.hpp"

extern "C" {
#include "postgres.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"
}

using namespace gazepriv;

namespace {

using Row = core::kanon::KSameRelease::Row;

// The core's result, copied into palloc'd memory.
struct Released {
    std::size_t rows;
    const Row* row;
    std::size_t vectors;
    const std::size_t* vector_offset; // vectors + 1
    const double* means;
    std::size_t tasks;
    const std::size_t* task_row;
    std::size_t participants;
    const std::size_t* participant_row;
};

template <typename T> const T* palloc_copy(const std::vector<T>& v) {
    T* out = static_cast<T*>(pg::palloc_or_throw(v.size() * sizeof(T) + 1));
    if (!v.empty())
        std::memcpy(out, v.data(), v.size() * sizeof(T));
    return out;
}

Released release(const core::kanon::SequenceRows& input, int k, core::kanon::Grouping grouping,
                 const unsigned char* secret, std::size_t secret_size) {
    std::optional<core::Rng> keyed;
    const core::kanon::KSameRelease r =
        core::kanon::k_same_select(input, k, grouping, pg::release_rng(keyed, secret, secret_size),
                                   core::CancelCheck(pg::interrupt_pending));
    Released out;
    out.rows = r.rows.size();
    out.row = palloc_copy(r.rows);
    out.vectors = r.vector_offset.size() - 1;
    out.vector_offset = palloc_copy(r.vector_offset);
    out.means = palloc_copy(r.means);
    out.tasks = r.task_row.size();
    out.task_row = palloc_copy(r.task_row);
    out.participants = r.participant_row.size();
    out.participant_row = palloc_copy(r.participant_row);
    return out;
}

} // namespace

// k_same_select(source text, k int, participant_column name, task_column name, window_column name,
//               features_column name, class_column name, across_tasks boolean, dataset text, secret bytea)
GAZEPRIV_FUNCTION(k_same_select) {
    pg::require_not_null(fcinfo, {"source", "k", "participant_column", "task_column", "window_column",
                                  "features_column", nullptr, "across_tasks"});
    const char* source = text_to_cstring(PG_GETARG_TEXT_PP(0));
    const int k = PG_GETARG_INT32(1);
    const char* participant = quote_identifier(NameStr(*PG_GETARG_NAME(2)));
    const char* task = quote_identifier(NameStr(*PG_GETARG_NAME(3)));
    const char* window = quote_identifier(NameStr(*PG_GETARG_NAME(4)));
    const char* features = quote_identifier(NameStr(*PG_GETARG_NAME(5)));
    const char* class_column = PG_ARGISNULL(6) ? nullptr : pstrdup(NameStr(*PG_GETARG_NAME(6)));
    const bool across_tasks = PG_GETARG_BOOL(7);
    const char* dataset = PG_ARGISNULL(8) ? nullptr : text_to_cstring(PG_GETARG_TEXT_PP(8));
    const bytea* secret = PG_ARGISNULL(9) ? nullptr : PG_GETARG_BYTEA_PP(9);

    // The cost is known from the parameters (and validates k): log the release before reading anything.
    const pg::Charge charge = pg::k_same_select_charge(dataset, k, class_column, across_tasks, source);
    const core::kanon::Grouping grouping =
        across_tasks ? core::kanon::Grouping::AcrossTasks : core::kanon::Grouping::PerTask;
    if (dataset != nullptr)
        (void)pg::charge_own_release(charge);

    ReturnSetInfo* rsinfo = pg::start_source_srf(fcinfo);
    const char* select_list =
        class_column == nullptr
            ? psprintf("(%s)::text, (%s)::text, (%s)::int4, (%s)::float8[]", participant, task, window,
                       features)
            : psprintf("(%s)::text, (%s)::text, (%s)::int4, (%s)::float8[], (%s)::text", participant, task,
                       window, features, quote_identifier(class_column));
    Portal portal = pg::open_source(select_list, source);
    pg::PgArray<const char*> participants, tasks, classes;
    pg::PgArray<std::int32_t> windows;
    pg::PgArray<double> values;
    pg::PgArray<std::size_t> offsets;
    offsets.push(0);
    pg::for_each_row(portal, [&](HeapTuple tuple, TupleDesc desc) {
        const auto last = [](const pg::PgArray<const char*>& a) {
            return a.size ? a.data[a.size - 1] : nullptr;
        };
        participants.push(
            pg::text_value(pg::required_value(tuple, desc, 1, "participant"), last(participants)));
        tasks.push(pg::text_value(pg::required_value(tuple, desc, 2, "task"), last(tasks)));
        windows.push(DatumGetInt32(pg::required_value(tuple, desc, 3, "window")));
        // NULL features, NULL elements, NaN and infinities make a row unusable: the core drops it.
        bool isnull;
        const Datum array = SPI_getbinval(tuple, desc, 4, &isnull);
        if (isnull)
            values.push(std::nan(""));
        else if (!pg::append_float8_array(array, values))
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("the features of participant '%s', task '%s', window %d must be a "
                                   "one-dimensional array",
                                   last(participants), last(tasks), windows.data[windows.size - 1])));
        offsets.push(values.size);
        if (class_column != nullptr)
            classes.push(pg::text_value(pg::required_value(tuple, desc, 5, "utility class"), last(classes)));
    });

    core::kanon::SequenceRows input;
    input.rows = participants.size;
    input.participant = participants.data;
    input.task = tasks.data;
    input.window = windows.data;
    input.utility_class = class_column == nullptr ? nullptr : classes.data;
    input.values = values.data;
    input.offset = offsets.data;
    const Released r =
        release(input, k, grouping,
                secret == nullptr ? nullptr : reinterpret_cast<const unsigned char*>(VARDATA_ANY(secret)),
                secret == nullptr ? 0 : VARSIZE_ANY_EXHDR(secret));

    // Tuples: one text per task and participant, one array per released vector (shared by its group).
    Datum* task_text = static_cast<Datum*>(palloc(sizeof(Datum) * (r.tasks + 1)));
    for (std::size_t t = 0; t < r.tasks; ++t)
        task_text[t] = PointerGetDatum(cstring_to_text(tasks.data[r.task_row[t]]));
    Datum* participant_text = static_cast<Datum*>(palloc(sizeof(Datum) * (r.participants + 1)));
    for (std::size_t p = 0; p < r.participants; ++p)
        participant_text[p] = PointerGetDatum(cstring_to_text(participants.data[r.participant_row[p]]));
    Datum* vector = static_cast<Datum*>(palloc0(sizeof(Datum) * (r.vectors + 1)));
    for (std::size_t i = 0; i < r.rows; ++i) {
        const Row& row = r.row[i];
        if (vector[row.vector] == 0) {
            const std::size_t n = r.vector_offset[row.vector + 1] - r.vector_offset[row.vector];
            ArrayType* a = pg::new_float8_array(n);
            std::memcpy(pg::float8_data(a), r.means + r.vector_offset[row.vector], n * sizeof(double));
            vector[row.vector] = PointerGetDatum(a);
        }
        Datum out[5] = {participant_text[row.participant], task_text[row.task], Int32GetDatum(row.window),
                        vector[row.vector], Int32GetDatum(static_cast<int32>(row.group))};
        bool nulls[5] = {false, false, false, false, false};
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, out, nulls);
        CHECK_FOR_INTERRUPTS();
    }
    SPI_finish();
    return static_cast<Datum>(0);
}
