// SQL functions of plausible-deniability synthesis over feature windows: pd_synthesize (a source relation
// with the caller's rights; the analyst's pd_release runs it as the dataset's owner), the cost preview
// pd_release_cost, and the pure helpers pd_band and pd_randomized_privacy.
//
// Order of work in a release: parameters are checked (22023) before any row is read; the rows are read;
// the ReleaseCost is computed once from the parameters and the size of the largest task, and charged to
// the dataset's budget when a dataset is named, before any candidate is generated; then the synthesis
// runs and the rows are returned.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "core/common/errors.hpp"
#include "core/pd/pd_cost.hpp"
#include "core/pd/pd_synthesis.hpp"
#include "core/pd/pd_privacy_check.hpp"
#include "core/common/validate.hpp"
#include "pg/boundary/args.hpp"
#include "pg/boundary/progress.hpp"
#include "pg/boundary/arrays.hpp"
#include "pg/boundary/backend_rng.hpp"
#include "pg/budget/budget.hpp"
#include "pg/budget/release_cost.hpp"
#include "pg/boundary/guard.hpp"
#include "pg/boundary/memory.hpp"
#include "pg/pd/pd_source.hpp"

extern "C" {
#include "postgres.h"
#include "access/htup_details.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"
}

using namespace gazepriv;
namespace pd = gazepriv::core::pd;

namespace {

// The SQL parameters as plain data (safe to hold across PostgreSQL calls).
struct PdArgs {
    int k;
    double gamma;
    int bins;
    const char* model;
    bool has_omega;
    int omega;
    const char* resample;
    const char* test;
    bool has_epsilon0;
    double epsilon0;
    bool has_t;
    int t;
    bool has_target_delta;
    double target_delta;
    bool has_model_epsilon;
    double model_epsilon;
    double alpha;
    double split;
    const double* bounds; // 2 x features values, or nullptr
    std::size_t bounds_count;
    bool has_max_attempts;
    int max_attempts;
    bool include_failed;
    const char* dataset; // nullptr: nothing is charged
    bool has_records;    // the public bound of a task's records
    std::int64_t records;
    const unsigned char* secret; // nullptr: the backend's generator
    std::size_t secret_size;
};

// bounds: a two-dimensional float8 array with one [lower, upper] row per feature.
void read_bounds(FunctionCallInfo fcinfo, int i, PdArgs& a) {
    a.bounds = nullptr;
    a.bounds_count = 0;
    if (PG_ARGISNULL(i))
        return;
    ArrayType* array = PG_GETARG_ARRAYTYPE_P(i);
    if (ARR_NDIM(array) != 2 || ARR_DIMS(array)[1] != 2 || ARR_HASNULL(array))
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("bounds must be a two-dimensional array with one [lower, upper] row per feature "
                        "and no NULLs, e.g. ARRAY[[0, 1], [0, 1]]")));
    a.bounds = reinterpret_cast<const double*>(ARR_DATA_PTR(array));
    a.bounds_count = static_cast<std::size_t>(ARR_DIMS(array)[0]) * 2;
}

