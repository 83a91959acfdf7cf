-- Kaleido in batch: parameters, cost, bad input, the w-event accounting on real recordings, the planar
-- Laplace release, post-processing. Noise is seeded; checks are properties, not noisy digits.
CREATE SCHEMA kaleido_test;
SET search_path = kaleido_test, public;

-- Real streams: the first minute of four Hoppe recordings (60 Hz, jitter, missing samples, normalised
-- coordinates) and 20 Uniss-FGD participants on one face image (300 Hz, pixels).
CREATE TABLE hoppe (participant text, t_ms float8, x float8, y float8, pupil_right float8, pupil_left float8,
                    event text);
\copy hoppe FROM 'test/data/hoppe2018_everyday/participant_00_first_minute.csv' WITH (FORMAT csv, HEADER true)
\copy hoppe FROM 'test/data/hoppe2018_everyday/participant_02_first_minute.csv' WITH (FORMAT csv, HEADER true)
\copy hoppe FROM 'test/data/hoppe2018_everyday/participant_05_first_minute.csv' WITH (FORMAT csv, HEADER true)
\copy hoppe FROM 'test/data/hoppe2018_everyday/participant_09_first_minute.csv' WITH (FORMAT csv, HEADER true)
CREATE TABLE uniss (participant text, stimulus int, t_ms float8, x float8, y float8, pupil_left float8,
                    pupil_right float8, event text, fixation_index int);
\copy uniss FROM 'test/data/uniss_fgd/img_002.csv' WITH (FORMAT csv, HEADER true)
SELECT 'hoppe' AS data, count(*) AS samples, count(*) FILTER (WHERE x IS NULL) AS missing,
       count(DISTINCT participant) AS streams FROM hoppe
UNION ALL
SELECT 'uniss', count(*), count(*) FILTER (WHERE x IS NULL), count(DISTINCT participant) FROM uniss;

-- Cost preview: computed from the parameters alone.
SELECT mechanism, guarantee, epsilon, delta, rho, non_private_choices,
       parameters->>'window_unit' AS window_unit, parameters->'max_tests' AS max_tests,
       round((parameters->>'epsilon_test')::numeric, 9) AS epsilon_test,
       parameters->'epsilon_publications' AS epsilon_publications, parameters->'l_thresh' AS l_thresh
FROM gazepriv.kaleido_cost(1, 60, 0.05);
-- max_tests defaults to the supplement's n_test = ceil(w / t_skip) at a nominal 60 Hz; t_skip = 0 tests
-- every sample.
SELECT t_skip, (gazepriv.kaleido_cost(1, 60, 0.05, t_skip => t_skip)).parameters->'max_tests' AS max_tests
FROM unnest(ARRAY[0, 16.7, 50, 100, 5000]::float8[]) t_skip;

-- kaleido() on a stream takes the default max_tests from its median sampling interval: at 500 Hz, w = 60
-- samples is 120 ms, so ceil(120 / 50) = 3 tests and epsilon_test = 1 / (2 x 3), where the 60 Hz rule gives 20
-- (epsilon_test 0.025). A reused sample spends exactly epsilon_test.
SELECT m, round(min(k.epsilon_spent) FILTER (WHERE k.action = 'reused')::numeric, 6) AS epsilon_test
FROM (VALUES (NULL::int), (20)) v(m),
     LATERAL gazepriv.kaleido(ARRAY(SELECT 2.0 * i FROM generate_series(0, 1999) i),
                              array_fill(100::float8, ARRAY[2000]), array_fill(100::float8, ARRAY[2000]),
                              1, 60, 10, max_tests => v.m) k
GROUP BY m ORDER BY m NULLS FIRST;

-- kaleido() with t_skip NULL takes it from the stream too: the supplement's 50 ms as the nearest whole number k of
-- median intervals, less half an interval. One sample per 30 ms: k = 2 (t_skip 45 ms), the same samples are
-- skipped as with 50 ms, but a window of 60 samples counts ceil(60 / 2) = 30 tests (epsilon_test 1/60) where 50 ms
-- counts ceil(60 x 30 / 50) = 36 (1/72). At 60 Hz with +-2 ms of jitter, k = 3: a test is due every third sample
-- (400 of 600 skipped), where 50 ms waits for a fourth whenever three intervals sum to less than 50 ms (438).
SELECT stream, given_t_skip, count(*) FILTER (WHERE k.action = 'skipped') AS skipped,
       round(min(k.epsilon_spent) FILTER (WHERE k.action = 'reused')::numeric, 6) AS epsilon_test
