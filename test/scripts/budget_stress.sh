#!/usr/bin/env bash
# 32 concurrent clients (pgbench) release until refused. Afterwards: the ledger never exceeds the limit,
# every release that returned a result has its ledger row, and exactly floor(limit / cost) succeeded.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh
CLUSTER_OPTIONS="-c max_connections=80 -c max_worker_processes=16" throwaway_cluster
bin=$("$PG_CONFIG" --bindir)
psql() { cluster_psql "$@"; }

psql <<'SQL'
CREATE EXTENSION gazepriv;
CREATE TABLE stress_gaze (participant text);
INSERT INTO stress_gaze SELECT 'p' || i FROM generate_series(1, 50) i;
SELECT gazepriv.register_dataset('stress', 'stress_gaze', 'participant');
CREATE ROLE stress_analyst LOGIN IN ROLE gazepriv_analyst;
SELECT gazepriv.grant_budget('stress', 'stress_analyst', 5.0, 0, accounting => 'basic');
SQL
echo "SELECT gazepriv.release_count('stress', 0.1);" >"$dir/release.sql"
chmod 644 "$dir/release.sql"
# 32 clients x 4 attempts = 128 attempts for 50 releases; a client stops at its first refusal.
"$bin/pgbench" -n -U stress_analyst -c 32 -j 4 -t 4 -f "$dir/release.sql" postgres >"$dir/pgbench.log" 2>&1 || true
grep -E "processed|aborted" "$dir/pgbench.log" | sort | uniq -c >"$dir/summary.txt" || true
head -5 "$dir/summary.txt"  # (not in the pipeline: head closing early would SIGPIPE it under pipefail)
succeeded=$(sed -nE 's/^number of transactions actually processed: ([0-9]+).*/\1/p' "$dir/pgbench.log")
refusals=$(grep -c "privacy budget exceeded" "$dir/pgbench.log" || true)
other_errors=$(grep "ERROR" "$dir/pgbench.log" | grep -vc "privacy budget exceeded" || true)
read -r rows spent releases <<<"$(psql -At -F ' ' -c "SELECT (SELECT count(*) FROM gazepriv.ledger),
    spent_epsilon, releases FROM gazepriv.budgets WHERE dataset = 'stress'")"
echo "succeeded=$succeeded refused=$refusals other_errors=$other_errors ledger_rows=$rows spent=$spent releases=$releases"
[ "$succeeded" = 50 ] || { echo "expected exactly 50 successful releases"; exit 1; }
[ "$rows" = 50 ] && [ "$releases" = 50 ] || { echo "every successful release must have its ledger row"; exit 1; }
[ "$(psql -At -c "SELECT $spent <= 5.0")" = t ] || { echo "spent $spent exceeds the limit"; exit 1; }
[ "$refusals" -ge 1 ] && [ "$other_errors" = 0 ] || { echo "expected refusals only"; exit 1; }
echo "budget stress: ok"
