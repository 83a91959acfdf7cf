// pd_synthesize_fixations: event-synth-PD for fixations (core/pd/pd_fixations.hpp) over a relation of
// fixation parameters (participant, task, fixation, mu_x, mu_y, sigma_x, sigma_y, samples).
#include <cstdint>
#include <cstring>

#include "core/pd/pd_fixations.hpp"
#include "pg/boundary/args.hpp"
#include "pg/boundary/arrays.hpp"
#include "pg/boundary/backend_rng.hpp"
#include "pg/budget/budget.hpp"
#include "pg/boundary/guard.hpp"
#include "pg/boundary/memory.hpp"
#include "pg/pd/pd_source.hpp"

extern "C" {
#include "postgres.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"
}

using namespace gazepriv;
namespace pd = gazepriv::core::pd;

namespace {

constexpr std::size_t kMaxSamples = std::size_t{1} << 27; // 2 GiB of output coordinates

struct FixationResult {
    std::size_t rows;
    std::size_t* source_row;
    std::int32_t* attempts;
    bool* passed;
    std::size_t* offset;
    double* x;
    double* y;
};

pd::FixationParams params_of(int k, double gamma, int max_attempts, bool include_failed) {
    pd::FixationParams p;
    p.k = k;
    p.gamma = gamma;
    p.max_attempts = max_attempts;
    p.include_failed = include_failed;
    return p;
}

void check_params(int k, double gamma, int max_attempts) {
    pd::validate(params_of(k, gamma, max_attempts, false));
}

pg::Charge cost_of(int k, double gamma, int max_attempts, const char* dataset) {
    return pg::charge_from_cost(dataset, pd::fixations_cost(params_of(k, gamma, max_attempts, false)));
}

FixationResult run(const pg::FixationSource& src, int k, double gamma, int max_attempts,
                   bool include_failed) {
    const std::int32_t* participant = pg::dense_ids(src.participant, src.rows);
    const std::int32_t* task = pg::dense_ids(src.task, src.rows);
    const pd::FixationRows rows{src.rows, participant, task,        src.mu_x,
                                src.mu_y, src.sigma_x, src.sigma_y, src.samples};
    const std::size_t total = pd::total_samples(rows, kMaxSamples);
    FixationResult r{};
    r.source_row = static_cast<std::size_t*>(pg::palloc_or_throw(src.rows * sizeof(std::size_t)));
    r.attempts = static_cast<std::int32_t*>(pg::palloc_or_throw(src.rows * sizeof(std::int32_t)));
    r.passed = static_cast<bool*>(pg::palloc_or_throw(src.rows * sizeof(bool)));
    r.offset = static_cast<std::size_t*>(pg::palloc_or_throw(src.rows * sizeof(std::size_t)));
    r.x = static_cast<double*>(pg::palloc_or_throw(total * sizeof(double)));
    r.y = static_cast<double*>(pg::palloc_or_throw(total * sizeof(double)));
    pd::FixationOutput out{r.source_row, r.attempts, r.passed, r.offset, r.x, r.y, 0};
    pd::synthesize_fixations(rows, params_of(k, gamma, max_attempts, include_failed), pg::backend_rng(),
                             core::CancelCheck(pg::interrupt_pending), out);
    r.rows = out.count;
    return r;
}

Datum float8_array(const double* values, std::size_t n) {
    ArrayType* array = pg::new_float8_array(n);
    std::memcpy(pg::float8_data(array), values, n * sizeof(double));
    return PointerGetDatum(array);
}

} // namespace

// pd_synthesize_fixations(source regclass, k, gamma, max_attempts, include_failed, dataset)
//   -> (participant, task, fixation, x float8[], y float8[], attempts)
GAZEPRIV_FUNCTION(pd_synthesize_fixations) {
    pg::require_not_null(fcinfo, {"source", "k", "gamma", "max_attempts", "include_failed"});
    const Oid relation = PG_GETARG_OID(0);
    const int k = PG_GETARG_INT32(1);
    const double gamma = PG_GETARG_FLOAT8(2);
    const int max_attempts = PG_GETARG_INT32(3);
    const bool include_failed = PG_GETARG_BOOL(4);
    const char* dataset = PG_ARGISNULL(5) ? nullptr : pg::text_arg(fcinfo, 5);
    check_params(k, gamma, max_attempts); // 22023 before any row is read
    const pg::FixationSource src = pg::read_fixation_source(relation);
    if (src.rows == 0)
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("the source has no usable fixations (finite parameters, sigmas above 0, at least "
                        "one sample)")));
    if (dataset != nullptr) {
        const pg::Charge charge = cost_of(k, gamma, max_attempts, dataset);
        pg::charge_own_release(charge);
    }
    const FixationResult r = run(src, k, gamma, max_attempts, include_failed);

    InitMaterializedSRF(fcinfo, 0);
    ReturnSetInfo* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    const MemoryContext row_context =
        AllocSetContextCreate(CurrentMemoryContext, "gazepriv pd fixations", ALLOCSET_SMALL_SIZES);
    for (std::size_t i = 0; i < r.rows; ++i) {
        CHECK_FOR_INTERRUPTS();
        const MemoryContext previous = MemoryContextSwitchTo(row_context);
        const std::size_t s = r.source_row[i];
        const std::size_t t = static_cast<std::size_t>(src.samples[s]);
        Datum values[6];
        bool nulls[6] = {false, false, src.fixation_null[s], !r.passed[i], !r.passed[i], false};
        values[0] = CStringGetTextDatum(src.participant[s]);
        values[1] = CStringGetTextDatum(src.task[s]);
        values[2] = Int32GetDatum(src.fixation[s]);
        values[3] = r.passed[i] ? float8_array(r.x + r.offset[i], t) : 0;
        values[4] = r.passed[i] ? float8_array(r.y + r.offset[i], t) : 0;
        values[5] = Int32GetDatum(r.attempts[i]);
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
        MemoryContextSwitchTo(previous);
        MemoryContextReset(row_context);
    }
    return static_cast<Datum>(0);
}
