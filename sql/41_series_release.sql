-- Dataset releases of feature signals: release_series, release_series_cost, series_sensitivities,
-- exponential_dp, exponential_dp_cost.
CREATE TABLE series_windows AS
SELECT 'p' || p AS participant, 'task' || r AS task, w AS "window",
       ARRAY[sin(w * 0.1 + p) * 2, 0.5 + 0.1 * cos(w * 0.05)]::float8[] AS features
FROM generate_series(1, 4) p, generate_series(1, 2) r, generate_series(1, CASE r WHEN 1 THEN 100 ELSE 60 + p END) w;
-- Eq. 7 on a hand example, in long form (no recording column): three participants, one feature.
CREATE TABLE series_hand (participant int, t int, feature text, value float8);
INSERT INTO series_hand VALUES (0, 1, 'f', 0), (0, 2, 'f', 0), (0, 3, 'f', 0), (0, 4, 'f', 0),
                               (1, 1, 'f', 1), (1, 2, 'f', 1), (1, 3, 'f', 0), (1, 4, 'f', 0),
                               (2, 1, 'f', 0), (2, 2, 'f', 3), (2, 3, 'f', 0), (2, 4, 'f', 4);

-- Max over pairs of participants of ||x_p - x_q||: L2 5 (p0-p2), L1 7; per chunk of 2: [3, 4]; on the
-- difference chunks (d = x_1, x_2 - x_1): [sqrt 10, 4].
SELECT m, recording, feature, chunk_index, first_position, chunk_length, round(sensitivity_value::numeric, 4) AS delta
FROM unnest(ARRAY['lpa', 'fpa', 'cfpa', 'dcfpa']) m,
     gazepriv.series_sensitivities('series_hand', m, chunk => 2) s
ORDER BY m, chunk_index;
-- With public bounds the sensitivity is the bound's: lpa n w, fpa sqrt(n) w, cfpa sqrt(m) w, dcfpa sqrt(4m - 3) w.
SELECT m, chunk_index, chunk_length, round(sensitivity_value::numeric, 4) AS delta
FROM unnest(ARRAY['lpa', 'fpa', 'cfpa', 'dcfpa']) m,
     gazepriv.series_sensitivities('series_hand', m, 3, 'clipped', ARRAY[0, 2]) s
ORDER BY m, chunk_index;

-- Long-form sources release the same way (recording NULL when the source has none).
SELECT participant, recording, feature, cardinality(series) AS n
FROM gazepriv.release_series('series_hand', 'fpa', 1, bounds => ARRAY[0, 4]) ORDER BY 1;
-- One row per participant, recording and feature, padded to the longest signal of its recording.
SET gazepriv.seed = 31;
SELECT recording, feature, count(*) AS participants, min(cardinality(series)) AS n, max(cardinality(series)) AS n_max
FROM gazepriv.release_series('series_windows', 'cfpa', 1, chunk => 32, bounds => ARRAY[-2, 2])
GROUP BY 1, 2 ORDER BY 1, 2;
-- A public length truncates and pads; the feature column names the array position.
SELECT count(*) AS signals, min(cardinality(series)) AS n, string_agg(DISTINCT feature, ',') AS features
FROM gazepriv.release_series('series_windows', 'lpa', 1, bounds => ARRAY[-2, 2], length => 80);
-- Huge epsilon with every bin: the release is the clipped, zero-padded input (clip [-1.5, 0.55] here;
-- fpa keeps k = 51 of 100, cfpa and dcfpa 17 of 32 and 3 of the last chunk of 4).
WITH expected AS (
    SELECT k.participant, k.task AS recording, f::text AS feature, w,
           CASE WHEN s."window" IS NULL THEN 0 ELSE greatest(-1.5, least(0.55, s.features[f])) END AS x
    FROM (SELECT DISTINCT participant, task FROM series_windows) k
         CROSS JOIN generate_series(1, 100) w CROSS JOIN generate_series(1, 2) f
         LEFT JOIN series_windows s ON s.participant = k.participant AND s.task = k.task AND s."window" = w),
