#!/usr/bin/env bash
# k-same-synth on full recordings ($SHARED_DATA), on a throwaway cluster. SYNTH_DATA=uniss (default: Uniss-FGD,
# the images are the tasks, Tobii at 300 Hz, I-VT 30 deg/s on the screen) or hoppe (Hoppe et al. 2018: the way
# to the shop, the shop and the way back are the tasks, SMI scene camera at 60 Hz, I-DT 3 deg, 100 ms). For k = 2, 4,
# 5 (one grouping across tasks, the default), SYNTH_REPS groupings each (default 3):
#   1. throughput of k_same_synth in synthetic samples per second, against detect_events on the same traces;
#   2. re-identification of the synthetic streams by an attacker who holds the original streams
#      (kanon_eval.py synth-attack): per (participant, task) stream the mean feature_windows vector (1 s
#      windows every 250 ms), z-scored over the training streams; 1-NN among the training streams of the same
#      task and a random forest over all tasks; chance is 1 / participants. Positive control: the same attacks
#      trained on the first half (in time) of every original stream and identifying the second halves, which
#      must be far above chance for the attack to mean anything;
#   3. what the synthetic streams keep: fixations detected per stream, fixation duration and saccade
#      amplitude (median) against the originals.
# SYNTH_IMAGES limits the Uniss images (default all) to keep the run short on a shared machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh
throwaway_cluster
psql() { cluster_psql -P footer=off "$@"; }
DATA=${SYNTH_DATA:-uniss}
IMAGES=${SYNTH_IMAGES:-1000}
REPS=${SYNTH_REPS:-3}

psql -c "CREATE EXTENSION gazepriv"
case "$DATA" in
uniss)
    load_full_uniss
    psql -v images="$IMAGES" <<'SQL'
CREATE TABLE samples AS SELECT participant, stimulus::text AS task, t_ms, x, y FROM uniss_samples
WHERE stimulus IN (SELECT DISTINCT stimulus FROM uniss_samples ORDER BY 1 LIMIT :images);
CREATE FUNCTION detector() RETURNS gazepriv.event_detector LANGUAGE sql IMMUTABLE
    RETURN gazepriv.ivt(30, 0, 20, 75, 75, gazepriv.screen_geometry(1280, 1024, 1040, 580, 1370));
CREATE FUNCTION rate_hz() RETURNS float8 LANGUAGE sql IMMUTABLE RETURN 300;
SQL
    ;;
hoppe)
    load_full_hoppe
    psql <<'SQL'
-- Gaze far outside the scene frame is invalid (the data's README); tasks split at the shop's enter and leave.
CREATE TABLE samples AS
SELECT h.participant, CASE WHEN h.t_ms < p.shop_enter_s * 1000 THEN 'way_to_shop'
                           WHEN h.t_ms < p.shop_leave_s * 1000 THEN 'shop' ELSE 'way_back' END AS task,
       h.t_ms, CASE WHEN h.x BETWEEN -1 AND 2 AND h.y BETWEEN -1 AND 2 THEN h.x END AS x, h.y
FROM hoppe_samples h JOIN hoppe_participants p USING (participant);
CREATE FUNCTION detector() RETURNS gazepriv.event_detector LANGUAGE sql IMMUTABLE
    RETURN gazepriv.idt(3, 100, gap_fill_ms => 75, geometry => gazepriv.camera_geometry(60, 46));
CREATE FUNCTION rate_hz() RETURNS float8 LANGUAGE sql IMMUTABLE RETURN 60;
SQL
    ;;
*) echo "SYNTH_DATA must be uniss or hoppe" >&2; exit 2 ;;
esac

psql <<'SQL'
CREATE TABLE traces AS SELECT participant, task, gazepriv.make_trace(t_ms, x, y) AS trace FROM samples GROUP BY 1, 2;
-- The default grouping needs every participant in every task.
DELETE FROM traces WHERE participant NOT IN (SELECT participant FROM traces GROUP BY 1
                                             HAVING count(*) = (SELECT count(DISTINCT task) FROM traces));
\timing on
CREATE TABLE events AS SELECT t.participant, t.task, e.* FROM traces t, gazepriv.detect_events(t.trace, detector()) e;
\timing off
-- ... and, for fixations and for saccades with a profile, in every task.
DELETE FROM events WHERE participant NOT IN (
    SELECT participant FROM events WHERE type = 'fixation' GROUP BY 1 HAVING count(DISTINCT task) = (SELECT count(DISTINCT task) FROM events)
    INTERSECT
    SELECT participant FROM events WHERE type = 'saccade' AND profile_a IS NOT NULL GROUP BY 1
    HAVING count(DISTINCT task) = (SELECT count(DISTINCT task) FROM events));
