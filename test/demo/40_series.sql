-- Releasing eye-movement feature signals with LPA, FPA, CFPA and DCFPA (Bozkir et al. 2021)

\echo
\echo 'Five feature signals from hoppe_features (test/demo/hoppe_features.psql, built in 00_load.sql by the events functions: 30 s'
\echo 'windows every 0.5 s over the first minute of four Hoppe 2018 walkers, all on their way to the shop):'
\echo 'fixation rate, saccade rate, share of samples without gaze, mean pupil diameter, horizontal gaze spread.'
CREATE TEMP TABLE series_windows AS
SELECT participant, task, "window", ARRAY[features[2], features[11], features[23], features[26], features[30]] AS features
FROM hoppe_features;
SELECT participant, task, count(*) AS windows,
       round(avg(features[1])::numeric, 2) AS fixation_rate, round(avg(features[2])::numeric, 2) AS saccade_rate,
       round(avg(features[3])::numeric, 3) AS missing_ratio, round(avg(features[4])::numeric, 2) AS pupil_mm,
       round(avg(features[5])::numeric, 3) AS gaze_sd_x
FROM series_windows GROUP BY 1, 2 ORDER BY 1, 2;

-- A sparkline of a signal, for reading releases in a terminal.
CREATE FUNCTION pg_temp.spark(v float8[], lo float8, hi float8) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT string_agg(substr('▁▂▃▄▅▆▇█', 1 + greatest(0, least(7, floor((x - lo) / (hi - lo) * 8)))::int, 1), '' ORDER BY i)
    FROM unnest(v) WITH ORDINALITY u(x, i) $$;

\set bounds 'ARRAY[[0, 5], [0, 5], [0, 1], [2, 8], [0, 1.5]]'
\echo
\echo 'What a release costs, before anything is released. epsilon is per feature (per chunk for CFPA).'
\echo 'One participant can change all their chunks, so the chunks compose: the correct total is'
\echo 'epsilon x 5 features x 2 chunks of up to 32 windows; the paper reports epsilon x features.'
\echo 'Public bounds per feature (clip, strict DP: rates of 0-5 per second, a share in [0, 1], pupils of'
\echo '2-8 mm, a spread of at most half the valid range [-1, 2]) and a public length (61 windows) leave no'
\echo 'non-private choice.'
SELECT m AS method, total_epsilon, paper_epsilon, non_private_choices, parameters -> 'k' AS k,
       parameters -> 'chunks_per_signal' AS chunks
FROM unnest(ARRAY['lpa', 'fpa', 'cfpa', 'dcfpa']) m,
     gazepriv.release_series_cost('series_windows', m, 0.5, chunk => 32, length => 61, bounds => :bounds) c;

\echo
\echo 'Participant 2, mean pupil diameter (2..8 mm, its public bounds), released with epsilon = 100 per'
\echo 'feature: protecting a whole 61-window signal of one person needs that much. LPA perturbs every'
\echo 'sample with the sensitivity of the whole signal; FPA keeps k = 4 low frequencies; CFPA does it per'
\echo 'chunk of 32 windows; DCFPA on the differences inside each chunk (the noise accumulates).'
SET gazepriv.seed = 7; -- reproducible demo only: a seeded release is not private
WITH released AS (
    SELECT m, r.series
    FROM unnest(ARRAY['lpa', 'fpa', 'cfpa', 'dcfpa']) WITH ORDINALITY AS u(m, o),
         gazepriv.release_series('series_windows', m, 100, k => CASE WHEN m = 'lpa' THEN NULL ELSE 4 END, chunk => 32,
                                 length => 61, bounds => :bounds) r
    WHERE r.participant = '2' AND r.feature = '4' ORDER BY o)
SELECT 'original' AS method, pg_temp.spark(array_agg(features[4] ORDER BY "window"), 2, 8) AS "signal (61 windows)"
FROM series_windows WHERE participant = '2'
UNION ALL
SELECT m, pg_temp.spark(series, 2, 8) FROM released;

\echo
\echo 'Utility 1/|NMSE| (Eq. 6) per method, averaged over participants and features, epsilon 0.5 and 5'
\echo 'per feature. Sensitivities: empirical = the paper''s Eq. 7 (max over pairs of participants; NOT'
\echo 'private), clipped = from the public bounds (strict). Signals of 60 windows are compared with the first 60'
\echo 'values of their release (padded to the public length 61). NMSE divides by the released mean, so with'
\echo 'the public k = 1 (a noisy mean) more noise can score better: the metric is the paper''s, not a proof of utility.'
WITH original AS (SELECT participant, f::text AS feature, array_agg(features[f] ORDER BY "window") AS x
                  FROM series_windows, generate_series(1, 5) f GROUP BY 1, 2),
runs AS (
    SELECT s AS sensitivity, e AS epsilon, m AS method, r.participant, r.feature, r.series
    FROM unnest(ARRAY['empirical', 'clipped']) s, unnest(ARRAY[0.5, 5]) e,
         unnest(ARRAY['lpa', 'fpa', 'cfpa', 'dcfpa']) m, generate_series(1, 3) run,
         gazepriv.release_series('series_windows', m, e, chunk => 32, length => 61, sensitivity => s,
                                 bounds => CASE s WHEN 'clipped' THEN :bounds END) r)
SELECT sensitivity, method,
       round((1 / avg(abs(gazepriv.nmse(x, series[1:cardinality(x)]))) FILTER (WHERE epsilon = 0.5))::numeric, 6)
           AS "utility eps=0.5",
       round((1 / avg(abs(gazepriv.nmse(x, series[1:cardinality(x)]))) FILTER (WHERE epsilon = 5))::numeric, 6)
           AS "utility eps=5"
FROM runs JOIN original USING (participant, feature)
GROUP BY 1, 2 ORDER BY 1 DESC, array_position(ARRAY['lpa', 'fpa', 'cfpa', 'dcfpa'], method);

\echo
\echo 'The paper''s choice of k (NMSE-optimal over a sweep; NOT private: it looks at the data) against the'
\echo 'public rule, for participant 2''s pupil signal with the empirical sensitivity of its chunks.'
SELECT k, round(mean_abs_nmse::numeric, 4) AS mean_abs_nmse, chosen,
       k = gazepriv.public_k('cfpa', 5, 61, 32) AS public_rule
FROM gazepriv.choose_k((SELECT array_agg(features[4] ORDER BY "window") FROM series_windows WHERE participant = '2'),
                       5, (SELECT array_agg(sensitivity_value ORDER BY chunk_index)
                           FROM gazepriv.series_sensitivities('series_windows', 'cfpa', 32) WHERE feature = '4'),
                       'cfpa', 32, ARRAY[1, 2, 3, 4, 6, 8], runs => 50)
ORDER BY k;

\echo
\echo 'The baseline the papers compare with: Exponential-DP (Steil et al.). Its literal form adds ln of an'
\echo 'exponential variate (no DP proof); the corrected form adds Laplace(2 range / epsilon) per value, and'
\echo 'then one participant''s 61 values of a feature cost 61 x epsilon / 2, not epsilon.'
SELECT variant, total_epsilon, paper_epsilon, non_private_choices, parameters -> 'non_private' AS why
FROM unnest(ARRAY['paper', 'laplace']) variant,
     gazepriv.exponential_dp_cost('series_windows', 1, variant, bounds => :bounds, length => 61) c;
RESET gazepriv.seed;
