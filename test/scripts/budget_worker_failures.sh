#!/usr/bin/env bash
# The charge worker's failure modes. A trigger on the ledger makes a charge slow ("slow N": N seconds inside
# the worker's transaction), so that the worker can be hit mid-charge. In every case the release fails
# closed (no result without a committed charge), the ledger and the budget totals agree, the budget is
# never overspent, and the next charge works:
#  1. kill -9 of the worker mid-charge: the server restarts, the caller's connection ends, nothing charged;
#  2. pg_terminate_backend of the worker mid-charge: the caller gets PB004, nothing charged;
#  3. pg_cancel_backend of the worker mid-charge: that charge fails (PB004), the worker keeps serving;
#  4. the caller cancelled while its charge is applied: the charge stands, the session charges again;
#  5. a fast restart of the server with a charge in flight;
#  6. 16 clients releasing while the worker is killed with -9, then releasing until refused: exactly
#     limit / cost releases in all, the limit never exceeded, every returned release with its ledger row;
#  7. DROP DATABASE right after a charge there: the idle worker leaves in time (DROP DATABASE waits 5 s).
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh
CLUSTER_OPTIONS="-c fsync=on -c restart_after_crash=on -c max_connections=60" throwaway_cluster
bin=$("$PG_CONFIG" --bindir)
psql() { cluster_psql "$@"; }

psql <<'SQL'
CREATE EXTENSION gazepriv;
CREATE TABLE w_gaze (participant text);
INSERT INTO w_gaze SELECT 'p' || i FROM generate_series(1, 10) i;
SELECT gazepriv.register_dataset('w', 'w_gaze', 'participant') \g /dev/null
SELECT gazepriv.grant_budget('w', 'postgres', 100, 0, accounting => 'basic') \g /dev/null
CREATE FUNCTION slow_charge() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.mechanism LIKE 'slow %' THEN
        PERFORM pg_sleep(split_part(NEW.mechanism, ' ', 2)::float8);
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER slow_charge BEFORE INSERT ON gazepriv.ledger FOR EACH ROW EXECUTE FUNCTION slow_charge();
SQL

