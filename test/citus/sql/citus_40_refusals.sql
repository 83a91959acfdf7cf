-- What Citus cannot run the way gazepriv needs is refused with the documented errors, never silently run
-- another way.

-- No silent row gather: an aggregate Citus cannot combine on the coordinator (ordered or DISTINCT input, or
-- beside an aggregate that is not combinable) would pull every row to the coordinator; with
-- citus.coordinator_aggregation_strategy = 'disabled' it is an error instead.
SELECT citus_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.gaze_map(participant, x, y, 1280, 1024, 1 ORDER BY t_ms) FROM citus_test.gaze_by_stimulus$$,
    $$SELECT gazepriv.gaze_map(DISTINCT participant, x, y, 1280, 1024, 1) FROM citus_test.gaze_by_stimulus$$,
    $$SELECT gazepriv.gaze_map(participant, x, y, 1280, 1024, 1), array_agg(x ORDER BY t_ms)
      FROM citus_test.gaze_by_stimulus$$]) q;
-- Grouped by the distribution column the same aggregates run whole on the shards (nothing to gather).
SELECT citus_test.plan_of($$SELECT stimulus, gazepriv.gaze_map(participant, x, y, 1280, 1024, 1 ORDER BY t_ms)
                            FROM citus_test.gaze_by_stimulus GROUP BY stimulus$$) AS ordered_input_by_distribution_column;

-- The parameters must be the same on every row of a group, on the shards too: a spec that varies is refused
-- wherever the transition function runs (a constant spec is checked once per group, also under Citus'
-- worker_partial_agg; any other is compared on every row).
SELECT citus_test.error_of($$SELECT gazepriv.dp_heatmap(participant, x, y,
    gazepriv.heatmap_spec(1280, 1024, CASE WHEN x > 600 THEN 1 ELSE 2 END)) FROM citus_test.gaze_by_stimulus$$) AS varying_spec;

-- Live feeds: Citus runs no trigger on a distributed table, so a feed's source cannot be one (0A000, nothing
-- created); see citus_50_live_feeds for the supported way.
SELECT citus_test.error_of($$SELECT gazepriv.kaleido_attach('citus_test.gaze_by_participant', 'citus_test.live_out',
                                                            'participant', 1, 30, 20)$$) AS attach_distributed;
SELECT to_regclass('citus_test.live_out') IS NULL AS nothing_created;

-- Datasets, budgets and the ledger live on the coordinator: on a worker node every release is refused, with
-- an error that names the coordinator.
SELECT success, regexp_replace(result, 'coordinator \S+:\d+', 'coordinator <host:port>') AS release_on_worker,
       strpos(result, (SELECT nodename || ':' || nodeport FROM pg_dist_node WHERE groupid = 0)) > 0 AS names_it
FROM run_command_on_workers($$SELECT gazepriv.release_count('uniss_by_participant', 0.1)$$);
