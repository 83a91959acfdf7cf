// Kalεido in batch: kaleido(t_ms[], x[], y[], parameters) releases one stream, and kaleido_cost shows
// what a release costs. The live trigger is in kaleido_live.cpp; both read parameters through
// kaleido_args.hpp and run the same core (core/kaleido/kaleido.hpp).
#include <cmath>
#include <cstdint>

#include "core/common/errors.hpp"
#include "core/kaleido/kaleido.hpp"
#include "core/common/release_cost.hpp"
#include "pg/boundary/args.hpp"
#include "pg/boundary/backend_rng.hpp"
#include "pg/budget/budget.hpp"
#include "pg/budget/release_cost.hpp"
#include "pg/boundary/guard.hpp"
#include "pg/kaleido/kaleido_args.hpp"
#include "pg/boundary/memory.hpp"

extern "C" {
#include "postgres.h"
#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/geo_decls.h"
#include "utils/tuplestore.h"
}

using namespace gazepriv;

namespace {

// A float8[] argument copied into palloc'd memory; NULL elements become NaN (missing samples) when
// allowed, else they are an error naming the argument. Returns the length.
std::size_t read_float8_array(ArrayType* array, const char* name, bool nulls_are_missing, double** out) {
    if (ARR_ELEMTYPE(array) != FLOAT8OID)
        throw core::InternalError(std::string(name) + " is not a float8[]");
    if (ARR_NDIM(array) == 0) {
        *out = nullptr;
        return 0;
    }
    if (ARR_NDIM(array) != 1)
        throw core::InvalidArgument(std::string(name) + " must be a one-dimensional array");
    const std::size_t n = static_cast<std::size_t>(ARR_DIMS(array)[0]);
    auto* values = static_cast<double*>(pg::palloc_or_throw(n * sizeof(double) + 1));
    const bits8* bitmap = ARR_NULLBITMAP(array);
    const auto* data = reinterpret_cast<const double*>(ARR_DATA_PTR(array));
    std::size_t k = 0; // data holds only the non-NULL elements, in order
    for (std::size_t i = 0; i < n; ++i) {
        if (bitmap != nullptr && (bitmap[i / 8] & (1 << (i % 8))) == 0) {
            if (!nulls_are_missing)
                throw core::InvalidArgument(std::string(name) + " must not contain NULL (element " +
                                            std::to_string(i + 1) + ")");
            values[i] = NAN;
        } else {
            values[i] = data[k++];
        }
    }
    *out = values;
    return n;
}

struct BatchResult {
    std::size_t n;
    const double* t;
    double* x;
    double* y;
    core::KaleidoAction* action;
    double* spent;
    double* radius;
};

// All of the C++ work of a batch release; only palloc_or_throw memory outlives it.
BatchResult release_stream(const core::KaleidoParams& params, ArrayType* t_array, ArrayType* x_array,
                           ArrayType* y_array, const core::ClampBox* clamp) {
    const core::KaleidoPlan plan(params); // the whole cost is fixed here, before any noise
    double *t = nullptr, *x = nullptr, *y = nullptr;
    const std::size_t n = read_float8_array(t_array, "t_ms", false, &t);
    if (read_float8_array(x_array, "x", true, &x) != n || read_float8_array(y_array, "y", true, &y) != n)
        throw core::InvalidArgument("t_ms, x and y must have the same length");
    BatchResult r{n,
                  t,
                  static_cast<double*>(pg::palloc_or_throw(n * sizeof(double) + 1)),
                  static_cast<double*>(pg::palloc_or_throw(n * sizeof(double) + 1)),
                  static_cast<core::KaleidoAction*>(pg::palloc_or_throw(n + 1)),
                  static_cast<double*>(pg::palloc_or_throw(n * sizeof(double) + 1)),
                  static_cast<double*>(pg::palloc_or_throw(n * sizeof(double) + 1))};
    void* block = pg::palloc_or_throw(core::kaleido_stream_bytes(plan));
    core::kaleido_stream_init(plan, block);
    core::kaleido_run(plan, block, n, t, x, y, r.x, r.y, r.action, r.spent, r.radius, pg::backend_rng(),
                      core::CancelCheck(pg::interrupt_pending));
    if (clamp != nullptr)
        for (std::size_t i = 0; i < n; ++i)
            core::clamp_into(*clamp, r.x[i], r.y[i]);
    return r;
}

// The defaults a stream gives kaleido() (its timestamps are public under the w-event relation): a NULL t_skip
// from its median sampling interval (kaleido_stream_skip), and a NULL max_tests from that interval: the tests
// that fit a window with the derived t_skip, or ceil(w dt / t_skip) with a given one; 0 (the 60 Hz rule) when
// w is NULL or the stream has no interval.
struct StreamDefaults {
    double t_skip; // NaN when t_skip is given
    std::int64_t max_tests;
};
StreamDefaults stream_defaults(FunctionCallInfo fcinfo, ArrayType* t_array) {
    StreamDefaults d{NAN, 0};
    const bool derive_t_skip = PG_ARGISNULL(7), derive_max_tests = PG_ARGISNULL(9) && !PG_ARGISNULL(4);
    if (!derive_t_skip && !derive_max_tests)
        return d;
    double* t = nullptr;
    const std::size_t n = read_float8_array(t_array, "t_ms", false, &t);
    if (derive_t_skip) {
        const core::KaleidoStreamSkip skip = core::kaleido_stream_skip(t, n);
        d.t_skip = skip.t_skip;
        if (derive_max_tests && skip.samples > 0)
            d.max_tests = core::kaleido_tests_per_window(PG_GETARG_INT32(4), skip.samples);
    } else if (derive_max_tests) {
        d.max_tests = core::kaleido_stream_max_tests(t, n, PG_GETARG_INT32(4), PG_GETARG_FLOAT8(7));
    }
    return d;
}

} // namespace

