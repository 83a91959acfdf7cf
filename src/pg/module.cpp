// The module: its magic block, settings, and the functions that describe the extension itself.
#include "pg/boundary/backend_rng.hpp"
#include "pg/budget/budget.hpp"
#include "pg/budget/ledger_guard.hpp"
#include "pg/boundary/guard.hpp"
#include "pg/boundary/progress.hpp"
#include "pg/events/sample_synthesis.hpp"
#include "pg/boundary/limits.hpp"
#include "pg/heatmap/heatmap_settings.hpp"

extern "C" {
#include "postgres.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/guc.h"

PG_MODULE_MAGIC;

void _PG_init(void);
}

extern "C" void _PG_init(void) {
    gazepriv::pg::define_seed_setting();
    gazepriv::pg::define_budget_settings();
    gazepriv::pg::define_heatmap_settings();
    gazepriv::pg::define_synthesis_settings();
    gazepriv::pg::define_limit_settings();
    gazepriv::pg::define_ledger_guard();
    gazepriv::pg::define_progress_settings();
    MarkGUCPrefixReserved("gazepriv");
}

GAZEPRIV_FUNCTION(version) {
    PG_RETURN_TEXT_P(cstring_to_text(GAZEPRIV_VERSION));
}
