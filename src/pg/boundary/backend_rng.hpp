// The backend's noise generator and the superuser-only test seed.
#pragma once

#include <cstddef>
#include <optional>

#include "core/noise/random.hpp"

namespace gazepriv::pg {

// Registers gazepriv.seed (called from _PG_init).
void define_seed_setting();

// The process's generator, keyed from the kernel, or from gazepriv.seed when a superuser set it. It is
// re-keyed only when the setting changes (SET, RESET, or a rollback restoring it), never per call, and
// whenever it finds itself in a new process (so a forked child never repeats its parent's noise).
core::Rng& backend_rng();

// The generator of one release: the backend's, or, given a secret (a served-once release's, at least 32
// bytes; `keyed` holds the generator), one keyed from the secret alone, so that the same rows read in the
// same order give the same release.
core::Rng& release_rng(std::optional<core::Rng>& keyed, const unsigned char* secret, std::size_t size);

} // namespace gazepriv::pg