DELETE FROM traces WHERE participant NOT IN (SELECT participant FROM events);
SELECT count(DISTINCT participant) AS participants, count(DISTINCT task) AS tasks, count(*) AS events,
       (SELECT sum((SELECT count(*) FROM gazepriv.trace_samples(trace))) FROM traces) AS samples FROM events;
-- Features of a stream: the mean of its 1 s windows every 250 ms.
CREATE FUNCTION stream_features(trace gazepriv.gaze_trace) RETURNS float8[] LANGUAGE sql AS $$
    SELECT array_agg(v ORDER BY i) FROM (
        SELECT i, avg(f.features[i]) AS v
        FROM gazepriv.feature_windows(trace, detector(), 5, window_ms => 1000, step_ms => 250) f,
             generate_subscripts(f.features, 1) i GROUP BY i) s $$;
-- The attacker's streams: the originals whole, and split in time into halves (the positive control).
CREATE TABLE stream_features (kind text, k int, rep int, participant text, task text, f float8[]);
INSERT INTO stream_features SELECT 'original', 0, 0, participant, task, stream_features(trace) FROM traces;
INSERT INTO stream_features
SELECT CASE WHEN second THEN 'second' ELSE 'first' END, 0, 0, participant, task,
       stream_features(gazepriv.make_trace(t_ms, x, y))
FROM (SELECT s.*, s.t_ms >= (min(s.t_ms) OVER w + max(s.t_ms) OVER w) / 2 AS second
      FROM samples s JOIN traces USING (participant, task)
      WINDOW w AS (PARTITION BY s.participant, s.task)) h
GROUP BY participant, task, second;
CREATE TABLE results (k int, rep int, seconds float8, samples bigint, chance float8,
                      fixations_per_stream float8, fixation_ms_median float8, amplitude_deg_median float8);
INSERT INTO results
SELECT 0, 0, NULL, NULL, 1.0 / count(DISTINCT participant),
       (SELECT count(*)::float8 / count(DISTINCT (participant, task)) FROM events WHERE type = 'fixation'),
       (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) FROM events WHERE type = 'fixation'),
       (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY amplitude) FROM events WHERE type = 'saccade')
FROM events;
CREATE FUNCTION evaluate(k int, rep int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE started timestamptz; took float8;
BEGIN
    PERFORM set_config('gazepriv.max_synthesized_samples', '100000000', true);
    started := clock_timestamp();
    DROP TABLE IF EXISTS synthetic;
    CREATE TABLE synthetic AS SELECT * FROM gazepriv.k_same_synth('events', k, rate_hz());
    took := extract(epoch FROM clock_timestamp() - started);
    DROP TABLE IF EXISTS synthetic_traces, synthetic_events;
    CREATE TABLE synthetic_traces AS
    SELECT participant, task, gazepriv.make_trace(t_ms, x, y) AS trace FROM synthetic GROUP BY 1, 2;
    CREATE TABLE synthetic_events AS
    SELECT s.participant, s.task, e.* FROM synthetic_traces s,
         gazepriv.detect_events(s.trace, detector()) e;
    INSERT INTO stream_features
    SELECT 'synthetic', k, rep, participant, task, stream_features(trace) FROM synthetic_traces;
    INSERT INTO results
    SELECT k, rep, took, (SELECT count(*) FROM synthetic), NULL,
           (SELECT count(*)::float8 / count(DISTINCT (participant, task)) FROM synthetic_events WHERE type = 'fixation'),
           (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) FROM synthetic_events WHERE type = 'fixation'),
           (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY amplitude) FROM synthetic_events WHERE type = 'saccade');
END $$;
\timing on
SELECT count(*) AS detect_events_rows FROM traces t, gazepriv.detect_events(t.trace, detector()) e;
\timing off
SQL
for k in 2 4 5; do
    for rep in $(seq "$REPS"); do psql -c "SELECT evaluate($k, $rep)" >/dev/null; done
done
psql <<'SQL'
SELECT k, round(avg(seconds)::numeric, 2) AS seconds, round(avg(samples)) AS samples,
       round(avg(samples / seconds)::numeric) AS samples_per_s, round(avg(chance)::numeric, 3) AS chance,
       round(avg(fixations_per_stream)::numeric, 1) AS fixations_per_stream,
       round(avg(fixation_ms_median)::numeric, 1) AS fixation_ms_median,
       round(avg(amplitude_deg_median)::numeric, 2) AS amplitude_deg_median
FROM results GROUP BY k ORDER BY k;
SQL
psql -c "\\copy (SELECT kind, k, rep, participant, task, f AS features FROM stream_features) TO '$dir/streams.csv' WITH (FORMAT csv, HEADER true)"
"$PYTHON" bench/kanon/kanon_eval.py synth-attack "$dir/streams.csv"
