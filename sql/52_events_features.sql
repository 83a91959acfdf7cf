-- Windowed features: names, window placement, values on a synthetic trace, bad input.
SELECT cardinality(gazepriv.feature_names()) AS features, (gazepriv.feature_names())[1] AS first,
       (gazepriv.feature_names())[33] AS last;
SELECT feature, name, unit FROM gazepriv.feature_catalog() ORDER BY feature;
SELECT bool_and(c.name = n.name) AS catalog_matches_names
FROM gazepriv.feature_catalog() c JOIN unnest(gazepriv.feature_names()) WITH ORDINALITY n(name, feature) USING (feature);

-- 10 s at 100 Hz (0 .. 9990 ms), the pupil alternating 3 and 3.5 mm. Every 500 ms the gaze rests on
-- x = 100 or 200 for 40 samples, then moves 10 px per sample to the other place (1000 px/s). With
-- I-VT at 600 px/s the samples at either end of a move (500 px/s by central difference) belong to the
-- fixations: fixations of 390 ms (the first) and 400 ms, saccades of 80 ms from x +-10 to x +-90 (80 px),
-- alternately rightward and leftward. A blink (missing samples) from 5000 to 5190 ms.
CREATE TABLE gazepriv_test.feature_rows AS
SELECT k, 10.0 * k AS t_ms,
       CASE WHEN k BETWEEN 500 AND 519 THEN NULL
            WHEN k % 50 < 40 THEN 100 + 100 * ((k / 50) % 2)
            ELSE 100 + 100 * ((k / 50) % 2) + 10 * (k % 50 - 39) * (1 - 2 * ((k / 50) % 2)) END::float8 AS x,
       CASE WHEN k BETWEEN 500 AND 519 THEN NULL ELSE 300 END::float8 AS y,
       3 + (k % 2) * 0.5 AS pupil
FROM generate_series(0, 999) k;
CREATE TABLE gazepriv_test.feature_out AS
SELECT f.* FROM (SELECT gazepriv.make_trace(t_ms, x, y, pupil) tr FROM gazepriv_test.feature_rows) s,
       gazepriv.feature_windows(s.tr, gazepriv.ivt(600, 50), large_saccade => 50,
                                window_ms => 2000, step_ms => 1000) f;
-- Windows [0, 2000), [1000, 3000), ..., [8000, 10000): the trace lasts 10 s with its last interval.
SELECT count(*) AS windows, min(f.window), max(f.window), min(start_ms), max(end_ms),
       bool_and(cardinality(features) = 33) AS all_33, bool_and(NOT ('NaN' = ANY (features))) AS no_nan
FROM gazepriv_test.feature_out f;
-- The first window [0, 2000): fixations start at 0, 490, 990, 1490, 1990 (mean (390 + 4 x 400) / 5) and cover
-- 390 + 3 x 400 + 10 ms (the one starting at 1990); saccades start at 400, 900, 1400, 1900.
SELECT n.name, round(v::numeric, 6) AS value
FROM gazepriv_test.feature_out f, unnest(f.features, gazepriv.feature_names()) AS n(v, name)
WHERE f.window = 1 ORDER BY array_position(gazepriv.feature_names(), n.name);
-- The blink window (4000 .. 6000 ms): one blink of 200 ms, 20 missing samples out of 200.
SELECT f.window, features[array_position(gazepriv.feature_names(), 'missing_ratio')] AS missing_ratio,
       features[array_position(gazepriv.feature_names(), 'blink_rate')] AS blink_rate,
       features[array_position(gazepriv.feature_names(), 'blink_duration_mean')] AS blink_ms
FROM gazepriv_test.feature_out f WHERE f.window IN (4, 5, 6) ORDER BY 1;
-- A trace shorter than one window gives no rows; the defaults are 30 s windows every 0.5 s.
SELECT count(*) AS too_short FROM gazepriv.feature_windows('{(0,1,1),(10,1,1)}', gazepriv.ivt(30), 1);
SELECT count(*) AS windows_30s, min(start_ms), max(start_ms)
FROM (SELECT gazepriv.make_trace(10.0 * k, k % 3, 0) tr FROM generate_series(0, 3999) k) s,
     gazepriv.feature_windows(s.tr, gazepriv.idt(5), 5) f;

-- Bad parameters: 22023 naming the parameter; 54000 for more than 10 million windows.
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT * FROM gazepriv.feature_windows('{(0,1,1)}', gazepriv.ivt(30), 0)$$,
    $$SELECT * FROM gazepriv.feature_windows('{(0,1,1)}', gazepriv.ivt(30), 'NaN')$$,
    $$SELECT * FROM gazepriv.feature_windows('{(0,1,1)}', gazepriv.ivt(30), 5, window_ms => 0)$$,
    $$SELECT * FROM gazepriv.feature_windows('{(0,1,1)}', gazepriv.ivt(30), 5, window_ms => 'Infinity')$$,
    $$SELECT * FROM gazepriv.feature_windows('{(0,1,1)}', gazepriv.ivt(30), 5, step_ms => -1)$$,
    $$SELECT * FROM gazepriv.feature_windows('{(0,1,1)}', gazepriv.ivt(30), 5, blink_min_ms => -1)$$,
    $$SELECT * FROM gazepriv.feature_windows('{(0,1,1)}', gazepriv.ivt(30), 5, blink_min_ms => 452, blink_max_ms => 451)$$,
    $$SELECT * FROM gazepriv.feature_windows('{(0,1,1),(1e9,1,1)}', gazepriv.ivt(30), 5, 11, 0.001)$$,
    $$SELECT * FROM gazepriv.feature_windows('{(0,1,1)}', ROW('ivt', -1, NULL, 0, 0, 75, 0, NULL)::gazepriv.event_detector, 5)$$]) q;
