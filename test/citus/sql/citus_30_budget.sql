-- Budgets on Citus: datasets, budgets, release policies and the ledger live on the coordinator; every release is
-- charged there, exactly once, before its noise is drawn, and gives on a distributed dataset what it gives on a
-- local one under the same seed. Releases whose final function Citus would run on a worker are refused (PB003).
SELECT gazepriv.register_dataset(name, tab, 'participant', stimulus_column => 'stimulus', time_column => 't_ms',
                                 x_column => 'x', y_column => 'y', observers => 20,
                                 bounds => '{"x": [0, 1280], "y": [0, 1024]}')
FROM (VALUES ('uniss_local', 'citus_test.gaze_local'), ('uniss_by_participant', 'citus_test.gaze_by_participant'),
             ('uniss_by_stimulus', 'citus_test.gaze_by_stimulus')) d(name, tab);
SELECT gazepriv.register_dataset(name, tab, 'participant', task_column => 'task', window_column => 'window',
                                 features_column => 'features',
                                 bounds => format('{"features": %s, "length": 10}',
                                                  (SELECT array_to_json(array_agg(ARRAY[0, 1000])) FROM generate_series(1, 33)))::jsonb)
FROM (VALUES ('features_local', 'citus_test.features_local'), ('features_by_participant', 'citus_test.features_by_participant'),
             ('features_by_task', 'citus_test.features_by_task')) d(name, tab);
SELECT gazepriv.set_release_policy(name, mechanism, policy::jsonb)
FROM gazepriv.datasets, (VALUES ('heatmap', '{"cap": 1}', 'x'), ('kaleido', '{"w": 30, "r": 20}', 'x'),
                                ('series', '{"methods": ["cfpa"], "recordings": ["first", "second"]}', 'features'),
                                ('k_same_select', '{"k": 3}', 'features'),
                                ('pd', '{"k": 3, "gamma": 4, "bins": 8, "max_attempts": 20, "include_failed": true}', 'features')
     ) p(mechanism, policy, needs)
WHERE (needs = 'x' AND x_column IS NOT NULL) OR (needs = 'features' AND features_column IS NOT NULL)
ORDER BY name, mechanism;
-- Registration takes the raw tables away from everyone but their owner, on the shards too.
SELECT has_table_privilege('gazepriv_analyst', 'citus_test.gaze_by_participant', 'SELECT') AS analysts_read_raw,
       (SELECT bool_and(result = 'f') FROM run_command_on_placements('citus_test.gaze_by_participant',
           $$SELECT has_table_privilege('gazepriv_analyst', '%s', 'SELECT')$$)) AS not_on_any_shard;

CREATE ROLE citus_ana LOGIN IN ROLE gazepriv_analyst;
SELECT gazepriv.grant_budget(name, 'citus_ana', 1e10, 1e-3, accounting => 'basic', kind => kind)
FROM gazepriv.datasets, unnest(ARRAY['dp', 'w-event', 'record-dp']) kind ORDER BY name, kind;
SELECT success, result AS role_on_worker FROM run_command_on_workers($$SELECT count(*) FROM pg_roles WHERE rolname = 'citus_ana'$$);

-- released(query, dataset): the analyst's release on a dataset, seeded (the superuser sets the seed, the analyst
-- releases); with the ledger rows it added on the coordinator.
CREATE FUNCTION citus_test.released(query text, dataset text, OUT result text, OUT charges bigint) LANGUAGE plpgsql
SET enable_hashagg = off AS $$
DECLARE before bigint := (SELECT count(*) FROM gazepriv.ledger); r record; rows text[] := '{}';
BEGIN
    PERFORM set_config('gazepriv.seed', '13', true);
    SET LOCAL ROLE citus_ana;
    FOR r IN EXECUTE format(query, dataset) LOOP
        rows := rows || r::text;
    END LOOP;
    RESET ROLE;
    PERFORM set_config('gazepriv.seed', '0', true);
    result := (SELECT array_agg(x ORDER BY x) FROM unnest(rows) x)::text;
    charges := (SELECT count(*) FROM gazepriv.ledger) - before;
END $$;
-- Each analyst release, on the local dataset and on distributed ones: the same result, one charge each. (Where
-- Citus runs the release's query on one shard, one stimulus of the table distributed by stimulus or one
-- participant of the table distributed by participant, its noise is drawn on that worker, under the worker's
-- generator: those are compared but for the noise.)
SELECT q.name, q.dist AS distributed, l.charges AS local_charges,
       CASE WHEN d.result = l.result THEN 'same' ELSE 'DIFFERENT' END AS result, d.charges
