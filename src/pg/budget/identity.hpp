// Who a call acts as. Three identities meet in a release (README, "Privacy budgets and analysts"):
//  - the caller: the role whose privileges run the call (GetUserId() on entry; inside another role's SECURITY
//    DEFINER function, that function's owner). It is charged, and its budgets are checked.
//  - the dataset's owner (its relation's owner: ALTER TABLE ... OWNER TO hands a dataset over): releases read
//    the registered relation with its rights, as PostgreSQL's RI triggers read a referenced table as its
//    owner, so that code in a view runs with the rights of the curator who wrote it.
//  - the extension's owner (the owner of the catalog tables): its rights are used only to read and write the
//    catalog, through the fixed, schema-qualified statements of the catalog functions.
// Every switch is a security-restricted operation (no SET ROLE, no temporary objects, no session state
// that outlives it) with search_path pinned to pg_catalog, pg_temp and extra_float_digits at 3 (so that a
// float converted to text and back is the same float), in a GUC nesting level of its own. An error inside
// a switch aborts the (sub)transaction, which restores the user and the settings, as for SECURITY DEFINER
// functions. Plain C-style code: everything here can raise PostgreSQL errors.
#pragma once

extern "C" {
#include "postgres.h"
}

namespace gazepriv::pg {

// The role whose privileges run the current call.
Oid calling_role();

// The extension's schema, quoted for SQL text, and the owner of its catalog (of its table datasets).
const char* catalog_schema();
Oid catalog_owner();

struct RoleSwitch {
    Oid saved_user;
    int saved_context;
    int guc_level;
};

// Runs as `role` until restore_role; the settings above are pinned in both cases.
RoleSwitch switch_role(Oid role);
void restore_role(const RoleSwitch& saved);

// The owner of a registered dataset, or InvalidOid when none of that name is registered (read as the
// catalog's owner; raises nothing about the dataset itself).
Oid dataset_owner(const char* dataset);

// ERROR 42501 unless the calling role has the privileges of the dataset's owner (superusers have);
// 22023 when no dataset of that name is registered.
void require_dataset_owner(const char* dataset);

} // namespace gazepriv::pg
