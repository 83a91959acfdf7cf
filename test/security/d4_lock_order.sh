#!/usr/bin/env bash
# D4: multi-statement transactions on a live feed cannot deadlock. Before, two transactions each inserting
# into two streams, in opposite order and in two statements, deadlocked (40P01). Now a transaction's first
# feed statement takes its streams in one global order and may wait, and a later statement that meets a
# stream held by another transaction fails with 40001 at once (retry the transaction), so no cycle forms.
. "$(dirname "$0")/roles_and_data.bash"
. "$(dirname "$0")/live_feed.bash"
attach_feed
as device -c "INSERT INTO sandbox_curator_a.gaze VALUES ('a', 0, 0.5, 0.5), ('b', 0, 0.5, 0.5)" >/dev/null
# session FIRST SECOND DELAY: one transaction inserting into stream FIRST, then (after DELAY) into SECOND;
# prints the SQLSTATEs of its errors, or ok.
session() {
    local out
    out=$("$BIN/psql" -X -q -At -U device -v VERBOSITY=sqlstate 2>&1 <<SQL
SELECT pg_sleep($3);
BEGIN;
INSERT INTO sandbox_curator_a.gaze VALUES ('$1', 10, 0.5, 0.5);
SELECT pg_sleep(1.5);
INSERT INTO sandbox_curator_a.gaze VALUES ('$2', 10, 0.5, 0.5);
COMMIT;
SQL
)
    out=$(sed -n 's/^ERROR:  *//p' <<<"$out" | sort -u | paste -sd,)
    echo "${out:-ok}"
}
session a b 0 >/tmp/d4_first.$$ &
session b a 0.5 >/tmp/d4_second.$$ &
wait
first=$(cat /tmp/d4_first.$$) second=$(cat /tmp/d4_second.$$)
rm -f /tmp/d4_first.$$ /tmp/d4_second.$$
check "opposite order in two statements: no deadlock" "$(grep -c 40P01 <<<"$first,$second")" 0
check "the later statement that met a held stream failed with 40001, the other committed" \
    "$(printf '%s\n' "$first" "$second" | sort | paste -sd' ')" "40001 ok"
check "the retry succeeds" "$(session a b 0)" ok
check "each stream has the samples of the committed transactions only" \
    "$(psql -At -c "SELECT string_agg(stream || ':' || samples, ' ' ORDER BY stream) FROM gazepriv.kaleido_streams")" "a:3 b:3"
# A reset takes the stream's lock as a feed statement does: the owner resetting stream a and then inserting
# into b, against a device inserting into b and then a, cannot deadlock either (before, the reset locked only
# the state row and the two waited on each other: 40P01).
reset_session() {
    local out
    out=$("$BIN/psql" -X -q -At -U curator_a -v VERBOSITY=sqlstate 2>&1 <<SQL
SELECT pg_sleep(0.5);
BEGIN;
SELECT gazepriv.kaleido_reset('sandbox_curator_a.gaze', 'a');
SELECT pg_sleep(1.5);
INSERT INTO sandbox_curator_a.gaze VALUES ('b', 20, 0.5, 0.5);
COMMIT;
SQL
)
    out=$(sed -n 's/^ERROR:  *//p' <<<"$out" | sort -u | paste -sd,)
    echo "${out:-ok}"
}
session b a 0 >/tmp/d4_first.$$ &
reset_session >/tmp/d4_second.$$ &
wait
first=$(cat /tmp/d4_first.$$) second=$(cat /tmp/d4_second.$$)
rm -f /tmp/d4_first.$$ /tmp/d4_second.$$
check "a reset against inserts in the opposite order: no deadlock" "$(grep -c 40P01 <<<"$first,$second")" 0
check "one side failed with 40001, the other committed" \
    "$(printf '%s\n' "$first" "$second" | sort | paste -sd' ')" "40001 ok"
finish
