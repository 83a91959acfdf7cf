#!/usr/bin/env bash
# D3: a device cannot make a statement or the stream state grow without bound. Before, one INSERT of 100 k or
# 300 k distinct streams took 1.39 / 3.98 GB, kaleido_streams grew without limit and its rows survived DROP
# TABLE. Now the streams of one statement and the stream-state rows of a feed are limited (54000, before
# anything is allocated or written), and dropping the source drops its state.
. "$(dirname "$0")/roles_and_data.bash"
. "$(dirname "$0")/live_feed.bash"
attach_feed
for n in 100000 300000; do
    check "one INSERT of $n distinct streams: 54000, backend under 1 GB" \
        "$(peak device "INSERT INTO sandbox_curator_a.gaze SELECT i::text, 0, 0.5, 0.5 FROM generate_series(1, $n) i" | under_1gb)" \
        "54000 under 1 GB"
done
check "the refusal names the limit" \
    "$(message device "INSERT INTO sandbox_curator_a.gaze SELECT i::text, 0, 0.5, 0.5 FROM generate_series(1, 100000) i" | grep -o gazepriv.max_kaleido_streams_per_statement)" \
    gazepriv.max_kaleido_streams_per_statement
check "and no state was written" "$(states)" 0
psql -c "LOAD 'gazepriv'" -c "ALTER SYSTEM SET gazepriv.max_kaleido_streams_per_statement = 100000" >/dev/null
psql -c "LOAD 'gazepriv'" -c "ALTER SYSTEM SET gazepriv.max_kaleido_streams = 2500" -c "SELECT pg_reload_conf()" >/dev/null
check "streams within both limits are fine" \
    "$(sqlstate device "INSERT INTO sandbox_curator_a.gaze SELECT i::text, 0, 0.5, 0.5 FROM generate_series(1, 2000) i")" ok
check "the state rows of one feed are limited" \
    "$(sqlstate device "INSERT INTO sandbox_curator_a.gaze SELECT i::text, 1, 0.5, 0.5 FROM generate_series(1, 3000) i")" 54000
check "naming the limit" \
    "$(message device "INSERT INTO sandbox_curator_a.gaze SELECT i::text, 1, 0.5, 0.5 FROM generate_series(1, 3000) i" | grep -o 'gazepriv.max_kaleido_streams)')" \
    "gazepriv.max_kaleido_streams)"
check "existing streams continue at the limit" \
    "$(sqlstate device "INSERT INTO sandbox_curator_a.gaze SELECT i::text, 1, 0.5, 0.5 FROM generate_series(1, 2000) i")" ok
check "the feed keeps 2000 stream states" "$(states)" 2000
as curator_a -c "DROP TABLE sandbox_curator_a.gaze" >/dev/null
check "dropping the source drops its state" "$(states)" 0
attach_feed
as device -c "INSERT INTO sandbox_curator_a.gaze VALUES ('1', 0, 0.5, 0.5)" >/dev/null
as curator_a -c "DROP SCHEMA sandbox_curator_a CASCADE" 2>/dev/null >/dev/null
check "and so does dropping its schema" "$(states)" 0
psql -c "LOAD 'gazepriv'" -c "ALTER SYSTEM RESET gazepriv.max_kaleido_streams" -c "ALTER SYSTEM RESET gazepriv.max_kaleido_streams_per_statement" -c "SELECT pg_reload_conf()" >/dev/null
finish
