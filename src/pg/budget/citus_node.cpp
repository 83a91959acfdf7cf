#include "pg/budget/citus_node.hpp"

extern "C" {
#include "postgres.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "utils/builtins.h"
}

namespace gazepriv::pg {

const char* citus_coordinator_of_worker() {
    if (!OidIsValid(get_extension_oid("citus", true)))
        return nullptr;
    // pg_dist_local_group: this node's group, 0 on the coordinator; pg_dist_node: the cluster's nodes, which
    // Citus copies to the workers (metadata sync).
    MemoryContext caller = CurrentMemoryContext;
    if (SPI_connect() != SPI_OK_CONNECT)
        elog(ERROR, "SPI_connect failed");
    const char* query =
        "SELECT (SELECT groupid FROM pg_catalog.pg_dist_local_group) <> 0, "
        "(SELECT nodename || ':' || nodeport FROM pg_catalog.pg_dist_node WHERE groupid = 0 LIMIT 1)";
    if (SPI_execute(query, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
        elog(ERROR, "reading Citus' node metadata failed");
    bool isnull = true;
    const bool worker =
        DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull)) && !isnull;
    const char* coordinator = nullptr;
    if (worker) {
        char* name = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
        coordinator = MemoryContextStrdup(caller, name != nullptr ? name : "");
    }
    SPI_finish();
    return coordinator;
}

} // namespace gazepriv::pg
