#include <climits>
#include <cstdint>
#include <new>

#include "core/noise/random.hpp"
#include "pg/boundary/backend_rng.hpp"

extern "C" {
#include "postgres.h"
#include "access/parallel.h"
#include "miscadmin.h"
#include "utils/guc.h"
}

namespace gazepriv::pg {

namespace {

int seed_setting = 0;
std::uint64_t seed_generation = 0; // bumped by every assignment of gazepriv.seed

void assign_seed(int, void*) {
    ++seed_generation;
}

} // namespace

void define_seed_setting() {
    DefineCustomIntVariable(
        "gazepriv.seed", "Seeds gazepriv's noise generator, for reproducible tests only (0 = secure).",
        "When 0 (the default) noise comes from a cryptographically secure generator keyed by the kernel. "
        "Any other value makes every release reproducible and therefore NOT private. Only superusers can "
        "set it. Setting it restarts the seeded stream; draws within one setting differ.",
        &seed_setting, 0, 0, INT_MAX, PGC_SUSET, 0, nullptr, assign_seed, nullptr);
}

core::Rng& backend_rng() {
    // Process lifetime: constructed once in static storage, never destroyed (no exit-time teardown
    // order to get wrong with OpenSSL).
    alignas(core::Rng) static unsigned char storage[sizeof(core::Rng)];
    static core::Rng* rng = nullptr;
    static int keyed_pid = 0;
    static std::uint64_t keyed_generation = 0;

    if (rng == nullptr) {
        rng = new (storage) core::Rng(core::Rng::KernelEntropy{});
        keyed_pid = MyProcPid;
        keyed_generation = seed_generation - 1; // force the setting to be applied below
    }
    if (keyed_pid != MyProcPid || keyed_generation != seed_generation) {
        if (seed_setting != 0) // parallel workers get their own stream (leader: -1 + 1 = 0)
            rng->key_from_seed(static_cast<std::uint64_t>(seed_setting),
                               static_cast<std::uint64_t>(ParallelWorkerNumber + 1));
        else if (rng->seeded() || keyed_pid != MyProcPid)
            rng->key_from_kernel();
        keyed_pid = MyProcPid;
        keyed_generation = seed_generation;
    }
    return *rng;
}

core::Rng& release_rng(std::optional<core::Rng>& keyed, const unsigned char* secret, std::size_t size) {
    if (secret == nullptr)
        return backend_rng();
    keyed.emplace(core::Rng::Secret{secret, size});
    return *keyed;
}

} // namespace gazepriv::pg