// Reads k and gamma at `k_at`, the rest (bins ... max_attempts[, include_failed, dataset, records, the four
// column names, secret]) from `bins_at`.
PdArgs read_args(FunctionCallInfo fcinfo, int k_at, int bins_at, bool release) {
    PdArgs a{};
    pg::require_not_null(fcinfo, k_at, "k");
    pg::require_not_null(fcinfo, k_at + 1, "gamma");
    a.k = PG_GETARG_INT32(k_at);
    a.gamma = PG_GETARG_FLOAT8(k_at + 1);
    const int b = bins_at;
    pg::require_not_null(fcinfo, b, "bins");
    pg::require_not_null(fcinfo, b + 1, "model");
    pg::require_not_null(fcinfo, b + 3, "resample");
    pg::require_not_null(fcinfo, b + 4, "test");
    pg::require_not_null(fcinfo, b + 9, "alpha");
    pg::require_not_null(fcinfo, b + 10, "split");
    a.bins = PG_GETARG_INT32(b);
    a.model = pg::text_arg(fcinfo, b + 1);
    a.has_omega = !PG_ARGISNULL(b + 2);
    a.omega = a.has_omega ? PG_GETARG_INT32(b + 2) : 0;
    a.resample = pg::text_arg(fcinfo, b + 3);
    a.test = pg::text_arg(fcinfo, b + 4);
    a.has_epsilon0 = !PG_ARGISNULL(b + 5);
    a.epsilon0 = a.has_epsilon0 ? PG_GETARG_FLOAT8(b + 5) : 0;
    a.has_t = !PG_ARGISNULL(b + 6);
    a.t = a.has_t ? PG_GETARG_INT32(b + 6) : 0;
    a.has_target_delta = !PG_ARGISNULL(b + 7);
    a.target_delta = a.has_target_delta ? PG_GETARG_FLOAT8(b + 7) : 0;
    a.has_model_epsilon = !PG_ARGISNULL(b + 8);
    a.model_epsilon = a.has_model_epsilon ? PG_GETARG_FLOAT8(b + 8) : 0;
    a.alpha = PG_GETARG_FLOAT8(b + 9);
    a.split = PG_GETARG_FLOAT8(b + 10);
    read_bounds(fcinfo, b + 11, a);
    a.has_max_attempts = !PG_ARGISNULL(b + 12);
    a.max_attempts = a.has_max_attempts ? PG_GETARG_INT32(b + 12) : 0;
    if (release) {
        pg::require_not_null(fcinfo, b + 13, "include_failed");
        a.include_failed = PG_GETARG_BOOL(b + 13);
        a.dataset = PG_ARGISNULL(b + 14) ? nullptr : pg::text_arg(fcinfo, b + 14);
        a.has_records = !PG_ARGISNULL(b + 15);
        a.records = a.has_records ? PG_GETARG_INT32(b + 15) : 0;
        if (!PG_ARGISNULL(b + 20)) {
            const bytea* secret = PG_GETARG_BYTEA_PP(b + 20);
            a.secret = reinterpret_cast<const unsigned char*>(VARDATA_ANY(secret));
            a.secret_size = VARSIZE_ANY_EXHDR(secret);
        }
    }
    return a;
}

// C++ helpers: they build C++ objects, may throw, and return plain values.

pd::SynthesisParams to_params(const PdArgs& a) {
    pd::SynthesisParams p;
    p.k = a.k;
    p.gamma = a.gamma;
    p.bins = a.bins;
    p.model = pd::parse_model_kind(a.model);
    if (a.has_omega)
        p.omega = a.omega;
    p.resample = pd::parse_resample(a.resample);
    p.test = pd::parse_test_kind(a.test);
    if (a.has_epsilon0)
        p.epsilon0 = a.epsilon0;
    if (a.has_t)
        p.t = a.t;
    if (a.has_target_delta)
        p.target_delta = a.target_delta;
    if (a.has_model_epsilon)
        p.model_epsilon = a.model_epsilon;
    p.alpha = a.alpha;
    p.split = a.split;
    if (a.bounds != nullptr)
        p.bounds.assign(a.bounds, a.bounds + a.bounds_count);
    if (a.has_max_attempts)
        p.max_attempts = a.max_attempts;
    if (a.has_records)
        p.records = a.records;
    p.include_failed = a.include_failed;
    return p;
}

void check_params(const PdArgs& a) {
    pd::validate(to_params(a));
}

// The input with dense participant and task ids.
struct Prepared {
    std::int32_t* participant;
    std::int32_t* task;
    std::size_t largest_task;
};

Prepared prepare(const pg::FeatureSource& src) {
    Prepared in{};
    in.participant = pg::dense_ids(src.participant, src.rows);
    in.task = pg::dense_ids(src.task, src.rows);
    in.largest_task = pd::largest_task({src.rows, src.features, src.values, in.participant, in.task});
    return in;
}

// The release's cost, as a charge (palloc'd strings). The one place it is computed.
pg::Charge cost_of(const PdArgs& a, std::size_t features, std::size_t largest_task, const char* dataset) {
    return pg::charge_from_cost(dataset, pd::synthesis_cost(to_params(a), features, largest_task));
}