released AS (
    SELECT m, r.participant, r.recording, r.feature, u.w, u.v
    FROM unnest(ARRAY['lpa', 'fpa', 'cfpa', 'dcfpa']) m,
         gazepriv.release_series('series_windows', m, 1e12, k => CASE m WHEN 'lpa' THEN NULL WHEN 'fpa' THEN 51 ELSE 17 END,
                                 chunk => 32, bounds => ARRAY[[-1.5, 0.55], [-1.5, 0.55]], length => 100) r,
         unnest(r.series) WITH ORDINALITY u(v, w))
SELECT m, count(*) AS values_checked, max(abs(v - x)) < 1e-6 AS equal
FROM released JOIN expected USING (participant, recording, feature, w) GROUP BY m ORDER BY m;
-- LPA with clipped bounds adds Laplace(n w / epsilon) to every value: n = 1000, w = 1, epsilon = 500
-- gives variance 8. 20,000 values: a 1.6% standard error, so 6% holds and a 5% error in the scale fails.
CREATE TABLE series_noise AS
SELECT 'p' || p AS participant, w AS t, ARRAY[0.5]::float8[] AS features
FROM generate_series(1, 20) p, generate_series(1, 1000) w;
WITH noise AS (SELECT v - 0.5 AS e FROM gazepriv.release_series('series_noise', 'lpa', 500, bounds => ARRAY[0, 1],
                                                                  clamp => false) r,
                                        unnest(r.series) v)
SELECT abs(var_samp(e) / 8 - 1) < 0.06 AS lpa_scale_ok, abs(var_samp(e) / (1.05 ^ 2 * 8) - 1) > 0.06 AS detected,
       count(*) AS values
FROM noise;
-- Clamped by default (post-processing into the public bounds): every value in [0, 1], the values the noise
-- pushed out sit on the bounds; about half of them, as Laplace(8/sqrt(2)) noise around 0.5 leaves [0, 1] mostly.
WITH v AS (SELECT v FROM gazepriv.release_series('series_noise', 'lpa', 500, bounds => ARRAY[0, 1]) r, unnest(r.series) v)
SELECT min(v) >= 0 AND max(v) <= 1 AS in_bounds, count(*) FILTER (WHERE v IN (0, 1)) > 10000 AS many_on_bounds,
       count(*) AS values
FROM v;
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.release_series('series_noise', 'lpa', 1, bounds => ARRAY[0, 1],
                                                                       clamp => NULL)$$);
-- Missing values (NULL arrays, NULL or NaN elements) are filled like padding; positions are kept.
CREATE TABLE series_gaps AS SELECT * FROM series_windows WHERE participant IN ('p1', 'p2') AND task = 'task1';
UPDATE series_gaps SET features = NULL WHERE "window" = 5;
UPDATE series_gaps SET features[2] = 'NaN' WHERE "window" = 6;
UPDATE series_gaps SET features[1] = NULL WHERE "window" = 7;
SELECT participant, feature, cardinality(series) AS n, abs(series[5]) < 1e-6 AS w5_filled,
       abs(series[6]) < 1e-6 AS w6_filled, abs(series[7]) < 1e-6 AS w7_filled,
       round(series[8]::numeric, 6) = round((SELECT greatest(-2, least(2, features[feature::int])) FROM series_gaps g
                                             WHERE g.participant = r.participant AND "window" = 8)::numeric, 6) AS w8_kept
FROM gazepriv.release_series('series_gaps', 'lpa', 1e12, bounds => ARRAY[-2, 2], length => 100) r
ORDER BY 1, 2;
RESET gazepriv.seed;

-- The cost, computed before any noise: epsilon per feature x 2 features x chunks per signal summed over
-- the 2 recordings (32-sample chunks: 4 for 100 samples, 3 for 64), and the paper's epsilon x features.
SELECT m, total_epsilon, paper_epsilon, participant_epsilon, total_delta, guarantee, non_private_choices, mechanism,
       parameters -> 'chunks_per_signal' AS chunks, parameters -> 'k' AS k, parameters -> 'non_private' AS why
