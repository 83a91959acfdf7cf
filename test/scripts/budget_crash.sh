#!/usr/bin/env bash
# A backend is killed (kill -9) during a release, after its charge: after the server's crash recovery the
# charge is still in the ledger and the budget.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh
CLUSTER_OPTIONS="-c fsync=on -c restart_after_crash=on" throwaway_cluster
bin=$("$PG_CONFIG" --bindir)
psql() { cluster_psql "$@"; }

psql <<'SQL'
CREATE EXTENSION gazepriv;
CREATE TABLE crash_gaze (participant text);
INSERT INTO crash_gaze SELECT 'p' || i FROM generate_series(1, 10) i;
SELECT gazepriv.register_dataset('crash', 'crash_gaze', 'participant');
SELECT gazepriv.grant_budget('crash', 'postgres', 1.0, 0, accounting => 'basic');
SQL
# The release charges, then the statement keeps running (the result has not left the server yet).
psql -c "SELECT gazepriv.release_count('crash', 0.5), pg_sleep(60)" >"$dir/victim.log" 2>&1 &
for _ in $(seq 100); do
    [ "$(psql -At -c "SELECT count(*) FROM gazepriv.ledger")" = 1 ] && break
    sleep 0.1
done
pid=$(psql -At -c "SELECT pid FROM pg_stat_activity WHERE query LIKE '%pg_sleep(60)%' AND pid <> pg_backend_pid()")
[ -n "$pid" ] || { echo "the release is not running"; exit 1; }
kill -9 "$pid"
wait || true
for _ in $(seq 100); do
    "$bin/pg_isready" -q && psql -At -c "SELECT 1" >/dev/null 2>&1 && break
    sleep 0.2
done
grep -q "terminated by signal 9" "$dir/server.log" || { echo "the server did not see the crash"; exit 1; }
state=$(psql -At -F ' ' -c "SELECT (SELECT count(*) FROM gazepriv.ledger), spent_epsilon FROM gazepriv.budgets")
echo "after crash recovery: ledger_rows spent_epsilon = $state"
[ "$state" = "1 0.5" ] || { echo "the charge was lost"; exit 1; }
echo "budget crash: ok"
