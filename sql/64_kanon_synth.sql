-- k_same_synth: k-same-select over fixation and saccade parameters, then samples synthesised from the group's
-- parameters (TVCG 2023 supplement 2.1), on the real-data slice of 53_events_real_data (Uniss-FGD image 2,
-- 20 participants, 300 Hz).
SET gazepriv.seed = 64;
CREATE TABLE synth_events AS
SELECT t.participant, 'img_002' AS task, e.*
FROM (SELECT participant, gazepriv.make_trace(t_ms, x, y) AS trace FROM gazepriv_test.uniss GROUP BY 1) t,
     gazepriv.detect_events(t.trace, gazepriv.ivt(30, 0, 20, 75, 75,
                                                  gazepriv.screen_geometry(1280, 1024, 1040, 580, 1370))) e;
CREATE TABLE synth_k4 AS SELECT * FROM gazepriv.k_same_synth('synth_events', k => 4, sampling_rate_hz => 300);
-- floor(20 / 4) = 5 groups of 4; every participant has a stream.
SELECT count(DISTINCT participant) AS participants, count(DISTINCT group_id) AS groups,
       min(n) AS smallest_group, max(n) AS largest_group
FROM (SELECT DISTINCT group_id, participant FROM synth_k4) g
     JOIN (SELECT group_id, count(DISTINCT participant) AS n FROM synth_k4 GROUP BY 1) s USING (group_id);
-- Every member of a group has the same stream structure (event order, types, timestamps) and the same saccade
-- samples; fixation samples are fresh draws (the group's Normal), so members differ there.
WITH streams AS (
    SELECT group_id, participant,
           md5(string_agg(event_index || type || t_ms, ',' ORDER BY t_ms)) AS structure,
           md5(string_agg(CASE WHEN type = 'saccade' THEN x || ' ' || y END, ',' ORDER BY t_ms)) AS saccades,
           md5(string_agg(CASE WHEN type = 'fixation' THEN x || ' ' || y END, ',' ORDER BY t_ms)) AS fixations
    FROM synth_k4 GROUP BY 1, 2)
SELECT bool_and(structures = 1) AS one_structure_per_group, bool_and(saccade_paths = 1) AS one_saccade_path_per_group,
       bool_and(fixation_draws = members) AS fresh_fixation_draws
FROM (SELECT group_id, count(*) AS members, count(DISTINCT structure) AS structures,
             count(DISTINCT saccades) AS saccade_paths, count(DISTINCT fixations) AS fixation_draws
      FROM streams GROUP BY 1) g;
-- The synthetic streams are readable by make_trace and detect_events, on the 300 Hz grid from 0; the group's
-- padded fixation count is at least each member's own (padding repeats the last fixation).
WITH synthetic AS (
    SELECT participant, count(*) FILTER (WHERE type = 'fixation') AS fixation_samples,
           max(event_index) AS events, bool_and(abs(t_ms * 0.3 - round(t_ms * 0.3)) < 1e-9) AS on_grid
    FROM synth_k4 GROUP BY 1),
     original AS (SELECT participant, count(*) FILTER (WHERE type = 'fixation') AS fixations FROM synth_events GROUP BY 1)
SELECT bool_and(on_grid) AS on_grid, bool_and((events + 1) / 2 >= o.fixations) AS padded_to_the_longest
FROM synthetic JOIN original o USING (participant);
SELECT count(*) > 0 AS detected
FROM (SELECT participant, gazepriv.make_trace(t_ms, x, y) AS trace FROM synth_k4 GROUP BY 1) s,
     gazepriv.detect_events(s.trace, gazepriv.ivt(30, 0, 20, 75, 75,
                                                 gazepriv.screen_geometry(1280, 1024, 1040, 580, 1370))) e
WHERE e.type = 'fixation';
-- The paper's variant: separate groupings for the fixations and for the saccades.
SELECT count(DISTINCT participant) AS participants
FROM gazepriv.k_same_synth('synth_events', k => 5, sampling_rate_hz => 300, across_tasks => false);

-- Bad input: 22023 naming the value, 22004 for NULL, 54000 above the limit.
CREATE FUNCTION pg_temp.error_of(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE detail text;
BEGIN EXECUTE query; RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' (' || nullif(detail, '') || ')', '');
END $$;
SELECT pg_temp.error_of($q$SELECT count(*) FROM gazepriv.k_same_synth('synth_events', 21, 300)$q$);
SELECT pg_temp.error_of($q$SELECT count(*) FROM gazepriv.k_same_synth('synth_events', 1, 300)$q$);
SELECT pg_temp.error_of($q$SELECT count(*) FROM gazepriv.k_same_synth('synth_events', 4, 0)$q$);
SELECT pg_temp.error_of($q$SELECT count(*) FROM gazepriv.k_same_synth('synth_events', 4, 'NaN')$q$);
SELECT pg_temp.error_of($q$SELECT count(*) FROM gazepriv.k_same_synth('synth_events', NULL, 300)$q$);
CREATE TABLE synth_bad AS SELECT * FROM synth_events;
UPDATE synth_bad SET type = 'blink' WHERE participant = '03' AND event_index = 2;
SELECT pg_temp.error_of($q$SELECT count(*) FROM gazepriv.k_same_synth('synth_bad', 4, 300)$q$);
UPDATE synth_bad SET type = 'fixation', duration_ms = -3 WHERE participant = '03' AND event_index = 2;
SELECT pg_temp.error_of($q$SELECT count(*) FROM gazepriv.k_same_synth('synth_bad', 4, 300)$q$);
UPDATE synth_bad SET duration_ms = 10, sigma_x = 'NaN' WHERE participant = '03' AND event_index = 2;
SELECT pg_temp.error_of($q$SELECT count(*) FROM gazepriv.k_same_synth('synth_bad', 4, 300)$q$);
UPDATE synth_bad SET sigma_x = 1, duration_ms = 1e300 WHERE participant = '03' AND event_index = 2;
SELECT pg_temp.error_of($q$SELECT count(*) FROM gazepriv.k_same_synth('synth_bad', 4, 300)$q$);
SET gazepriv.max_synthesized_samples = 1000;
SELECT pg_temp.error_of($q$SELECT count(*) FROM gazepriv.k_same_synth('synth_events', 4, 300)$q$);
RESET gazepriv.max_synthesized_samples;
-- With a secret (a served-once release's) the whole release, fixation samples included, is drawn from it alone:
-- under another seed the streams are identical.
SET gazepriv.seed = 1;
CREATE TABLE synth_keyed AS
SELECT * FROM gazepriv.k_same_synth('synth_events', 4, 300, secret => sha256('64_kanon_synth'::bytea));
SET gazepriv.seed = 2;
SELECT count(*) AS differing_samples
FROM ((TABLE synth_keyed EXCEPT ALL
       SELECT * FROM gazepriv.k_same_synth('synth_events', 4, 300, secret => sha256('64_kanon_synth'::bytea)))
      UNION ALL
      (SELECT * FROM gazepriv.k_same_synth('synth_events', 4, 300, secret => sha256('64_kanon_synth'::bytea))
       EXCEPT ALL TABLE synth_keyed)) d;
DROP TABLE synth_keyed;
DROP TABLE synth_events, synth_k4, synth_bad;
RESET gazepriv.seed;
