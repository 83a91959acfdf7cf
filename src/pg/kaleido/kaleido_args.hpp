// Kalεido parameters as SQL functions and the live trigger receive them.
#pragma once

#include <cmath>

#include "core/kaleido/kaleido.hpp"

extern "C" {
#include "postgres.h"
#include "fmgr.h"
}

namespace gazepriv::pg {

// Reads (epsilon, w, r, l_thresh, t_skip, h, max_tests) from the arguments first .. first + 6. l_thresh
// and max_tests may be NULL (their defaults); the others may not, except t_skip when stream_t_skip is given
// (not NaN: it replaces a NULL t_skip). Throws core::InvalidArgument. stream_max_tests (when > 0) replaces
// the default of a NULL max_tests.
core::KaleidoParams kaleido_params_from_args(FunctionCallInfo fcinfo, int first,
                                             std::int64_t stream_max_tests = 0, double stream_t_skip = NAN);

// The same parameters from text (trigger arguments "name=value"); `value` is null when absent.
core::KaleidoParams kaleido_params_from_text(const char* epsilon, const char* w, const char* r,
                                             const char* l_thresh, const char* t_skip, const char* h,
                                             const char* max_tests);

} // namespace gazepriv::pg
