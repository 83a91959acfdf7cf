#!/usr/bin/env bash
# k-same-synth on the full Uniss-FGD recordings ($SHARED_DATA; images are the tasks, 300 Hz Tobii), on a
# throwaway cluster: for k = 2, 4, 5 (one grouping across images, the default)
#   1. throughput of k_same_synth in synthetic samples per second, against detect_events on the same traces;
#   2. re-identification of the synthetic streams by an attacker who holds the original streams
#      (kanon_eval.py synth-attack): per (participant, image) stream the mean feature_windows vector (1 s
#      windows every 250 ms: a stream lasts a few seconds), z-scored over the training streams; 1-NN among the
#      training streams of the same image and a random forest over all images; chance is 1 / participants.
#      Positive control: the same attacks trained on the first half (in time) of every original stream and
#      identifying the second halves, which must be far above chance for the attack to mean anything;
#   3. what the synthetic streams keep: fixations detected per stream, fixation duration and saccade
#      amplitude (median, mean) against the originals.
# SYNTH_IMAGES limits the images (default all) to keep the run short on a shared machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh
throwaway_cluster
psql() { cluster_psql -P footer=off "$@"; }
IMAGES=${SYNTH_IMAGES:-1000}

psql <<'SQL'
CREATE EXTENSION gazepriv;
CREATE TABLE uniss_samples (participant text, stimulus int, t_ms float8, x float8, y float8,
                            pupil_left float8, pupil_right float8, event text, fixation_index int);
