// Progress of long calls where PostgreSQL users look for it: the view gazepriv.progress (one row per backend
// running a long gazepriv call: pid, function, phase, done, total, started), read from another session while
// the call runs, and NOTICEs every gazepriv.progress_notice_interval (a session setting; 0 = none).
//
// Why a view over our own shared memory and not pgstat_progress_*: PostgreSQL 15's progress reporting only
// knows its own commands (ProgressCommandType has no value for extensions, and its views decode the
// parameters per command), so an extension cannot add a pg_stat_progress_* view without patching the server.
// The array lives in the main shared memory (reserved when gazepriv is preloaded, otherwise taken from the
// slack PostgreSQL leaves for such structs, as contrib's autoprewarm does); it has kSlots slots, and a call
// that finds none free (or no shared memory left) reports by NOTICE only.
//
// Counts that describe data an analyst may not see are hidden: a call running as a dataset's owner on an
// analyst's behalf (an analyst release) records its counts as private, and the view shows them (done, total)
// only to superusers and members of pg_read_all_stats; everyone sees the rows of roles they have the
// privileges of, as in pg_stat_activity.
#pragma once

#include <cstdint>

extern "C" {
#include "postgres.h"
}

namespace gazepriv::pg {

// Plain C-style functions: they raise no PostgreSQL error (a failure to find shared memory only disables the
// view for this call). progress_begin starts a call's entry (ended by progress_end, or by the end of the
// transaction or subtransaction, whichever comes first); progress_report is the core's reporter
// (core::Progress), which may throw PostgresError if a NOTICE cannot be sent.
void progress_begin(const char* function);
void progress_report(const char* phase, std::uint64_t done, std::uint64_t total);
void progress_end();

// Registers gazepriv.progress_notice_interval; reserves the array's memory when preloaded.
void define_progress_settings();

} // namespace gazepriv::pg
