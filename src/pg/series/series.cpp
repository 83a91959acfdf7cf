// SQL functions on one signal (float8[]): lpa, fpa, cfpa, dcfpa, nmse, nmse_utility, choose_k and
// public_k. None of them charges a privacy budget: the caller accounts for what it releases (see the
// comments in extension/install/40_series.sql).
#include <cstdint>
#include <vector>

#include "core/common/errors.hpp"
#include "core/series/series.hpp"
#include "pg/boundary/args.hpp"
#include "pg/boundary/arrays.hpp"
#include "pg/boundary/backend_rng.hpp"
#include "pg/boundary/guard.hpp"
#include "pg/boundary/memory.hpp"

extern "C" {
#include "postgres.h"
#include "funcapi.h"
#include "catalog/pg_type_d.h"
#include "utils/array.h"
#include "utils/tuplestore.h"
}

using namespace gazepriv;

namespace {

core::SeriesSpan span_of(pg::Float8Span s) {
    return {s.data, s.size};
}

// An int4 argument that must be >= 1 (k, chunk).
std::size_t positive_int(FunctionCallInfo fcinfo, int i, const char* name) {
    const int32 v = PG_GETARG_INT32(i);
    if (v < 1)
        throw core::InvalidArgument(std::string(name) + " must be at least 1, got " + std::to_string(v));
    return static_cast<std::size_t>(v);
}

} // namespace

GAZEPRIV_FUNCTION(lpa) {
    ArrayType* series = PG_GETARG_ARRAYTYPE_P(0);
    const double epsilon = PG_GETARG_FLOAT8(1), l1 = PG_GETARG_FLOAT8(2);
    const pg::Float8Span in = pg::float8_elements(series, "series");
    ArrayType* result = pg::new_float8_array(in.size);
    core::lpa(span_of(in), epsilon, l1, pg::float8_data(result), pg::backend_rng(),
              core::CancelCheck(pg::interrupt_pending));
    PG_RETURN_ARRAYTYPE_P(result);
}

GAZEPRIV_FUNCTION(fpa) {
    ArrayType* series = PG_GETARG_ARRAYTYPE_P(0);
    const std::size_t k = positive_int(fcinfo, 1, "k");
    const double epsilon = PG_GETARG_FLOAT8(2), l2 = PG_GETARG_FLOAT8(3);
    const pg::Float8Span in = pg::float8_elements(series, "series");
    ArrayType* result = pg::new_float8_array(in.size);
    core::fpa(span_of(in), k, epsilon, l2, pg::float8_data(result), pg::backend_rng());
    PG_RETURN_ARRAYTYPE_P(result);
}

namespace {

Datum chunked(FunctionCallInfo fcinfo, bool differences) {
    ArrayType* series = PG_GETARG_ARRAYTYPE_P(0);
    const std::size_t k = positive_int(fcinfo, 1, "k");
    const int32 chunk = PG_GETARG_INT32(2);
    if (chunk < 2)
        throw core::InvalidArgument("chunk must be at least 2, got " + std::to_string(chunk));
    const double epsilon = PG_GETARG_FLOAT8(3);
    ArrayType* sensitivities = PG_GETARG_ARRAYTYPE_P(4);
    const pg::Float8Span in = pg::float8_elements(series, "series");
    const pg::Float8Span sens = pg::float8_elements(sensitivities, "chunk_l2_sensitivities");
    ArrayType* result = pg::new_float8_array(in.size);
    const auto release = differences ? core::dcfpa : core::cfpa;
    release(span_of(in), k, static_cast<std::size_t>(chunk), epsilon, span_of(sens), pg::float8_data(result),
            pg::backend_rng(), core::CancelCheck(pg::interrupt_pending));
    PG_RETURN_ARRAYTYPE_P(result);
}

} // namespace

GAZEPRIV_FUNCTION(cfpa) {
    return chunked(fcinfo, false);
}

GAZEPRIV_FUNCTION(dcfpa) {
    return chunked(fcinfo, true);
}

GAZEPRIV_FUNCTION(nmse) {
    ArrayType* a = PG_GETARG_ARRAYTYPE_P(0);
    ArrayType* b = PG_GETARG_ARRAYTYPE_P(1);
    PG_RETURN_FLOAT8(
        core::nmse(span_of(pg::float8_elements(a, "original")), span_of(pg::float8_elements(b, "released"))));
}

GAZEPRIV_FUNCTION(nmse_utility) {
    ArrayType* a = PG_GETARG_ARRAYTYPE_P(0);
    ArrayType* b = PG_GETARG_ARRAYTYPE_P(1);
    PG_RETURN_FLOAT8(core::nmse_utility(span_of(pg::float8_elements(a, "original")),
                                        span_of(pg::float8_elements(b, "released"))));
}

