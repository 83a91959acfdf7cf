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

double require_epsilon(const char* name, double value) {
    if (!std::isfinite(value) || value < kMinEpsilon)
        throw InvalidArgument(std::string(name) + " must be a finite number of at least " +
                              format_number(kMinEpsilon) + ", got " + format_number(value));
    return value;
}

double require_delta(const char* name, double value) {
    if (!std::isfinite(value) || value < kMinDelta || value >= 1)
        throw InvalidArgument(std::string(name) + " must be at least " + format_number(kMinDelta) +
                              " and less than 1, got " + format_number(value));
    return value;
}

double require_finite_scale(const char* parameter, double scale) {
    if (!std::isfinite(scale) || !(scale > 0))
        throw InvalidArgument(std::string(parameter) +
                              " is too large for this epsilon: the noise scale leaves the finite range");
    return scale;
}

std::uint64_t require_within_limit(const std::string& what, std::uint64_t value, const char* setting,
                                   std::int64_t limit) {
    if (value > static_cast<std::uint64_t>(limit))
        throw LimitExceeded(what + " is " + std::to_string(value) + ", more than the limit of " +
                            std::to_string(limit) + " (setting " + setting + ")");
    return value;
}

std::uint64_t saturating_product(std::uint64_t a, std::uint64_t b) {
    if (a != 0 && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

std::int64_t require_range(const char* name, std::int64_t value, std::int64_t lo, std::int64_t hi) {
    if (value < lo || value > hi)
        throw InvalidArgument(std::string(name) + " must be between " + std::to_string(lo) + " and " +
                              std::to_string(hi) + ", got " + std::to_string(value));
    return value;
}

} // namespace gazepriv::core
