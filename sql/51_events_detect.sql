-- Event detection: detectors and geometries, exact boundaries and statistics on synthetic traces,
-- missing data, uneven timestamps, the saccade profile, sample labels, bad input.
-- Constructors show every parameter; the screen geometry has non-square pixels (Uniss-FGD).
SELECT gazepriv.screen_geometry(1280, 1024, 1040, 580, 1370) AS uniss_screen,
       gazepriv.camera_geometry(60, 46) AS scene_camera, gazepriv.linear_geometry(35) AS ppd;
SELECT gazepriv.ivt(30) AS ivt_defaults, gazepriv.idt(1.5) AS idt_defaults,
       gazepriv.ivt(30, 60, 20, 75, 75, gazepriv.linear_geometry(40, 30)) AS ivt_all;

-- 100 Hz: a fixation at x = 100 (samples 0..29), a saccade through 125, 150, 175 and a fixation at 200
-- (33..59). Central-difference velocities: 1250 px/s at samples 29 and 33, 2500 px/s at 30..32.
CREATE TABLE gazepriv_test.two_fixations AS
SELECT k, 10.0 * k AS t_ms,
       CASE WHEN k < 30 THEN 100 WHEN k = 30 THEN 125 WHEN k = 31 THEN 150 WHEN k = 32 THEN 175 ELSE 200 END::float8 AS x,
       100.0::float8 AS y
FROM generate_series(0, 59) k;
CREATE FUNCTION gazepriv_test.events_of(detector gazepriv.event_detector, missing int[] DEFAULT '{}',
                                        shift_from int DEFAULT NULL, shift_ms float8 DEFAULT 0)
RETURNS SETOF gazepriv.gaze_event LANGUAGE sql AS $$
    SELECT e.* FROM (SELECT gazepriv.make_trace(t_ms + CASE WHEN k >= shift_from THEN shift_ms ELSE 0 END,
                                               CASE WHEN k = ANY (missing) THEN NULL ELSE x END, y) AS tr
                     FROM gazepriv_test.two_fixations) s, gazepriv.detect_events(s.tr, detector) e $$;
SELECT event_index AS i, type, start_ms, end_ms, duration_ms, n_samples, centroid_x, centroid_y,
       round(sigma_x::numeric, 6) AS sigma_x, sigma_y, start_x, end_x, amplitude, peak_velocity, mean_velocity,
       round(profile_b::numeric, 6) AS profile_b, profile_a > 2000 AND profile_c > 0 AS profile_ok
FROM gazepriv_test.events_of(gazepriv.ivt(1000));
-- The threshold is exclusive: 1250 px/s is not above 1250, so samples 29 and 33 stay in the fixations.
SELECT event_index AS i, type, start_ms, end_ms FROM gazepriv_test.events_of(gazepriv.ivt(1250));
-- min_fixation_ms drops the 250 ms fixation (its samples become unclassified).
SELECT event_index AS i, type, start_ms, end_ms FROM gazepriv_test.events_of(gazepriv.ivt(1000, 251));
-- A velocity window of 40 ms uses samples k-2 and k+2: v = 1250, 1875, 2500, 1875, 1250 around the jump.
SELECT event_index AS i, type, start_ms, end_ms, peak_velocity
FROM gazepriv_test.events_of(gazepriv.ivt(1300, velocity_window_ms => 40));
-- A missing sample ends the fixation; gap_fill_ms bridges it (20 ms between its neighbours).
SELECT event_index AS i, type, start_ms, end_ms, n_samples FROM gazepriv_test.events_of(gazepriv.ivt(1000), '{45}');
SELECT event_index AS i, type, start_ms, end_ms, n_samples
FROM gazepriv_test.events_of(gazepriv.ivt(1000, gap_fill_ms => 20), '{45}');
-- A pause of 100 ms without samples is longer than max_gap_ms (75): the fixation splits, unless allowed.
SELECT event_index AS i, type, start_ms, end_ms FROM gazepriv_test.events_of(gazepriv.ivt(1000), '{}', 45, 90);
SELECT count(*) AS events FROM gazepriv_test.events_of(gazepriv.ivt(1000, max_gap_ms => 150), '{}', 45, 90);
-- I-DT with 10 px dispersion and 100 ms windows: the fixations take every sample within 10 px.
SELECT event_index AS i, type, start_ms, end_ms, n_samples, centroid_x
FROM gazepriv_test.events_of(gazepriv.idt(10, 100));
-- Unsorted rows and duplicated rows give the same events (duplicates merge into one sample).
SELECT (SELECT array_agg(e ORDER BY event_index)::text
        FROM (SELECT gazepriv.make_trace(t_ms, x, y) tr FROM (SELECT * FROM (SELECT * FROM gazepriv_test.two_fixations
              UNION ALL SELECT * FROM gazepriv_test.two_fixations) u ORDER BY random()) r) s,
             gazepriv.detect_events(s.tr, gazepriv.ivt(1000)) e)
     = (SELECT array_agg(e ORDER BY event_index)::text FROM gazepriv_test.events_of(gazepriv.ivt(1000)) e)
  AS order_and_duplicates_do_not_matter;

