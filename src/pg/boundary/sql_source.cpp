#include <cctype>
#include <cmath>
#include <cstring>

#include "pg/boundary/sql_source.hpp"

extern "C" {
#include "catalog/namespace.h"
#include "catalog/pg_type_d.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
}

namespace gazepriv::pg {

namespace {

bool starts_with_keyword(const char* s, const char* keyword) {
    const std::size_t n = std::strlen(keyword);
    return pg_strncasecmp(s, keyword, n) == 0 &&
           !(std::isalnum(static_cast<unsigned char>(s[n])) || s[n] == '_');
}

} // namespace

const char* source_from_item(const char* source) {
    while (std::isspace(static_cast<unsigned char>(*source)))
        ++source;
    std::size_t n = std::strlen(source);
    while (n > 0 && (std::isspace(static_cast<unsigned char>(source[n - 1])) || source[n - 1] == ';'))
        --n;
    if (n == 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("source must name a table or view, or be a query")));
    const char* text = pnstrdup(source, n);
    if (text[0] == '(' || starts_with_keyword(text, "select") || starts_with_keyword(text, "with") ||
        starts_with_keyword(text, "values") || starts_with_keyword(text, "table"))
        return psprintf("(%s) AS gazepriv_source", text);
    const Oid relation = DatumGetObjectId(DirectFunctionCall1(regclassin, CStringGetDatum(text)));
    return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relation)),
                                      get_rel_name(relation));
}

ReturnSetInfo* start_source_srf(FunctionCallInfo fcinfo) {
    InitMaterializedSRF(fcinfo, 0);
    if (SPI_connect() != SPI_OK_CONNECT)
        elog(ERROR, "SPI_connect failed");
    return reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
}

Portal open_source(const char* select_list, const char* source, const char* rest) {
    const char* query = psprintf("SELECT %s FROM %s %s", select_list, source_from_item(source), rest);
    SPIPlanPtr plan = SPI_prepare_cursor(query, 0, nullptr, CURSOR_OPT_NO_SCROLL);
    if (plan == nullptr)
        elog(ERROR, "SPI_prepare_cursor failed for \"%s\": %s", query, SPI_result_code_string(SPI_result));
    return SPI_cursor_open(nullptr, plan, nullptr, nullptr, true);
}

Datum required_value(HeapTuple tuple, TupleDesc descriptor, int column, const char* what) {
    bool isnull;
    const Datum value = SPI_getbinval(tuple, descriptor, column, &isnull);
    if (isnull)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("the source has a row whose %s is NULL", what),
                        errhint("Filter such rows out of the source first.")));
    return value;
}

const char* text_value(Datum value, const char* previous) {
    text* t = DatumGetTextPP(value);
    const std::size_t n = VARSIZE_ANY_EXHDR(t);
    if (previous != nullptr && std::strlen(previous) == n && std::memcmp(previous, VARDATA_ANY(t), n) == 0)
        return previous;
    return text_to_cstring(t);
}

bool append_float8_array(Datum value, PgArray<double>& values) {
    ArrayType* array = DatumGetArrayTypeP(value);
    if (ARR_NDIM(array) > 1)
        return false;
    const std::size_t n = ARR_NDIM(array) == 0 ? 0 : static_cast<std::size_t>(ARR_DIMS(array)[0]);
    if (values.size + n > values.capacity)
        values.grow(values.size + n);
    if (array_contains_nulls(array)) {
        Datum* elements;
        bool* nulls;
        int count;
        deconstruct_array(array, FLOAT8OID, sizeof(double), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &elements,
                          &nulls, &count);
        for (int i = 0; i < count; ++i)
            values.data[values.size + i] = nulls[i] ? std::nan("") : DatumGetFloat8(elements[i]);
    } else {
        std::memcpy(values.data + values.size, ARR_DATA_PTR(array), n * sizeof(double));
    }
    values.size += n;
    if (reinterpret_cast<Pointer>(array) != DatumGetPointer(value))
        pfree(array); // a detoasted copy
    return true;
}

} // namespace gazepriv::pg