FROM (VALUES ('30 ms', NULL::float8), ('30 ms', 50), ('60 Hz jittered', NULL), ('60 Hz jittered', 50)) v(stream, given_t_skip),
     LATERAL gazepriv.kaleido(ARRAY(SELECT CASE v.stream WHEN '30 ms' THEN 30.0 * i ELSE 1000.0 / 60 * i + 2 * sin(1.7 * i) END
                                    FROM generate_series(0, 599) i),
                              array_fill(100::float8, ARRAY[600]), array_fill(100::float8, ARRAY[600]),
                              1, 60, 10, t_skip => v.given_t_skip) k
GROUP BY stream, given_t_skip ORDER BY stream, given_t_skip NULLS FIRST;

-- Bad input: ERROR 22023 naming the parameter (23502 for a NULL timestamp in live mode, see 71).
SELECT q AS call, gazepriv_test.error_of(q) AS error FROM unnest(ARRAY[
    $$SELECT * FROM gazepriv.kaleido_cost(0, 60, 1)$$,
    $$SELECT * FROM gazepriv.kaleido_cost(-1, 60, 1)$$,
    $$SELECT * FROM gazepriv.kaleido_cost('NaN', 60, 1)$$,
    $$SELECT * FROM gazepriv.kaleido_cost('Infinity', 60, 1)$$,
    $$SELECT * FROM gazepriv.kaleido_cost(NULL, 60, 1)$$,
    $$SELECT * FROM gazepriv.kaleido_cost(1, 0, 1)$$,
    $$SELECT * FROM gazepriv.kaleido_cost(1, -5, 1)$$,
    $$SELECT * FROM gazepriv.kaleido_cost(1, NULL, 1)$$,
    $$SELECT * FROM gazepriv.kaleido_cost(1, 60, 0)$$,
    $$SELECT * FROM gazepriv.kaleido_cost(1, 60, -2)$$,
    $$SELECT * FROM gazepriv.kaleido_cost(1, 60, 'NaN')$$,
    $$SELECT * FROM gazepriv.kaleido_cost(1, 60, 1, h => 1)$$,
    $$SELECT * FROM gazepriv.kaleido_cost(1, 60, 1, h => 0.5)$$,
    $$SELECT * FROM gazepriv.kaleido_cost(1, 60, 1, h => 'Infinity')$$,
    $$SELECT * FROM gazepriv.kaleido_cost(1, 60, 1, t_skip => -1)$$,
    $$SELECT * FROM gazepriv.kaleido_cost(1, 60, 1, t_skip => 'NaN')$$,
    $$SELECT * FROM gazepriv.kaleido_cost(1, 60, 1, l_thresh => -0.1)$$,
    $$SELECT * FROM gazepriv.kaleido_cost(1, 60, 1, l_thresh => 'NaN')$$,
    $$SELECT * FROM gazepriv.kaleido_cost(1, 60, 1, max_tests => 0)$$,
    $$SELECT * FROM gazepriv.kaleido_cost(1, 60, 1, max_tests => 61)$$,
    $$SELECT * FROM gazepriv.kaleido_cost(1e-5, 60, 1)$$,
    $$SELECT * FROM gazepriv.kaleido_cost(1e300, 60, 1e-300)$$,
    $$SELECT * FROM gazepriv.kaleido(ARRAY[0, 1], ARRAY[0.0], ARRAY[0, 1], 1, 60, 1)$$,
    $$SELECT * FROM gazepriv.kaleido(ARRAY[[0, 1]], ARRAY[[0, 1]], ARRAY[[0, 1]], 1, 60, 1)$$,
    $$SELECT * FROM gazepriv.kaleido(NULL, ARRAY[0.0], ARRAY[0.0], 1, 60, 1)$$,
    $$SELECT * FROM gazepriv.kaleido(ARRAY[0, NULL], ARRAY[0, 1], ARRAY[0, 1], 1, 60, 1)$$,
    $$SELECT * FROM gazepriv.kaleido(ARRAY[0, 'NaN']::float8[], ARRAY[0, 1], ARRAY[0, 1], 1, 60, 1)$$,
    $$SELECT * FROM gazepriv.kaleido(ARRAY[5, 'Infinity']::float8[], ARRAY[0, 1], ARRAY[0, 1], 1, 60, 1)$$,
    $$SELECT * FROM gazepriv.kaleido(ARRAY[5, 4.5], ARRAY[0, 1], ARRAY[0, 1], 1, 60, 1)$$,
    $$SELECT * FROM gazepriv.kaleido(ARRAY[0, 1], ARRAY[0, 1], ARRAY[0, 1], 0, 60, 1)$$,
    $$SELECT * FROM gazepriv.kaleido(ARRAY[0, 1], ARRAY[0, 1], ARRAY[0, 1], 1, 60, 1, dataset => 'uniss')$$]) q;