FROM unnest(ARRAY['lpa', 'fpa', 'cfpa', 'dcfpa']) m,
     gazepriv.release_series_cost('series_windows', m, 0.1, chunk => 32, bounds => ARRAY[-2, 2]) c
ORDER BY m;
-- A public length removes the last non-private choice; the paper's chunk-level semantics is opt-in.
SELECT total_epsilon, paper_epsilon, participant_epsilon, non_private_choices, parameters ->> 'chunk_semantics' AS semantics,
       parameters ->> 'neighbours' AS neighbours
FROM unnest(ARRAY['participant', 'chunk']) s,
     gazepriv.release_series_cost('series_windows', 'cfpa', 0.1, chunk => 32, bounds => ARRAY[-2, 2], length => 128,
                                  chunk_semantics => s) c;
SELECT non_private_choices, parameters -> 'non_private' AS why, parameters ->> 'sensitivity' AS sensitivity
FROM gazepriv.release_series_cost('series_windows', 'dcfpa', 1, length => 100, sensitivity => 'empirical');
SELECT parameters -> 'k' AS public_rule_k, parameters ->> 'k_rule' AS rule
FROM gazepriv.release_series_cost('series_windows', 'fpa', 100, bounds => ARRAY[-2, 2]);

-- Exponential-DP: the corrected Laplace variant costs features x (sum of t_max) x epsilon / 2; the
-- paper-literal variant reports the paper's epsilon x features and is flagged (no DP proof).
SELECT variant, total_epsilon, paper_epsilon, participant_epsilon, non_private_choices, mechanism,
       parameters -> 't_max' AS t_max, parameters -> 'dp_proof' AS dp_proof, parameters -> 'non_private' AS why
FROM unnest(ARRAY['laplace', 'paper']) variant,
     gazepriv.exponential_dp_cost('series_windows', 1, variant, bounds => ARRAY[-2, 2], length => 100) c
ORDER BY 1;
SELECT parameters -> 'ranges' AS empirical_ranges
FROM gazepriv.exponential_dp_cost('series_windows', 1, sensitivity => 'empirical');
SET gazepriv.seed = 32;
-- Shorter signals (60 + p windows in task2) are padded to t_max = 64 by repeating their last value; a
-- huge epsilon releases the values unchanged.
SELECT participant, cardinality(series) AS t_max,
       (SELECT coalesce(bool_and(abs(v - series[60 + substr(participant, 2)::int]) < 1e-6), true)
        FROM unnest(series[61 + substr(participant, 2)::int:64]) v) AS repeated,
       abs(series[1] - 2 * sin(0.1 + substr(participant, 2)::int)) < 1e-6 AS first_kept
FROM gazepriv.exponential_dp('series_windows', 1e12, bounds => ARRAY[-2, 2]) WHERE feature = '1' AND recording = 'task2'
ORDER BY 1;
SELECT recording, count(*) AS signals, min(cardinality(series)) AS t_max, max(cardinality(series)) AS t_max_too
FROM gazepriv.exponential_dp('series_windows', 1, 'paper', 'empirical') GROUP BY 1 ORDER BY 1;
RESET gazepriv.seed;

