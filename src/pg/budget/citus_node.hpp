// Where gazepriv's budgets live on a Citus cluster: on the coordinator only. Datasets, budgets, release
// policies and the ledger are the extension's own tables, which Citus creates on every node (the extension
// is propagated) but never fills on a worker: a release charged there would spend a budget nobody granted.
// So charges, and with them every release that charges, are refused on a worker node with an error that
// names the coordinator (doc: README, Citus section).
#pragma once

namespace gazepriv::pg {

// nullptr when this database is not a Citus worker node (no Citus, or the coordinator); otherwise the
// coordinator as "host:port" as the worker's node metadata knows it, or "" when it does not.
// Plain C-style code: it can raise PostgreSQL errors.
const char* citus_coordinator_of_worker();

} // namespace gazepriv::pg
