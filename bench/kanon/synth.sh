#!/usr/bin/env bash
# k-same-synth on full recordings ($SHARED_DATA), on a throwaway cluster. SYNTH_DATA=uniss (default: Uniss-FGD,
# the images are the tasks, Tobii at 300 Hz, I-VT 30 deg/s on the screen) or hoppe (Hoppe et al. 2018: the way
# to the shop, the shop and the way back are the tasks, SMI scene camera at 60 Hz, I-DT 3 deg, 100 ms). For k = 2, 4,
# 5 (one grouping across tasks, the default), SYNTH_REPS groupings each (default 3):
#   1. throughput of k_same_synth in synthetic samples per second, against detect_events on the same traces;
#   2. re-identification of the synthetic streams by an attacker who holds the original streams
#      (synth_eval.psql, shared with bench/pd/event_synth.sh, and kanon_eval.py synth-attack): per
#      (participant, task) stream the mean feature_windows vector (1 s windows every 250 ms), z-scored over the
#      training streams; 1-NN among the training streams of the same task and a random forest over all tasks;
#      chance is 1 / participants. Positive control: the same attacks trained on the first half (in time) of
#      every original stream and identifying the second halves, which must be far above chance for the attack
#      to mean anything;
#   3. what the synthetic streams keep: fixations detected per stream, fixation duration and saccade
#      amplitude (median) against the originals; for Uniss, per image the correlation (heatmap_cc) of the
#      synthetic gaze map with the original one (synth_eval.psql: 32 px cells, 24 px blur), median and range
#      over the images and groupings, against the reference of the other images' original gaze.
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
-- The attacker's streams (the originals whole and in halves) and the per-image gaze maps.
CREATE VIEW originals AS SELECT * FROM samples WHERE participant IN (SELECT participant FROM traces);
\i bench/kanon/synth_eval.psql
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
    PERFORM add_synthetic_streams(format('k-same-synth k = %s', k), rep, 'synthetic');
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
    for rep in $(seq "$REPS"); do
        psql -c "SELECT evaluate($k, $rep)" >/dev/null
        if [ "$DATA" = uniss ]; then psql -c "SELECT add_image_cc('k-same-synth k = $k', $rep, 'synthetic')" >/dev/null; fi
    done
done
if [ "$DATA" = uniss ]; then psql -c "SELECT add_image_cc_baseline()" -c "SELECT * FROM image_cc_summary"; fi
psql <<'SQL'
SELECT k, round(avg(seconds)::numeric, 2) AS seconds, round(avg(samples)) AS samples,
       round(avg(samples / seconds)::numeric) AS samples_per_s, round(avg(chance)::numeric, 3) AS chance,
       round(avg(fixations_per_stream)::numeric, 1) AS fixations_per_stream,
       round(avg(fixation_ms_median)::numeric, 1) AS fixation_ms_median,
       round(avg(amplitude_deg_median)::numeric, 2) AS amplitude_deg_median
FROM results GROUP BY k ORDER BY k;
SQL
psql -c "\\copy (SELECT kind, release, rep, participant, task, samples, f AS features FROM attack_streams) TO '$dir/streams.csv' WITH (FORMAT csv, HEADER true)"
"$PYTHON" bench/kanon/kanon_eval.py synth-attack "$dir/streams.csv"