struct SynthesisResult {
    std::size_t rows;
    std::size_t* source_row;
    std::int32_t* attempts;
    double* features;
};

SynthesisResult run(const PdArgs& a, const pg::FeatureSource& src, const Prepared& in) {
    pg::progress_begin("pd_synthesize");
    const pd::SynthesisParams params = to_params(a);
    SynthesisResult r{};
    r.source_row = static_cast<std::size_t*>(pg::palloc_or_throw(src.rows * sizeof(std::size_t)));
    r.attempts = static_cast<std::int32_t*>(pg::palloc_or_throw(src.rows * sizeof(std::int32_t)));
    r.features = static_cast<double*>(pg::palloc_or_throw(src.rows * src.features * sizeof(double)));
    pd::SynthesisOutput out{r.source_row, r.attempts, r.features, 0};
    std::optional<core::Rng> keyed;
    pd::synthesize({src.rows, src.features, src.values, in.participant, in.task}, params,
                   pg::release_rng(keyed, a.secret, a.secret_size), core::CancelCheck(pg::interrupt_pending),
                   out, core::Progress(pg::progress_report));
    pg::progress_end();
    r.rows = out.count;
    return r;
}

// Plain C: returns the rows (participant, task, window, features, attempts) as a materialized set.
void emit(FunctionCallInfo fcinfo, const pg::FeatureSource& src, const SynthesisResult& r) {
    InitMaterializedSRF(fcinfo, 0);
    ReturnSetInfo* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    const MemoryContext row_context =
        AllocSetContextCreate(CurrentMemoryContext, "gazepriv pd output", ALLOCSET_SMALL_SIZES);
    // Rows come grouped by task and participant, whose strings the reader shares between consecutive rows:
    // one text value per run.
    const char* participant = nullptr;
    const char* task = nullptr;
    Datum participant_text = 0, task_text = 0;
    for (std::size_t i = 0; i < r.rows; ++i) {
        CHECK_FOR_INTERRUPTS();
        const std::size_t s = r.source_row[i];
        if (src.participant[s] != participant) {
            participant = src.participant[s];
            participant_text = CStringGetTextDatum(participant);
        }
        if (src.task[s] != task) {
            task = src.task[s];
            task_text = CStringGetTextDatum(task);
        }
        const MemoryContext previous = MemoryContextSwitchTo(row_context);
        const double* values = r.features + i * src.features;
        Datum datums[5];
        bool nulls[5] = {false, false, false, false, false};
        datums[0] = participant_text;
        datums[1] = task_text;
        datums[2] = Int32GetDatum(src.window[s]);
        nulls[2] = src.window_null[s];
        if (std::isnan(values[0])) { // a slot whose candidates never passed (include_failed)
            nulls[3] = true;
            datums[3] = 0;
        } else {
            ArrayType* array = pg::new_float8_array(src.features);
            std::memcpy(pg::float8_data(array), values, src.features * sizeof(double));
            datums[3] = PointerGetDatum(array);
        }
        datums[4] = Int32GetDatum(r.attempts[i]);
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, datums, nulls);
        MemoryContextSwitchTo(previous);
        MemoryContextReset(row_context);
    }
}

Datum synthesize_rows(FunctionCallInfo fcinfo, Oid relation, const char* participant_column,
                      const char* task_column, const char* window_column, const char* features_column,
                      const PdArgs& a) {
    check_params(a); // 22023 before any row is read
    const pg::FeatureSource src = pg::read_feature_source(
        relation, participant_column, task_column, window_column, features_column, a.secret != nullptr);
    if (src.rows == 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("the source has no usable rows (features not NULL, finite, non-empty)")));
    const Prepared in = prepare(src);
    if (a.dataset != nullptr) { // charged before any candidate is generated
        const pg::Charge charge = cost_of(a, src.features, in.largest_task, a.dataset);
        pg::charge_own_release(charge);
    }
    const SynthesisResult r = run(a, src, in);
    emit(fcinfo, src, r);
    return static_cast<Datum>(0);
}

