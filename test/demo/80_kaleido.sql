-- Kaleido: gaze streams released with (epsilon, w, r) privacy, in batch and live as samples arrive
\echo 'Kaleido (Li et al. 2021) releases a gaze stream so that any w consecutive samples, each moved by up'
\echo 'to r, change what is released by at most a factor e^epsilon. Most samples repeat the last release;'
\echo 'a noisy test decides when the gaze moved far enough to spend budget on a new planar-Laplace point.'
\echo
\echo 'What one release costs (computed from the parameters alone, before any data is read):'
SELECT epsilon AS epsilon_per_window, parameters->'w' AS w_samples, parameters->'r' AS r_px,
       parameters->'max_tests' AS max_tests_per_window,
       round((parameters->>'epsilon_test')::numeric, 4) AS epsilon_per_test,
       parameters->'epsilon_publications' AS epsilon_for_releases, delta
FROM gazepriv.kaleido_cost(20, 300, 40, l_thresh => 120, t_skip => 500, max_tests => 2);

-- Which of 12 coarse areas of the face image (3 x 4 cells; -1 = off the image) a point falls in.
CREATE FUNCTION pg_temp.face_area(x float8, y float8) RETURNS int LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN x >= 359 AND x < 921 AND y >= 131 AND y < 893
                THEN floor((x - 359) / (562 / 3.0))::int + 3 * floor((y - 131) / (762 / 4.0))::int ELSE -1 END $$;