SQL
for f in "$SHARED_DATA"/uniss_fgd/samples/*.csv; do
    psql -c "\\copy uniss_samples FROM '$f' WITH (FORMAT csv, HEADER true)"
done

psql -v images="$IMAGES" <<'SQL'
\set screen 'gazepriv.screen_geometry(1280, 1024, 1040, 580, 1370)'
\set detector 'gazepriv.ivt(30, 0, 20, 75, 75, :screen)'
CREATE TABLE traces AS
SELECT participant, stimulus, gazepriv.make_trace(t_ms, x, y) AS trace FROM uniss_samples
WHERE stimulus IN (SELECT DISTINCT stimulus FROM uniss_samples ORDER BY 1 LIMIT :images) GROUP BY 1, 2;
-- The default grouping needs every participant on every image.
DELETE FROM traces WHERE participant NOT IN (SELECT participant FROM traces GROUP BY 1
                                             HAVING count(*) = (SELECT count(DISTINCT stimulus) FROM traces));
\timing on
CREATE TABLE events AS
SELECT t.participant, t.stimulus::text AS task, e.* FROM traces t, gazepriv.detect_events(t.trace, :detector) e;
\timing off
-- ... and, for fixations and for saccades with a profile, in every image.
DELETE FROM events WHERE participant NOT IN (
    SELECT participant FROM events WHERE type = 'fixation' GROUP BY 1 HAVING count(DISTINCT task) = (SELECT count(DISTINCT task) FROM events)
    INTERSECT
    SELECT participant FROM events WHERE type = 'saccade' AND profile_a IS NOT NULL GROUP BY 1
    HAVING count(DISTINCT task) = (SELECT count(DISTINCT task) FROM events));
DELETE FROM traces WHERE participant NOT IN (SELECT participant FROM events);
SELECT count(DISTINCT participant) AS participants, count(DISTINCT task) AS images, count(*) AS events,
       (SELECT sum((SELECT count(*) FROM gazepriv.trace_samples(trace))) FROM traces) AS samples FROM events;
-- Features of a stream: the mean of its 1 s windows every 250 ms.
CREATE FUNCTION stream_features(trace gazepriv.gaze_trace) RETURNS float8[] LANGUAGE sql AS $$
    SELECT array_agg(v ORDER BY i) FROM (
        SELECT i, avg(f.features[i]) AS v
        FROM gazepriv.feature_windows(trace, gazepriv.ivt(30, 0, 20, 75, 75,
                 gazepriv.screen_geometry(1280, 1024, 1040, 580, 1370)), 5, window_ms => 1000, step_ms => 250) f,
             generate_subscripts(f.features, 1) i GROUP BY i) s $$;
-- The attacker's streams: the originals whole, and split in time into halves (the positive control).
CREATE TABLE stream_features (kind text, k int, participant text, task text, f float8[]);
INSERT INTO stream_features SELECT 'original', 0, participant, stimulus::text, stream_features(trace) FROM traces;
INSERT INTO stream_features
SELECT CASE WHEN second THEN 'second' ELSE 'first' END, 0, participant, stimulus::text,
       stream_features(gazepriv.make_trace(t_ms, x, y))
FROM (SELECT s.*, s.t_ms >= (min(s.t_ms) OVER w + max(s.t_ms) OVER w) / 2 AS second
      FROM uniss_samples s JOIN traces USING (participant, stimulus)
      WINDOW w AS (PARTITION BY s.participant, s.stimulus)) h
GROUP BY participant, stimulus, second;
CREATE TABLE results (k int, seconds float8, samples bigint, chance float8,
                      fixations_per_stream float8, fixation_ms_median float8, amplitude_deg_median float8);
INSERT INTO results
SELECT 0, NULL, NULL, 1.0 / count(DISTINCT participant),
       (SELECT count(*)::float8 / count(DISTINCT (participant, task)) FROM events WHERE type = 'fixation'),
       (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) FROM events WHERE type = 'fixation'),
       (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY amplitude) FROM events WHERE type = 'saccade')
FROM events;
CREATE FUNCTION evaluate(k int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE started timestamptz; took float8;
BEGIN
    PERFORM set_config('gazepriv.max_synthesized_samples', '100000000', true);
    started := clock_timestamp();
    DROP TABLE IF EXISTS synthetic;
    CREATE TABLE synthetic AS SELECT * FROM gazepriv.k_same_synth('events', k, 300);
    took := extract(epoch FROM clock_timestamp() - started);
    DROP TABLE IF EXISTS synthetic_traces, synthetic_events;
    CREATE TABLE synthetic_traces AS
    SELECT participant, task, gazepriv.make_trace(t_ms, x, y) AS trace FROM synthetic GROUP BY 1, 2;
    CREATE TABLE synthetic_events AS
    SELECT s.participant, s.task, e.* FROM synthetic_traces s,
         gazepriv.detect_events(s.trace, gazepriv.ivt(30, 0, 20, 75, 75,
                                gazepriv.screen_geometry(1280, 1024, 1040, 580, 1370))) e;
    INSERT INTO stream_features
    SELECT 'synthetic', k, participant, task, stream_features(trace) FROM synthetic_traces;
    INSERT INTO results
    SELECT k, took, (SELECT count(*) FROM synthetic), NULL,
           (SELECT count(*)::float8 / count(DISTINCT (participant, task)) FROM synthetic_events WHERE type = 'fixation'),
           (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) FROM synthetic_events WHERE type = 'fixation'),
           (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY amplitude) FROM synthetic_events WHERE type = 'saccade');
END $$;
\timing on
SELECT count(*) AS detect_events_rows FROM traces t, gazepriv.detect_events(t.trace, :detector) e;
\timing off
SELECT evaluate(2);
SELECT evaluate(4);
SELECT evaluate(5);
SELECT k, round(seconds::numeric, 2) AS seconds, samples, round((samples / seconds)::numeric) AS samples_per_s,
       round(chance::numeric, 3) AS chance,
       round(fixations_per_stream::numeric, 1) AS fixations_per_stream,
       round(fixation_ms_median::numeric, 1) AS fixation_ms_median,
       round(amplitude_deg_median::numeric, 2) AS amplitude_deg_median
FROM results ORDER BY k;
SQL
psql -c "\\copy (SELECT kind, k, participant, task, f AS features FROM stream_features) TO '$dir/streams.csv' WITH (FORMAT csv, HEADER true)"
"$PYTHON" bench/kanon/kanon_eval.py synth-attack "$dir/streams.csv"
