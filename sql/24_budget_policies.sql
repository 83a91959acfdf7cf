-- Datasets have owners: only a relation's owner registers it; only a dataset's owner manages it (budgets,
-- release policies, resets, dropping) and reads its catalog rows. Release policies are validated and filled in.
CREATE ROLE policy_curator NOLOGIN IN ROLE gazepriv_curator;
CREATE ROLE policy_other NOLOGIN IN ROLE gazepriv_curator;
CREATE TABLE policy_gaze (participant text, stimulus int, t_ms float8, x float8, y float8, task text, "window" int,
                          features float8[]);
ALTER TABLE policy_gaze OWNER TO policy_curator;
GRANT SELECT, INSERT ON policy_gaze TO policy_other;
SET ROLE policy_other;
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.register_dataset('stolen', 'policy_gaze', 'participant')$$,
    $$SELECT gazepriv.register_dataset('stolen', 'pg_class', 'relname')$$]) q;
CREATE TEMP TABLE policy_temp (participant text);
SELECT gazepriv_test.error_of($$SELECT gazepriv.register_dataset('temporary', 'policy_temp', 'participant')$$);
RESET ROLE;

SET ROLE policy_curator;
SELECT gazepriv.register_dataset('policed', 'policy_gaze', 'participant', stimulus_column => 'stimulus',
                                 time_column => 't_ms', x_column => 'x', y_column => 'y', task_column => 'task',
                                 window_column => 'window', features_column => 'features', observers => 5,
                                 bounds => '{"features": [[0, 1], [0, 1]], "length": 4}');
SELECT name, owner, registered_by FROM gazepriv.datasets;
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.set_release_policy('policed', 'heatmap', '{}')$$,
    $$SELECT gazepriv.set_release_policy('policed', 'heatmap', '{"cap": 0}')$$,
    $$SELECT gazepriv.set_release_policy('policed', 'heatmap', '{"cap": "1"}')$$,
    $$SELECT gazepriv.set_release_policy('policed', 'heatmap', '{"cap": 1, "epsilon": 1}')$$,
    $$SELECT gazepriv.set_release_policy('policed', 'kaleido', '{"w": 30}')$$,
    $$SELECT gazepriv.set_release_policy('policed', 'kaleido', '{"w": 30, "r": -1}')$$,
    $$SELECT gazepriv.set_release_policy('policed', 'kaleido', '{"w": 30, "r": 1, "h": 0.5}')$$,
    $$SELECT gazepriv.set_release_policy('policed', 'k_same_select', '{"k": 1}')$$,
    $$SELECT gazepriv.set_release_policy('policed', 'k_same_select', '{"k": 2, "across_tasks": "yes"}')$$,
    $$SELECT gazepriv.set_release_policy('policed', 'series', '{"methods": ["gpa"], "recordings": ["a"]}')$$,
    $$SELECT gazepriv.set_release_policy('policed', 'series', '{"methods": [], "recordings": ["a"]}')$$,
    $$SELECT gazepriv.set_release_policy('policed', 'series', '{}')$$,
    $$SELECT gazepriv.set_release_policy('policed', 'count', '{}')$$,
    $$SELECT gazepriv.set_release_policy('unknown', 'heatmap', '{"cap": 1}')$$]) q;
-- Valid policies, with the defaults filled in.
SELECT gazepriv.set_release_policy('policed', 'heatmap', '{"cap": 3}');
SELECT gazepriv.set_release_policy('policed', 'kaleido', '{"w": 60, "r": 0.05}');
SELECT gazepriv.set_release_policy('policed', 'k_same_select', '{"k": 2}');
SELECT gazepriv.set_release_policy('policed', 'pd', '{"k": 5, "gamma": 2}');
SELECT gazepriv.set_release_policy('policed', 'series', '{"recordings": ["a", "b"]}');
SELECT mechanism, policy, set_by FROM gazepriv.release_policies ORDER BY mechanism;
SELECT gazepriv.grant_budget('policed', 'policy_curator', 1, 0, accounting => 'basic');
SELECT gazepriv.grant_budget('policed', 'policy_curator', 1, 0, accounting => 'basic', kind => 'w-event');
RESET ROLE;

-- Another curator sees none of it and changes nothing.
SET ROLE policy_other;
SELECT (SELECT count(*) FROM gazepriv.datasets) AS datasets, (SELECT count(*) FROM gazepriv.release_policies) AS policies,
       (SELECT count(*) FROM gazepriv.budgets WHERE dataset = 'policed') AS budgets;
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.set_release_policy('policed', 'heatmap', '{"cap": 100}')$$,
    $$SELECT gazepriv.grant_budget('policed', 'policy_other', 100, 0, accounting => 'basic')$$,
    $$SELECT gazepriv.revoke_budget('policed', 'policy_curator')$$,
    $$SELECT gazepriv.reset_release('policed', 'pd')$$,
    $$SELECT gazepriv.drop_dataset('policed')$$,
    $$UPDATE gazepriv.release_policies SET policy = '{"cap": 100}'$$,
    $$INSERT INTO gazepriv.releases VALUES (1, 'policed', 'k_same_select', 'policy_other', '{}', 'k_same_select', '[]')$$]) q;
RESET ROLE;

-- Constraints hold the invariants whoever writes.
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$UPDATE gazepriv.budgets SET spent_epsilon = -1 WHERE dataset = 'policed'$$,
    $$UPDATE gazepriv.budgets SET releases = -1 WHERE dataset = 'policed'$$,
    $$UPDATE gazepriv.budgets SET kind = 'k-anonymity' WHERE dataset = 'policed'$$]) q;

-- Dropping takes the budgets, policies and secrets with it; the ledger keeps every row and records the drop.
SET ROLE policy_curator;
SELECT gazepriv.reset_release('policed', 'k_same_select') > 0 AS reset;
SELECT gazepriv.drop_dataset('policed');
SELECT count(*) AS datasets_left FROM gazepriv.datasets;
RESET ROLE;
SELECT (SELECT count(*) FROM gazepriv.budgets WHERE dataset = 'policed') AS budgets,
       (SELECT count(*) FROM gazepriv.release_policies WHERE dataset = 'policed') AS policies,
       (SELECT count(*) FROM gazepriv.release_secrets WHERE dataset = 'policed') AS secrets;
SELECT role, mechanism, parameters, epsilon, guarantee, accounting FROM gazepriv.ledger
WHERE dataset = 'policed' ORDER BY id;
DROP TABLE policy_gaze;
