#!/usr/bin/env bash
# Cost of charging a privacy budget: a charged release (release_count) against the same uncharged query in
# the same run, serially and with 8 concurrent clients (pgbench).
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh
CLUSTER_OPTIONS="-c max_worker_processes=16" throwaway_cluster
bin=$("$PG_CONFIG" --bindir)
psql() { cluster_psql "$@"; }
psql <<'SQL'
CREATE EXTENSION gazepriv;
CREATE TABLE g (participant text);
INSERT INTO g SELECT 'p' || (i % 20) FROM generate_series(1, 1000) i;
SELECT gazepriv.register_dataset('bench', 'g', 'participant') \g /dev/null
SELECT gazepriv.grant_budget('bench', 'postgres', 1e9, 0, accounting => 'basic') \g /dev/null
SQL
echo "SELECT count(DISTINCT participant) + gazepriv.discrete_laplace_noise(10) FROM g;" >"$dir/plain.sql"
echo "SELECT gazepriv.release_count('bench', 0.1);" >"$dir/charged.sql"
chmod 644 "$dir"/*.sql
tps() { sed -nE '/^tps = /{s/^tps = ([0-9.]+).*/\1/p;q}'; }
plain1=$("$bin/pgbench" -n -c 1 -T 5 -f "$dir/plain.sql" postgres 2>/dev/null | tps)
charged1=$("$bin/pgbench" -n -c 1 -T 5 -f "$dir/charged.sql" postgres 2>/dev/null | tps)
plain8=$("$bin/pgbench" -n -c 8 -j 2 -T 5 -f "$dir/plain.sql" postgres 2>/dev/null | tps)
charged8=$("$bin/pgbench" -n -c 8 -j 2 -T 5 -f "$dir/charged.sql" postgres 2>/dev/null | tps)
printf '%-44s %12s %12s %10s\n' "budget charge" "plain tps" "charged tps" "ms/charge"
row() { awk -v n="$1" -v c="$2" -v p="$3" -v q="$4" \
        'BEGIN { printf "%-44s %12.0f %12.1f %10.1f\n", n, p, q, 1000 * c / q - 1000 * c / p }'; }
row "1 client (same query, uncharged vs charged)" 1 "$plain1" "$charged1"
row "8 clients" 8 "$plain8" "$charged8"
psql -At -c "SELECT 'ledger rows written: ' || count(*) FROM gazepriv.ledger"
