-- Parallel and Citus-style execution: a participant's rows split across partial states must give exactly the
-- serial result, however they were split (capping is per participant and cell, merged with min(a + b, m)).
CREATE TABLE gazepriv_test.hm_gaze AS
SELECT 'p' || (i % 50) AS participant, i % 50 AS pid, i AS id,
       ((i::bigint * 7919) % 1009)::float8 / 1009 * 43 AS x, ((i::bigint * 104729) % 997)::float8 / 997 * 31 AS y
FROM generate_series(1, 60000) i; -- every page holds rows of every participant; counts per cell 0, 1, 2, ...
ANALYZE gazepriv_test.hm_gaze;
CREATE TEMP TABLE hm_serial AS
SELECT (gazepriv.gaze_map(participant, x, y, 40, 30, 1)).values AS cap1,
       (gazepriv.gaze_map(participant, x, y, 40, 30, 3, 2)).values AS cap3,
       (gazepriv.gaze_map(pid, x, y, 40, 30, 2)).values AS bigint_cap2,
       (gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(40, 30, 1e9, cap => 2))).values AS released
FROM gazepriv_test.hm_gaze;
-- The data makes capping matter: counts per participant and cell are 0, 1, 2, ... so cap 2 keeps more than cap 1.
SELECT round((SELECT sum(v) FROM unnest(cap1) v) * 50) AS capped_at_1, round((SELECT sum(v) FROM unnest(bigint_cap2) v) * 50) AS capped_at_2
FROM hm_serial;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off; -- all rows go through the workers' partial states
EXPLAIN (COSTS OFF) SELECT gazepriv.gaze_map(participant, x, y, 40, 30, 1) FROM gazepriv_test.hm_gaze;
EXPLAIN (COSTS OFF) SELECT gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(40, 30, 1)) FROM gazepriv_test.hm_gaze;
-- Two workers really ran (each saw part of every participant's rows).
CREATE FUNCTION gazepriv_test.workers_launched(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE line text; BEGIN
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
        IF line ~ 'Workers Launched' THEN RETURN trim(line); END IF;
    END LOOP;
    RETURN 'no workers';
END $$;
SELECT gazepriv_test.workers_launched('SELECT gazepriv.gaze_map(participant, x, y, 40, 30, 1) FROM gazepriv_test.hm_gaze');
CREATE TEMP VIEW hm_compare AS
SELECT p.cap1 = s.cap1 AS cap1_equal, p.cap3 = s.cap3 AS cap3_equal, p.bigint_cap2 = s.bigint_cap2 AS bigint_equal,
       p.released = s.released AS release_equal
FROM (SELECT (gazepriv.gaze_map(participant, x, y, 40, 30, 1)).values AS cap1,
             (gazepriv.gaze_map(participant, x, y, 40, 30, 3, 2)).values AS cap3,
             (gazepriv.gaze_map(pid, x, y, 40, 30, 2)).values AS bigint_cap2,
             (gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(40, 30, 1e9, cap => 2))).values AS released
      FROM gazepriv_test.hm_gaze) p, hm_serial s;
EXPLAIN (COSTS OFF) SELECT * FROM hm_compare;
SELECT * FROM hm_compare;
-- With the leader participating, its own (expanded, in-memory) partial state is combined with the workers' too.
RESET parallel_leader_participation;
SELECT * FROM hm_compare;
RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;

-- Partition-wise aggregation: one participant's two points in one cell sit in different partitions. Each
-- partition's partial state counts 1; combined exactly, the cap-1 map counts the participant once.
CREATE TABLE gazepriv_test.hm_parted (participant text, id int, x float8, y float8) PARTITION BY LIST ((id % 2));
CREATE TABLE gazepriv_test.hm_parted_0 PARTITION OF gazepriv_test.hm_parted FOR VALUES IN (0);
CREATE TABLE gazepriv_test.hm_parted_1 PARTITION OF gazepriv_test.hm_parted FOR VALUES IN (1);
INSERT INTO gazepriv_test.hm_parted VALUES ('x', 0, 0.5, 0.5), ('x', 1, 0.5, 0.5), ('y', 1, 1.5, 0.5), ('y', 3, 1.5, 0.5),
                                           ('y', 4, 1.5, 0.5);
SET enable_partitionwise_aggregate = on;
EXPLAIN (COSTS OFF) SELECT gazepriv.gaze_map(participant, x, y, 2, 1, 1) FROM gazepriv_test.hm_parted;
SELECT cap, (gazepriv.gaze_map(participant, x, y, 2, 1, cap)).values AS "values"
FROM gazepriv_test.hm_parted, (VALUES (1), (2), (9)) c(cap) GROUP BY cap ORDER BY cap;
RESET enable_partitionwise_aggregate;

-- Citus' path, simulated: partial states travel as text (output on the workers, input on the coordinator),
-- are combined and finalised by fresh function calls. Test aggregates play worker_partial_agg and
-- coord_combine_agg.
CREATE AGGREGATE gazepriv_test.partial_state(text, float8, float8, gazepriv.heatmap_spec) (
    SFUNC = gazepriv._dp_heatmap_sfunc, STYPE = gazepriv.heatmap_state);
CREATE AGGREGATE gazepriv_test.partial_map_state(text, float8, float8, int4, int4, int4) (
    SFUNC = gazepriv._gaze_map_sfunc, STYPE = gazepriv.heatmap_state);
CREATE AGGREGATE gazepriv_test.combine_release(gazepriv.heatmap_state) (
    SFUNC = gazepriv._heatmap_combine, STYPE = gazepriv.heatmap_state, FINALFUNC = gazepriv._dp_heatmap_final);
CREATE AGGREGATE gazepriv_test.combine_map(gazepriv.heatmap_state) (
    SFUNC = gazepriv._heatmap_combine, STYPE = gazepriv.heatmap_state, FINALFUNC = gazepriv._gaze_map_final);
CREATE TEMP TABLE hm_shards AS
SELECT id % 4 AS shard,
       gazepriv_test.partial_state(participant, x, y, gazepriv.heatmap_spec(40, 30, 1e9, cap => 2))::text AS release_state,
       gazepriv_test.partial_map_state(participant, x, y, 40, 30, 3)::text AS map_state
FROM gazepriv_test.hm_gaze GROUP BY id % 4;
SELECT (gazepriv_test.combine_release(release_state::gazepriv.heatmap_state)).values = (SELECT released FROM hm_serial)
       AS citus_release_equals_serial,
       (gazepriv_test.combine_map(map_state::gazepriv.heatmap_state)).values
       = (SELECT (gazepriv.gaze_map(participant, x, y, 40, 30, 3)).values FROM gazepriv_test.hm_gaze) AS citus_map_equals_serial
FROM hm_shards;
-- The text form is the deterministic serialized form itself, printable: it round-trips, and send gives the same
-- bytes.
SELECT bool_and(release_state::gazepriv.heatmap_state::text = release_state) AS text_round_trip,
       bool_and(gazepriv.heatmap_state_send(release_state::gazepriv.heatmap_state) = convert_to(release_state, 'UTF8'))
       AS binary_is_the_same_bytes,
       bool_and(release_state ~ '^GZHM[A-Za-z0-9_-]+$') AS printable
FROM hm_shards;
-- States of different parameters or aggregates do not combine; final functions are not callable directly.
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv_test.combine_release(s) FROM (SELECT release_state::gazepriv.heatmap_state s FROM hm_shards
      UNION ALL SELECT gazepriv_test.partial_state(participant, x, y, gazepriv.heatmap_spec(40, 30, 2)) FROM gazepriv_test.hm_gaze) u$$,
    $$SELECT gazepriv_test.combine_release(map_state::gazepriv.heatmap_state) FROM hm_shards$$,
    $$SELECT gazepriv._dp_heatmap_final(release_state::gazepriv.heatmap_state) FROM hm_shards LIMIT 1$$,
    $$SELECT gazepriv._heatmap_combine(release_state::gazepriv.heatmap_state, release_state::gazepriv.heatmap_state) FROM hm_shards LIMIT 1$$]) q;

-- A corrupted state is an error (XX001), never a crash: garbage, a changed character, truncation, other bytes.
SELECT gazepriv_test.error_of(format('SELECT %L::gazepriv.heatmap_state', t)) FROM (
    SELECT 'not a state' AS t
    UNION ALL SELECT ''
    UNION ALL SELECT 'AAAA'
    UNION ALL SELECT (SELECT overlay(release_state placing (CASE WHEN substr(release_state, 40, 1) = 'A' THEN 'B' ELSE 'A' END) from 40 for 1)
                      FROM hm_shards WHERE shard = 0)
    UNION ALL SELECT (SELECT left(release_state, length(release_state) - 8) FROM hm_shards WHERE shard = 0)
    UNION ALL SELECT 'GZHM' || repeat('A', 40)) c;
