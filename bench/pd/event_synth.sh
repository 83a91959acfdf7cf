#!/usr/bin/env bash
# event-synth-PD with saccades (TVCG 2023 supplement §2.2) on the full Uniss-FGD recordings (30 images as
# tasks, 300 Hz Tobii) and the first two minutes of each Hoppe 2018 recording (one task, 60 Hz SMI scene
# camera), on a throwaway cluster:
#   1. the saccade C-VAE trained in the database (the supplement's settings): training and validation loss,
#      seconds;
#   2. event_synth_pd at k = 2, 5 with gamma = 2, and k = 2 with gamma = 1e10 (Uniss): PD pass rates and
#      attempts of fixations and saccades, throughput in synthetic samples per second against detect_events on
#      the same traces; at most 100 candidates per event for Uniss, 20 for Hoppe (its one task holds every
#      participant's saccades, so each failing candidate is tested against all of them);
#   3. what the synthetic streams keep: events detected again per stream, fixation duration and saccade
#      amplitude (median) against the originals; for Uniss, per image the correlation (heatmap_cc) of the
#      synthetic gaze map with the original one, median and range over the images;
#   4. re-identification of the synthetic streams by an attacker holding the original streams, on both
#      datasets: the k-same-synth bench's attack (bench/kanon/synth_eval.psql and kanon_eval.py synth-attack:
#      per stream the mean feature_windows vector, 1-NN and a random forest, the positive control on halves
#      of the originals, chance 1/participants). The released streams are sparse: the table counts the
#      original streams, the released ones (at least one sample) and those without a feature window, which
#      the attacker can only guess (scored 1/participants).
# Events with a single sample (duration 0, sigma 0) are left out before training and synthesis.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh
throwaway_cluster
psql() { cluster_psql -P footer=off "$@"; }

psql -c "CREATE EXTENSION gazepriv"
load_full_uniss
load_full_hoppe

psql <<'SQL'
SET gazepriv.seed = 17;
SET gazepriv.max_synthesized_samples = 100000000;
\set screen 'gazepriv.screen_geometry(1280, 1024, 1040, 580, 1370)'
\set uniss_detector 'gazepriv.ivt(30, 0, 20, 75, 75, :screen)'
\set hoppe_detector 'gazepriv.ivt(60, 0, 33.4, 75, 75, gazepriv.camera_geometry(60, 46))'
CREATE TABLE traces AS
SELECT 'uniss' AS data, participant, stimulus::text AS task, gazepriv.make_trace(t_ms, x, y) AS trace
FROM uniss_samples GROUP BY 2, 3;
INSERT INTO traces
SELECT 'hoppe', participant, 'errand', gazepriv.make_trace(t_ms, x, y)
FROM (SELECT participant, t_ms, CASE WHEN x BETWEEN -1 AND 2 AND y BETWEEN -1 AND 2 THEN x END AS x, y,
             min(t_ms) OVER (PARTITION BY participant) AS t0 FROM hoppe_samples) s
WHERE t_ms < t0 + 120000 GROUP BY 2;
CREATE FUNCTION detector(data text) RETURNS gazepriv.event_detector LANGUAGE sql AS $$
    SELECT CASE data WHEN 'uniss' THEN gazepriv.ivt(30, 0, 20, 75, 75,
                                          gazepriv.screen_geometry(1280, 1024, 1040, 580, 1370))
                     ELSE gazepriv.ivt(60, 0, 33.4, 75, 75, gazepriv.camera_geometry(60, 46)) END $$;
