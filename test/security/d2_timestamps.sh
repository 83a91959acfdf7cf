#!/usr/bin/env bash
# D2: a device's timestamp cannot poison a stream. Before, t_ms = 1e308 was accepted, and every later sample
# of that participant's stream was refused as decreasing until the owner reset it. Now |t_ms| > 2^53 is
# refused, and so is a jump beyond the owner's max_gap; the statement fails and the stream continues.
. "$(dirname "$0")/roles_and_data.bash"
. "$(dirname "$0")/live_feed.bash"
insert() { sqlstate device "INSERT INTO sandbox_curator_a.gaze VALUES ('7', $1, 0.5, 0.5)"; }
attach_feed
check "a first sample" "$(insert 100)" ok
for t in 1e308 "'Infinity'" "'NaN'" -1e308 1e16; do
    check "t_ms = $t is refused" "$(insert "$t")" 22023
done
check "and the stream continues from its last sample" "$(insert 200)" ok
check "without any release of the refused samples" "$(released "WHERE participant = '7'")" 2
attach_feed ", max_gap => 10000"
check "with max_gap 10 s: a first sample" "$(insert 100)" ok
check "a jump of 1e12 ms is refused" "$(insert 1e12)" 22023
check "a jump of 10.001 s is refused" "$(insert 10101)" 22023
check "the stream continues" "$(insert 10100)" ok
check "and its state holds the last accepted sample" \
    "$(psql -At -c "SELECT samples, last_t_ms FROM gazepriv.kaleido_streams WHERE stream = '7'")" "2|10100"
check "max_gap must be finite and positive" \
    "$(sqlstate curator_a "SELECT gazepriv.kaleido_attach('sandbox_curator_a.gaze', 'other', 'participant', 1, 10, 0.05, max_gap => 'Infinity')")" 22023
finish
