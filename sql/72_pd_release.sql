-- pd_release: the analyst's plausible-deniability release over a registered dataset, with everything that defines
-- it from the owner's release policy. The budget is charged (or the release logged) with the cost
-- pd_release_cost shows for the policy's public records per task, before the rows are read; a deterministic
-- release is served once.
CREATE TABLE pd_feat (who text, activity text, win int, vec float8[]);
INSERT INTO pd_feat
SELECT 'u' || (i % 5), CASE WHEN i % 4 < 2 THEN 'a' ELSE 'b' END, i,
       ARRAY[((i * 3) % 10) / 10.0 + (i % 5) / 50.0, ((i * 7) % 9) / 9.0]
FROM generate_series(1, 200) i;
SELECT gazepriv.register_dataset('pdset', 'pd_feat', 'who', task_column => 'activity', window_column => 'win',
                                 features_column => 'vec', bounds => '{"features": [[0, 1.2], [0, 1.2]]}');
-- Curators may use a view that gives the canonical column names; analysts cannot read it.
CREATE VIEW pd_feat_canonical AS SELECT who AS participant, activity AS task, win AS "window", vec AS features
FROM pd_feat;
CREATE ROLE pd_analyst NOLOGIN IN ROLE gazepriv_analyst;
CREATE ROLE pd_stranger NOLOGIN IN ROLE gazepriv_analyst;
SELECT gazepriv.grant_budget('pdset', 'pd_analyst', 0, 0, accounting => 'basic');
SELECT gazepriv.grant_budget('pdset', 'pd_analyst', 150, 1e-5, accounting => 'basic', kind => 'record-dp');
SET gazepriv.seed = 62;

-- Policies are validated; analysts without one are refused (42501).
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.set_release_policy('pdset', 'pd', '{"gamma": 2}')$$,
    $$SELECT gazepriv.set_release_policy('pdset', 'pd', '{"k": 4, "gamma": 2, "colour": "red"}')$$,
    $$SELECT gazepriv.set_release_policy('pdset', 'pd', '{"k": 4, "gamma": 0.5}')$$,
    $$SELECT gazepriv.set_release_policy('pdset', 'pd', '{"k": 4.5, "gamma": 2}')$$,
    $$SELECT gazepriv.set_release_policy('pdset', 'pd', '{"k": 4, "gamma": 2, "model": "seed_based"}')$$,
    $$SELECT gazepriv.set_release_policy('pdset', 'pd', '{"k": 30, "gamma": 2, "epsilon0": 1, "t": 10, "model_epsilon": 1}')$$,
    $$SELECT gazepriv.set_release_policy('pdset', 'pd', '[1, 2]')$$,
    $$SELECT gazepriv.set_release_policy('pdset', 'colour', '{}')$$]) q;
SET ROLE pd_analyst;
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.pd_release('pdset')$$) AS without_a_policy;
RESET ROLE;
SELECT gazepriv.set_release_policy('pdset', 'pd', '{"k": 4, "gamma": 2, "model": "seed_based", "omega": 1}');
SELECT policy FROM gazepriv.release_policies WHERE dataset = 'pdset';

SET ROLE pd_analyst;
-- The raw rows are out of reach; the release is not.
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT count(*) FROM pd_feat$$,
    $$SELECT * FROM gazepriv.pd_synthesize('pd_feat_canonical', 2, 2)$$,
    $$SELECT * FROM gazepriv.pd_synthesize('pd_feat', 2, 2, participant_column => 'who', task_column => 'activity', window_column => 'win', features_column => 'vec')$$]) q;