-- Uneven timestamps (3 and 4 ms alternately, as Uniss-FGD) with constant motion: every velocity is exact.
SELECT type, n_samples, round(peak_velocity::numeric, 9) AS peak, round(mean_velocity::numeric, 9) AS mean
FROM (SELECT gazepriv.make_trace(t, 0.1 * t, 0) AS tr
      FROM (SELECT sum(CASE WHEN k % 2 = 0 THEN 3 ELSE 4 END) OVER (ORDER BY k) AS t FROM generate_series(1, 40) k) s) s,
     gazepriv.detect_events(s.tr, gazepriv.ivt(99.999)) e;

-- Geometry: 1 mm pixels seen from 1000 mm, eye in front of (0, 0): a jump to x = 1000 tan(10 deg) is
-- exactly 10 degrees, at 500 deg/s over 20 ms; off-axis the angle is the exact one between the gaze
-- directions; non-square pixels (0.5 mm vertically) are honoured.
CREATE FUNCTION gazepriv_test.jump(x0 float8, y0 float8, x1 float8, y1 float8, g gazepriv.viewing_geometry)
RETURNS TABLE (type text, amplitude numeric, peak_velocity numeric) LANGUAGE sql AS $$
    SELECT e.type, round(e.amplitude::numeric, 9), round(e.peak_velocity::numeric, 6)
    FROM (SELECT gazepriv.make_trace(10.0 * k, CASE WHEN k < 5 THEN x0 ELSE x1 END, CASE WHEN k < 5 THEN y0 ELSE y1 END) tr
          FROM generate_series(0, 9) k) s, gazepriv.detect_events(s.tr, gazepriv.ivt(50, geometry => g)) e
    WHERE e.type = 'saccade' $$;
SELECT * FROM gazepriv_test.jump(0, 0, 1000 * tan(radians(10)), 0, gazepriv.screen_geometry(1000, 1000, 1000, 1000, 1000, 0, 0));
SELECT j.amplitude = round(degrees(acos((500 * 600 + 300 * 300 + 1e6) /
                                      (sqrt(500 ^ 2 + 300 ^ 2 + 1e6) * sqrt(600 ^ 2 + 300 ^ 2 + 1e6))))::numeric, 9) AS exact_angle
FROM gazepriv_test.jump(500, 300, 600, 300, gazepriv.screen_geometry(1000, 1000, 1000, 1000, 1000, 0, 0)) j;
SELECT * FROM gazepriv_test.jump(0, 0, 0, 2000 * tan(radians(10)), gazepriv.screen_geometry(1000, 1000, 1000, 500, 1000, 0, 0));
-- A normalised scene camera with a 90 degree horizontal field: the image edge is 45 degrees out.
SELECT * FROM gazepriv_test.jump(0.5, 0.5, 1, 0.5, gazepriv.camera_geometry(90, 60));
-- Pixels per degree: 100 px at 40 px/deg is 2.5 degrees.
SELECT * FROM gazepriv_test.jump(0, 0, 100, 0, gazepriv.linear_geometry(40));

-- The saccade profile: positions integrate a Gaussian velocity profile (a = 400 deg/s, peak at 230 ms,
-- c = 8 ms; midpoint sums at 1 kHz) at 20 px per degree. The fit recovers a, b, c within 2% (central
-- differences average two midpoints, which widens the profile by about 0.5%).
WITH v AS (SELECT k, 400 * exp(-(((k + 0.5) - 230) ^ 2) / (2 * 8 ^ 2)) / 1000 AS step_deg FROM generate_series(0, 499) k),
     p AS (SELECT k, 300 + 20 * coalesce(sum(step_deg) OVER (ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING
                                         AND 1 PRECEDING), 0) AS x FROM v),
     s AS (SELECT gazepriv.make_trace(k, x, 200) tr FROM p)
SELECT e.type, abs(e.profile_a / 400 - 1) < 0.02 AS a_ok, abs(e.start_ms + e.profile_b - 230) < 0.1 AS b_ok,
       abs(e.profile_c / 8 - 1) < 0.02 AS c_ok, abs(e.peak_velocity / 400 - 1) < 0.01 AS peak_ok
