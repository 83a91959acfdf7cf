// Allocation that never longjmps: for use inside guarded bodies while C++ objects are alive.
#pragma once

#include <cstddef>
#include <new>

#include "core/common/errors.hpp"

extern "C" {
#include "postgres.h"
#include "utils/memutils.h"
}

namespace gazepriv::pg {

// palloc in the current memory context; throws std::bad_alloc (53200 through the guard) or
// core::LimitExceeded (54000) instead of raising a PostgreSQL error.
inline void* palloc_or_throw(std::size_t size) {
    if (size > MaxAllocHugeSize)
        throw core::LimitExceeded("a result of " + std::to_string(size) +
                                  " bytes exceeds PostgreSQL's limit");
    void* p = MemoryContextAllocExtended(CurrentMemoryContext, size, MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
    if (p == nullptr)
        throw std::bad_alloc();
    return p;
}

} // namespace gazepriv::pg
