#include "core/common/validate.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/common/errors.hpp"

namespace gazepriv::core {

std::string format_number(double value) {
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "Infinity" : "-Infinity";
    // The shortest representation that round-trips, as PostgreSQL prints float8; plain notation unless the
    // magnitude calls for an exponent.
    const double magnitude = std::fabs(value);
    const bool plain = magnitude == 0 || (magnitude >= 1e-4 && magnitude < 1e15);
    for (int precision = 1; precision <= 17; ++precision) {
        char candidate[64];
        std::snprintf(candidate, sizeof candidate, "%.*g", precision, value);
        if (std::strtod(candidate, nullptr) != value)
            continue;
        if (!plain || std::strchr(candidate, 'e') == nullptr)
            return candidate;
    }
    char fallback[64];
    std::snprintf(fallback, sizeof fallback, plain ? "%.17f" : "%.17g", value);
    return fallback;
}

double require_positive(const char* name, double value) {
    if (!std::isfinite(value) || value <= 0)
        throw InvalidArgument(std::string(name) + " must be a finite number greater than 0, got " +
                              format_number(value));
    return value;
}

double require_non_negative(const char* name, double value) {
    if (!std::isfinite(value) || value < 0)
        throw InvalidArgument(std::string(name) + " must be a finite number of at least 0, got " +
                              format_number(value));
    return value;
}

double require_finite(const char* name, double value) {
    if (!std::isfinite(value))
        throw InvalidArgument(std::string(name) + " must be a finite number, got " + format_number(value));
    return value;
}

double require_open_unit(const char* name, double value) {
    if (!std::isfinite(value) || value <= 0 || value >= 1)
        throw InvalidArgument(std::string(name) + " must be strictly between 0 and 1, got " +
                              format_number(value));
    return value;
}

std::int64_t require_range(const char* name, std::int64_t value, std::int64_t lo, std::int64_t hi) {
    if (value < lo || value > hi)
        throw InvalidArgument(std::string(name) + " must be between " + std::to_string(lo) + " and " +
                              std::to_string(hi) + ", got " + std::to_string(value));
    return value;
}

} // namespace gazepriv::core