-- Bad input: ERROR 22023 naming the parameter, before any row is read where the parameters are wrong.
CREATE TABLE series_bad (participant text, t int, x float8);
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT * FROM gazepriv.release_series('series_windows', 'fft', 1, bounds => ARRAY[0, 1])$$,
    $$SELECT * FROM gazepriv.release_series('series_windows', 'cfpa', 0, bounds => ARRAY[0, 1])$$,
    $$SELECT * FROM gazepriv.release_series('series_windows', 'cfpa', 'NaN', bounds => ARRAY[0, 1])$$,
    $$SELECT * FROM gazepriv.release_series('series_windows', 'cfpa', NULL, bounds => ARRAY[0, 1])$$,
    $$SELECT * FROM gazepriv.release_series('series_windows', 'cfpa', 1)$$,
    $$SELECT * FROM gazepriv.release_series('series_windows', 'cfpa', 1, sensitivity => 'exact')$$,
    $$SELECT * FROM gazepriv.release_series('series_windows', 'cfpa', 1, bounds => ARRAY[1, 0])$$,
    $$SELECT * FROM gazepriv.release_series('series_windows', 'cfpa', 1, bounds => ARRAY[0, 'Infinity']::float8[])$$,
    $$SELECT * FROM gazepriv.release_series('series_windows', 'cfpa', 1, bounds => ARRAY[0, 1, 2])$$,
    $$SELECT * FROM gazepriv.release_series('series_windows', 'cfpa', 1, bounds => ARRAY[[0, 1], [0, 1], [0, 1]])$$,
    $$SELECT * FROM gazepriv.release_series('series_windows', 'cfpa', 1, bounds => ARRAY[0, NULL])$$,
    $$SELECT * FROM gazepriv.release_series('series_windows', 'lpa', 1, k => 3, bounds => ARRAY[0, 1])$$,
    $$SELECT * FROM gazepriv.release_series('series_windows', 'cfpa', 1, k => 0, bounds => ARRAY[0, 1])$$,
    $$SELECT * FROM gazepriv.release_series('series_windows', 'cfpa', 1, k => 18, chunk => 32, bounds => ARRAY[0, 1])$$,
    $$SELECT * FROM gazepriv.release_series('series_windows', 'fpa', 1, k => 40, bounds => ARRAY[0, 1], length => 64)$$,
    $$SELECT * FROM gazepriv.release_series('series_windows', 'dcfpa', 1, chunk => 1, bounds => ARRAY[0, 1])$$,
    $$SELECT * FROM gazepriv.release_series('series_windows', 'cfpa', 1, bounds => ARRAY[0, 1], length => 0)$$,
    $$SELECT * FROM gazepriv.release_series('series_windows', 'cfpa', 1, bounds => ARRAY[0, 1], chunk_semantics => 'all')$$,
    $$SELECT * FROM gazepriv.release_series('series_windows', 'cfpa', 1, bounds => ARRAY[0, 1], participant_column => 'who')$$,
    $$SELECT * FROM gazepriv.release_series('series_bad', 'cfpa', 1, sensitivity => 'empirical')$$,
    $$SELECT * FROM gazepriv.release_series('pg_class', 'cfpa', 1, bounds => ARRAY[0, 1], participant_column => 'relname')$$,
    $$SELECT * FROM gazepriv.release_series_cost('series_windows', 'cfpa', -1, bounds => ARRAY[0, 1])$$,
    $$SELECT * FROM gazepriv.series_sensitivities('series_windows', 'cfpa', 0)$$,
    $$SELECT * FROM gazepriv.exponential_dp('series_windows', 1, 'exponential', bounds => ARRAY[0, 1])$$,
    $$SELECT * FROM gazepriv.exponential_dp('series_windows', 1)$$,
    $$SELECT * FROM gazepriv.exponential_dp('series_windows', 0, sensitivity => 'empirical')$$,
    $$SELECT * FROM gazepriv.exponential_dp_cost('series_windows', 1, bounds => ARRAY[[0, 1]], length => -5)$$]) q;
-- Data that cannot be released: a single participant under Eq. 7, duplicate t, no usable rows.
CREATE TABLE series_one AS SELECT * FROM series_windows WHERE participant = 'p1';
CREATE TABLE series_dup AS SELECT * FROM series_windows UNION ALL SELECT * FROM series_windows WHERE "window" = 3;
CREATE TABLE series_empty AS SELECT * FROM series_windows WHERE false;
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT * FROM gazepriv.release_series('series_one', 'fpa', 1, sensitivity => 'empirical')$$,
    $$SELECT * FROM gazepriv.release_series('series_dup', 'fpa', 1, bounds => ARRAY[0, 1])$$,
    $$SELECT * FROM gazepriv.release_series('series_empty', 'fpa', 1, bounds => ARRAY[0, 1])$$]) q;
