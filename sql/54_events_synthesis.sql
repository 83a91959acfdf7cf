-- synthesize_samples: SynthFixation and SynthSaccade (TVCG 2023 supplement 2.1-2.2), read back by
-- make_trace and detect_events; the real-data slice of 53_events_real_data (gazepriv_test.uniss).
SET gazepriv.seed = 54;
-- A saccade with a centred Gaussian speed profile is exact: half-way at the peak, symmetric, monotone, and
-- from its start point to its end point; without a profile the speed is constant.
CREATE TABLE synth_times AS SELECT gazepriv.make_trace(t, 0, 0) AS trace FROM generate_series(0, 200, 10) t;
SELECT s.t_ms, round(s.x::numeric, 6) AS x, round(s.y::numeric, 6) AS y, s.event_index, s.type
FROM synth_times, gazepriv.synthesize_samples(ARRAY[
    ROW(7, 'saccade', 0, 100, 100, 11, 100, 50, 0, 0, 0, 0, 200, 100, 0, 0, 0, 10, 50, 15)::gazepriv.gaze_event],
    trace) s;
SELECT s.t_ms, s.x, s.y FROM synth_times, gazepriv.synthesize_samples(ARRAY[
    ROW(1, 'saccade', 100, 200, 100, 11, 0, 0, 0, 0, 0, 0, 100, 0, 1, 0, 0, NULL, NULL, NULL)::gazepriv.gaze_event],
    trace) s;
-- A fixation: 201 samples from N(500, 4^2) x N(300, 2^2); sigma 0 gives the centroid itself.
CREATE TABLE synth_fixation AS
SELECT s.* FROM (SELECT gazepriv.make_trace(t, 0, 0) AS trace FROM generate_series(0, 2000, 10) t) tr,
     gazepriv.synthesize_samples(ARRAY[
         ROW(1, 'fixation', 0, 2000, 2000, 201, 500, 300, 4, 2, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL),
         ROW(2, 'fixation', 0, 20, 20, 3, 10, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL)]::gazepriv.gaze_event[],
         tr.trace) s;
SELECT event_index, count(*), abs(avg(x) - 500) < 4 * 4 / sqrt(201) AS mean_x, abs(avg(y) - 300) < 4 * 2 / sqrt(201) AS mean_y,
       stddev_pop(x) BETWEEN 3.2 AND 4.8 AS sd_x, stddev_pop(y) BETWEEN 1.6 AND 2.4 AS sd_y
FROM synth_fixation WHERE event_index = 1 GROUP BY 1;
SELECT event_index, t_ms, x, y, type FROM synth_fixation WHERE event_index = 2 ORDER BY t_ms;
-- Noise from the seeded CSPRNG: the same seed gives the same stream, the next call another one.
CREATE FUNCTION pg_temp.draw() RETURNS float8[] LANGUAGE sql AS $$
    SELECT array_agg(s.x ORDER BY s.t_ms) FROM synth_times, gazepriv.synthesize_samples(ARRAY[
        ROW(1, 'fixation', 0, 200, 200, 21, 5, 5, 1, 1, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL)::gazepriv.gaze_event],
        trace) s $$;
SET gazepriv.seed = 9;
CREATE TEMP TABLE draws AS SELECT pg_temp.draw() AS a, pg_temp.draw() AS b;
SET gazepriv.seed = 9;
SELECT pg_temp.draw() = a AS seeded_repeats, a <> b AS next_call_differs FROM draws;

-- Real data: the events of every participant on image 2 (I-VT, as 53_events_real_data), synthesised at the
-- trace's times and detected again. Every sample in an event is synthesised once; the synthetic stream keeps
-- the event structure (fixation counts and durations close to the originals).
SET gazepriv.seed = 54;
CREATE TABLE synth_real AS
WITH traces AS (SELECT participant, gazepriv.make_trace(t_ms, x, y) AS trace FROM gazepriv_test.uniss GROUP BY 1),
     events AS (SELECT participant, array_agg(e ORDER BY e.event_index) AS events
                FROM traces, gazepriv.detect_events(trace, gazepriv.ivt(30, 0, 20, 75, 75,
                     gazepriv.screen_geometry(1280, 1024, 1040, 580, 1370))) e GROUP BY participant)
SELECT participant, trace, events, (SELECT gazepriv.make_trace(s.t_ms, s.x, s.y)
                                    FROM gazepriv.synthesize_samples(events, trace) s) AS synthetic
FROM events JOIN traces USING (participant);
SELECT count(*) AS participants,
       bool_and((SELECT count(*) FROM gazepriv.trace_samples(synthetic)) =
                (SELECT sum((SELECT count(*) FROM gazepriv.trace_samples(trace) t
                             WHERE t.t_ms BETWEEN e.start_ms AND e.end_ms)) FROM unnest(events) e)) AS one_sample_per_event_time