-- Deterministic test: logged as plausible deniability with epsilon 0; the dataset's public bounds are used;
-- served once (the same rows again, with the policy's values given or not, and no new ledger row).
CREATE TEMP TABLE pd_rel AS SELECT * FROM gazepriv.pd_release('pdset');
SELECT count(*) AS rows, count(DISTINCT participant) AS participants, count(DISTINCT task) AS tasks,
       bool_and(features[1] BETWEEN 0 AND 1.2 AND features[2] BETWEEN 0 AND 1.2) AS inside_public_bounds
FROM pd_rel;
SELECT (SELECT md5(string_agg(format('%s %s %s %s', participant, task, "window", features), '|'
                              ORDER BY participant, task, "window")) FROM pd_rel)
     = (SELECT md5(string_agg(format('%s %s %s %s', participant, task, "window", features), '|'
                              ORDER BY participant, task, "window"))
        FROM gazepriv.pd_release('pdset', k => 4, gamma => 2, model => 'seed_based', omega => 1)) AS served_once;
SELECT kind, releases, basic_epsilon_spent, basic_delta_spent FROM gazepriv.budget_status WHERE dataset = 'pdset'
ORDER BY kind;
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT * FROM gazepriv.pd_release('nowhere')$$,
    $$SELECT * FROM gazepriv.pd_release('pdset', 5)$$,
    $$SELECT * FROM gazepriv.pd_release('pdset', k => 1, gamma => 2, bins => 256, model => 'seed_based', omega => 1, resample => 'last')$$,
    $$SELECT * FROM gazepriv.pd_release('pdset', bounds => ARRAY[[0, 1], [0, 1]])$$,
    $$SELECT * FROM gazepriv.pd_release('pdset', include_failed => true)$$]) q;
RESET ROLE;

-- Randomized test: charged its composed (epsilon, delta) for the policy's public records per task (whatever the
-- data holds: the largest task here has 100), exactly what the preview says, before any candidate, on the
-- record-dp budget; a new release each time.
SELECT gazepriv.reset_release('pdset', 'pd') > 0 AS reset;
SELECT gazepriv.set_release_policy('pdset', 'pd',
    '{"k": 30, "gamma": 2, "epsilon0": 1, "t": 10, "model_epsilon": 1, "records": 80}');
SET ROLE pd_analyst;
SELECT count(*) <= 160 AS at_most_80_per_task FROM gazepriv.pd_release('pdset');
SELECT abs(s.basic_epsilon_spent - c.epsilon) < 1e-9 AS epsilon_as_previewed,
       abs(s.basic_delta_spent - c.delta) < 1e-18 AS delta_as_previewed, s.releases
FROM gazepriv.budget_status s,
     gazepriv.pd_release_cost(30, 2, features => 2, records => 80, epsilon0 => 1, t => 10, model_epsilon => 1,
                              bounds => ARRAY[[0, 1.2], [0, 1.2]]) c
WHERE s.dataset = 'pdset' AND s.kind = 'record-dp';
-- Over budget: PB001, nothing released, nothing charged.
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.pd_release('pdset')$$);
SELECT releases FROM gazepriv.budget_status WHERE dataset = 'pdset' AND kind = 'record-dp';
RESET ROLE;

-- Without a budget row: PB002, nothing released.
SET ROLE pd_stranger;
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.pd_release('pdset', 2, 2)$$) LIKE 'PB002%' AS no_budget;
RESET ROLE;

-- The ledger (curators read it): mechanism, guarantee, parameters, and whether a choice was non-private.
SELECT role, mechanism, guarantee, epsilon > 0 AS spent_epsilon, delta > 0 AS spent_delta, non_private,
       parameters ->> 'test' AS test, parameters ->> 'bounds' AS bounds, parameters ->> 'candidates' AS candidates,
       parameters ->> 'records' AS records
FROM gazepriv.ledger WHERE dataset = 'pdset' ORDER BY id;

-- A curator's own release on the same dataset, with data-range bins: logged on the curator's budget row with
-- epsilon 0 and flagged non-private.
SELECT gazepriv.grant_budget('pdset', current_user::regrole, 0, 0, accounting => 'basic');
SELECT count(*) AS rows FROM gazepriv.pd_synthesize('pd_feat_canonical', 3, 2, dataset => 'pdset');
SELECT mechanism, guarantee, epsilon, delta, non_private, parameters ->> 'bounds' AS bounds
FROM gazepriv.ledger WHERE dataset = 'pdset' AND role = current_user::regrole;
RESET gazepriv.seed;
