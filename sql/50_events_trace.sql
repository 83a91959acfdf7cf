-- gaze_trace and make_trace: text form, ordering, duplicates, missing values, parallel aggregation.
-- Text form: sorted on input, duplicates merged (mean of the samples with gaze), NaN = missing.
SELECT '{(3,1,2),(1,NaN,2,3.5),(2,4,5),(2,6,7,Infinity)}'::gazepriv.gaze_trace AS parsed;
SELECT '{}'::gazepriv.gaze_trace AS empty, ' { ( 1 , 2 , 3 ) } '::gazepriv.gaze_trace AS spaces;
-- Exact round trip of arbitrary doubles.
SELECT t::text::gazepriv.gaze_trace::text = t::text AS round_trip
FROM (SELECT '{(0.1,0.30000000000000004,-1e-300),(1e15,3.141592653589793,2.718281828459045,4.25)}'::gazepriv.gaze_trace t) s;

-- make_trace: rows in any order; NULL t_ms skipped; NULL, NaN or infinite coordinates are missing;
-- pupil <= 0 is missing.
SELECT gazepriv.make_trace(t, x, y) FROM (VALUES (3.0, 30.0, 300.0), (1, 10, 100), (NULL, 99, 99), (2, NULL, 200),
    (4, 'NaN', 400), (5, 50, '-Infinity')) v(t, x, y);
SELECT gazepriv.make_trace(t, x, y, p) FROM (VALUES (1.0, 1.0, 1.0, 0.0), (2, 2, 2, 3.5), (3, 3, 3, NULL)) v(t, x, y, p);
-- Duplicate timestamps become one sample, the mean of those with gaze; the result does not depend on
-- the row order.
SELECT gazepriv.make_trace(t, x, y ORDER BY x)::text = gazepriv.make_trace(t, x, y ORDER BY x DESC)::text AS order_independent,
       gazepriv.make_trace(t, x, y)::text AS merged
FROM (VALUES (1.0, 1.0, 10.0), (1, 3, 30), (1, NULL, NULL), (2, 5, 5)) v(t, x, y);
-- No rows, or only rows without a time: NULL.
SELECT gazepriv.make_trace(t, x, y) IS NULL AS no_rows FROM (VALUES (1.0, 1.0, 1.0)) v(t, x, y) WHERE false;
SELECT gazepriv.make_trace(NULL::float8, 1, 1) IS NULL AS only_null_times;
-- One trace per group, growing far past its initial capacity; trace_samples unnests it.
SELECT g, count(*) AS samples, min(s.t_ms), max(s.t_ms), sum(s.x) AS sum_x, count(s.pupil) AS pupils
FROM (SELECT k / 5001 AS g, gazepriv.make_trace(k, k % 7, k % 5) AS tr
      FROM generate_series(1, 10000) k GROUP BY 1) t, gazepriv.trace_samples(t.tr) s
GROUP BY g ORDER BY g;

-- Parallel aggregation (partial traces combined) gives the same traces as a serial plan.
CREATE TABLE gazepriv_test.trace_rows AS
SELECT p, (k * 7919) % 20000 AS t, sin(k) * 100 AS x, cos(k) * 100 AS y, 3 + (k % 10) / 10.0 AS pupil
FROM generate_series(1, 4) p, generate_series(1, 20000) k;
ANALYZE gazepriv_test.trace_rows;
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT p, gazepriv.make_trace(t, x, y, pupil) FROM gazepriv_test.trace_rows GROUP BY p;
-- (The traces are stored, so the comparison also reads them back through TOAST.)
CREATE TABLE gazepriv_test.traces_parallel AS
SELECT p, gazepriv.make_trace(t, x, y, pupil) AS trace FROM gazepriv_test.trace_rows GROUP BY p;
SET max_parallel_workers_per_gather = 0;
SELECT count(*) AS traces, bool_and(a.trace::text = b.trace::text) AS parallel_equals_serial
FROM gazepriv_test.traces_parallel a
JOIN (SELECT p, gazepriv.make_trace(t, x, y, pupil) AS trace FROM gazepriv_test.trace_rows GROUP BY p) b USING (p);
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
SELECT pg_column_size(trace) < 20000 * 32 AS stored_compressed FROM gazepriv_test.traces_parallel LIMIT 1;

-- Partial states combined through their text form, as Citus ships them between nodes (issue 16): rows sharing
-- a time in different states weigh one row each. partial_trace is make_trace without its final function (one
-- state per group), combined_trace combines states and finalises them with make_trace's own functions.
CREATE AGGREGATE gazepriv_test.partial_trace(float8, float8, float8, float8) (
    SFUNC = gazepriv._make_trace_sfunc, STYPE = gazepriv.trace_state);
CREATE AGGREGATE gazepriv_test.combined_trace(gazepriv.trace_state) (
    SFUNC = gazepriv._make_trace_combinefunc, STYPE = gazepriv.trace_state,
    FINALFUNC = gazepriv._make_trace_finalfunc);
