#!/usr/bin/env bash
# Analysts on every node of a Citus cluster, at once: 16 clients on the coordinator and 16 on a worker release
# until refused (pgbench). Budgets live on the coordinator only: there exactly floor(limit / cost) releases
# succeed, each with its ledger row; every release on the worker is refused with PB003 naming the coordinator,
# and the workers' ledgers stay empty. Run by test/citus/run.sh on its cluster (CITUS_DIR, CITUS_PORT set).
set -euo pipefail
cd "$(dirname "$0")/../../.."
. test/lib.sh
. test/citus/lib.sh
: "${CITUS_DIR:?run by test/citus/run.sh}" "${CITUS_PORT:?}"
worker=$((CITUS_PORT + 1))
out=$(dirname "$CITUS_DIR")
bin=$("$PG_CONFIG" --bindir)

citus_psql "$CITUS_PORT" <<'SQL'
CREATE TABLE cross_gaze (participant text);
SELECT create_distributed_table('cross_gaze', 'participant');
INSERT INTO cross_gaze SELECT 'p' || i FROM generate_series(1, 50) i;
SELECT gazepriv.register_dataset('cross', 'cross_gaze', 'participant');
CREATE ROLE cross_analyst LOGIN IN ROLE gazepriv_analyst;
SELECT gazepriv.grant_budget('cross', 'cross_analyst', 5.0, 0, accounting => 'basic');
SQL
echo "SELECT gazepriv.release_count('cross', 0.1);" >"$out/cross_release.sql"
chmod 644 "$out/cross_release.sql"
# 16 clients x 6 attempts on each node; a client stops at its first error.
for port in "$CITUS_PORT" "$worker"; do
    as_server_user "$bin/pgbench" -n -h "$CITUS_DIR" -p "$port" -U cross_analyst -c 16 -j 4 -t 6 \
        -f "$out/cross_release.sql" postgres >"$out/cross_$port.log" 2>&1 &
done
wait
processed() { sed -nE 's/^number of transactions actually processed: ([0-9]+).*/\1/p' "$1"; }
on_coordinator=$(processed "$out/cross_$CITUS_PORT.log")
on_worker=$(processed "$out/cross_$worker.log")
refused_over_budget=$(grep -c "privacy budget exceeded" "$out/cross_$CITUS_PORT.log" || true)
refused_on_worker=$(grep -c "privacy budgets are charged on the Citus coordinator $CITUS_DIR:$CITUS_PORT, not on a worker" \
    "$out/cross_$worker.log" || true)
other=$(cat "$out/cross_$CITUS_PORT.log" "$out/cross_$worker.log" | grep "ERROR" |
    grep -vc "privacy budget exceeded\|privacy budgets are charged on the Citus coordinator" || true)
read -r rows spent releases <<<"$(citus_psql "$CITUS_PORT" -At -F ' ' -c "SELECT (SELECT count(*) FROM gazepriv.ledger
    WHERE dataset = 'cross'), spent_epsilon, releases FROM gazepriv.budgets WHERE dataset = 'cross'")"
worker_rows=$(citus_psql "$CITUS_PORT" -At -c "SELECT string_agg(result, ',') FROM run_command_on_workers(
    \$\$SELECT count(*) FROM gazepriv.ledger WHERE dataset = 'cross'\$\$)")
echo "coordinator: $on_coordinator released, $refused_over_budget refused over budget; worker: $on_worker released," \
    "$refused_on_worker refused naming the coordinator; other errors: $other; ledger rows $rows, spent $spent," \
    "releases $releases; ledger rows on the workers: $worker_rows"
[ "$on_coordinator" = 50 ] || { echo "expected exactly 50 releases on the coordinator"; exit 1; }
[ "$rows" = 50 ] && [ "$releases" = 50 ] || { echo "every release must have its ledger row"; exit 1; }
[ "$(citus_psql "$CITUS_PORT" -At -c "SELECT $spent <= 5.0")" = t ] || { echo "spent $spent exceeds the limit"; exit 1; }
[ "$on_worker" = 0 ] && [ "$refused_on_worker" = 16 ] || { echo "every worker client must be refused, naming the coordinator"; exit 1; }
[ "$refused_over_budget" -ge 1 ] && [ "$other" = 0 ] || { echo "expected refusals only"; exit 1; }
[ "$worker_rows" = "0,0" ] || { echo "a worker's ledger has rows"; exit 1; }
echo "cross-node charges: ok"
