-- Every aggregate gives on the distributed tables what it gives on the local table: the exact ones (gaze_map,
-- optimal_cap, make_trace) directly, dp_heatmap under the same superuser seed; in every query shape, and never
-- by gathering rows to the coordinator (coordinator_aggregation_strategy = 'disabled': a row gather would be an
-- error, and the plans are asserted).

-- run(query, table, seed): the query's rows as one sorted text, with %1$s replaced by the table; with a seed,
-- noise is reproducible and starts afresh, so equal data and plans give equal releases.
-- (The query runs as it is, not inside another: its rows are collected here.)
CREATE FUNCTION citus_test.run(query text, tab text, seed int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r record; rows text[] := '{}';
BEGIN
    PERFORM set_config('gazepriv.seed', seed::text, true);
    FOR r IN EXECUTE format(query, tab) LOOP
        rows := rows || r::text;
    END LOOP;
    PERFORM set_config('gazepriv.seed', '0', true);
    RETURN (SELECT array_agg(x ORDER BY x) FROM unnest(rows) x)::text;
END $$;
-- compare(query, seed): the query on both distributed tables against the local one. Groups are finalised in
-- key order everywhere (no hash aggregation), so a seeded release draws the same noise for the same group.
CREATE FUNCTION citus_test.compare(query text, seed int DEFAULT 0, OUT by_participant text, OUT by_stimulus text)
LANGUAGE plpgsql SET enable_hashagg = off AS $$
DECLARE expected text := citus_test.run(query, 'citus_test.gaze_local', seed);
BEGIN
    by_participant := CASE WHEN citus_test.run(query, 'citus_test.gaze_by_participant', seed) = expected
                      THEN 'same' ELSE 'DIFFERENT' END || ', ' ||
                      citus_test.plan_of(format(query, 'citus_test.gaze_by_participant'));
    by_stimulus := CASE WHEN citus_test.run(query, 'citus_test.gaze_by_stimulus', seed) = expected
                   THEN 'same' ELSE 'DIFFERENT' END || ', ' ||
                   citus_test.plan_of(format(query, 'citus_test.gaze_by_stimulus'));
END $$;

-- Exact capped maps, text and bigint participants, 1 px and 16 px cells, caps 1 and 3.
SELECT q.name, c.* FROM (VALUES
    ('gaze_map', $$SELECT gazepriv.gaze_map(participant, x, y, 1280, 1024, 1) FROM %1$s$$),
    ('gaze_map cap 3, 16 px', $$SELECT gazepriv.gaze_map(participant, x, y, 1280, 1024, 3, 16) FROM %1$s$$),
    ('gaze_map bigint', $$SELECT gazepriv.gaze_map(pid, x, y, 1280, 1024, 2) FROM %1$s$$),
    ('GROUP BY stimulus', $$SELECT stimulus, gazepriv.gaze_map(participant, x, y, 1280, 1024, 1, 8) FROM %1$s GROUP BY stimulus$$),
    ('GROUP BY participant', $$SELECT participant, gazepriv.gaze_map(participant, x, y, 1280, 1024, 2, 8) FROM %1$s GROUP BY participant$$),
    ('WHERE', $$SELECT gazepriv.gaze_map(participant, x, y, 1280, 1024, 2, 4) FROM %1$s WHERE x > 600 AND stimulus < 9$$),
    ('FILTER', $$SELECT gazepriv.gaze_map(participant, x, y, 1280, 1024, 1, 4) FILTER (WHERE pupil > 3.5) FROM %1$s$$),
    ('HAVING', $$SELECT stimulus, (gazepriv.gaze_map(participant, x, y, 1280, 1024, 1, 32)).n FROM %1$s GROUP BY stimulus
                 HAVING (gazepriv.gaze_map(participant, x, y, 1280, 1024, 1, 32)).n = 20$$),
    ('at most 100 samples per participant', $$SELECT gazepriv.gaze_map(participant, x, y, 1280, 1024, 1, 2) FROM
        (SELECT participant, x, y, row_number() OVER (PARTITION BY participant ORDER BY t_ms) AS k FROM %1$s) s WHERE k <= 100$$),
    ('optimal_cap', $$SELECT gazepriv.optimal_cap(participant, x, y, gazepriv.heatmap_spec(1280, 1024, 1, cell_size => 16)) FROM %1$s$$),
    ('optimal_cap GROUP BY stimulus', $$SELECT stimulus, gazepriv.optimal_cap(pid, x, y, gazepriv.heatmap_spec(1280, 1024, 1, cell_size => 64))
                                        FROM %1$s GROUP BY stimulus$$)
) q(name, sql), citus_test.compare(q.sql) c;

-- The DP release, seeded: the same noise on the same capped sums, drawn by the final function on the
-- coordinator (once per group, in group order).
SELECT q.name, c.* FROM (VALUES
    ('dp_heatmap', $$SELECT gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(1280, 1024, 1)) FROM %1$s$$),
    ('dp_heatmap laplace, 8 px, blur', $$SELECT gazepriv.dp_heatmap(pid, x, y, gazepriv.heatmap_spec(1280, 1024, 2, cap => 2,
        mechanism => 'laplace', cell_size => 8, blur_sigma => 10, observers => 40)) FROM %1$s$$),
    ('WHERE and FILTER', $$SELECT gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(1280, 1024, 1, cell_size => 4))
                           FILTER (WHERE pupil > 3) FROM %1$s WHERE stimulus BETWEEN 3 AND 11$$)
) q(name, sql), citus_test.compare(q.sql, seed => 7) c;
-- Grouped by another column than the distribution column, the coordinator finalises the groups in turn, each
-- drawing its noise: seeded, the same releases as locally.
SET enable_hashagg = off;
SELECT citus_test.run(q, 'citus_test.gaze_by_participant', 7) = citus_test.run(q, 'citus_test.gaze_local', 7)
       AS same_release_per_stimulus
