-- Releases that read distributed tables, or the output of distributed queries, give what they give on local
-- tables under the same seed: privatize and heatmap_cells, the time-series releases, k-same-select,
-- plausible-deniability synthesis, Kaleido. (Analyst releases and budgets: citus_30_budget.)

-- Feature windows (the MPIIDPEye layout, scaled to these 3 s recordings: 500 ms windows every 100 ms) per
-- participant and task (first and second half of the recording), built on the shards: make_trace grouped by
-- the distribution column runs whole on the workers.
CREATE TABLE citus_test.features_local AS
SELECT s.participant, s.task, f.window, f.features
FROM (SELECT participant, CASE WHEN stimulus < 7 THEN 'first' ELSE 'second' END AS task,
             gazepriv.make_trace(t_ms, x, y, pupil) AS trace
      FROM citus_test.gaze_by_participant GROUP BY participant, 2) s,
     gazepriv.feature_windows(s.trace, gazepriv.ivt(600, 50, geometry => gazepriv.linear_geometry(38)), 2,
                              window_ms => 500, step_ms => 100) f;
SELECT citus_test.copy_distributed('citus_test.features_local', 'citus_test.features_by_participant', 'participant'),
       citus_test.copy_distributed('citus_test.features_local', 'citus_test.features_by_task', 'task');
SELECT count(*) AS windows, count(DISTINCT participant) AS participants, count(DISTINCT task) AS tasks,
       min(cardinality(features)) AS features FROM citus_test.features_by_task;

-- same_release(query): the query with %1$s replaced by each of the three tables, seeded alike; 'same' when
-- the distributed ones give the local table's rows.
CREATE FUNCTION citus_test.same_release(query text, local text, distributed text[]) RETURNS text LANGUAGE plpgsql
SET enable_hashagg = off AS $$
DECLARE expected text := citus_test.run(query, local, 11); t text; result text := '';
BEGIN
    FOREACH t IN ARRAY distributed LOOP
        result := result || CASE WHEN citus_test.run(query, t, 11) = expected THEN 'same' ELSE 'DIFFERENT' END || ', ';
    END LOOP;
    RETURN result || cardinality(expected::text[]) || ' rows';
END $$;
-- A release of features gives the local release on both distributed tables (by participant, by task).
CREATE FUNCTION citus_test.same_feature_release(query text) RETURNS text LANGUAGE sql AS $$
    SELECT citus_test.same_release(query, 'citus_test.features_local',
                                   ARRAY['citus_test.features_by_participant', 'citus_test.features_by_task']) $$;

SELECT name, citus_test.same_feature_release(sql) AS by_participant_by_task FROM (VALUES
    ('release_series fpa', $$SELECT * FROM gazepriv.release_series('%1$s', 'fpa', 0.5, bounds => ARRAY[0, 1000],
                                                                 length => 10)$$),
    ('release_series cfpa, empirical', $$SELECT * FROM gazepriv.release_series('%1$s', 'cfpa', 0.5, chunk => 4,
                                                                             sensitivity => 'empirical')$$),
    ('exponential_dp', $$SELECT * FROM gazepriv.exponential_dp('%1$s', 1, bounds => ARRAY[0, 1000], length => 10)$$),
    ('k_same_select', $$SELECT * FROM gazepriv.k_same_select('%1$s', 3)$$),
    ('k_same_select per task', $$SELECT * FROM gazepriv.k_same_select('%1$s', 4, across_tasks => false)$$),
    ('pd_synthesize', $$SELECT * FROM gazepriv.pd_synthesize('%1$s', 3, 4, bins => 8, max_attempts => 20,
                                                             include_failed => true)$$)
) q(name, sql);

-- Heatmaps post-processed: privatize an exact map made on the shards, the cells of a release.
SELECT name, citus_test.same_release(sql, 'citus_test.gaze_local',
                                     ARRAY['citus_test.gaze_by_participant', 'citus_test.gaze_by_stimulus'])
       AS by_participant_by_stimulus FROM (VALUES
    ('privatize', $$SELECT gazepriv.privatize(m, gazepriv.heatmap_spec(1280, 1024, 1, cap => 2, cell_size => 8))
                    FROM (SELECT gazepriv.gaze_map(participant, x, y, 1280, 1024, 2, 8) AS m FROM %1$s) s$$),
    ('heatmap_cells', $$SELECT c.* FROM (SELECT gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(1280, 1024, 1,
                        cell_size => 64)) AS h FROM %1$s) s, gazepriv.heatmap_cells(s.h) c$$)
) q(name, sql);

-- Series releases of traces built on the shards. (A volatile function in a query Citus pushes down whole,
-- grouped by the distribution column or on one shard, runs on the workers under their own generators, so
-- the traces are stored on the coordinator first and released from there, as locally.)
CREATE TABLE citus_test.traces_local AS
SELECT participant, gazepriv.make_trace(t_ms, x, y, pupil) AS tr FROM citus_test.gaze_local GROUP BY participant;
CREATE TABLE citus_test.traces_by_participant AS
SELECT participant, gazepriv.make_trace(t_ms, x, y, pupil) AS tr FROM citus_test.gaze_by_participant GROUP BY participant;
CREATE TABLE citus_test.traces_by_stimulus AS
SELECT participant, gazepriv.make_trace(t_ms, x, y, pupil) AS tr FROM citus_test.gaze_by_stimulus GROUP BY participant;
SELECT name, citus_test.same_release(sql, 'citus_test.traces_local',
                                     ARRAY['citus_test.traces_by_participant', 'citus_test.traces_by_stimulus'])
       AS by_participant_by_stimulus FROM (VALUES
    ('fpa of every pupil series', $$SELECT participant, gazepriv.fpa((SELECT array_agg(coalesce(p.pupil, 0) ORDER BY p.t_ms)
                                    FROM gazepriv.trace_samples(s.tr) p), 20, 1, 0.5)
                                    FROM (SELECT * FROM %1$s ORDER BY participant OFFSET 0) s$$),
    ('kaleido of a recording', $$SELECT k.* FROM %1$s s, LATERAL (SELECT array_agg(t_ms ORDER BY t_ms) t,
        array_agg(x ORDER BY t_ms) x, array_agg(y ORDER BY t_ms) y FROM gazepriv.trace_samples(s.tr)) a,
        gazepriv.kaleido(a.t, a.x, a.y, 1, 30, 20) k WHERE s.participant = '04'$$)
) q(name, sql);
