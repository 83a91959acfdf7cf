// SQL: k_anonymity_classes(source, columns): the equivalence classes of a source over the given columns
// (rows with equal values, compared as text) and their sizes; k_anonymity() is their smallest size.
#include "pg/boundary/args.hpp"
#include "pg/boundary/guard.hpp"
#include "pg/boundary/sql_source.hpp"

extern "C" {
#include "postgres.h"
#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"
}

using namespace gazepriv;

// k_anonymity_classes(source text, columns text[]) -> (class_values text[], class_size bigint)
GAZEPRIV_FUNCTION(k_anonymity_classes) {
    pg::require_not_null(fcinfo, {"source", "columns"});
    const char* source = text_to_cstring(PG_GETARG_TEXT_PP(0));
    Datum* columns;
    bool* nulls;
    int n;
    deconstruct_array(PG_GETARG_ARRAYTYPE_P(1), TEXTOID, -1, false, TYPALIGN_INT, &columns, &nulls, &n);
    if (n == 0)
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("columns must name at least one column")));
    StringInfoData select;
    initStringInfo(&select);
    appendStringInfoString(&select, "ARRAY[");
    for (int i = 0; i < n; ++i) {
        if (nulls[i])
            ereport(ERROR,
                    (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("columns must not contain NULL")));
        appendStringInfo(&select, "%s(%s)::text", i == 0 ? "" : ", ",
                         quote_identifier(TextDatumGetCString(columns[i])));
    }
    appendStringInfoString(&select, "], count(*)");

    ReturnSetInfo* rsinfo = pg::start_source_srf(fcinfo);
    Portal portal = pg::open_source(select.data, source, "GROUP BY 1 ORDER BY 2, 1");
    bool any = false;
    pg::for_each_row(portal, [&](HeapTuple tuple, TupleDesc desc) {
        Datum out[2];
        bool isnull[2];
        for (int c = 0; c < 2; ++c)
            out[c] = SPI_getbinval(tuple, desc, c + 1, &isnull[c]);
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, out, isnull);
        any = true;
    });
    SPI_finish();
    if (!any)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("the source returned no rows")));
    return static_cast<Datum>(0);
}
