#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "core/common/errors.hpp"
#include "core/kaleido/kaleido.hpp"
#include "pg/boundary/args.hpp"
#include "pg/kaleido/kaleido_args.hpp"

namespace gazepriv::pg {

namespace {

double required_float8(FunctionCallInfo fcinfo, int i, const char* name) {
    require_not_null(fcinfo, i, name);
    return PG_GETARG_FLOAT8(i);
}

// NULL means the default (NaN for l_thresh); an explicit NaN is an error, not the default.
double optional_float8(FunctionCallInfo fcinfo, int i, const char* name) {
    if (PG_ARGISNULL(i))
        return NAN;
    const double v = PG_GETARG_FLOAT8(i);
    if (std::isnan(v))
        throw core::InvalidArgument(std::string(name) + " must be a finite number, got NaN");
    return v;
}

// NULL means the default (0 for max_tests); explicit values below 1 are errors.
std::int64_t optional_count(FunctionCallInfo fcinfo, int i, const char* name) {
    if (PG_ARGISNULL(i))
        return 0;
    const std::int64_t v = PG_GETARG_INT32(i);
    if (v < 1)
        throw core::InvalidArgument(std::string(name) + " must be at least 1, got " + std::to_string(v));
    return v;
}

double parse_number(const char* text, const char* name) {
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE)
        throw core::InvalidArgument(std::string(name) + " must be a number, got \"" + text + "\"");
    return v;
}

} // namespace

core::KaleidoParams kaleido_params_from_args(FunctionCallInfo fcinfo, int first,
                                             std::int64_t stream_max_tests, double stream_t_skip) {
    const double epsilon = required_float8(fcinfo, first, "epsilon");
    require_not_null(fcinfo, first + 1, "w");
    const std::int64_t w = PG_GETARG_INT32(first + 1);
    const double r = required_float8(fcinfo, first + 2, "r");
    const double l_thresh = optional_float8(fcinfo, first + 3, "l_thresh");
    const double t_skip = PG_ARGISNULL(first + 4) && !std::isnan(stream_t_skip)
                              ? stream_t_skip
                              : required_float8(fcinfo, first + 4, "t_skip");
    const double h = required_float8(fcinfo, first + 5, "h");
    const std::int64_t given = optional_count(fcinfo, first + 6, "max_tests");
    return core::kaleido_params(epsilon, w, r, l_thresh, t_skip, h, given != 0 ? given : stream_max_tests);
}

core::KaleidoParams kaleido_params_from_text(const char* epsilon, const char* w, const char* r,
                                             const char* l_thresh, const char* t_skip, const char* h,
                                             const char* max_tests) {
    if (epsilon == nullptr || w == nullptr || r == nullptr)
        throw core::InvalidArgument("the trigger needs epsilon=, w= and r= arguments");
    const double w_value = parse_number(w, "w");
    if (!(w_value >= 1 && w_value <= 2147483647.0) || w_value != std::floor(w_value))
        throw core::InvalidArgument(std::string("w must be a whole number between 1 and 2147483647, got ") +
                                    w);
    double tests = 0;
    if (max_tests != nullptr) {
        tests = parse_number(max_tests, "max_tests");
        if (!(tests >= 1 && tests <= 2147483647.0) || tests != std::floor(tests))
            throw core::InvalidArgument(std::string("max_tests must be a whole number of at least 1, got ") +
                                        max_tests);
    }
    double threshold = NAN;
    if (l_thresh != nullptr) {
        threshold = parse_number(l_thresh, "l_thresh");
        if (std::isnan(threshold))
            throw core::InvalidArgument("l_thresh must be a finite number, got NaN");
    }
    return core::kaleido_params(parse_number(epsilon, "epsilon"), static_cast<std::int64_t>(w_value),
                                parse_number(r, "r"), threshold,
                                t_skip == nullptr ? 50.0 : parse_number(t_skip, "t_skip"),
                                h == nullptr ? 2.0 : parse_number(h, "h"), static_cast<std::int64_t>(tests));
}

} // namespace gazepriv::pg