-- Reading the source needs SELECT on it.
SET ROLE gazepriv_test_user;
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.release_series('series_windows', 'lpa', 1, bounds => ARRAY[0, 1])$$);
RESET ROLE;

-- Labels of the dataset functions, frozen (they read a relation through a cursor: PARALLEL RESTRICTED).
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.proisstrict, p.prosecdef
FROM pg_proc p
WHERE p.pronamespace = 'gazepriv'::regnamespace
  AND p.proname IN ('release_series', 'release_series_cost', 'series_sensitivities', 'exponential_dp',
                    'exponential_dp_cost')
ORDER BY 1::text;

-- series_accuracy: per feature, the noise of a strict release of a public shape (no data). FPA with k = 1 on a
-- feature of width 3 at epsilon 2: each value's noise is Laplace(w / epsilon) (sd sqrt 2 x 1.5, half-width
-- 1.5 ln 20); LPA's is Laplace(n w / epsilon); a larger k is approximate.
SELECT m, feature, round(noise_sd::numeric, 4) AS sd, round(half_width::numeric, 4) AS half_width, exact
FROM unnest(ARRAY['lpa', 'fpa', 'cfpa', 'dcfpa']) m,
     gazepriv.series_accuracy(m, 2, CASE WHEN m = 'lpa' THEN NULL ELSE 1 END, 16, ARRAY[[-1, 2], [0, 1]], 64)
ORDER BY m, feature;
SELECT round(noise_sd::numeric, 4) AS sd_k5, exact FROM gazepriv.series_accuracy('fpa', 2, 5, 16, ARRAY[[-1, 2]], 64);
-- It predicts the released noise: the mean squared error of 40 clamp-free FPA releases of a constant signal.
SELECT abs(sqrt(avg((v - 0.5) ^ 2)) / (SELECT noise_sd FROM gazepriv.series_accuracy('fpa', 2, 1, 16, ARRAY[0, 1]::float8[][], 1000))
           - 1) < 0.15 AS predicted_sd_ok
FROM generate_series(1, 40) g,
     gazepriv.release_series('series_noise', 'fpa', 2 + 0 * g, k => 1, bounds => ARRAY[0, 1], clamp => false) r,
     unnest(r.series) v;
-- Hostile arguments are refused; a shape beyond gazepriv.max_series_length is 54000 before any calculation.
SELECT count(*) AS rows FROM gazepriv.series_accuracy('dcfpa', 1, 1000000000, 2000000000, ARRAY[[0, 1]], 2000000000);
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT * FROM gazepriv.series_accuracy('fft', 1, 1, 16, ARRAY[[0, 1]], 64)$$,
    $$SELECT * FROM gazepriv.series_accuracy('fpa', 'NaN', 1, 16, ARRAY[[0, 1]], 64)$$,
    $$SELECT * FROM gazepriv.series_accuracy('fpa', 1, 40, 16, ARRAY[[0, 1]], 64)$$,
    $$SELECT * FROM gazepriv.series_accuracy('lpa', 1, 2, 16, ARRAY[[0, 1]], 64)$$,
    $$SELECT * FROM gazepriv.series_accuracy('fpa', 1, 1, 16, ARRAY[[1, 0]], 64)$$,
    $$SELECT * FROM gazepriv.series_accuracy('fpa', 1, 1, 16, ARRAY[0, 1, 2], 64)$$,
    $$SELECT * FROM gazepriv.series_accuracy('fpa', 1, 1, 16, ARRAY[[0, 1]], 0)$$,
    $$SELECT * FROM gazepriv.series_accuracy('fpa', 1, 1, 16, ARRAY[[0, 1]], NULL)$$,
    $$SELECT * FROM gazepriv.series_accuracy('fpa', 1, 1, 16, ARRAY[[0, 1]], 64, 1.5)$$]) q;
DROP TABLE series_windows, series_hand, series_gaps, series_noise, series_bad, series_one, series_dup, series_empty;
