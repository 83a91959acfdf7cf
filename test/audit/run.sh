#!/usr/bin/env bash
# The privacy audit: every releasing mechanism, on worst-case neighbouring inputs, many draws from the
# CSPRNG, a Clopper-Pearson lower bound on its privacy loss against what it charges; negative controls must
# be caught (test/audit/statistics.hpp has the method, audit.hpp the cases).
#
#   test/audit/run.sh          the fast form (test/run.sh runs it): about a minute of draws
#   test/audit/run.sh --full   ten times the draws; writes the results table to test/audit/out/results.md
#
# The core audits run in-process; the SQL audits on a throwaway cluster with the installed extension
# (PG_CONFIG as everywhere; build and install first, as test/run.sh does). Prints "audit NAME ... ok" or
# "... FAILED" per audit and exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh

FULL=()
[ "${1:-}" = --full ] && FULL=(--full)
mkdir -p test/audit/out
BUILD=${AUDIT_BUILD:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON >/dev/null &&
    cmake --build "$BUILD" -j"$(nproc)" --target gazepriv_audit >"$BUILD/audit-build.log" 2>&1 ||
    { tail -30 "$BUILD/audit-build.log"; echo "audit build ... FAILED"; exit 1; }

throwaway_cluster >/dev/null || { echo "audit cluster ... FAILED"; exit 1; }
cluster_psql -c "CREATE EXTENSION gazepriv" >/dev/null || { echo "audit extension ... FAILED"; exit 1; }
# The cluster runs as the server user; the audit connects through its socket directory.
"$BUILD/gazepriv_audit" --core --sql "host=$PGHOST port=$PGPORT dbname=postgres user=postgres" "${FULL[@]}" \
    --table test/audit/out/results.md