\echo
\echo 'Batch: the 20 participants looking at face image 2 (300 Hz, pixels), r = 40 px, one window = one'
\echo 'second (w = 300 samples), released points clamped to the screen. The trade-off, over all 20: the'
\echo 'share of samples that carry a new release, the mean distance to the raw gaze, and how often the'
\echo 'released point is in the same coarse area of the face (3 x 4 cells) as the raw gaze. Releasing the'
\echo 'screen centre for everybody keeps the area for 53% of the samples: the bar to clear.'
CREATE TEMP TABLE demo_streams AS
SELECT participant, array_agg(t_ms ORDER BY t_ms) t, array_agg(x ORDER BY t_ms) x, array_agg(y ORDER BY t_ms) y
FROM uniss_samples GROUP BY participant;
-- ROWS FROM zips a release with the raw samples (for the curator's comparison only).
SELECT epsilon AS epsilon_per_second, max_tests, round(avg(published::int), 3) AS new_releases,
       round(avg(sqrt((k.x - k.raw_x) ^ 2 + (k.y - k.raw_y) ^ 2))::numeric) AS mean_distance_px,
       round(avg((pg_temp.face_area(k.x, k.y) = pg_temp.face_area(k.raw_x, k.raw_y))::int), 2) AS same_area
FROM (VALUES (2.0), (5.0), (20.0)) e(epsilon), (VALUES (2), (20)) m(max_tests), demo_streams s,
     ROWS FROM (gazepriv.kaleido(s.t, s.x, s.y, epsilon, 300, 40, l_thresh => 120, t_skip => 1000.0 / max_tests,
                                 max_tests => max_tests, clamp_to => box '((0,0),(1280,1024))'),
                unnest(s.x), unnest(s.y)) AS k(t_ms, x, y, published, action, epsilon_spent, noise_radius, raw_x, raw_y)
WHERE k.raw_x IS NOT NULL
GROUP BY epsilon, max_tests ORDER BY epsilon, max_tests;
\echo 'Many tests per window hurt: each test spends epsilon/(h max_tests), so its Laplace(r/epsilon_test)'
\echo 'noise drowns the distance it tests, most tests then publish, and every release halves what is left'
\echo 'of the window: the later releases carry almost no budget and land far away. A few tests per window'
\echo '(max_tests, spread out by t_skip = window / max_tests) and a larger epsilon keep releases informative.'

\echo
\echo 'Participant 00 with epsilon = 20 per second, max_tests = 2, t_skip = 500 ms, l_thresh = 120 px; raw'
\echo 'next to released (the raw columns are for the curator only), every 20th sample and every release:'
CREATE TEMP TABLE demo_release AS
SELECT s.participant, row_number() OVER (PARTITION BY s.participant ORDER BY k.t_ms) AS n, k.*
FROM demo_streams s,
     ROWS FROM (gazepriv.kaleido(s.t, s.x, s.y, epsilon => 20, w => 300, r => 40, l_thresh => 120, t_skip => 500,
                                 max_tests => 2, clamp_to => box '((0,0),(1280,1024))'),
                unnest(s.x), unnest(s.y)) AS k(t_ms, x, y, published, action, epsilon_spent, noise_radius, raw_x, raw_y)
WHERE s.participant = '00';
SELECT t_ms, raw_x, raw_y, round(x) AS released_x, round(y) AS released_y, action,
       round(epsilon_spent::numeric, 4) AS epsilon_spent
FROM demo_release WHERE n % 20 = 1 OR published ORDER BY n LIMIT 16;
SELECT count(*) AS samples, count(*) FILTER (WHERE published) AS releases,
       count(*) FILTER (WHERE action = 'reused') AS tests_that_reused,
       round(max(window_spent)::numeric, 4) AS max_spent_in_300_samples
FROM (SELECT *, sum(epsilon_spent) OVER (ORDER BY n ROWS 299 PRECEDING) AS window_spent FROM demo_release) r;
SELECT t_ms, raw_x, raw_y, x, y, published FROM demo_release ORDER BY n
\g (format=csv) | /usr/bin/python3 test/demo/kaleido_plot.py

\echo
\echo 'Live: a head-mounted tracker (Hoppe, 60 Hz, normalised scene coordinates) sends one second of'
\echo 'samples per statement; the trigger releases them as they arrive into gaze_released.'
CREATE TABLE gaze_live (participant text, t_ms float8, x float8, y float8);
SELECT gazepriv.kaleido_attach('gaze_live', 'gaze_released', 'participant', epsilon => 10, w => 60, r => 0.05,
                               l_thresh => 0.15, t_skip => 333) AS trigger;
DO $$
DECLARE second int;
BEGIN
    FOR second IN 0..59 LOOP
        INSERT INTO gaze_live SELECT participant, t_ms, x, y FROM hoppe_samples
        WHERE t_ms >= second * 1000 AND t_ms < (second + 1) * 1000 ORDER BY t_ms, participant;
    END LOOP;
END $$;
SELECT participant, count(*) AS samples, count(*) FILTER (WHERE published) AS releases,
       round(max(window_spent)::numeric, 4) AS max_window_spent
FROM (SELECT *, sum(epsilon_spent) OVER (PARTITION BY participant ORDER BY t_ms ROWS 59 PRECEDING) AS window_spent
      FROM gaze_released) r GROUP BY participant ORDER BY participant;
\echo 'The state each stream carries from statement to statement (public: releases, timestamps, budgets):'
SELECT stream, samples, releases, last_t_ms FROM gazepriv.kaleido_streams ORDER BY stream;

\echo
\echo 'Hiding the raw table: an analyst role gets SELECT on the releases only.'
CREATE ROLE demo_kaleido_analyst;
GRANT SELECT ON gaze_released TO demo_kaleido_analyst;
SET ROLE demo_kaleido_analyst;
SELECT count(*) AS releases_the_analyst_reads FROM gaze_released;
DO $$
BEGIN
    PERFORM count(*) FROM gaze_live;
EXCEPTION WHEN insufficient_privilege THEN
    RAISE NOTICE 'the analyst reading gaze_live: %', SQLERRM;
END $$;
RESET ROLE;
SELECT gazepriv.kaleido_reset('gaze_live') AS streams_forgotten;
DROP TABLE gaze_released, gaze_live;
DROP ROLE demo_kaleido_analyst;
\echo 'Privacy: each window of w samples is protected; a whole recording of T samples only (T/w) epsilon.'
