-- event-synth-PD with saccades (TVCG 2023 supplement 2.2): the C-VAE trained in the database on the real
-- slice of 53_events_real_data (gazepriv_test.uniss, image 2, 20 participants, 300 Hz), its catalog, and the
-- synthetic sample streams under the PD event test.
CREATE TABLE es_events AS
SELECT s.participant, s.stimulus::text AS task, e.*
FROM (SELECT participant, stimulus, gazepriv.make_trace(t_ms, x, y) AS trace
      FROM gazepriv_test.uniss GROUP BY 1, 2) s,
     gazepriv.detect_events(s.trace, gazepriv.ivt(30, velocity_window_ms => 20, gap_fill_ms => 75,
         geometry => gazepriv.screen_geometry(1280, 1024, 1040, 580, 1370))) e;
-- Single-sample events (duration 0, sigma 0) cannot be modelled: the curator filters them.
CREATE VIEW es_usable AS
SELECT * FROM es_events WHERE duration_ms > 0 AND (type = 'saccade' OR (sigma_x > 0 AND sigma_y > 0));
SELECT gazepriv.register_dataset('es_uniss', 'es_events', 'participant');
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.fit_saccade_model('es_events')$$) AS zero_duration;

-- Training: deterministic under gazepriv.seed, the loss falls, the model is stored with its settings.
SET gazepriv.seed = 74;
CREATE TABLE es_fit AS SELECT * FROM gazepriv.fit_saccade_model('es_usable');
SET gazepriv.seed = 74;
SELECT f.model = (SELECT model FROM gazepriv.fit_saccade_model('es_usable')) AS same_seed_same_model,
       f.training_saccades, f.validation_saccades, cardinality(f.epoch_loss) AS epochs,
       f.epoch_loss[20] < f.epoch_loss[1] / 10 AS loss_falls, f.validation_loss < 3 AS validation_loss_small,
       f.parameters
FROM es_fit f;
SET gazepriv.seed = 74;
SELECT training_saccades, validation_saccades,
       validation_loss = (SELECT validation_loss FROM es_fit) AS as_fitted
FROM gazepriv.train_saccade_model('es_m', 'es_uniss', 'es_usable');
SELECT name, dataset, trained_by, parameters ->> 'latent' AS latent, octet_length(model) AS bytes,
       model = (SELECT model FROM es_fit) AS stored_model
FROM gazepriv.saccade_models;
SELECT gazepriv_test.error_of($$SELECT gazepriv.train_saccade_model('es_m', 'es_uniss', 'es_usable')$$) AS taken;
SELECT gazepriv_test.error_of($$SELECT gazepriv.train_saccade_model('x', 'nope', 'es_usable')$$) AS no_dataset;
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.fit_saccade_model('es_usable', profile_length => 100000)$$)
    AS huge_profile,
       gazepriv_test.error_of($$SELECT * FROM gazepriv.fit_saccade_model('es_usable', learning_rate => 'NaN')$$)
    AS nan_rate,
       gazepriv_test.error_of($$SELECT * FROM gazepriv.fit_saccade_model('es_usable', epochs => 0)$$) AS no_epochs;
SET gazepriv.max_training_saccades = 10;
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.fit_saccade_model('es_usable')$$) AS over_limit;
RESET gazepriv.max_training_saccades;

-- Synthesis: every sample on the public 300 Hz grid inside its event's span, bounded attempts, each saccade
-- on the segment between its stream's neighbouring released fixations.
SET gazepriv.seed = 75;
CREATE TABLE es_out AS
SELECT * FROM gazepriv.event_synth_pd('es_usable', 'es_m', k => 2, gamma => 1e30, sampling_rate_hz => 300,
                                      max_attempts => 50, include_failed => true);
SELECT type, count(DISTINCT (participant, event_index)) AS events,
       count(DISTINCT (participant, event_index)) FILTER (WHERE passed) AS passed,
       count(DISTINCT (participant, event_index)) FILTER (WHERE t_ms IS NOT NULL) AS with_samples,
       max(attempts) <= 50 AS bounded
FROM es_out GROUP BY type ORDER BY type;
SELECT bool_and(abs(o.t_ms * 0.3 - round(o.t_ms * 0.3)) < 1e-9) AS on_grid,
       bool_and(o.t_ms BETWEEN e.start_ms AND e.end_ms) AS inside_event,
       count(*) = (SELECT count(*) FROM es_out WHERE t_ms IS NOT NULL) AS all_matched
FROM es_out o JOIN es_usable e USING (participant, task, event_index) WHERE o.t_ms IS NOT NULL;
SELECT bool_and(s.x BETWEEN least(b.x, a.x) - 1e-9 AND greatest(b.x, a.x) + 1e-9
            AND s.y BETWEEN least(b.y, a.y) - 1e-9 AND greatest(b.y, a.y) + 1e-9) AS saccades_between_fixations
FROM es_out s,
     LATERAL (SELECT avg(f.x) x, avg(f.y) y FROM es_out f WHERE f.participant = s.participant
              AND f.type = 'fixation' AND f.t_ms IS NOT NULL AND f.event_index = (
                  SELECT max(event_index) FROM es_out g WHERE g.participant = s.participant AND g.type = 'fixation'
                  AND g.t_ms IS NOT NULL AND g.event_index < s.event_index)) b,
     LATERAL (SELECT avg(f.x) x, avg(f.y) y FROM es_out f WHERE f.participant = s.participant
              AND f.type = 'fixation' AND f.t_ms IS NOT NULL AND f.event_index = (
                  SELECT min(event_index) FROM es_out g WHERE g.participant = s.participant AND g.type = 'fixation'
                  AND g.t_ms IS NOT NULL AND g.event_index > s.event_index)) a
