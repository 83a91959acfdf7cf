#!/usr/bin/env bash
# Cost of charging a privacy budget: a charged release (release_count) against the same uncharged query in
# the same run, serially and with 8 concurrent clients (pgbench). Wall clock: rates, their ratio, and the
# extra time per charge. CPU time, which load on a shared machine does not inflate: the whole server's per
# release, uncharged and charged (their difference is what a charge costs, both sides), and the charge
# worker's share per charge (the part that one database's charges queue for).
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
ticks_per_second=$(getconf CLK_TCK)
postmaster=$(head -1 "$dir/data/postmaster.pid")
# CPU ticks of the server: the postmaster, its exited children (reaped into its cutime and cstime, as
# pgbench's backends are when it disconnects) and its live children.
server_ticks() {
    cat /proc/[0-9]*/stat 2>/dev/null |
        awk -v pm="$postmaster" '$1 == pm { t += $14 + $15 + $16 + $17 } $4 == pm { t += $14 + $15 } END { print t }'
}
worker_pid() { psql -At -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'gazepriv charge worker'"; }
worker_ticks() { [ -n "$1" ] && awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
charges() { psql -At -c "SELECT count(*) FROM gazepriv.ledger"; }
run() { # run CLIENTS SCRIPT: prints "tps server_µs_per_release worker_µs_per_charge"
    local clients=$1 script=$2 s0 w0 n0 out worker
    psql -c "SELECT gazepriv.release_count('bench', 0.1)" >/dev/null # the worker is up and warm
    worker=$(worker_pid)
    s0=$(server_ticks)
    w0=$(worker_ticks "$worker")
    n0=$(charges)
    out=$("$bin/pgbench" -n -c "$clients" -j "$((clients < 2 ? 1 : 2))" -T 5 -f "$dir/$script.sql" postgres 2>/dev/null)
    sleep 0.5 # the postmaster reaps pgbench's backends
    awk -v r="$(tps <<<"$out")" -v x="$(sed -nE 's/^number of transactions actually processed: ([0-9]+).*/\1/p' <<<"$out")" \
        -v s="$(($(server_ticks) - s0))" -v w="$(($(worker_ticks "$worker") - w0))" -v n="$(($(charges) - n0))" \
        -v hz="$ticks_per_second" 'BEGIN { printf "%s %s %s\n", r, 1e6 * s / hz / x, (n > 0 ? 1e6 * w / hz / n : 0) }'
}
printf '%-22s %9s %11s %6s %9s | %11s %11s %10s %10s\n' "release_count" "plain tps" "charged tps" "ratio" \
    "ms/charge" "CPU µs plain" "CPU µs chgd" "CPU µs/chg" "worker µs"
for clients in 1 8; do
    read -r plain plain_cpu _ <<<"$(run "$clients" plain)"
    read -r charged charged_cpu worker_us <<<"$(run "$clients" charged)"
    awk -v n="$clients client(s)" -v c="$clients" -v p="$plain" -v q="$charged" -v pc="$plain_cpu" \
        -v qc="$charged_cpu" -v w="$worker_us" 'BEGIN { printf "%-22s %9.0f %11.0f %6.2f %9.2f | %11.0f %11.0f %10.0f %10.0f\n",
        n, p, q, q / p, 1000 * c / q - 1000 * c / p, pc, qc, qc - pc, w }'
done
psql -At -c "SELECT 'ledger rows written: ' || count(*) FROM gazepriv.ledger"