-- The issue's case: two rows at t = 1 in one state, one in another, make (1,30,0), not the states' means' mean.
SELECT gazepriv_test.partial_trace(t, x, y, NULL)::text AS state_keeps_duplicates
FROM (VALUES (1.0, 10.0, 0.0), (1, 20, 0)) v(t, x, y);
SELECT gazepriv_test.combined_trace(s::text::gazepriv.trace_state)::text AS across_states,
       (SELECT gazepriv.make_trace(t, x, y)::text FROM (VALUES (1.0, 10.0, 0.0), (1, 20, 0), (1, 60, 0)) v(t, x, y)) AS one_state
FROM (SELECT k, gazepriv_test.partial_trace(t, x, y, NULL) AS s
      FROM (VALUES (1, 1.0, 10.0, 0.0), (1, 1, 20, 0), (2, 1, 60, 0)) v(k, t, x, y) GROUP BY k) p;
-- Three rows per time (with missing gaze and pupils), split over three states in every way the row number
-- allows, each state through text: the same traces as one pass.
CREATE TABLE gazepriv_test.shared_times AS
SELECT p, k, floor(t / 3) AS t, CASE WHEN k % 17 = 0 THEN NULL ELSE x END AS x, y,
       CASE WHEN k % 5 = 0 THEN NULL ELSE pupil END AS pupil
FROM gazepriv_test.trace_rows, LATERAL (SELECT (t * 7 + p) AS k) r;
SELECT count(*) AS traces, bool_and(c.trace::text = m.trace::text) AS states_equal_one_pass,
       min(m.samples) AS samples_per_trace
FROM (SELECT p, split, gazepriv_test.combined_trace(s::text::gazepriv.trace_state ORDER BY part DESC) AS trace
      FROM (SELECT p, split, (k / split) % 3 AS part, gazepriv_test.partial_trace(t, x, y, pupil) AS s
            FROM gazepriv_test.shared_times, generate_series(1, 3) split GROUP BY 1, 2, 3) st
      GROUP BY 1, 2) c
JOIN (SELECT p, gazepriv.make_trace(t, x, y, pupil) AS trace, count(DISTINCT t) AS samples
      FROM gazepriv_test.shared_times GROUP BY p) m USING (p);

-- Bad input: malformed text is 22P02; a NaN or infinite time is 22023; window use and direct calls
-- of the support functions are 0A000.
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT ''::gazepriv.gaze_trace$$,
    $$SELECT '(1,2,3)'::gazepriv.gaze_trace$$,
    $$SELECT '{(1,2)}'::gazepriv.gaze_trace$$,
    $$SELECT '{(1,2,3,4,5)}'::gazepriv.gaze_trace$$,
    $$SELECT '{(1,2,3),}'::gazepriv.gaze_trace$$,
    $$SELECT '{(1,2,3)} tail'::gazepriv.gaze_trace$$,
    $$SELECT '{(NaN,1,1)}'::gazepriv.gaze_trace$$,
    $$SELECT '{(1,2,x)}'::gazepriv.gaze_trace$$,
    $$SELECT '{(1,2)}'::gazepriv.trace_state$$,
    $$SELECT '{(-Infinity,1,1)}'::gazepriv.trace_state$$,
    $$SELECT gazepriv.make_trace('NaN', 1, 1)$$,
    $$SELECT gazepriv.make_trace('Infinity', 1, 1, 1)$$,
    $$SELECT gazepriv.make_trace(t, 1, 1) OVER () FROM generate_series(1, 3) t$$,
    $$SELECT gazepriv._make_trace_sfunc(NULL, 1, 2, 3)$$,
    $$SELECT gazepriv._make_trace_combinefunc('{}', '{}')$$,
    $$SELECT gazepriv._make_trace_finalfunc('{}')$$]) q;

-- Labels of this area's functions, frozen.
SELECT p.oid::regprocedure AS function, p.prokind, p.provolatile, p.proparallel, p.proisstrict, p.prosecdef
FROM pg_proc p
WHERE p.pronamespace = 'gazepriv'::regnamespace
  AND p.proname IN ('gaze_trace_in', 'gaze_trace_out', 'trace_state_in', 'trace_state_out', '_make_trace_sfunc', '_make_trace_combinefunc',
                    '_make_trace_finalfunc', 'make_trace', 'trace_samples', 'screen_geometry', 'camera_geometry', 'linear_geometry',
                    'ivt', 'idt', 'detect_events', 'label_samples', 'feature_windows', 'feature_names',
                    'feature_catalog')
ORDER BY (p.oid::regprocedure)::text;
SELECT a.aggfnoid::regprocedure AS aggregate, a.aggcombinefn, a.aggfinalmodify, a.aggtranstype::regtype
FROM pg_aggregate a WHERE a.aggfnoid::regproc::text LIKE 'gazepriv.make_trace%' ORDER BY (a.aggfnoid::regprocedure)::text;
