// SQL wrappers of the calibration and accounting formulas (IMMUTABLE: pure math, no data, no noise).
#include "core/noise/calibration.hpp"
#include "pg/boundary/args.hpp"
#include "pg/boundary/guard.hpp"

using namespace gazepriv;

namespace {

core::GaussianCalibration method_arg(FunctionCallInfo fcinfo, int i) {
    return core::parse_gaussian_calibration(pg::text_arg(fcinfo, i));
}

} // namespace

GAZEPRIV_FUNCTION(gaussian_sigma) {
    const double l2 = PG_GETARG_FLOAT8(0), epsilon = PG_GETARG_FLOAT8(1), delta = PG_GETARG_FLOAT8(2);
    PG_RETURN_FLOAT8(core::gaussian_sigma(l2, epsilon, delta, method_arg(fcinfo, 3)));
}

GAZEPRIV_FUNCTION(gaussian_epsilon) {
    const double l2 = PG_GETARG_FLOAT8(0), sigma = PG_GETARG_FLOAT8(1), delta = PG_GETARG_FLOAT8(2);
    PG_RETURN_FLOAT8(core::gaussian_epsilon(l2, sigma, delta, method_arg(fcinfo, 3)));
}

GAZEPRIV_FUNCTION(gaussian_delta) {
    PG_RETURN_FLOAT8(core::gaussian_delta(PG_GETARG_FLOAT8(0), PG_GETARG_FLOAT8(1), PG_GETARG_FLOAT8(2)));
}

GAZEPRIV_FUNCTION(laplace_scale) {
    PG_RETURN_FLOAT8(core::laplace_scale(PG_GETARG_FLOAT8(0), PG_GETARG_FLOAT8(1)));
}

GAZEPRIV_FUNCTION(zcdp_rho) {
    PG_RETURN_FLOAT8(core::zcdp_rho(PG_GETARG_FLOAT8(0), PG_GETARG_FLOAT8(1)));
}

GAZEPRIV_FUNCTION(zcdp_epsilon) {
    PG_RETURN_FLOAT8(core::zcdp_epsilon(PG_GETARG_FLOAT8(0), PG_GETARG_FLOAT8(1)));
}

GAZEPRIV_FUNCTION(zcdp_delta) {
    PG_RETURN_FLOAT8(core::zcdp_delta(PG_GETARG_FLOAT8(0), PG_GETARG_FLOAT8(1)));
}
