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
#      amplitude (median) against the originals; for Uniss, 1-NN re-identification by an attacker holding
#      the original streams (the k-same-synth bench's attack: per (participant, image) the mean 1 s
#      feature_windows vector, z-scored; chance 1/participants).
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
-- Features of a stream for the re-identification attack: the mean of its 1 s windows.
CREATE FUNCTION stream_features(trace gazepriv.gaze_trace) RETURNS float8[] LANGUAGE sql AS $$
    SELECT array_agg(v ORDER BY i) FROM (
        SELECT i, avg(f.features[i]) AS v
        FROM gazepriv.feature_windows(trace, gazepriv.ivt(30, 0, 20, 75, 75,
                 gazepriv.screen_geometry(1280, 1024, 1040, 580, 1370)), 5, window_ms => 1000, step_ms => 1000) f,
             generate_subscripts(f.features, 1) i GROUP BY i) s $$;
CREATE TABLE original_features AS SELECT participant, task, stream_features(trace) AS f FROM traces WHERE data = 'uniss';
CREATE TABLE feature_scale AS
SELECT i, avg(f[i]) AS mean, nullif(stddev_pop(f[i]), 0) AS sd
FROM original_features, generate_subscripts(f, 1) i GROUP BY i;
CREATE TABLE results (data text, k int, gamma float8, seconds float8, samples bigint, fixation_pass float8,
                      fixation_attempts float8, saccade_pass float8, saccade_attempts float8, saccades_released float8,
                      reid_1nn float8, chance float8, fixations_per_stream float8, fixation_ms_median float8,
                      amplitude_median float8);
INSERT INTO results
SELECT data, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1.0 / count(DISTINCT participant),
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
    DROP TABLE IF EXISTS synthetic_events, synthetic_features, per_event;
    CREATE TABLE per_event AS SELECT participant, task, event_index, type, bool_or(passed) AS passed,
        max(attempts) AS attempts, count(t_ms) AS samples FROM synthetic GROUP BY 1, 2, 3, 4;
    CREATE TABLE synthetic_events AS
    SELECT s.participant, s.task, e.* FROM (SELECT participant, task, gazepriv.make_trace(t_ms, x, y) AS trace
                                            FROM synthetic WHERE t_ms IS NOT NULL GROUP BY 1, 2) s,
         gazepriv.detect_events(s.trace, detector(d)) e;
    CREATE TABLE synthetic_features AS SELECT participant, task, stream_features(gazepriv.make_trace(t_ms, x, y)) AS f
    FROM synthetic WHERE t_ms IS NOT NULL AND d = 'uniss' GROUP BY 1, 2;
    INSERT INTO results
    SELECT d, k, gamma, took, (SELECT count(t_ms) FROM synthetic),
           (SELECT avg(passed::int) FROM per_event WHERE type = 'fixation'),
           (SELECT avg(attempts) FROM per_event WHERE type = 'fixation' AND passed),
           (SELECT avg(passed::int) FROM per_event WHERE type = 'saccade'),
           (SELECT avg(attempts) FROM per_event WHERE type = 'saccade' AND passed),
           (SELECT avg((samples > 0)::int) FROM per_event WHERE type = 'saccade'),
           CASE WHEN d = 'uniss' THEN
           (SELECT avg((nearest = s.participant)::int) FROM (
                SELECT s.participant, (SELECT o.participant FROM original_features o WHERE o.task = s.task
                                       ORDER BY (SELECT sum(((s.f[c.i] - o.f[c.i]) / c.sd) ^ 2)
                                                 FROM feature_scale c WHERE c.sd IS NOT NULL) LIMIT 1) AS nearest
                FROM synthetic_features s) s) END,
           NULL,
           (SELECT count(*)::float8 / nullif(count(DISTINCT (participant, task)), 0) FROM synthetic_events WHERE type = 'fixation'),
           (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) FROM synthetic_events WHERE type = 'fixation'),
           (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY amplitude) FROM synthetic_events WHERE type = 'saccade');
END $$;
SELECT evaluate('uniss', 2, 2), evaluate('uniss', 5, 2), evaluate('uniss', 2, 1e10), evaluate('hoppe', 2, 2),
       evaluate('hoppe', 5, 2);
SELECT r.data, r.k, r.gamma, round(r.seconds::numeric, 2) AS seconds, r.samples,
       round((r.samples / r.seconds)::numeric) AS samples_per_s,
       round((t.samples / t.seconds)::numeric) AS detect_samples_per_s,
       round(r.fixation_pass::numeric, 3) AS fix_pass, round(r.fixation_attempts::numeric, 1) AS fix_attempts,
       round(r.saccade_pass::numeric, 3) AS sac_pass, round(r.saccade_attempts::numeric, 1) AS sac_attempts,
       round(r.saccades_released::numeric, 3) AS sac_released,
       round(r.reid_1nn::numeric, 3) AS reid_1nn, round(r.chance::numeric, 3) AS chance,
       round(r.fixations_per_stream::numeric, 1) AS fixations_per_stream,
       round(r.fixation_ms_median::numeric, 1) AS fixation_ms_median,
       round(r.amplitude_median::numeric, 2) AS amplitude_deg_median
FROM results r JOIN timings t ON t.data = r.data AND t.what = 'detect_events'
ORDER BY r.data DESC, r.k NULLS FIRST, r.gamma;
SQL