FROM s, gazepriv.detect_events(s.tr, gazepriv.ivt(30, geometry => gazepriv.linear_geometry(20))) e
WHERE e.type = 'saccade';

-- Sample labels: every row of the trace once, with the label of the event spanning it.
SELECT label, count(*), min(t_ms), max(t_ms), min(event_index), max(event_index)
FROM (SELECT gazepriv.make_trace(t_ms, CASE WHEN k IN (45, 46) THEN NULL ELSE x END, y) tr FROM gazepriv_test.two_fixations) s,
     gazepriv.label_samples(s.tr, gazepriv.ivt(1000, 100, gap_fill_ms => 20)) l
GROUP BY label ORDER BY label;
SELECT label, count(*) FROM (SELECT '{(0,1,1),(10,NaN,NaN),(20,5,5),(30,NaN,NaN),(40,1,1),(50,1,1)}'::gazepriv.gaze_trace tr) s,
       gazepriv.label_samples(s.tr, gazepriv.ivt(1000)) l GROUP BY label ORDER BY label;
-- An empty trace has no events; a trace of one missing sample has one label; NULL arguments give no
-- rows (STRICT).
SELECT count(*) AS no_events FROM gazepriv.detect_events('{}', gazepriv.ivt(1));
SELECT count(*) AS no_labels FROM gazepriv.label_samples('{(1,NaN,NaN)}', gazepriv.idt(1));
SELECT count(*) AS null_detector FROM gazepriv.detect_events('{(1,1,1)}', NULL);

-- Bad parameters: 22023 naming the parameter (22004 for NULL), before any data is read.
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.ivt(0)$$,
    $$SELECT gazepriv.ivt(-1)$$,
    $$SELECT gazepriv.ivt('NaN')$$,
    $$SELECT gazepriv.ivt('Infinity')$$,
    $$SELECT gazepriv.ivt(NULL)$$,
    $$SELECT gazepriv.idt(0)$$,
    $$SELECT gazepriv.idt(1, -1)$$,
    $$SELECT gazepriv.ivt(30, velocity_window_ms => -1)$$,
    $$SELECT gazepriv.ivt(30, max_gap_ms => 0)$$,
    $$SELECT gazepriv.ivt(30, gap_fill_ms => 'NaN')$$,
    $$SELECT gazepriv.ivt(30, min_fixation_ms => NULL)$$,
    $$SELECT gazepriv.screen_geometry(0, 1024, 1040, 580, 1370)$$,
    $$SELECT gazepriv.screen_geometry(1280, 1024, 1040, 580, -1)$$,
    $$SELECT gazepriv.screen_geometry(1280, 1024, 1040, NULL, 1370)$$,
    $$SELECT gazepriv.screen_geometry(1280, 1024, 1040, 580, 1370, 'Infinity')$$,
    $$SELECT gazepriv.camera_geometry(181, 40)$$,
    $$SELECT gazepriv.camera_geometry(60, 0)$$,
    $$SELECT gazepriv.camera_geometry(60, 40, 0)$$,
    $$SELECT gazepriv.linear_geometry(0)$$,
    $$SELECT gazepriv.linear_geometry(35, -1)$$,
    $$SELECT * FROM gazepriv.detect_events('{(1,1,1)}', ROW('ivx', 1, NULL, 0, 0, 75, 0, NULL)::gazepriv.event_detector)$$,
    $$SELECT * FROM gazepriv.detect_events('{(1,1,1)}', ROW('ivt', 0, NULL, 0, 0, 75, 0, NULL)::gazepriv.event_detector)$$,
    $$SELECT * FROM gazepriv.detect_events('{(1,1,1)}', ROW('idt', 1, NULL, 0, 0, 75, 0, NULL)::gazepriv.event_detector)$$,
    $$SELECT * FROM gazepriv.detect_events('{(1,1,1)}', ROW('ivt', 1, NULL, 0, 0, NULL, 0, NULL)::gazepriv.event_detector)$$,
    $$SELECT * FROM gazepriv.label_samples('{(1,1,1)}', ROW('ivt', 1, NULL, 0, 0, 75, 0,
        ROW('sphere', 0, 0, 1, 1, 1)::gazepriv.viewing_geometry)::gazepriv.event_detector)$$,
    $$SELECT * FROM gazepriv.detect_events('{(1,1,1)}', ROW('ivt', 1, NULL, 0, 0, 75, 0,
        ROW('plane', 0, 0, 1, 1, 0)::gazepriv.viewing_geometry)::gazepriv.event_detector)$$]) q;