worker_pid() { psql -At -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'gazepriv charge worker'"; }
wait_for_worker_sleeping() {
    for _ in $(seq 100); do
        [ "$(psql -At -c "SELECT count(*) FROM pg_stat_activity
                          WHERE backend_type = 'gazepriv charge worker' AND wait_event = 'PgSleep'")" = 1 ] && return 0
        sleep 0.1
    done
    echo "the worker is not in the slow charge"
    exit 1
}
wait_for_server() {
    for _ in $(seq 150); do
        "$bin/pg_isready" -q && psql -At -c "SELECT 1" >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    echo "the server did not come back"
    exit 1
}
# The ledger and the budget totals agree: "rows spent" of dataset w.
totals() {
    psql -At -F " " -c "SELECT count(l.id), coalesce(sum(l.epsilon), 0) = b.spent_epsilon AND count(l.id) = b.releases,
                               b.spent_epsilon
                        FROM gazepriv.budgets b LEFT JOIN gazepriv.ledger l ON l.dataset = b.dataset AND l.role = b.role
                        WHERE b.dataset = 'w' GROUP BY b.spent_epsilon, b.releases"
}
expect_totals() { # expect_totals ROWS SPENT
    local got
    got=$(totals)
    [ "$got" = "$1 t $2" ] || { echo "expected $1 ledger rows agreeing with spent $2, got: $got"; exit 1; }
}
charge() { psql -At -c "SELECT gazepriv.charge_budget('w', '$1', $2) > 0"; }
# hit_worker_mid_charge LOG COMMAND...: starts a slow charge, runs COMMAND once the worker is inside it, and
# prints what the caller got (into LOG too).
hit_worker_mid_charge() {
    local log=$dir/$1 caller
    shift
    psql -At -v VERBOSITY=verbose -c "SELECT gazepriv.charge_budget('w', 'slow 30', 0.5)" >"$log" 2>&1 &
    caller=$!
    wait_for_worker_sleeping
    "$@"
    wait "$caller" || true
    cat "$log"
}
signal_worker() { # signal_worker pg_terminate_backend|pg_cancel_backend: remembers the pid in $signalled
    signalled=$(worker_pid)
    psql -At -c "SELECT $1($signalled)" >/dev/null
}

echo "1. kill -9 of the worker mid-charge"
kill_worker() { kill -9 "$(worker_pid)"; }
hit_worker_mid_charge c1.log kill_worker
! grep -qx '[0-9]\+' "$dir/c1.log" || { echo "the caller got a result"; exit 1; }
wait_for_server
grep -q "gazepriv charge worker.*was terminated by signal 9" "$dir/server.log" || { echo "no crash seen"; exit 1; }
expect_totals 0 0
[ "$(charge fast 0.25)" = t ] || { echo "no charge after the crash"; exit 1; }
expect_totals 1 0.25

echo "2. pg_terminate_backend of the worker mid-charge"
hit_worker_mid_charge c2.log signal_worker pg_terminate_backend
grep -q "PB004: the privacy budget charge failed: the charge worker exited before its transaction committed" \
    "$dir/c2.log" || { echo "expected PB004"; exit 1; }
expect_totals 1 0.25
[ "$(charge fast 0.25)" = t ] || { echo "no charge after the worker was terminated"; exit 1; }
expect_totals 2 0.50

echo "3. pg_cancel_backend of the worker mid-charge"
hit_worker_mid_charge c3.log signal_worker pg_cancel_backend
grep -q "PB004: the privacy budget charge failed: canceling statement due to user request" "$dir/c3.log" ||
    { echo "expected PB004"; exit 1; }
[ "$(charge fast 0.25)" = t ] || { echo "no charge after the cancel"; exit 1; }
[ "$(worker_pid)" = "$signalled" ] || { echo "the worker did not survive a cancel"; exit 1; }
expect_totals 3 0.75

echo "4. the caller cancelled while its charge is applied"
psql -At -v ON_ERROR_STOP=0 -v VERBOSITY=verbose >"$dir/c4.log" 2>&1 <<'SQL'
SET statement_timeout = '1s';
SELECT gazepriv.charge_budget('w', 'slow 3', 0.5);
RESET statement_timeout;
SELECT gazepriv.charge_budget('w', 'fast', 0.25) > 0 AS charged_again;
SQL
cat "$dir/c4.log"
grep -q "57014: canceling statement due to statement timeout" "$dir/c4.log" && grep -qx t "$dir/c4.log" ||
    { echo "expected a cancel, then a charge"; exit 1; }
expect_totals 5 1.50 # the cancelled charge stands: nothing was released for it

echo "5. a fast restart with a charge in flight"
restart() { as_server_user "$bin/pg_ctl" -D "$dir/data" -m fast -w restart >/dev/null; }
hit_worker_mid_charge c5.log restart
! grep -qx '[0-9]\+' "$dir/c5.log" || { echo "the caller got a result"; exit 1; }
wait_for_server
expect_totals 5 1.50
[ "$(charge fast 0.25)" = t ] || { echo "no charge after the restart"; exit 1; }
expect_totals 6 1.75

echo "6. 16 clients, the worker killed with -9 among them, then releasing until refused"
psql -c "DROP TRIGGER slow_charge ON gazepriv.ledger" \
    -c "SELECT gazepriv.grant_budget('w', 'postgres', 21.75, 0, accounting => 'basic')" >/dev/null
echo "SELECT gazepriv.release_count('w', 0.01);" >"$dir/release.sql"
chmod 644 "$dir/release.sql"
"$bin/pgbench" -n -c 16 -j 4 -t 200 -f "$dir/release.sql" postgres >"$dir/pgbench1.log" 2>&1 &
bench=$!
for _ in $(seq 200); do
    [ "$(psql -At -c "SELECT count(*) >= 206 FROM gazepriv.ledger")" = t ] && break
    sleep 0.05
done
kill -9 "$(worker_pid)"
wait "$bench" || true
wait_for_server
first=$(sed -nE 's/^number of transactions actually processed: ([0-9]+).*/\1/p' "$dir/pgbench1.log")
read -r rows agree spent <<<"$(totals)"
echo "until the crash: $first releases returned; ledger rows $((rows - 6)), spent $spent, agree $agree"
[ "$agree" = t ] && [ "$first" -le "$((rows - 6))" ] || { echo "a release returned without its charge"; exit 1; }
[ "$((rows - 6))" -lt 2000 ] || { echo "the worker was killed after the budget ran out: no test"; exit 1; }
"$bin/pgbench" -n -c 16 -j 4 -t 200 -f "$dir/release.sql" postgres >"$dir/pgbench2.log" 2>&1 || true
second=$(sed -nE 's/^number of transactions actually processed: ([0-9]+).*/\1/p' "$dir/pgbench2.log")
other=$(grep "ERROR" "$dir/pgbench2.log" | grep -vc "privacy budget exceeded" || true)
read -r rows agree spent <<<"$(totals)"
echo "then: $second more releases; ledger rows $rows, spent $spent of 21.75, agree $agree, other errors $other"
[ "$agree" = t ] && [ "$other" = 0 ] || { echo "the totals disagree or a release failed otherwise"; exit 1; }
[ "$spent" = 21.75 ] && [ "$((rows - 6))" = 2000 ] ||
    { echo "expected exactly 2000 releases of 0.01 in all and the limit reached, got $((rows - 6)), $spent"; exit 1; }

echo "7. DROP DATABASE right after a charge there"
psql -c "CREATE DATABASE dropme" >/dev/null
psql -d dropme <<'SQL'
CREATE EXTENSION gazepriv;
CREATE TABLE d_gaze (participant text);
SELECT gazepriv.register_dataset('d', 'd_gaze', 'participant') \g /dev/null
SELECT gazepriv.grant_budget('d', 'postgres', 1, 0, accounting => 'basic') \g /dev/null
SELECT gazepriv.release_count('d', 0.5) IS NOT NULL AS released;
SQL
psql -c "DROP DATABASE dropme" || { echo "the charge worker kept DROP DATABASE from running"; exit 1; }
echo "budget worker failures: ok"