-- Defined behaviour: empty input gives no rows; equal timestamps are allowed; missing samples (NULL,
-- NaN, infinite) repeat the last release (NULL before the first), and the first sample with a
-- position publishes.
SELECT count(*) AS rows_for_empty_input FROM gazepriv.kaleido('{}', '{}', '{}', 1, 60, 1);
SET gazepriv.seed = 7001;
SELECT t_ms, x IS NULL AS no_release_yet, published, action, epsilon_spent > 0 AS spends,
       round(noise_radius::numeric, 6) AS noise_radius
FROM gazepriv.kaleido(ARRAY[0, 10, 10, 20, 30, 90], ARRAY[NULL, 'NaN', 'Infinity', 5, 5, 5]::float8[],
                      ARRAY[1, 1, 1, 1, NULL, 1]::float8[], 1, 60, 1);

-- The w-event accounting on the real streams, per participant: every window of w consecutive samples
-- spends at most epsilon (tests included), at most max_tests tests fall in any window, the first
-- sample with a position publishes, and every other sample repeats the last release.
CREATE TABLE released AS
SELECT s.data, s.participant, s.w, s.max_tests, s.epsilon,
       row_number() OVER (PARTITION BY s.data, s.participant, s.w ORDER BY k.t_ms) AS i, k.*
FROM (SELECT 'hoppe' AS data, participant, w, max_tests, epsilon, array_agg(t_ms ORDER BY t_ms) AS t,
             array_agg(x ORDER BY t_ms) AS x, array_agg(y ORDER BY t_ms) AS y
      FROM hoppe, (VALUES (60, 20, 1.0), (10, 2, 0.5), (240, 20, 2.0)) p(w, max_tests, epsilon)
      GROUP BY participant, w, max_tests, epsilon
      UNION ALL
      SELECT 'uniss', participant, 300, 20, 1.0, array_agg(t_ms ORDER BY t_ms), array_agg(x ORDER BY t_ms),
             array_agg(y ORDER BY t_ms)
      FROM uniss GROUP BY participant) s,
     ROWS FROM (gazepriv.kaleido(s.t, s.x, s.y, s.epsilon, s.w, CASE s.data WHEN 'hoppe' THEN 0.05 ELSE 30 END,
                                 max_tests => s.max_tests),
                unnest(s.x), unnest(s.y)) AS k(t_ms, x, y, published, action, epsilon_spent, noise_radius, raw_x, raw_y);
-- A sample was tested when it was reused, exhausted, or published after the stream's first release.
CREATE TABLE tested AS
SELECT *, action IN ('reused', 'exhausted') OR (published AND i > min(i) FILTER (WHERE published)
                                                          OVER (PARTITION BY data, participant, w)) AS tested
FROM released;
-- Spending and tests of every window of w consecutive samples (a frame length must be a constant).
CREATE FUNCTION windows(width int) RETURNS TABLE (data text, w int, max_tests int, epsilon numeric,
                                                  window_spent float8, window_tests bigint)
LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY EXECUTE format(
        'SELECT data, w, max_tests, epsilon,
                sum(epsilon_spent) OVER f, count(*) FILTER (WHERE tested) OVER f
         FROM kaleido_test.tested WHERE w = %s
         WINDOW f AS (PARTITION BY data, participant ORDER BY i ROWS %s PRECEDING)', width, width - 1);
END $$;
CREATE TABLE windows AS SELECT r.* FROM (SELECT DISTINCT w FROM tested) ws, windows(ws.w) r;
SELECT data, w, max_tests, count(*) AS windows,
       bool_and(window_spent <= epsilon) AS every_window_within_epsilon,
       max(window_spent) > 0.9 * epsilon AS budget_is_used,
       bool_and(window_tests <= max_tests) AS tests_capped,
       max(window_tests) = max_tests AS cap_reached
FROM windows GROUP BY data, w, max_tests, epsilon ORDER BY data, w;
SELECT data, w,
       bool_and(first_action = 'published') AS first_sample_with_a_position_publishes,
       bool_and(repeats) AS others_repeat_the_last_release,
       bool_and(missing_ok) AS missing_samples_spend_nothing
FROM (SELECT data, w, participant,
             (array_agg(action ORDER BY i) FILTER (WHERE raw_x IS NOT NULL AND raw_y IS NOT NULL))[1] AS first_action,
             bool_and(published OR (x IS NOT DISTINCT FROM prev_x AND y IS NOT DISTINCT FROM prev_y)) AS repeats,
             bool_and((action = 'missing') = (raw_x IS NULL OR raw_y IS NULL)
                      AND (action <> 'missing' OR epsilon_spent = 0)) AS missing_ok
      FROM (SELECT *, lag(x) OVER p AS prev_x, lag(y) OVER p AS prev_y FROM released
            WINDOW p AS (PARTITION BY data, participant, w ORDER BY i)) r
      GROUP BY data, w, participant) s
GROUP BY data, w ORDER BY data, w;
SELECT data, action, count(*) > 0 AS occurs FROM released WHERE data = 'hoppe' AND w = 60
GROUP BY data, action ORDER BY action;

-- Accuracy: every row carries the noise_radius of the point it shows, within which a publication lies from
-- the true position at its sample with probability >= 95 % (about 4.7439 r / epsilon_pub). Measured on the
-- published rows against the true positions: the share within is 95 % up to sampling error (these streams
-- give a few thousand publications; the unit test measures 75,000). Repeats carry the radius of the point
-- they repeat; no point (before the first release), no radius.
SELECT data, count(*) FILTER (WHERE published) AS publications,
       round(avg((sqrt((x - raw_x) ^ 2 + (y - raw_y) ^ 2) <= noise_radius)::int) FILTER (WHERE published), 4)
           AS share_within_radius
FROM released GROUP BY data ORDER BY data;
SELECT abs(avg((sqrt((x - raw_x) ^ 2 + (y - raw_y) ^ 2) <= noise_radius)::int) - 0.95)
           < 4 * sqrt(0.95 * 0.05 / count(*)) AS coverage_is_95_percent
FROM released WHERE published;
SELECT bool_and((noise_radius IS NULL) = (x IS NULL)) AS radius_exactly_when_a_point,
       bool_and(published OR noise_radius IS NOT DISTINCT FROM prev_radius) AS repeats_carry_its_radius,
       bool_and(noise_radius > 0 AND noise_radius < 'Infinity') FILTER (WHERE published) AS positive_and_finite
FROM (SELECT *, lag(noise_radius) OVER (PARTITION BY data, participant, w ORDER BY i) AS prev_radius
      FROM released) r;
-- Attack: the radius must reveal nothing the points do not. It is a function of the parameters and of which
-- samples published: every stream's first release (the budget (epsilon - epsilon/h) / 2 of a quiet window)
-- has the same radius whatever its data, 4.7439 r / epsilon_pub up to the lattice's deduction.
SELECT data, w, count(DISTINCT participant) AS streams, count(DISTINCT noise_radius) AS first_radii,
       round(min(noise_radius * epsilon_spent / CASE data WHEN 'hoppe' THEN 0.05 ELSE 30 END)::numeric, 3)
           AS radius_in_r_over_epsilon_pub
FROM (SELECT DISTINCT ON (data, participant, w) * FROM released WHERE published ORDER BY data, participant, w, i) f
GROUP BY data, w ORDER BY data, w;

-- Planar Laplace (one release per call): with epsilon = 4, h = 2 the first release gets epsilon 1 for
-- r = 1, so the displacement radius follows C(rho) = 1 - (1 + rho) e^-rho (doc/privacy/noise.md §5: median
-- 1.67835, mean 2) and the angle is uniform. 40,000 draws; the tolerances are 5 standard errors, and a
-- 5% scale error (median fraction 0.474, mean 2.1) would fail them.
SET gazepriv.seed = 7002;
CREATE TABLE displacement AS
SELECT sqrt(k.x ^ 2 + k.y ^ 2) AS radius, atan2(k.y, k.x) AS angle
FROM generate_series(1, 40000) g, LATERAL gazepriv.kaleido(ARRAY[g::float8], ARRAY[0.0], ARRAY[0.0], 4, 1, 1) k;
SELECT abs(avg((radius <= 1.67835)::int) - 0.5) < 0.0125 AS median_ok,
       abs(avg((radius <= 0.53181)::int) - 0.1) < 0.0075 AS tenth_percentile_ok,
       abs(avg((radius <= 3.88972)::int) - 0.9) < 0.0075 AS ninetieth_percentile_ok,
       abs(avg(radius) - 2) < 0.036 AS mean_ok
FROM displacement;
SELECT quadrant, abs(count(*) / 40000.0 - 0.25) < 0.011 AS uniform
FROM (SELECT floor((angle + pi()) / (pi() / 2)) AS quadrant FROM displacement) q GROUP BY quadrant ORDER BY 1;

-- Huge epsilon: releases are the raw positions (to the lattice, 2^-16 of a vanishing noise scale). With
-- w = 1 every release gets the first budget, epsilon (1 - 1/h) / 2.
SET gazepriv.seed = 7003;
SELECT bool_and(abs(k.x - k.raw_x) < 1e-9 AND abs(k.y - k.raw_y) < 1e-9) AS releases_are_the_raw_points,
       count(*) FILTER (WHERE k.published) AS releases
FROM (SELECT array_agg(t_ms ORDER BY t_ms) t, array_agg(x ORDER BY t_ms) x, array_agg(y ORDER BY t_ms) y
      FROM hoppe WHERE participant = '0') s,
     ROWS FROM (gazepriv.kaleido(s.t, s.x, s.y, 1e9, 1, 1e-3), unnest(s.x), unnest(s.y))
         AS k(t_ms, x, y, published, action, epsilon_spent, noise_radius, raw_x, raw_y)
WHERE k.published;

-- Clamping to the screen is post-processing: every released point lies in the box.
SET gazepriv.seed = 7004;
SELECT bool_and(k.x BETWEEN 0 AND 1280 AND k.y BETWEEN 0 AND 1024) AS inside_the_screen,
       bool_or(k.x IN (0, 1280) OR k.y IN (0, 1024)) AS some_were_clamped
FROM (SELECT array_agg(t_ms ORDER BY t_ms) t, array_agg(x ORDER BY t_ms) x, array_agg(y ORDER BY t_ms) y
      FROM uniss WHERE participant = '03') s,
     gazepriv.kaleido(s.t, s.x, s.y, 0.5, 300, 60, clamp_to => box '((0,0),(1280,1024))') k
WHERE k.x IS NOT NULL;

-- Fresh noise per call; the same seed reproduces a release (tests only; seeded releases are not private).
SET gazepriv.seed = 7005;
CREATE TABLE run_a AS SELECT * FROM gazepriv.kaleido(ARRAY[0, 100, 200], ARRAY[1, 2, 3], ARRAY[1, 2, 3], 1, 60, 1);
CREATE TABLE run_b AS SELECT * FROM gazepriv.kaleido(ARRAY[0, 100, 200], ARRAY[1, 2, 3], ARRAY[1, 2, 3], 1, 60, 1);
SET gazepriv.seed = 7005;
CREATE TABLE run_c AS SELECT * FROM gazepriv.kaleido(ARRAY[0, 100, 200], ARRAY[1, 2, 3], ARRAY[1, 2, 3], 1, 60, 1);
SELECT (SELECT count(*) FROM (TABLE run_a EXCEPT TABLE run_b) d) > 0 AS fresh_noise_per_call,
       (SELECT count(*) FROM (TABLE run_a EXCEPT TABLE run_c) d) = 0 AS seed_reproduces;
RESET gazepriv.seed;

-- Labels, frozen.
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.proisstrict, p.prosecdef
FROM pg_proc p
WHERE p.pronamespace = 'gazepriv'::regnamespace AND p.proname LIKE 'kaleido%'
ORDER BY (p.oid::regprocedure)::text;

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA kaleido_test CASCADE;
RESET client_min_messages;
