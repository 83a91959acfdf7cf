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
// 0 < value < 1 (delta).
double require_open_unit(const char* name, double value);
// lo <= value <= hi, for integer parameters.
std::int64_t require_range(const char* name, std::int64_t value, std::int64_t lo, std::int64_t hi);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
