-- pd_release: the analyst's plausible-deniability release over a registered dataset. The budget is charged
-- (or the release logged) with the cost pd_release_cost shows, before any candidate is generated.
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
SELECT gazepriv.grant_budget('pdset', 'pd_analyst', 300, 1e-5, accounting => 'basic');
SET gazepriv.seed = 62;

SET ROLE pd_analyst;
-- The raw rows and the internal reader are out of reach; the release is not.
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT count(*) FROM pd_feat$$,
    $$SELECT * FROM gazepriv.pd_synthesize('pd_feat_canonical', 2, 2)$$,
    $$SELECT * FROM gazepriv._pd_synthesize('pd_feat', 'who', 'activity', 'win', 'vec', 2, 2, 30, 'marginals', NULL, 'random', 'record', NULL, NULL, NULL, NULL, 1, 0, NULL, NULL, false, 'pdset')$$]) q;
-- Deterministic test: logged as plausible deniability with epsilon 0; the dataset's public bounds are used.
CREATE TEMP TABLE pd_rel AS SELECT * FROM gazepriv.pd_release('pdset', k => 4, gamma => 2, model => 'seed_based',
                                                                omega => 1);
SELECT count(*) AS rows, count(DISTINCT participant) AS participants, count(DISTINCT task) AS tasks,
       bool_and(features[1] BETWEEN 0 AND 1.2 AND features[2] BETWEEN 0 AND 1.2) AS inside_public_bounds
FROM pd_rel;
SELECT releases, basic_epsilon_spent, basic_delta_spent FROM gazepriv.budget_status WHERE dataset = 'pdset';
-- Randomized test: charged its composed (epsilon, delta), exactly what the preview says for the largest task
-- (100 records of 200), before any candidate.
SELECT count(*) <= 200 AS released
FROM gazepriv.pd_release('pdset', k => 30, gamma => 2, epsilon0 => 1, t => 10, model_epsilon => 1);
SELECT abs(s.basic_epsilon_spent - c.epsilon) < 1e-9 AS epsilon_as_previewed,
       abs(s.basic_delta_spent - c.delta) < 1e-18 AS delta_as_previewed, s.releases
FROM gazepriv.budget_status s,
     gazepriv.pd_release_cost(30, 2, features => 2, records => 100, epsilon0 => 1, t => 10, model_epsilon => 1,
                              bounds => ARRAY[[0, 1.2], [0, 1.2]]) c
WHERE s.dataset = 'pdset';
-- Over budget: PB001, nothing released, nothing charged.
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.pd_release('pdset', k => 30, gamma => 2, epsilon0 => 1,
                                                                   t => 10, model_epsilon => 1, max_attempts => 3)$$);
SELECT releases FROM gazepriv.budget_status WHERE dataset = 'pdset';
-- Bad parameters fail before anything is read or charged.
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT * FROM gazepriv.pd_release('nowhere', 2, 2)$$,
    $$SELECT * FROM gazepriv.pd_release('pdset', 0, 2)$$,
    $$SELECT * FROM gazepriv.pd_release('pdset', 2, 2, epsilon0 => 1, t => 1)$$,
    $$SELECT * FROM gazepriv.pd_release('pdset', 2, 2, bounds => ARRAY[[0, 1]])$$]) q;
SELECT releases FROM gazepriv.budget_status WHERE dataset = 'pdset';
RESET ROLE;

-- Without a budget row: PB002, nothing released.
SET ROLE pd_stranger;
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.pd_release('pdset', 2, 2)$$) LIKE 'PB002%' AS no_budget;
RESET ROLE;

-- The ledger (curators read it): mechanism, guarantee, parameters, and whether a choice was non-private.
SELECT role, mechanism, guarantee, epsilon > 0 AS spent_epsilon, delta > 0 AS spent_delta, non_private,
       parameters ->> 'test' AS test, parameters ->> 'bounds' AS bounds, parameters ->> 'candidates' AS candidates
FROM gazepriv.ledger WHERE dataset = 'pdset' ORDER BY id;

-- A curator's own release on the same dataset, with data-range bins: logged on the curator's budget row with
-- epsilon 0 and flagged non-private.
SELECT gazepriv.grant_budget('pdset', current_user::regrole, 0, 0, accounting => 'basic');
SELECT count(*) AS rows FROM gazepriv.pd_synthesize('pd_feat_canonical', 3, 2, dataset => 'pdset');
SELECT mechanism, guarantee, epsilon, delta, non_private, parameters ->> 'bounds' AS bounds
FROM gazepriv.ledger WHERE dataset = 'pdset' AND role = current_user::regrole;
RESET gazepriv.seed;
