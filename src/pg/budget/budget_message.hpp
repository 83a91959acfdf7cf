// The request and reply exchanged with the charge worker through dynamic shared memory. Plain data.
#pragma once

extern "C" {
#include "postgres.h"
}

namespace gazepriv::pg {

enum class ChargeStatus : int {
    Pending = 0, // the worker did not finish (it failed to start, crashed, or was cancelled)
    Charged,
    OverBudget,
    NoBudget,
    Invalid,
    Failed, // the worker raised an error; message says which
};

struct ChargeMessage {
    static constexpr int kTextLen = 256;
    // Request.
    Oid database;
    Oid worker_role;
    Oid charged_role;
    int caller_pid;
    int lock_timeout_ms;
    double epsilon;
    double delta;
    double rho;
    bool has_rho;
    bool non_private;
    char dataset[kTextLen];
    char mechanism[kTextLen];
    char guarantee[32];
    // Reply: status is written last, after the worker's transaction committed.
    ChargeStatus status;
    int64 ledger_id;
    char message[1024];
    // Request, variable part.
    Size parameters_len;
    char parameters[FLEXIBLE_ARRAY_MEMBER];
};

} // namespace gazepriv::pg