WHERE s.type = 'saccade' AND s.t_ms IS NOT NULL;
-- k = 1 asks for nobody else: every event passes at once; the same seed gives the same streams.
SET gazepriv.seed = 76;
CREATE TABLE es_k1 AS SELECT * FROM gazepriv.event_synth_pd('es_usable', 'es_m', 1, 2, 300);
SET gazepriv.seed = 76;
SELECT (SELECT count(DISTINCT (participant, event_index)) FROM es_k1 WHERE type = 'fixation') =
       (SELECT count(*) FROM es_usable WHERE type = 'fixation') AS every_fixation,
       (SELECT max(attempts) FROM es_k1) AS attempts,
       (SELECT md5(string_agg(format('%s %s %s %s %s', participant, event_index, t_ms, x, y), ',' ORDER BY participant, t_ms, event_index)) FROM es_k1) =
       (SELECT md5(string_agg(format('%s %s %s %s %s', participant, event_index, t_ms, x, y), ',' ORDER BY participant, t_ms, event_index))
        FROM gazepriv.event_synth_pd('es_usable', 'es_m', 1, 2, 300)) AS same_seed_same_streams;

-- Bad input: 22023 naming the value; a corrupt stored model: XX001.
CREATE VIEW es_blink AS SELECT participant, task, event_index, CASE WHEN event_index = 3 THEN 'blink' ELSE type END AS type,
    start_ms, end_ms, centroid_x, centroid_y, sigma_x, sigma_y, amplitude, profile_a, profile_b, profile_c FROM es_usable;
CREATE VIEW es_nan AS SELECT participant, task, event_index, type, start_ms, end_ms,
    CASE WHEN event_index = 4 THEN 'NaN' ELSE centroid_x END AS centroid_x, centroid_y, sigma_x, sigma_y, amplitude,
    profile_a, profile_b, profile_c FROM es_usable WHERE type = 'fixation';
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.event_synth_pd('es_blink', 'es_m', 2, 2, 300)$$) AS unknown_type;
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.event_synth_pd('es_events', 'es_m', 2, 2, 300)$$) AS raw_events;
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.event_synth_pd('es_nan', 'es_m', 2, 2, 300)$$) AS nan_centroid;
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.event_synth_pd('es_usable', 'es_m', 21, 2, 300)$$) AS k_too_big;
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.event_synth_pd('es_usable', 'es_m', 2, 0.5, 300)$$) AS gamma;
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.event_synth_pd('es_usable', 'es_m', 2, 2, 'Infinity')$$) AS rate;
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.event_synth_pd('es_usable', 'es_m', 2, 2, 300, max_attempts => 0)$$) AS attempts;
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.event_synth_pd('es_usable', 'nope', 2, 2, 300)$$) AS unknown_model;
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.event_synth_pd('es_usable', 'es_m', 2, 2, 300, dataset => 'other')$$) AS other_dataset;
-- A blob that is not an intact model is refused when stored, and again when used (a row damaged on disk).
CREATE TABLE es_bad AS SELECT b.name, b.blob FROM es_fit,
    LATERAL (VALUES ('es_cut', substring(model FROM 1 FOR 5000)),
                    ('es_flip', set_byte(model, 4000, get_byte(model, 4000) # 1)),
                    ('es_junk', '\x00'::bytea)) b(name, blob);
SELECT name, gazepriv_test.error_of(format($$SELECT gazepriv.store_saccade_model(%L, 'es_uniss', '{}', 0, %L)$$,
                                           name, blob)) AS refused_when_stored
FROM es_bad ORDER BY name;
SELECT gazepriv.store_saccade_model(b.name, 'es_uniss', '{}', 0, f.model) FROM es_bad b, es_fit f;
UPDATE gazepriv.saccade_models m SET model = b.blob FROM es_bad b WHERE m.name = b.name;
SELECT gazepriv_test.error_of(format($$SELECT * FROM gazepriv.event_synth_pd('es_usable', %L, 2, 2, 300)$$, m)) AS corrupt
FROM unnest(ARRAY['es_cut', 'es_flip', 'es_junk']) m;
SET gazepriv.max_synthesized_samples = 1000;
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.event_synth_pd('es_usable', 'es_m', 2, 2, 300)$$) AS over_limit;
RESET gazepriv.max_synthesized_samples;

-- With dataset =>: one ledger row, plausible deniability, epsilon 0, the parameters as charged.
SELECT gazepriv.grant_budget('es_uniss', current_user::regrole, 1, 1e-6);
SELECT count(*) > 0 AS released FROM gazepriv.event_synth_pd('es_usable', 'es_m', 1, 2, 300, dataset => 'es_uniss');
SELECT mechanism, guarantee, epsilon, parameters FROM gazepriv.ledger WHERE dataset = 'es_uniss';
SELECT gazepriv.drop_saccade_model(m) FROM unnest(ARRAY['es_cut', 'es_flip', 'es_junk']) m;
SELECT gazepriv_test.error_of($$SELECT gazepriv.drop_saccade_model('es_cut')$$) AS dropped;
SELECT name FROM gazepriv.saccade_models;