GAZEPRIV_FUNCTION(kaleido) {
    pg::require_not_null(fcinfo, {"t_ms", "x", "y"});
    ArrayType* t_array = PG_GETARG_ARRAYTYPE_P(0);
    ArrayType* x_array = PG_GETARG_ARRAYTYPE_P(1);
    ArrayType* y_array = PG_GETARG_ARRAYTYPE_P(2);
    const StreamDefaults stream = stream_defaults(fcinfo, t_array);
    // With a dataset, the release's cost (its epsilon fixed by the parameters alone) is charged to the
    // caller's budget before any noise is drawn: a w-event guarantee, epsilon per window of w samples.
    if (!PG_ARGISNULL(11)) {
        const char* dataset = text_to_cstring(PG_GETARG_TEXT_PP(11));
        const pg::Charge charge = pg::charge_from_cost(
            dataset,
            core::kaleido_cost(pg::kaleido_params_from_args(fcinfo, 3, stream.max_tests, stream.t_skip)));
        pg::charge_own_release(charge);
    }
    InitMaterializedSRF(fcinfo, 0);
    core::ClampBox box{};
    const bool clamped = !PG_ARGISNULL(10);
    if (clamped) {
        const BOX* b = PG_GETARG_BOX_P(10);
        box = {b->low.x, b->low.y, b->high.x, b->high.y};
    }
    const core::KaleidoParams params =
        pg::kaleido_params_from_args(fcinfo, 3, stream.max_tests, stream.t_skip);
    const BatchResult r = release_stream(params, t_array, x_array, y_array, clamped ? &box : nullptr);

    auto* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    Datum values[7];
    bool nulls[7] = {false, false, false, false, false, false, false};
    for (std::size_t i = 0; i < r.n; ++i) {
        CHECK_FOR_INTERRUPTS();
        values[0] = Float8GetDatum(r.t[i]);
        nulls[1] = nulls[2] = std::isnan(r.x[i]);
        values[1] = Float8GetDatum(r.x[i]);
        values[2] = Float8GetDatum(r.y[i]);
        values[3] = BoolGetDatum(r.action[i] == core::KaleidoAction::Published);
        values[4] = PointerGetDatum(cstring_to_text(core::to_string(r.action[i])));
        values[5] = Float8GetDatum(r.spent[i]);
        nulls[6] = std::isnan(r.radius[i]); // before the first release
        values[6] = Float8GetDatum(r.radius[i]);
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    }
    return static_cast<Datum>(0);
}

GAZEPRIV_FUNCTION(kaleido_cost) {
    const pg::Charge charge =
        pg::charge_from_cost(nullptr, core::kaleido_cost(pg::kaleido_params_from_args(fcinfo, 0)));
    return pg::release_cost_datum(fcinfo, charge);
}
