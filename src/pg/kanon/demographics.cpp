// SQL: generalize_demographics(source, k, ...) and generalize_demographics_ranges(...): the k-anonymous
// generalisation of (participant, gender, age) rows, as generalised rows or as the mapping (one row per
// class). Phases as in k_same.cpp: arguments and cost (logged when a dataset is named), SPI read, core in a
// C++ helper that copies its result into palloc'd memory, tuples.
#include <cstring>
#include <string>
#include <vector>

#include "core/kanon/demographics.hpp"
#include "pg/boundary/args.hpp"
#include "pg/boundary/guard.hpp"
#include "pg/kanon/k_anonymity_cost.hpp"
#include "pg/boundary/memory.hpp"
#include "pg/boundary/sql_source.hpp"

extern "C" {
#include "postgres.h"
#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"
}

using namespace gazepriv;

namespace {

// The generalisation, copied into palloc'd memory.
struct Classes {
    std::size_t count;
    const char** label;
    const char*** genders;
    std::size_t* gender_count;
    std::int32_t* age_from;
    std::int32_t* age_to;
    std::size_t* rows;
    std::size_t input_rows;
    std::size_t* row_order;
    std::uint32_t* class_of_row;
};

template <typename T> T* allocate(std::size_t n) {
    return static_cast<T*>(pg::palloc_or_throw(sizeof(T) * (n + 1)));
}

const char* palloc_string(const std::string& s) {
    char* out = allocate<char>(s.size());
    std::memcpy(out, s.c_str(), s.size() + 1);
    return out;
}

std::vector<std::string> strings(const char* const* values, std::size_t n) {
    return std::vector<std::string>(values, values + n);
}

Classes generalise(const core::kanon::DemographicRows& input, int k, const char* const* ranges,
                   std::size_t n_ranges) {
    const core::CancelCheck cancel(pg::interrupt_pending);
    const core::kanon::Generalization g =
        ranges == nullptr
            ? core::kanon::generalize_demographics(input, k, cancel)
            : core::kanon::apply_demographic_ranges(input, k, strings(ranges, n_ranges), cancel);
    Classes out;
    out.count = g.classes.size();
    out.label = allocate<const char*>(out.count);
    out.genders = allocate<const char**>(out.count);
    out.gender_count = allocate<std::size_t>(out.count);
    out.age_from = allocate<std::int32_t>(out.count);
    out.age_to = allocate<std::int32_t>(out.count);
    out.rows = allocate<std::size_t>(out.count);
    for (std::size_t c = 0; c < out.count; ++c) {
        const core::kanon::DemographicClass& cls = g.classes[c];
        out.label[c] = palloc_string(cls.gender);
        out.gender_count[c] = cls.genders.size();
        out.genders[c] = allocate<const char*>(cls.genders.size());
        for (std::size_t i = 0; i < cls.genders.size(); ++i)
            out.genders[c][i] = palloc_string(cls.genders[i]);
        out.age_from[c] = cls.age_from;
        out.age_to[c] = cls.age_to;
        out.rows[c] = cls.rows;
    }
    out.input_rows = input.rows;
    out.row_order = allocate<std::size_t>(input.rows);
    out.class_of_row = allocate<std::uint32_t>(input.rows);
    std::memcpy(out.row_order, g.row_order.data(), sizeof(std::size_t) * input.rows);
    std::memcpy(out.class_of_row, g.class_of_row.data(), sizeof(std::uint32_t) * input.rows);
    return out;
}

enum class Output { Rows, Mapping };

// generalize_demographics[_ranges](source text, k int, quasi_identifiers text[], participant_column name,
//                                  ranges text[], dataset text)
Datum demographics(FunctionCallInfo fcinfo, Output output) {
    const char* sql_name =
        output == Output::Rows ? "generalize_demographics" : "generalize_demographics_ranges";
    pg::require_not_null(fcinfo, {"source", "k", "quasi_identifiers", "participant_column"});
    const char* source = text_to_cstring(PG_GETARG_TEXT_PP(0));
    const int k = PG_GETARG_INT32(1);
    int n_qi = 0;
    const char** qi = pg::text_array_arg(PG_GETARG_ARRAYTYPE_P(2), "quasi_identifiers", &n_qi);
    if (n_qi != 2)
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("quasi_identifiers must name two columns, the gender and the age, got %d", n_qi),
                 errhint("For example quasi_identifiers => ARRAY['sex', 'age'].")));
    const char* participant = quote_identifier(NameStr(*PG_GETARG_NAME(3)));
    int n_ranges = 0;
    const char** ranges =
        PG_ARGISNULL(4) ? nullptr : pg::text_array_arg(PG_GETARG_ARRAYTYPE_P(4), "ranges", &n_ranges);
    const char* dataset = PG_ARGISNULL(5) ? nullptr : text_to_cstring(PG_GETARG_TEXT_PP(5));

    const pg::Charge charge =
        pg::demographics_charge(sql_name, dataset, k, qi[0], qi[1], ranges, n_ranges, source);
    if (dataset != nullptr)
        (void)pg::charge_own_release(charge);

    ReturnSetInfo* rsinfo = pg::start_source_srf(fcinfo);
    Portal portal = pg::open_source(psprintf("(%s)::text, (%s)::text, (%s)::int4", participant,
                                             quote_identifier(qi[0]), quote_identifier(qi[1])),
                                    source);
    pg::PgArray<const char*> participants, genders;
    pg::PgArray<std::int32_t> ages;
    pg::for_each_row(portal, [&](HeapTuple tuple, TupleDesc desc) {
        participants.push(pg::text_value(pg::required_value(tuple, desc, 1, "participant"), nullptr));
        genders.push(pg::text_value(pg::required_value(tuple, desc, 2, "gender"),
                                    genders.size ? genders.data[genders.size - 1] : nullptr));
        ages.push(DatumGetInt32(pg::required_value(tuple, desc, 3, "age")));
    });

    const core::kanon::DemographicRows input{participants.size, participants.data, genders.data, ages.data};
    const Classes g = generalise(input, k, ranges, static_cast<std::size_t>(n_ranges));

    Datum* label = static_cast<Datum*>(palloc(sizeof(Datum) * (g.count + 1)));
    for (std::size_t c = 0; c < g.count; ++c)
        label[c] = PointerGetDatum(cstring_to_text(g.label[c]));
    if (output == Output::Rows) {
        for (std::size_t i = 0; i < g.input_rows; ++i) {
            const std::size_t r = g.row_order[i];
            const std::uint32_t c = g.class_of_row[r];
            Datum out[6] = {PointerGetDatum(cstring_to_text(participants.data[r])),
                            label[c],
                            Int32GetDatum(g.age_from[c]),
                            Int32GetDatum(g.age_to[c]),
                            Int32GetDatum(static_cast<int32>(c + 1)),
                            Int64GetDatum(static_cast<int64>(g.rows[c]))};
            bool nulls[6] = {false, false, false, false, false, false};
            tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, out, nulls);
        }
    } else {
        for (std::size_t c = 0; c < g.count; ++c) {
            Datum* names = static_cast<Datum*>(palloc(sizeof(Datum) * (g.gender_count[c] + 1)));
            for (std::size_t i = 0; i < g.gender_count[c]; ++i)
                names[i] = PointerGetDatum(cstring_to_text(g.genders[c][i]));
            ArrayType* covered =
                construct_array(names, static_cast<int>(g.gender_count[c]), TEXTOID, -1, false, TYPALIGN_INT);
            Datum out[6] = {Int32GetDatum(static_cast<int32>(c + 1)),
                            label[c],
                            PointerGetDatum(covered),
                            Int32GetDatum(g.age_from[c]),
                            Int32GetDatum(g.age_to[c]),
                            Int64GetDatum(static_cast<int64>(g.rows[c]))};
            bool nulls[6] = {false, false, false, false, false, false};
            tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, out, nulls);
        }
    }
    SPI_finish();
    return static_cast<Datum>(0);
}

} // namespace

GAZEPRIV_FUNCTION(generalize_demographics) {
    return demographics(fcinfo, Output::Rows);
}

GAZEPRIV_FUNCTION(generalize_demographics_ranges) {
    return demographics(fcinfo, Output::Mapping);
}