GAZEPRIV_FUNCTION(public_k) {
    const char* method_name = pg::text_arg(fcinfo, 0);
    const double epsilon = PG_GETARG_FLOAT8(1);
    const std::size_t length = positive_int(fcinfo, 2, "length");
    const int32 chunk = PG_GETARG_INT32(3);
    const core::SeriesMethod method = core::parse_series_method(method_name);
    if (method == core::SeriesMethod::Lpa)
        throw core::InvalidArgument("method must be fpa, cfpa or dcfpa: lpa has no k");
    if (core::is_chunked(method) && chunk < 2)
        throw core::InvalidArgument("chunk must be at least 2, got " + std::to_string(chunk));
    const std::size_t limit =
        core::fpa_max_k(core::is_chunked(method) ? static_cast<std::size_t>(chunk) : length);
    PG_RETURN_INT32(static_cast<int32>(core::public_k(epsilon, limit)));
}

namespace {

struct SweepResult { // palloc'd, plain data
    std::size_t count;
    int32* k;
    double* mean_abs_nmse;
    std::size_t best;
};

void sweep(pg::Float8Span series, double epsilon, pg::Float8Span sensitivities, const char* method_name,
           int32 chunk, const int32* candidates, std::size_t candidate_count, int32 runs, SweepResult* out) {
    const core::SeriesMethod method = core::parse_series_method(method_name);
    if (core::is_chunked(method) && chunk < 2)
        throw core::InvalidArgument("chunk must be at least 2, got " + std::to_string(chunk));
    if (runs < 1)
        throw core::InvalidArgument("runs must be between 1 and 10000, got " + std::to_string(runs));
    std::vector<std::size_t> ks;
    for (std::size_t i = 0; i < candidate_count; ++i) {
        if (candidates[i] < 1)
            throw core::InvalidArgument("candidates must be at least 1, got " +
                                        std::to_string(candidates[i]));
        ks.push_back(static_cast<std::size_t>(candidates[i]));
    }
    const auto scores =
        core::nmse_k_sweep({series.data, series.size}, method, static_cast<std::size_t>(chunk), epsilon,
                           {sensitivities.data, sensitivities.size}, ks, static_cast<std::size_t>(runs),
                           pg::backend_rng(), core::CancelCheck(pg::interrupt_pending));
    out->count = scores.size();
    out->k = static_cast<int32*>(pg::palloc_or_throw(sizeof(int32) * scores.size()));
    out->mean_abs_nmse = static_cast<double*>(pg::palloc_or_throw(sizeof(double) * scores.size()));
    out->best = 0;
    for (std::size_t i = 0; i < scores.size(); ++i) {
        out->k[i] = static_cast<int32>(scores[i].k);
        out->mean_abs_nmse[i] = scores[i].mean_abs_nmse;
        if (scores[i].mean_abs_nmse < scores[out->best].mean_abs_nmse)
            out->best = i;
    }
}

} // namespace

GAZEPRIV_FUNCTION(choose_k) {
    pg::require_not_null(fcinfo,
                         {"series", "epsilon", "l2_sensitivities", "method", "chunk", nullptr, "runs"});
    ArrayType* series = PG_GETARG_ARRAYTYPE_P(0);
    const double epsilon = PG_GETARG_FLOAT8(1);
    ArrayType* sensitivities = PG_GETARG_ARRAYTYPE_P(2);
    const char* method = pg::text_arg(fcinfo, 3);
    const int32 chunk = PG_GETARG_INT32(4);
    const int32* candidates = nullptr;
    std::size_t candidate_count = 0;
    if (!PG_ARGISNULL(5)) {
        ArrayType* c = PG_GETARG_ARRAYTYPE_P(5);
        if (ARR_NDIM(c) > 1 || ARR_HASNULL(c) || ARR_ELEMTYPE(c) != INT4OID)
            throw core::InvalidArgument("candidates must be a one-dimensional int[] without NULLs");
        candidate_count = ARR_NDIM(c) == 0 ? 0 : static_cast<std::size_t>(ARR_DIMS(c)[0]);
        candidates = reinterpret_cast<const int32*>(ARR_DATA_PTR(c));
        if (candidate_count == 0)
            throw core::InvalidArgument("candidates must not be empty (NULL for the default sweep)");
    }
    const int32 runs = PG_GETARG_INT32(6);
    const pg::Float8Span in = pg::float8_elements(series, "series");
    const pg::Float8Span sens = pg::float8_elements(sensitivities, "l2_sensitivities");
    SweepResult result;
    sweep(in, epsilon, sens, method, chunk, candidates, candidate_count, runs, &result);

    InitMaterializedSRF(fcinfo, 0);
    auto* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    for (std::size_t i = 0; i < result.count; ++i) {
        const double nmse = result.mean_abs_nmse[i];
        Datum values[4] = {Int32GetDatum(result.k[i]), Float8GetDatum(nmse), Float8GetDatum(1 / nmse),
                           BoolGetDatum(i == result.best)};
        bool nulls[4] = {false, false, false, false};
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    }
    return static_cast<Datum>(0);
}
