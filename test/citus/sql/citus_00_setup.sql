-- The cluster (a coordinator and two workers), the extension on every node, and the data: the same real gaze
-- samples in a local table and in tables distributed by participant and by stimulus (32 shards each).
SELECT count(*) AS active_workers FROM pg_dist_node WHERE noderole = 'primary' AND isactive AND groupid > 0;
SHOW citus.coordinator_aggregation_strategy;
CREATE EXTENSION gazepriv;
SELECT success, result AS gazepriv_on_worker FROM run_command_on_workers(
    $$SELECT extversion FROM pg_extension WHERE extname = 'gazepriv'$$);

CREATE SCHEMA citus_test;
-- Runs a statement and returns 'SQLSTATE: message' for its error, or 'no error'.
CREATE FUNCTION citus_test.error_of(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE query;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
-- How Citus runs a query with aggregates, from EXPLAIN VERBOSE:
--   'partial on workers, combined on the coordinator': worker_partial_agg on the shards, coord_combine_agg on
--     the coordinator (the final function runs there);
--   'pushed down' (grouped by the distribution column) or 'router' (one shard): whole aggregates on the shards;
--   'SUBPLAN ...': the rows of a subquery Citus cannot push down are pulled to the coordinator first;
--   'ROW GATHER': the coordinator aggregates rows it pulled (impossible with coordinator_aggregation_strategy
--     = 'disabled', where such a query is an error).
CREATE FUNCTION citus_test.plan_of(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE plan text := ''; line text; coordinator text; task_query text; tasks int;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || query LOOP
        plan := plan || line || E'\n';
    END LOOP;
    IF plan ~ 'Distributed Subplan' THEN
        RETURN 'SUBPLAN: rows pulled to the coordinator before aggregating';
    END IF;
    coordinator := split_part(plan, 'Custom Scan (Citus', 1);
    task_query := substring(plan FROM 'Query: ([^\n]*)');
    tasks := substring(plan FROM 'Task Count: (\d+)')::int;
    IF task_query ~ 'worker_partial_agg' AND coordinator ~ 'coord_combine_agg' THEN
        RETURN format('partial on workers, combined on the coordinator (%s tasks)', tasks);
    ELSIF task_query ~ 'gazepriv\.' AND coordinator !~ 'Aggregate' THEN
        RETURN CASE WHEN tasks = 1 THEN 'router (1 task)' ELSE format('pushed down (%s tasks)', tasks) END;
    END IF;
    RETURN 'ROW GATHER: ' || plan;
END $$;
-- copy_distributed(source, target, column): a copy of a local table, distributed by column (32 shards).
CREATE FUNCTION citus_test.copy_distributed(source regclass, target text, distribution_column text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('CREATE TABLE %s (LIKE %s)', target, source);
    PERFORM create_distributed_table(target, distribution_column);
    EXECUTE format('INSERT INTO %s SELECT * FROM %s', target, source);
END $$;
GRANT USAGE ON SCHEMA citus_test TO PUBLIC;

-- Uniss-FGD image 2 (test/data), with each participant's 3 s split into 15 "stimuli" of 200 ms, so that a
-- participant's samples, and samples of one participant in one cell, fall into many shards of the table
-- distributed by stimulus.
CREATE TABLE citus_test.uniss_raw (participant text, image_id int, t_ms float8, x_px float8, y_px float8,
                                   pupil_left_mm float8, pupil_right_mm float8, event text, fixation_index int);
\copy citus_test.uniss_raw FROM 'test/data/uniss_fgd/img_002.csv' WITH (FORMAT csv, HEADER true)
CREATE TABLE citus_test.gaze_local (participant text, pid bigint, stimulus int, t_ms float8, x float8, y float8,
                                    pupil float8);
INSERT INTO citus_test.gaze_local
SELECT participant, participant::bigint, least(14, floor((t_ms - min(t_ms) OVER (PARTITION BY participant)) / 200))::int,
       t_ms, x_px, y_px, (pupil_left_mm + pupil_right_mm) / 2
FROM citus_test.uniss_raw;
SELECT citus_test.copy_distributed('citus_test.gaze_local', 'citus_test.gaze_by_participant', 'participant'),
       citus_test.copy_distributed('citus_test.gaze_local', 'citus_test.gaze_by_stimulus', 'stimulus');
SELECT logicalrelid, partmethod, (SELECT count(*) FROM pg_dist_shard s WHERE s.logicalrelid = p.logicalrelid) AS shards
FROM pg_dist_partition p WHERE logicalrelid::text LIKE 'citus_test.%' ORDER BY 1;
SELECT count(*) AS samples, count(DISTINCT participant) AS participants, count(DISTINCT stimulus) AS stimuli
FROM citus_test.gaze_by_stimulus;
-- Every participant is in one shard of gaze_by_participant and in many shards of gaze_by_stimulus.
SELECT max(by_participant) AS most_shards_by_participant, min(by_stimulus) AS fewest_shards_by_stimulus
FROM (SELECT participant,
             count(DISTINCT get_shard_id_for_distribution_column('citus_test.gaze_by_participant', participant)) AS by_participant,
             count(DISTINCT get_shard_id_for_distribution_column('citus_test.gaze_by_stimulus', stimulus)) AS by_stimulus
      FROM citus_test.gaze_local GROUP BY participant) s;
