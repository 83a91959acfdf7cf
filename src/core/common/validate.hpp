// Parameter checks shared by every mechanism. Each names the parameter in its message, so the user
// sees which argument is wrong (ERROR 22023 through the glue).
#pragma once

#include <cstdint>
#include <string>

namespace gazepriv::core {

// Formats a double the way messages show it ("NaN", "Infinity", "-1", "0.25").
std::string format_number(double value);

// value is finite and > 0 (epsilon, scales, sensitivities, sigma).
double require_positive(const char* name, double value);
// value is finite and >= 0.
double require_non_negative(const char* name, double value);
// value is finite.
double require_finite(const char* name, double value);
// The privacy parameters' sane range (issue 14, A1): below these floors the noise scales leave the double
// range and a calibration could only search forever; they are refused (22023) before any work.
constexpr double kMinEpsilon = 1e-6;
constexpr double kMinDelta = 1e-300;
// kMinEpsilon <= value, finite: an epsilon a caller asks a mechanism to calibrate for.
double require_epsilon(const char* name, double value);
// kMinDelta <= value < 1: a delta a caller asks a mechanism to calibrate for.
double require_delta(const char* name, double value);
// A noise scale derived from the caller's parameters (sensitivity / epsilon, sigma) is finite and > 0;
// otherwise the sensitivity overflows for this epsilon (22023 naming `parameter`).
double require_finite_scale(const char* parameter, double scale);
// 0 < value < 1 (delta).
double require_open_unit(const char* name, double value);
// value <= limit, for a size derived from the caller's arguments; otherwise LimitExceeded (54000) naming
// `what` and the superuser setting that sets the limit (issue 14, item 7).
std::uint64_t require_within_limit(const std::string& what, std::uint64_t value, const char* setting,
                                   std::int64_t limit);
// a x b, or a value above any limit when the product overflows.
std::uint64_t saturating_product(std::uint64_t a, std::uint64_t b);
// lo <= value <= hi, for integer parameters.
std::int64_t require_range(const char* name, std::int64_t value, std::int64_t lo, std::int64_t hi);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
