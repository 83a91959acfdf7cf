// Tests assert that bad parameters are refused with a message naming them: this runs f and returns the
// message of the core::InvalidArgument it throws, or "no error".
#pragma once

#include <string>

#include "core/common/errors.hpp"

namespace gazepriv::test {

template <typename F> std::string invalid_argument_message(F&& f) {
    try {
        f();
    } catch (const core::InvalidArgument& e) {
        return e.what();
    }
    return "no error";
}

} // namespace gazepriv::test
