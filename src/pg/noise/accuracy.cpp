// SQL wrappers of the accuracy formulas (IMMUTABLE: pure math on public parameters, no data, no noise).
#include "core/noise/accuracy.hpp"
#include "pg/boundary/args.hpp"
#include "pg/boundary/guard.hpp"

extern "C" {
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"
}

using namespace gazepriv;

// noise_accuracy(mechanism, scale, confidence) -> (noise_sd, half_width).
GAZEPRIV_FUNCTION(noise_accuracy) {
    const core::NoiseKind kind = core::parse_noise_kind(pg::text_arg(fcinfo, 0));
    const core::Accuracy a = core::noise_accuracy(kind, PG_GETARG_FLOAT8(1), PG_GETARG_FLOAT8(2));
    InitMaterializedSRF(fcinfo, 0);
    auto* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    Datum values[2] = {Float8GetDatum(a.noise_sd), Float8GetDatum(a.half_width)};
    bool nulls[2] = {false, false};
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    return static_cast<Datum>(0);
}

// epsilon_for_accuracy(mechanism, sensitivity, half_width, confidence, delta).
GAZEPRIV_FUNCTION(epsilon_for_accuracy) {
    pg::require_not_null(fcinfo, {"mechanism", "sensitivity", "half_width", "confidence", nullptr});
    const core::NoiseKind kind = core::parse_noise_kind(pg::text_arg(fcinfo, 0));
    if (kind == core::NoiseKind::Gaussian)
        pg::require_not_null(fcinfo, 4, "delta");
    const double delta = PG_ARGISNULL(4) ? 0 : PG_GETARG_FLOAT8(4);
    PG_RETURN_FLOAT8(core::epsilon_for_accuracy(kind, PG_GETARG_FLOAT8(1), PG_GETARG_FLOAT8(2),
                                                PG_GETARG_FLOAT8(3), delta));
}
