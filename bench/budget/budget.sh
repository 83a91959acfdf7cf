#!/usr/bin/env bash
# Cost of charging a privacy budget: a charged release (release_count) against the same uncharged query in
# the same run, serially and with 8 concurrent clients (pgbench): rates, their ratio, the extra wall time
# per charge, and the charge worker's CPU time per charge (its share of the work, robust to load).
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
# CPU time (user + system, in clock ticks) of the database's charge worker, and the ledger's length: read
# before and after a charged run, they give the worker's CPU time per charge, which load on the machine
# does not inflate as it does wall-clock rates.
worker_ticks() {
    local pid
    pid=$(psql -At -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'gazepriv charge worker'")
    [ -n "$pid" ] && awk '{ print $14 + $15 }' "/proc/$pid/stat" || echo 0
}
charges() { psql -At -c "SELECT count(*) FROM gazepriv.ledger"; }
run() { # run CLIENTS SCRIPT: prints "tps worker_us_per_charge" (the latter only for the charged script)
    local clients=$1 script=$2 t0 n0 rate
    psql -c "SELECT gazepriv.release_count('bench', 0.1)" >/dev/null # the worker is up and warm
    t0=$(worker_ticks)
    n0=$(charges)
    rate=$("$bin/pgbench" -n -c "$clients" -j "$((clients < 2 ? 1 : 2))" -T 5 -f "$dir/$script.sql" postgres \
        2>/dev/null | tps)
    awk -v r="$rate" -v t="$(($(worker_ticks) - t0))" -v n="$(($(charges) - n0))" -v hz="$(getconf CLK_TCK)" \
        'BEGIN { printf "%s %s\n", r, (n > 0 ? 1e6 * t / hz / n : 0) }'
}
printf '%-32s %10s %12s %8s %10s %12s\n' "budget charge (release_count)" "plain tps" "charged tps" "ratio" \
    "ms/charge" "worker µs"
for clients in 1 8; do
    read -r plain _ <<<"$(run "$clients" plain)"
    read -r charged worker_us <<<"$(run "$clients" charged)"
    awk -v n="$clients client(s)" -v c="$clients" -v p="$plain" -v q="$charged" -v w="$worker_us" \
        'BEGIN { printf "%-32s %10.0f %12.0f %8.2f %10.2f %12.0f\n", n, p, q, q / p, 1000 * c / q - 1000 * c / p, w }'
done
psql -At -c "SELECT 'ledger rows written: ' || count(*) FROM gazepriv.ledger"