CREATE TABLE timings (data text, what text, seconds float8, samples bigint);
CREATE FUNCTION timed(data text, what text, query text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE started timestamptz := clock_timestamp(); n bigint;
BEGIN
    EXECUTE query INTO n;
    INSERT INTO timings VALUES (data, what, extract(epoch FROM clock_timestamp() - started), n);
END $$;
SELECT timed(d, 'detect_events', format($q$SELECT sum((SELECT count(*) FROM gazepriv.trace_samples(t.trace)))
    FROM traces t, LATERAL (SELECT count(*) FROM gazepriv.detect_events(t.trace, detector(t.data))) e
    WHERE t.data = %L$q$, d)) FROM unnest(ARRAY['uniss', 'hoppe']) d;
CREATE TABLE events AS
SELECT t.data, t.participant, t.task, e.* FROM traces t, gazepriv.detect_events(t.trace, detector(t.data)) e
WHERE e.duration_ms > 0 AND (e.type = 'saccade' OR (e.sigma_x > 0 AND e.sigma_y > 0));
CREATE VIEW uniss_events AS SELECT * FROM events WHERE data = 'uniss';
CREATE VIEW hoppe_events AS SELECT * FROM events WHERE data = 'hoppe';
SELECT data, count(DISTINCT participant) AS participants, count(DISTINCT task) AS tasks,
       count(*) FILTER (WHERE type = 'fixation') AS fixations, count(*) FILTER (WHERE type = 'saccade') AS saccades,
       (SELECT sum((SELECT count(*) FROM gazepriv.trace_samples(trace))) FROM traces t WHERE t.data = e.data) AS samples
FROM events e GROUP BY data ORDER BY data;
SELECT gazepriv.register_dataset(d || '_events', (d || '_events')::regclass, 'participant') FROM unnest(ARRAY['uniss', 'hoppe']) d;

\echo '== 1. the saccade C-VAE (profile 32 bins, encoder 32 ReLU, latent 64, decoder 96 linear, Adam 0.01, batch 100, 20 epochs, 75/25)'
CREATE TABLE training (data text, seconds float8, training int, validation int, first_epoch float8, last_epoch float8,
                       validation_loss float8);
CREATE FUNCTION train(d text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE started timestamptz := clock_timestamp(); r record;
BEGIN
    SELECT * INTO r FROM gazepriv.train_saccade_model(d || '_model', d || '_events', (d || '_events')::regclass);
    INSERT INTO training VALUES (d, extract(epoch FROM clock_timestamp() - started), r.training_saccades,
                                 r.validation_saccades, r.epoch_loss[1], r.epoch_loss[20], r.validation_loss);
END $$;
SELECT train('uniss'), train('hoppe');
SELECT data, round(seconds::numeric, 2) AS seconds, training, validation, round(first_epoch::numeric, 3) AS first_epoch_loss,
       round(last_epoch::numeric, 3) AS last_epoch_loss, round(validation_loss::numeric, 3) AS validation_loss
FROM training ORDER BY data;

\echo '== 2-3. event_synth_pd (sampling at 300 Hz for Uniss, 60 Hz for Hoppe; max_attempts 100 / 20)'
-- The attacker's streams and the per-image gaze maps (bench/kanon/synth_eval.psql, shared with k-same-synth),
-- in a schema per dataset: its originals (the traces' samples) and its detector.
CREATE SCHEMA uniss_eval;
CREATE VIEW uniss_eval.originals AS SELECT participant, stimulus::text AS task, t_ms, x, y FROM uniss_samples;
CREATE FUNCTION uniss_eval.detector() RETURNS gazepriv.event_detector LANGUAGE sql IMMUTABLE
    RETURN gazepriv.ivt(30, 0, 20, 75, 75, gazepriv.screen_geometry(1280, 1024, 1040, 580, 1370));
CREATE SCHEMA hoppe_eval;
CREATE VIEW hoppe_eval.originals AS
SELECT participant, 'errand' AS task, t_ms, CASE WHEN x BETWEEN -1 AND 2 AND y BETWEEN -1 AND 2 THEN x END AS x, y
FROM (SELECT *, min(t_ms) OVER (PARTITION BY participant) AS t0 FROM hoppe_samples) s WHERE t_ms < t0 + 120000;
CREATE FUNCTION hoppe_eval.detector() RETURNS gazepriv.event_detector LANGUAGE sql IMMUTABLE
    RETURN gazepriv.ivt(60, 0, 33.4, 75, 75, gazepriv.camera_geometry(60, 46));
SET search_path = uniss_eval, public;
\i bench/kanon/synth_eval.psql
SELECT add_image_cc_baseline();
SET search_path = hoppe_eval, public;
\i bench/kanon/synth_eval.psql
RESET search_path;
CREATE TABLE results (data text, k int, gamma float8, seconds float8, samples bigint, fixation_pass float8,
                      fixation_attempts float8, saccade_pass float8, saccade_attempts float8, saccades_released float8,
                      chance float8, fixations_per_stream float8, fixation_ms_median float8, amplitude_median float8);
INSERT INTO results
SELECT data, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1.0 / count(DISTINCT participant),
       count(*) FILTER (WHERE type = 'fixation')::float8 / count(DISTINCT (participant, task)),
       percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) FILTER (WHERE type = 'fixation'),
       percentile_cont(0.5) WITHIN GROUP (ORDER BY amplitude) FILTER (WHERE type = 'saccade')
FROM events GROUP BY data;
CREATE FUNCTION evaluate(d text, k int, gamma float8) RETURNS void LANGUAGE plpgsql AS $$
DECLARE started timestamptz; took float8; rate float8 := CASE d WHEN 'uniss' THEN 300 ELSE 60 END;
        tries int := CASE d WHEN 'uniss' THEN 100 ELSE 20 END;
BEGIN
    started := clock_timestamp();
    DROP TABLE IF EXISTS synthetic;
    EXECUTE format('CREATE TABLE synthetic AS SELECT * FROM gazepriv.event_synth_pd(%L, %L, %s, %s, %s, %s, '
                   'include_failed => true)', d || '_events', d || '_model', k, gamma, rate, tries);
    took := extract(epoch FROM clock_timestamp() - started);
    RAISE NOTICE '% k = % gamma = %: % s', d, k, gamma, round(took::numeric, 1);
    DROP TABLE IF EXISTS synthetic_events, per_event;
    CREATE TABLE per_event AS SELECT participant, task, event_index, type, bool_or(passed) AS passed,
        max(attempts) AS attempts, count(t_ms) AS samples FROM synthetic GROUP BY 1, 2, 3, 4;
    CREATE TABLE synthetic_events AS
    SELECT s.participant, s.task, e.* FROM (SELECT participant, task, gazepriv.make_trace(t_ms, x, y) AS trace
                                            FROM synthetic WHERE t_ms IS NOT NULL GROUP BY 1, 2) s,
         gazepriv.detect_events(s.trace, detector(d)) e;
    INSERT INTO results
    SELECT d, k, gamma, took, (SELECT count(t_ms) FROM synthetic),
           (SELECT avg(passed::int) FROM per_event WHERE type = 'fixation'),
           (SELECT avg(attempts) FROM per_event WHERE type = 'fixation' AND passed),
           (SELECT avg(passed::int) FROM per_event WHERE type = 'saccade'),
           (SELECT avg(attempts) FROM per_event WHERE type = 'saccade' AND passed),
           (SELECT avg((samples > 0)::int) FROM per_event WHERE type = 'saccade'),
           NULL,
           (SELECT count(*)::float8 / nullif(count(DISTINCT (participant, task)), 0) FROM synthetic_events WHERE type = 'fixation'),
           (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) FROM synthetic_events WHERE type = 'fixation'),
           (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY amplitude) FROM synthetic_events WHERE type = 'saccade');
    -- The attack's streams and, for Uniss, the gaze maps, with the dataset's schema's objects.
    PERFORM set_config('search_path', d || '_eval, public', true);
    PERFORM add_synthetic_streams(format('event-synth-PD k = %s, γ = %s', k, gamma), 1, 'public.synthetic');
    IF d = 'uniss' THEN
        PERFORM add_image_cc(format('event-synth-PD k = %s, γ = %s', k, gamma), 1, 'public.synthetic');
    END IF;
    PERFORM set_config('search_path', 'public', true);
