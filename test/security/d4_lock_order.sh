#!/usr/bin/env bash
# D4: multi-statement transactions on a live feed cannot deadlock. Before, two transactions each inserting
# into two streams, in opposite order and in two statements, deadlocked (40P01). Now a transaction's first
# feed statement takes its streams in one global order and may wait, and a later statement that meets a
# stream held by another transaction fails with 40001 at once (retry the transaction), so no cycle forms.
. "$(dirname "$0")/roles_and_data.bash"
. "$(dirname "$0")/live_feed.bash"
attach_feed
as device -c "INSERT INTO sandbox_curator_a.gaze VALUES ('a', 0, 0.5, 0.5), ('b', 0, 0.5, 0.5)" >/dev/null
# transaction ROLE DELAY FIRST SECOND: after DELAY seconds, one transaction of ROLE running statement FIRST,
# then (1.5 s later) SECOND; prints the SQLSTATEs of its errors, or ok.
transaction() {
    local out
    out=$("$BIN/psql" -X -q -At -U "$1" -v VERBOSITY=sqlstate 2>&1 <<SQL
SELECT pg_sleep($2);
BEGIN;
$3;
SELECT pg_sleep(1.5);
$4;
COMMIT;
SQL
)
    out=$(sed -n 's/^ERROR:  *//p' <<<"$out" | sort -u | paste -sd,)
    echo "${out:-ok}"
}
insert() { echo "INSERT INTO sandbox_curator_a.gaze VALUES ('$1', $2, 0.5, 0.5)"; }
session() { transaction device "$3" "$(insert "$1" 10)" "$(insert "$2" 10)"; } # session FIRST SECOND DELAY
# race A B: runs the commands A and B at once; prints their two results, sorted, space-separated, and sets
# deadlocks to the number of 40P01 among them.
race() {
    $1 >/tmp/d4_first.$$ &
    $2 >/tmp/d4_second.$$ &
    wait
    results=$(sort /tmp/d4_first.$$ /tmp/d4_second.$$ | paste -sd' ')
    deadlocks=$(cat /tmp/d4_first.$$ /tmp/d4_second.$$ | grep -c 40P01 || true)
    rm -f /tmp/d4_first.$$ /tmp/d4_second.$$
}
race "session a b 0" "session b a 0.5"
check "opposite order in two statements: no deadlock" "$deadlocks" 0
check "the later statement that met a held stream failed with 40001, the other committed" "$results" "40001 ok"
check "the retry succeeds" "$(session a b 0)" ok
check "each stream has the samples of the committed transactions only" \
    "$(psql -At -c "SELECT string_agg(stream || ':' || samples, ' ' ORDER BY stream) FROM gazepriv.kaleido_streams")" "a:3 b:3"
# A reset takes the stream's lock as a feed statement does: the owner resetting stream a and then inserting
# into b, against a device inserting into b and then a, cannot deadlock either (before, the reset locked only
# the state row and the two waited on each other: 40P01).
reset_then_insert() {
    transaction curator_a 0.5 "SELECT gazepriv.kaleido_reset('sandbox_curator_a.gaze', 'a')" "$(insert b 20)"
}
race "session b a 0" reset_then_insert
check "a reset against inserts in the opposite order: no deadlock" "$deadlocks" 0
check "one side failed with 40001, the other committed" "$results" "40001 ok"
finish