FROM synth_real;
WITH counts AS (
    SELECT participant,
           (SELECT count(*) FROM unnest(events) e WHERE e.type = 'fixation') AS original,
           (SELECT count(*) FROM gazepriv.detect_events(synthetic, gazepriv.ivt(30, 0, 20, 75, 75,
                gazepriv.screen_geometry(1280, 1024, 1040, 580, 1370))) e WHERE e.type = 'fixation') AS synthetic
    FROM synth_real)
SELECT sum(original) > 100 AS many_fixations, abs(sum(synthetic) - sum(original)) < 0.25 * sum(original) AS counts_kept
FROM counts;

-- At a public sampling rate instead of a trace's times: the grid j * 1000 / rate (here every 5 ms).
SELECT s.* FROM gazepriv.synthesize_samples(ARRAY[
    ROW(1, 'fixation', 1, 12, 11, 2, 5, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL),
    ROW(2, 'saccade', 15, 25, 10, 3, 0, 0, 0, 0, 5, 6, 25, 6, 20, 0, 0, NULL, NULL, NULL)]::gazepriv.gaze_event[], 200) s;

-- Bad input: 22023 naming the event and value, 22004 for NULL, 54000 above the limit.
CREATE FUNCTION pg_temp.error_of(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN EXECUTE query; RETURN 'no error'; EXCEPTION WHEN OTHERS THEN RETURN SQLSTATE || ': ' || SQLERRM; END $$;
SELECT pg_temp.error_of($q$SELECT count(*) FROM synth_times, gazepriv.synthesize_samples(ARRAY[
    ROW(3, 'blink', 0, 100, 100, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL)::gazepriv.gaze_event], trace)$q$);
SELECT pg_temp.error_of($q$SELECT count(*) FROM synth_times, gazepriv.synthesize_samples(ARRAY[
    ROW(3, 'fixation', 100, 50, -50, 11, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL)::gazepriv.gaze_event], trace)$q$);
SELECT pg_temp.error_of($q$SELECT count(*) FROM synth_times, gazepriv.synthesize_samples(ARRAY[
    ROW(3, 'fixation', 0, 50, 50, 11, 'NaN', 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL)::gazepriv.gaze_event], trace)$q$);
SELECT pg_temp.error_of($q$SELECT count(*) FROM synth_times, gazepriv.synthesize_samples(ARRAY[
    ROW(3, 'fixation', 0, 50, 50, 11, 0, NULL, 1, 1, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL)::gazepriv.gaze_event], trace)$q$);
SELECT pg_temp.error_of($q$SELECT count(*) FROM synth_times, gazepriv.synthesize_samples(ARRAY[
    ROW(3, 'fixation', 0, 50, 50, 11, 0, 0, -1, 1, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL)::gazepriv.gaze_event], trace)$q$);
SELECT pg_temp.error_of($q$SELECT count(*) FROM synth_times, gazepriv.synthesize_samples(ARRAY[
    ROW(3, 'fixation', 0, 'Infinity', 'Infinity', 11, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL)::gazepriv.gaze_event], trace)$q$);
SELECT pg_temp.error_of($q$SELECT count(*) FROM synth_times, gazepriv.synthesize_samples(ARRAY[
    ROW(3, 'saccade', 0, 50, 50, 11, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 10, NULL, 5)::gazepriv.gaze_event], trace)$q$);
SELECT pg_temp.error_of($q$SELECT count(*) FROM synth_times, gazepriv.synthesize_samples(ARRAY[
    ROW(3, 'saccade', 0, 50, 50, 11, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 10, 25, 0)::gazepriv.gaze_event], trace)$q$);
SELECT pg_temp.error_of($q$SELECT count(*) FROM synth_times, gazepriv.synthesize_samples(ARRAY[NULL]::gazepriv.gaze_event[], trace)$q$);
SELECT pg_temp.error_of($q$SELECT count(*) FROM gazepriv.synthesize_samples(NULL, NULL::gazepriv.gaze_trace)$q$);
SELECT pg_temp.error_of($q$SELECT count(*) FROM gazepriv.synthesize_samples(ARRAY[
    ROW(1, 'fixation', 0, 10, 10, 2, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL)::gazepriv.gaze_event], 0)$q$);
SELECT pg_temp.error_of($q$SELECT count(*) FROM gazepriv.synthesize_samples(ARRAY[
    ROW(1, 'fixation', 0, 1e12, 1e12, 2, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL)::gazepriv.gaze_event], 1000)$q$);
-- Overlapping events multiply the output: refused before any allocation above the superuser's limit.
SET gazepriv.max_synthesized_samples = 100;
SELECT pg_temp.error_of($q$SELECT count(*) FROM synth_times, gazepriv.synthesize_samples(array_fill(
    ROW(1, 'fixation', 0, 200, 200, 21, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL)::gazepriv.gaze_event, ARRAY[5]), trace)$q$);
RESET gazepriv.max_synthesized_samples;
-- An empty array gives an empty stream.
SELECT count(*) FROM synth_times, gazepriv.synthesize_samples('{}', trace);
DROP TABLE synth_times, synth_fixation, synth_real;
RESET gazepriv.seed;