END $$;
SELECT evaluate('uniss', 2, 2), evaluate('uniss', 5, 2), evaluate('uniss', 2, 1e10), evaluate('hoppe', 2, 2),
       evaluate('hoppe', 5, 2);
SELECT r.data, r.k, r.gamma, round(r.seconds::numeric, 2) AS seconds, r.samples,
       round((r.samples / r.seconds)::numeric) AS samples_per_s,
       round((t.samples / t.seconds)::numeric) AS detect_samples_per_s,
       round(r.fixation_pass::numeric, 3) AS fix_pass, round(r.fixation_attempts::numeric, 1) AS fix_attempts,
       round(r.saccade_pass::numeric, 3) AS sac_pass, round(r.saccade_attempts::numeric, 1) AS sac_attempts,
       round(r.saccades_released::numeric, 3) AS sac_released,
       round(r.chance::numeric, 3) AS chance,
       round(r.fixations_per_stream::numeric, 1) AS fixations_per_stream,
       round(r.fixation_ms_median::numeric, 1) AS fixation_ms_median,
       round(r.amplitude_median::numeric, 2) AS amplitude_deg_median
FROM results r JOIN timings t ON t.data = r.data AND t.what = 'detect_events'
ORDER BY r.data DESC, r.k NULLS FIRST, r.gamma;
SELECT * FROM uniss_eval.image_cc_summary;
SQL
for d in uniss hoppe; do
    echo "== re-identification, $d"
    psql -c "\\copy (SELECT kind, release, rep, participant, task, samples, f AS features FROM ${d}_eval.attack_streams) TO '$dir/$d-streams.csv' WITH (FORMAT csv, HEADER true)"
    "$PYTHON" bench/kanon/kanon_eval.py synth-attack "$dir/$d-streams.csv"
done