// One row of a composite result from the declared RETURNS TABLE.
Datum composite(FunctionCallInfo fcinfo, Datum* values, bool* nulls) {
    TupleDesc desc;
    if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
        ereport(ERROR,
                (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("a composite result type is required")));
    desc = BlessTupleDesc(desc);
    return HeapTupleGetDatum(heap_form_tuple(desc, values, nulls));
}

pd::InvocationPrivacy invocation_privacy(int k, double gamma, double epsilon0, int t) {
    return pd::randomized_test_privacy(k, gamma, epsilon0, t);
}

std::int64_t band_of(double probability, double gamma) {
    if (!(std::isfinite(probability) && probability > 0))
        throw core::InvalidArgument(
            "probability must be a finite number above 0 (a probability or a density), got " +
            core::format_number(probability));
    if (!(std::isfinite(gamma) && gamma > 1))
        throw core::InvalidArgument("gamma must be a finite number above 1 for bands (gamma = 1 means equal "
                                    "probabilities and has no bands)");
    const double band = pd::band_index(std::log(probability), std::log(gamma));
    if (!(std::fabs(band) < 0x1.0p62))
        throw core::InvalidArgument("the band index does not fit a bigint for this gamma");
    return static_cast<std::int64_t>(band);
}

} // namespace

// pd_synthesize(source regclass, k, gamma, bins, model, omega, resample, test, epsilon0, t, target_delta,
//               model_epsilon, alpha, split, bounds, max_attempts, include_failed, dataset, records,
//               participant_column, task_column, window_column, features_column, secret)
GAZEPRIV_FUNCTION(pd_synthesize) {
    for (int i : {0, 19, 20, 22})
        pg::require_not_null(fcinfo, i, i == 0 ? "source" : "the participant, task and features columns");
    const Oid relation = PG_GETARG_OID(0);
    const char* participant = NameStr(*PG_GETARG_NAME(19));
    const char* task = NameStr(*PG_GETARG_NAME(20));
    const char* window = PG_ARGISNULL(21) ? nullptr : NameStr(*PG_GETARG_NAME(21));
    const char* features = NameStr(*PG_GETARG_NAME(22));
    const PdArgs a = read_args(fcinfo, 1, 3, true);
    return synthesize_rows(fcinfo, relation, participant, task, window, features, a);
}

// pd_release_cost(k, gamma, features, records, bins, model, omega, resample, test, epsilon0, t, target_delta,
//                 model_epsilon, alpha, split, bounds, max_attempts)
GAZEPRIV_FUNCTION(pd_release_cost) {
    pg::require_not_null(fcinfo, 2, "features");
    pg::require_not_null(fcinfo, 3, "records");
    const int features = PG_GETARG_INT32(2);
    const std::int64_t records = PG_GETARG_INT64(3);
    const PdArgs a = read_args(fcinfo, 0, 4, false);
    if (features < 1 || records < 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("features must be at least 1 and records at least 0")));
    const pg::Charge c =
        cost_of(a, static_cast<std::size_t>(features), static_cast<std::size_t>(records), "");
    // The shared cost columns, then non_private: the name this function used before, kept for its users.
    Datum values[pg::kReleaseCostColumns + 1];
    bool nulls[pg::kReleaseCostColumns + 1] = {};
    pg::release_cost_columns(c, values, nulls);
    values[pg::kReleaseCostColumns] = BoolGetDatum(c.non_private);
    return composite(fcinfo, values, nulls);
}

// pd_randomized_privacy(k, gamma, epsilon0, t) -> (epsilon, delta)
GAZEPRIV_FUNCTION(pd_randomized_privacy) {
    const pd::InvocationPrivacy p =
        invocation_privacy(PG_GETARG_INT32(0), PG_GETARG_FLOAT8(1), PG_GETARG_FLOAT8(2), PG_GETARG_INT32(3));
    Datum values[2] = {Float8GetDatum(p.epsilon), Float8GetDatum(p.delta)};
    bool nulls[2] = {false, false};
    return composite(fcinfo, values, nulls);
}

// pd_band(probability, gamma) -> floor(-ln p / ln gamma)
GAZEPRIV_FUNCTION(pd_band) {
    PG_RETURN_INT64(band_of(PG_GETARG_FLOAT8(0), PG_GETARG_FLOAT8(1)));
}
