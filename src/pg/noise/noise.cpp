// SQL functions for users who compose their own mechanisms: noise draws and single-value mechanisms.
// None of them charges a privacy budget: the caller accounts for what it releases.
#include <cstdint>

#include "core/noise/calibration.hpp"
#include "core/noise/discrete.hpp"
#include "core/noise/noise.hpp"
#include "core/common/validate.hpp"
#include "pg/boundary/args.hpp"
#include "pg/boundary/arrays.hpp"
#include "pg/boundary/backend_rng.hpp"
#include "pg/boundary/guard.hpp"

using namespace gazepriv;

GAZEPRIV_FUNCTION(laplace_noise) {
    PG_RETURN_FLOAT8(core::GridLaplace::with_scale(PG_GETARG_FLOAT8(0)).noise(pg::backend_rng()));
}

GAZEPRIV_FUNCTION(gaussian_noise) {
    PG_RETURN_FLOAT8(core::GridGaussian::with_sigma(PG_GETARG_FLOAT8(0)).noise(pg::backend_rng()));
}

GAZEPRIV_FUNCTION(discrete_laplace_noise) {
    PG_RETURN_INT64(core::IntegerLaplace(PG_GETARG_FLOAT8(0))(pg::backend_rng()));
}

GAZEPRIV_FUNCTION(discrete_gaussian_noise) {
    // One draw: the exact sampler (a table would cost more to build than it saves).
    PG_RETURN_INT64(core::IntegerGaussian(PG_GETARG_FLOAT8(0), /*exact=*/true)(pg::backend_rng()));
}

GAZEPRIV_FUNCTION(laplace_mechanism) {
    const double value = PG_GETARG_FLOAT8(0);
    const double l1 = PG_GETARG_FLOAT8(1);
    const double epsilon = PG_GETARG_FLOAT8(2);
    core::require_epsilon("epsilon", epsilon);
    PG_RETURN_FLOAT8(core::GridLaplace::mechanism(l1, epsilon, 1).release(value, pg::backend_rng()));
}

namespace {

double gaussian_release(double value, double l2, double epsilon, double delta, const char* calibration) {
    const double sigma =
        core::gaussian_sigma(l2, epsilon, delta, core::parse_gaussian_calibration(calibration));
    return core::GridGaussian::mechanism(l2, sigma, 1).release(value, pg::backend_rng());
}

} // namespace

GAZEPRIV_FUNCTION(gaussian_mechanism) {
    const double value = PG_GETARG_FLOAT8(0);
    const double l2 = PG_GETARG_FLOAT8(1);
    const double epsilon = PG_GETARG_FLOAT8(2);
    const double delta = PG_GETARG_FLOAT8(3);
    const char* calibration = pg::text_arg(fcinfo, 4);
    PG_RETURN_FLOAT8(gaussian_release(value, l2, epsilon, delta, calibration));
}

namespace {

// Releases every element of `in` into `out` with one mechanism calibrated for the whole vector.
template <typename Mechanism>
void release_vector(const Mechanism& mechanism, pg::Float8Span in, double* out) {
    core::Rng& rng = pg::backend_rng();
    for (std::size_t i = 0; i < in.size; ++i)
        out[i] = mechanism.release(in.data[i], rng);
}

} // namespace

GAZEPRIV_FUNCTION(laplace_mechanism_array) {
    ArrayType* elements = PG_GETARG_ARRAYTYPE_P(0);
    const double l1 = PG_GETARG_FLOAT8(1);
    const double epsilon = PG_GETARG_FLOAT8(2);
    core::require_epsilon("epsilon", epsilon);
    const pg::Float8Span in = pg::float8_elements(elements, "elements");
    ArrayType* result = pg::new_float8_array(in.size);
    release_vector(core::GridLaplace::mechanism(l1, epsilon, in.size), in, pg::float8_data(result));
    PG_RETURN_ARRAYTYPE_P(result);
}

GAZEPRIV_FUNCTION(gaussian_mechanism_array) {
    ArrayType* elements = PG_GETARG_ARRAYTYPE_P(0);
    const double l2 = PG_GETARG_FLOAT8(1);
    const double epsilon = PG_GETARG_FLOAT8(2);
    const double delta = PG_GETARG_FLOAT8(3);
    const char* calibration = pg::text_arg(fcinfo, 4);
    const pg::Float8Span in = pg::float8_elements(elements, "elements");
    const double sigma =
        core::gaussian_sigma(l2, epsilon, delta, core::parse_gaussian_calibration(calibration));
    ArrayType* result = pg::new_float8_array(in.size);
    release_vector(core::GridGaussian::mechanism(l2, sigma, in.size), in, pg::float8_data(result));
    PG_RETURN_ARRAYTYPE_P(result);
}
