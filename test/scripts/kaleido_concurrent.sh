#!/usr/bin/env bash
# Live Kaleido under real concurrency: two processes feed two streams of one feed at the same time, in
# 30 transactions each, while a third feeds one stream in turns with them. Each seeded stream must equal
# its batch release draw for draw, and no state may be lost (sample counts, window accounting).
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh
throwaway_cluster
psql_run() { cluster_psql "$@"; }

psql_run <<'SQL'
CREATE EXTENSION gazepriv;
CREATE TABLE gaze (participant text, t_ms float8, x float8, y float8);
SELECT gazepriv.kaleido_attach('gaze', 'gaze_released', 'participant', epsilon => 1, w => 60, r => 0.05);
CREATE TABLE path AS
SELECT p, i, i * 16.7 AS t_ms, 0.5 + 0.4 * sin(i / 37.0 + p) AS x, 0.5 + 0.3 * cos(i / (23.0 * p)) AS y
FROM generate_series(1, 3) p, generate_series(1, 3000) i;
SQL

feed() { # feed STREAM SEED: 30 transactions of 100 samples
    {
        echo "SET gazepriv.seed = $2;"
        for c in $(seq 0 29); do
            echo "BEGIN; INSERT INTO gaze SELECT 'p$1', t_ms, x, y FROM path WHERE p = $1 AND i > $((c * 100)) AND i <= $((c * 100 + 100)) ORDER BY i; COMMIT;"
        done
    } | psql_run
}
# Stream p3 is fed by two processes in turns (chunk c by process c mod 2), each waiting for its turn.
feed_turns() { # feed_turns PARITY
    for c in $(seq "$1" 2 29); do
        until [ "$(psql_run -At -c "SELECT coalesce((SELECT samples FROM gazepriv.kaleido_streams WHERE stream = 'p3'), 0)")" -eq $((c * 100)) ]; do
            sleep 0.01
        done
        psql_run -c "INSERT INTO gaze SELECT 'p3', t_ms, x, y FROM path WHERE p = 3 AND i > $((c * 100)) AND i <= $((c * 100 + 100)) ORDER BY i"
    done
}
feed 1 101 & one=$!
feed 2 202 & two=$!
feed_turns 0 & even=$!
feed_turns 1 & odd=$!
wait $one $two $even $odd

# The batch calls get the live feed's t_skip (50) and max_tests (the nominal 60 Hz rule: 20 for w = 60), which
# batch kaleido() would otherwise take from the stream's own rate.
result=$(psql_run -At <<'SQL'
SET gazepriv.seed = 101;
CREATE TEMP TABLE batch1 AS SELECT k.* FROM (SELECT array_agg(t_ms ORDER BY i) t, array_agg(x ORDER BY i) x,
    array_agg(y ORDER BY i) y FROM path WHERE p = 1) s, gazepriv.kaleido(s.t, s.x, s.y, 1, 60, 0.05, t_skip => 50, max_tests => 20) k;
SET gazepriv.seed = 202;
CREATE TEMP TABLE batch2 AS SELECT k.* FROM (SELECT array_agg(t_ms ORDER BY i) t, array_agg(x ORDER BY i) x,
    array_agg(y ORDER BY i) y FROM path WHERE p = 2) s, gazepriv.kaleido(s.t, s.x, s.y, 1, 60, 0.05, t_skip => 50, max_tests => 20) k;
SELECT (SELECT count(*) FROM (SELECT t_ms, x, y, published, action, epsilon_spent, noise_radius FROM gaze_released
                              WHERE participant = 'p1' EXCEPT TABLE batch1) d)
     + (SELECT count(*) FROM (SELECT t_ms, x, y, published, action, epsilon_spent, noise_radius FROM gaze_released
                              WHERE participant = 'p2' EXCEPT TABLE batch2) d) AS differ,
       (SELECT string_agg(stream || ':' || samples, ' ' ORDER BY stream) FROM gazepriv.kaleido_streams) AS samples,
       (SELECT bool_and(spent <= 1) FROM (SELECT sum(epsilon_spent) OVER (PARTITION BY participant ORDER BY t_ms
                                            ROWS 59 PRECEDING) AS spent FROM gaze_released) w) AS windows_ok,
       (SELECT count(*) FROM gaze_released) AS released;
SQL
)
echo "differ|samples|windows_ok|released = $result"
[ "$result" = "0|p1:3000 p2:3000 p3:3000|t|9000" ]