FROM (VALUES
    ('release_count', $$SELECT gazepriv.release_count('uniss_%1$s', 0.5)$$, 'by_participant'),
    ('release_count', $$SELECT gazepriv.release_count('uniss_%1$s', 0.5)$$, 'by_stimulus'),
    ('release_count of a stimulus', $$SELECT gazepriv.release_count('uniss_%1$s', 0.5, stimulus => 3)$$, 'by_participant'),
    ('release_count of a stimulus (noise on a worker)', $$SELECT gazepriv.release_count('uniss_%1$s', 1e9, stimulus => 3)$$,
     'by_stimulus'),
    ('release_heatmap', $$SELECT gazepriv.release_heatmap('uniss_%1$s', NULL, gazepriv.heatmap_spec(1280, 1024, 1, 1e-6,
                          cell_size => 16))$$, 'by_participant'),
    ('release_heatmap', $$SELECT gazepriv.release_heatmap('uniss_%1$s', NULL, gazepriv.heatmap_spec(1280, 1024, 1, 1e-6,
                          cell_size => 16))$$, 'by_stimulus'),
    ('release_heatmap of a stimulus', $$SELECT gazepriv.release_heatmap('uniss_%1$s', 5, gazepriv.heatmap_spec(1280, 1024, 1, 1e-6,
                                        cell_size => 16))$$, 'by_participant'),
    ('release_heatmap of a stimulus (noise on a worker)', $$SELECT (h).width, (h).cell_size, (h).n, (h).epsilon, (h).delta,
        (h).sigma, cardinality((h).values) AS cells FROM (SELECT gazepriv.release_heatmap('uniss_%1$s', 5,
        gazepriv.heatmap_spec(1280, 1024, 1, 1e-6, cell_size => 16)) AS h) s$$, 'by_stimulus'),
    ('release_kaleido (noise on a worker)', $$SELECT t_ms, published IS NOT NULL, action IS NOT NULL
        FROM gazepriv.release_kaleido('uniss_%1$s', '04', 1)$$, 'by_participant'),
    ('release_kaleido', $$SELECT * FROM gazepriv.release_kaleido('uniss_%1$s', '04', 1)$$, 'by_stimulus'),
    ('release_feature_series', $$SELECT * FROM gazepriv.release_feature_series('features_%1$s', 'cfpa', 0.1, chunk => 4)$$,
     'by_participant'),
    ('release_feature_series', $$SELECT * FROM gazepriv.release_feature_series('features_%1$s', 'cfpa', 0.1, chunk => 4)$$,
     'by_task')
) q(name, sql, dist), citus_test.released(q.sql, 'local') l, citus_test.released(q.sql, q.dist) d;
-- Served once (k-same-select, PD): each dataset's release draws from that dataset's own secret, so releases of
-- different datasets differ by design; the same participants, windows and group sizes, one charge, and asked
-- again, the same rows without a charge.
SELECT q.name, dist AS distributed, l.charges AS local_charges,
       CASE WHEN d.result = l.result THEN 'same' ELSE 'DIFFERENT' END AS shape, d.charges,
       a.result = b.result AS again_the_same_rows, a.charges + b.charges AS charges_again
FROM (VALUES
    ('release_k_same_select', $$SELECT * FROM gazepriv.release_k_same_select('features_%1$s')$$,
     $$SELECT participant, task, "window", count(*) OVER (PARTITION BY task, group_id, "window") >= 3 AS group_of_3_or_more
       FROM gazepriv.release_k_same_select('features_%1$s') r$$),
    ('pd_release', $$SELECT * FROM gazepriv.pd_release('features_%1$s')$$,
     $$SELECT participant, task, "window", cardinality(features) FROM gazepriv.pd_release('features_%1$s')$$)
) q(name, release, sql), unnest(ARRAY['by_participant', 'by_task']) AS dist,
     citus_test.released(q.sql, 'local') l, citus_test.released(q.sql, dist) d,
     citus_test.released(q.release, dist) a, citus_test.released(q.release, dist) b
ORDER BY 1, 2;
-- The ledger and the budgets agree, and everything was charged on the coordinator: the workers' ledgers
-- are empty.
SELECT b.dataset, sum(b.releases) AS releases,
       sum(b.releases) = (SELECT count(*) FROM gazepriv.ledger l WHERE l.dataset = b.dataset AND l.role = b.role)
           AS ledger_has_each,
       bool_and(b.spent_epsilon = (SELECT coalesce(sum(l.epsilon), 0) FROM gazepriv.ledger l
                                   WHERE l.dataset = b.dataset AND l.role = b.role
                                     AND l.guarantee IN (b.kind, CASE b.kind WHEN 'dp' THEN 'k-anonymity' END,
                                                         CASE b.kind WHEN 'record-dp' THEN 'plausible-deniability' END)))
           AS spent_is_the_ledgers_sum
FROM gazepriv.budgets b WHERE b.role = 'citus_ana'::regrole GROUP BY b.dataset, b.role ORDER BY 1;
SELECT success, result AS ledger_rows_on_worker FROM run_command_on_workers($$SELECT count(*) FROM gazepriv.ledger$$);
-- A curator's dp_heatmap charging spec.dataset: once per released group, on the coordinator, when Citus
-- combines the groups there; refused (PB003, nothing charged, nothing released) when Citus would run the final
-- function on a worker: grouped by the distribution column, or a query routed to one shard.
SELECT gazepriv.grant_budget('uniss_by_participant', 'postgres', 100, 1e-3, accounting => 'basic');
CREATE FUNCTION citus_test.charges_of(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE before bigint := (SELECT count(*) FROM gazepriv.ledger); outcome text := citus_test.error_of(query);
BEGIN
    RETURN outcome || ', charges: ' || ((SELECT count(*) FROM gazepriv.ledger) - before);
END $$;
SELECT name, citus_test.plan_of(sql) AS plan, citus_test.charges_of(sql) AS outcome FROM (VALUES
    ('no GROUP BY', $$SELECT gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(1280, 1024, 0.5, 1e-6, cell_size => 32,
                      dataset => 'uniss_by_participant')) FROM citus_test.gaze_by_participant$$),
    ('GROUP BY stimulus', $$SELECT stimulus, gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(1280, 1024, 0.5, 1e-6,
                            cell_size => 32, dataset => 'uniss_by_participant')) FROM citus_test.gaze_by_participant GROUP BY stimulus$$),
    ('GROUP BY participant', $$SELECT participant, gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(1280, 1024, 0.5,
                               1e-6, cell_size => 32, dataset => 'uniss_by_participant')) FROM citus_test.gaze_by_participant
                               GROUP BY participant$$),
    ('WHERE participant = 03', $$SELECT gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(1280, 1024, 0.5, 1e-6,
                                 cell_size => 32, dataset => 'uniss_by_participant')) FROM citus_test.gaze_by_participant
                                 WHERE participant = '03'$$)
) q(name, sql);
