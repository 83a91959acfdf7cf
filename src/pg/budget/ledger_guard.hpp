// DROP EXTENSION gazepriv deletes the ledger and every budget: created again, every analyst would start
// afresh. The guard refuses the drop (of the extension, or of its schema with CASCADE, or by DROP OWNED)
// while the ledger or the budgets hold rows, unless a superuser first sets gazepriv.allow_ledger_drop.
#pragma once

namespace gazepriv::pg {

// Defines gazepriv.allow_ledger_drop and installs the object access hook (from _PG_init).
void define_ledger_guard();

} // namespace gazepriv::pg
