#!/usr/bin/env bash
# Progress of a long call, read from a second session while it runs (issue 21): the view gazepriv.progress
# shows a plausible-deniability synthesis's slots done of total and its phase, to the caller's role and
# superusers but not to a stranger; the counts of an analyst's release (running as the dataset's owner) are
# hidden from the analyst; NOTICEs come at the rate the session chose; a cancelled call leaves no row.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh
throwaway_cluster
psql_run() { cluster_psql "$@"; }
fail() { echo "FAILED: $*"; exit 1; }

# 60,000 feature windows in 3 tasks; with k = 500 and up to 300 candidates per slot the synthesis takes
# seconds (about 10 s on an idle core).
psql_run >/dev/null <<'SQL'
CREATE EXTENSION gazepriv;
CREATE ROLE curator LOGIN;
CREATE ROLE stranger LOGIN;
CREATE ROLE analyst LOGIN IN ROLE gazepriv_analyst;
CREATE TABLE w AS
SELECT 'p' || (i % 50) AS participant, 'task' || (i % 3) AS task, i AS "window",
       ARRAY(SELECT ((i::bigint * j * 7919 + j * j) % 1000) / 1000.0 FROM generate_series(1, 12) j)::float8[] AS features
FROM generate_series(1, 60000) i;
GRANT SELECT ON w TO curator;
SELECT gazepriv.register_dataset('wset', 'w', 'participant', task_column => 'task', window_column => 'window',
                                 features_column => 'features',
                                 bounds => jsonb_build_object('features', (SELECT jsonb_agg('[0, 1]'::jsonb)
                                                                           FROM generate_series(1, 12))));
SELECT gazepriv.set_release_policy('wset', 'pd', '{"k": 500, "gamma": 1.5, "model": "seed_based", "omega": 3,
                                                  "max_attempts": 300}');
SELECT gazepriv.grant_budget('wset', 'analyst', 0, 0, accounting => 'basic');
SQL
long_call="SELECT count(*) FROM gazepriv.pd_synthesize('w', k => 500, gamma => 1.5, model => 'seed_based', omega => 3, max_attempts => 300)"
view_of() { # view_of ROLE: the progress rows ROLE sees, pid|function|phase|done|total
    psql_run -At -U "$1" -c "SELECT pid, function, phase, coalesce(done::text, 'hidden'), coalesce(total::text, 'hidden') FROM gazepriv.progress"
}
wait_for_row() { # wait_for_row ROLE: until ROLE sees a row with its phase (60 s at most); a call's phase is
    local i row     # NULL from its start until it reports its first one, which a loaded machine can show
    for i in $(seq 1 600); do
        row=$(view_of "$1")
        [ -n "$(cut -d'|' -f3 <<<"$row")" ] && { echo "$row"; return 0; }
        sleep 0.1
    done
    return 1
}

# 1. The curator's call, watched by the curator's second session, a superuser and a stranger.
notices=$dir/notices # in the cluster's scratch directory, removed at exit
psql_run -U curator -c "SET gazepriv.progress_notice_interval = '500ms'" -c "$long_call" >/dev/null 2>"$notices" &
call=$!
first=$(wait_for_row curator) || fail "the curator never saw the call's progress"
echo "curator sees: $first"
IFS='|' read -r pid function phase done total <<<"$first"
[ "$function" = pd_synthesize ] || fail "function is $function"
[ "$phase" = synthesizing ] || fail "phase is $phase"
[ "$total" = 60000 ] || fail "total is $total, not the 60000 slots"
sleep 1.5
second=$(view_of curator)
echo "a moment later: $second"
if [ -n "$second" ]; then
    IFS='|' read -r _ _ _ done2 _ <<<"$second"
    [ "$done2" -ge "$done" ] || fail "done went back from $done to $done2"
fi
[ -z "$(view_of stranger)" ] || fail "a stranger sees the curator's call"
wait $call || fail "the long call failed: $(cat "$notices")"
[ -z "$(view_of postgres)" ] || fail "the row stayed after the call ended"
grep -c 'NOTICE:  gazepriv.pd_synthesize: synthesizing [0-9]* of 60000' "$notices" >/dev/null \
    || fail "no progress NOTICE: $(cat "$notices")"
echo "notices: $(grep -c NOTICE "$notices") at 500 ms, e.g. $(grep -m1 NOTICE "$notices")"

# 2. A cancelled call leaves no row (the transaction's end frees the slot).
psql_run -U curator -c "$long_call" >/dev/null 2>&1 &
call=$!
row=$(wait_for_row curator) || fail "the second call never showed"
pid=${row%%|*}
psql_run -At -c "SELECT pg_cancel_backend($pid)" >/dev/null
wait $call && fail "the cancelled call succeeded"
sleep 0.2
[ -z "$(view_of postgres)" ] || fail "a cancelled call left its row: $(view_of postgres)"
echo "cancelled call: row gone"

# 3. The analyst's release runs as the dataset's owner: the analyst sees the call, not its counts; a superuser
# sees them.
psql_run -U analyst -c "SELECT count(*) FROM gazepriv.pd_release('wset')" >/dev/null 2>&1 &
call=$!
row=$(wait_for_row analyst) || fail "the analyst never saw the release's progress"
echo "analyst sees: $row"
IFS='|' read -r _ function phase done total <<<"$row"
[ "$done|$total" = "hidden|hidden" ] || fail "the analyst sees the release's counts: $row"
super=$(view_of postgres)
echo "superuser sees: $super"
[ -z "$super" ] || [[ "$super" != *hidden* ]] || fail "a superuser does not see the counts"
wait $call || fail "the analyst's release failed"
echo "progress view: ok"
