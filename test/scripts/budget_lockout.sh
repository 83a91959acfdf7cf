#!/usr/bin/env bash
# Attack C5 (issue 14): a transaction holding one dataset's budget rows locked must neither park the charges
# of other datasets nor use up the background worker slots. Curator A can no longer lock dataset B's budget
# rows (SELECT ... FOR UPDATE: the catalog is closed to other curators, 42501); the rows are held instead by
# B's own curator, re-granting a budget in a transaction left open. Twelve of B's analysts release at once,
# first trying to wait an hour (SET gazepriv.charge_timeout is superuser-only: 42501, an error once gazepriv
# is loaded in the session, a warning and the value ignored before; they wait the 3 s the server allows).
# Meanwhile a third dataset's release is charged and a parallel query gets its workers; B's releases end in
# 55P03, uncharged; once the lock is let go, B's analysts release again. The server preloads gazepriv here
# (the other tests do not), so that the registry's reservation at start-up is exercised too.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh
CLUSTER_OPTIONS="-c max_worker_processes=8 -c max_parallel_workers=8 -c shared_preload_libraries=gazepriv"
CLUSTER_OPTIONS+=" -c gazepriv.charge_timeout=3s"
throwaway_cluster
psql() { cluster_psql "$@"; }
clients=12

psql <<'SQL'
CREATE EXTENSION gazepriv;
CREATE ROLE curator_a LOGIN IN ROLE gazepriv_curator;
CREATE ROLE curator_b LOGIN IN ROLE gazepriv_curator;
CREATE ROLE analyst_b LOGIN IN ROLE gazepriv_analyst;
CREATE ROLE analyst_c LOGIN IN ROLE gazepriv_analyst;
CREATE TABLE b_gaze (participant text);
CREATE TABLE c_gaze (participant text);
INSERT INTO b_gaze SELECT 'p' || i FROM generate_series(1, 10) i;
INSERT INTO c_gaze SELECT 'p' || (i % 50) FROM generate_series(1, 200000) i;
ALTER TABLE b_gaze OWNER TO curator_b;
ANALYZE c_gaze;
SET ROLE curator_b;
SELECT gazepriv.register_dataset('b', 'b_gaze', 'participant');
SELECT gazepriv.grant_budget('b', 'analyst_b', 10, 0, accounting => 'basic');
RESET ROLE;
SELECT gazepriv.register_dataset('c', 'c_gaze', 'participant');
SELECT gazepriv.grant_budget('c', 'analyst_c', 10, 0, accounting => 'basic');
GRANT SELECT ON c_gaze TO analyst_c;
SQL

# Curator A cannot lock B's budget rows; B's curator holds them in an open transaction.
psql -U curator_a -v ON_ERROR_STOP=0 -v VERBOSITY=sqlstate \
    -c "SELECT role FROM gazepriv.budgets WHERE dataset = 'b' FOR UPDATE" >"$dir/a_lock.log" 2>&1 || true
grep -q "ERROR:  42501" "$dir/a_lock.log" || { cat "$dir/a_lock.log"; echo "curator A locked B's budget rows"; exit 1; }
psql -U curator_b -c "BEGIN; SELECT gazepriv.grant_budget('b', 'analyst_b', 10, 0, accounting => 'basic');
                       SELECT pg_sleep(60); COMMIT;" >"$dir/locker.log" 2>&1 &
locker=$!
holding() { psql -At -c "SELECT count(*) FROM pg_stat_activity WHERE usename = 'curator_b' AND wait_event = 'PgSleep'"; }
for _ in $(seq 100); do
    [ "$(holding)" = 1 ] && break
    sleep 0.1
done
[ "$(holding)" = 1 ] || { cat "$dir/locker.log"; echo "curator B does not hold B's budget rows"; exit 1; }

# B's analysts release, trying to wait an hour for the lock.
for i in $(seq "$clients"); do
    psql -U analyst_b -v ON_ERROR_STOP=0 -v VERBOSITY=verbose -c "SET gazepriv.charge_timeout = '1h'" \
        -c "SELECT gazepriv.release_count('b', 0.1)" >"$dir/b_$i.log" 2>&1 &
done
sleep 1

# Meanwhile: another dataset's release is charged, and a parallel query gets both its workers.
start=$(date +%s.%N)
psql -U analyst_c -At -c "SELECT gazepriv.release_count('c', 0.1) IS NOT NULL" >"$dir/c.log" 2>&1 || true
c_seconds=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
launched=$(psql -U analyst_c -At -c "SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
    SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;
    EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM c_gaze" |
    sed -nE 's/.*Workers Launched: ([0-9]+).*/\1/p')
charge_workers=$(psql -At -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'gazepriv charge worker'")
echo "while B is locked: dataset c released=$(cat "$dir/c.log") in ${c_seconds}s, parallel workers launched=$launched," \
    "charge workers=$charge_workers"
[ "$(cat "$dir/c.log")" = t ] || { echo "dataset c's release failed while dataset b was locked"; exit 1; }
[ "$launched" = 2 ] || { echo "the parallel query got $launched workers, not 2"; exit 1; }
[ "$charge_workers" -le 1 ] || { echo "$charge_workers charge workers run for one database"; exit 1; }

# B's releases end after the superuser's 3 s with 55P03, uncharged; their SET was refused.
for pid in $(jobs -p); do [ "$pid" = "$locker" ] || wait "$pid" || true; done
refused_set=$(grep -l '42501: permission denied to set parameter "gazepriv.charge_timeout"' "$dir"/b_*.log | wc -l || true)
locked=$(grep -l "55P03: the privacy budget on dataset \"b\" stayed locked" "$dir"/b_*.log | wc -l || true)
echo "B's analysts: SET refused for $refused_set, releases ended locked for $locked of $clients"
[ "$refused_set" = "$clients" ] || { cat "$dir/b_1.log"; echo "a non-superuser could set charge_timeout"; exit 1; }
[ "$locked" = "$clients" ] || {
    grep -L "55P03: the privacy budget on dataset \"b\" stayed locked" "$dir"/b_*.log | xargs cat
    echo "B's releases did not all end with the lock error"; exit 1; }
[ "$(psql -At -c "SELECT count(*) FROM gazepriv.ledger WHERE dataset = 'b'")" = 0 ] ||
    { echo "a refused release of b was charged"; exit 1; }

# Once the lock is let go, B's analysts release again.
psql -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'curator_b'" >/dev/null
wait "$locker" || true
[ "$(psql -U analyst_b -At -c "SELECT gazepriv.release_count('b', 0.1) IS NOT NULL")" = t ] ||
    { echo "b could not release after the lock was released"; exit 1; }
read -r rows spent <<<"$(psql -At -F ' ' -c "SELECT (SELECT count(*) FROM gazepriv.ledger WHERE dataset = 'b'),
    spent_epsilon FROM gazepriv.budgets WHERE dataset = 'b'")"
[ "$rows $spent" = "1 0.1" ] || { echo "b's ledger and budget disagree: $rows rows, spent $spent"; exit 1; }
echo "budget lockout: ok"
