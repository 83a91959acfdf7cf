// The backend's noise generator and the superuser-only test seed.
#pragma once

#include "core/noise/random.hpp"

namespace gazepriv::pg {

// Registers gazepriv.seed (called from _PG_init).
void define_seed_setting();

// The process's generator, keyed from the kernel, or from gazepriv.seed when a superuser set it. It is
// re-keyed only when the setting changes (SET, RESET, or a rollback restoring it), never per call, and
// whenever it finds itself in a new process (so a forked child never repeats its parent's noise).
core::Rng& backend_rng();

} // namespace gazepriv::pg
