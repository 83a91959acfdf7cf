// Cooperative cancellation for long core loops. The glue passes a probe that reads PostgreSQL's
// interrupt flags without acting on them (it never longjmps); the core throws Cancelled.
#pragma once

#include <cstddef>

#include "core/common/errors.hpp"

namespace gazepriv::core {

using CancelProbe = bool (*)();

class CancelCheck {
public:
    explicit CancelCheck(CancelProbe probe = nullptr) : probe_(probe) {}

    // Cheap enough for inner loops: polls the probe once every 4096 iterations.
    void poll(std::size_t iteration) const {
        if ((iteration & 4095u) == 0)
            now();
    }
    void now() const {
        if (probe_ != nullptr && probe_())
            throw Cancelled{};
    }

private:
    CancelProbe probe_;
};

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