FROM (VALUES ($$SELECT stimulus, gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(1280, 1024, 1, cell_size => 16))
                FROM %1$s GROUP BY stimulus$$)) v(q);
RESET enable_hashagg;
-- Grouped by the distribution column the final function runs on the workers, which draw from their own
-- generators: compared where the noise is 0 (epsilon 1e9), the capped sums and every field are the same.
SELECT q.name, c.* FROM (VALUES
    ('GROUP BY stimulus', $$SELECT stimulus, gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(1280, 1024, 1e9, cell_size => 16))
                            FROM %1$s GROUP BY stimulus$$),
    ('GROUP BY participant', $$SELECT participant, gazepriv.dp_heatmap(participant, x, y,
        gazepriv.heatmap_spec(1280, 1024, 1e9, cell_size => 8)) FROM %1$s GROUP BY participant$$)
) q(name, sql), citus_test.compare(q.sql, seed => 7) c;
-- The seed matters (the comparison can fail): another seed gives another release.
SELECT citus_test.run($$SELECT gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(1280, 1024, 1)) FROM %1$s$$,
                      'citus_test.gaze_by_stimulus', 7)
       <> citus_test.run($$SELECT gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(1280, 1024, 1)) FROM %1$s$$,
                         'citus_test.gaze_by_stimulus', 8) AS other_seed_other_release;

-- The cap holds across shards: a participant's samples in one cell, split over several shards of the table
-- distributed by stimulus, still count at most cap times. Capping each shard's counts and adding them would
-- count more (the per-shard sums below); the released sums equal the exact per-participant capped counts.
WITH cells AS (SELECT participant, stimulus, floor(x)::int AS cx, floor(y)::int AS cy FROM citus_test.gaze_local
               WHERE x >= 0 AND x < 1280 AND y >= 0 AND y < 1024),
     exact AS (SELECT sum(least(n, 2)) AS capped FROM (SELECT count(*) n FROM cells GROUP BY participant, cx, cy) s),
     per_shard AS (SELECT sum(least(n, 2)) AS capped FROM (SELECT count(*) n FROM cells GROUP BY participant, cx, cy,
                   get_shard_id_for_distribution_column('citus_test.gaze_by_stimulus', stimulus)) s),
     released AS (SELECT round((SELECT sum(v) FROM unnest(m.values) v) * m.n) AS capped
                  FROM (SELECT (gazepriv.gaze_map(participant, x, y, 1280, 1024, 2)).* FROM citus_test.gaze_by_stimulus) m)
SELECT released.capped AS released_capped_sum, exact.capped AS exact, per_shard.capped AS capped_per_shard
FROM released, exact, per_shard;

-- make_trace: one trace per participant, built on the shards (grouped by the distribution column) or from
-- partial traces combined on the coordinator. Per stimulus, the participants' samples share times, and the
-- shards' partial states hold different rows of one time: they combine exactly, weighing every row once
-- (issue 16: the state's text form used to merge them first, and 30 of 30 traces differed).
SELECT q.name, c.* FROM (VALUES
    ('make_trace GROUP BY participant', $$SELECT participant, gazepriv.make_trace(t_ms, x, y, pupil) FROM %1$s GROUP BY participant$$),
    ('make_trace GROUP BY stimulus', $$SELECT stimulus, gazepriv.make_trace(t_ms, x, y, pupil) FROM %1$s GROUP BY stimulus$$),
    ('make_trace of all rows', $$SELECT gazepriv.make_trace(round(t_ms), x, y) FROM %1$s$$)
) q(name, sql), citus_test.compare(q.sql) c;
-- The issue's minimal case: two rows at t = 1 in one shard, one in another; the mean of the three, not of the
-- two shards' means (37.5).
CREATE TABLE citus_test.split_times (k int, t float8, x float8, y float8);
SELECT create_distributed_table('citus_test.split_times', 'k');
INSERT INTO citus_test.split_times VALUES (1, 1, 10, 0), (1, 1, 20, 0), (2, 1, 60, 0);
SELECT get_shard_id_for_distribution_column('citus_test.split_times', 1)
       <> get_shard_id_for_distribution_column('citus_test.split_times', 2) AS two_shards;
SELECT gazepriv.make_trace(t, x, y)::text AS trace FROM citus_test.split_times;
SELECT citus_test.plan_of('SELECT gazepriv.make_trace(t, x, y) FROM citus_test.split_times') AS plan;
DROP TABLE citus_test.split_times;
