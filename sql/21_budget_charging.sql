-- Charging: committed by a background worker before the release draws noise, independent of the caller's
-- transaction; refused over budget, without a budget, or where it cannot be charged.
SET gazepriv.seed = 11;
SET ROLE budget_alice;
-- (Every evaluation is a release: "release_count(...) BETWEEN 0 AND 60" would evaluate, and charge, twice.)
SELECT c >= 0 AND c <= 60 AS released FROM (SELECT gazepriv.release_count('gaze', 0.25) AS c) s;
SELECT basic_epsilon_spent, releases FROM gazepriv.budget_status WHERE dataset = 'gaze';
-- ROLLBACK after the result was seen does not refund it.
BEGIN;
SELECT gazepriv.release_count('gaze', 0.25, stimulus => 1) IS NOT NULL AS released;
ROLLBACK;
SELECT basic_epsilon_spent, releases FROM gazepriv.budget_status WHERE dataset = 'gaze';
-- An error after the charge, in the same statement, keeps it (fail closed: nothing was returned).
SELECT gazepriv.release_count('gaze', 0.125) / 0;
SELECT basic_epsilon_spent, releases FROM gazepriv.budget_status WHERE dataset = 'gaze';
-- A cancelled statement keeps the charge too.
SET statement_timeout = '1s';
SELECT gazepriv.release_count('gaze', 0.125), pg_sleep(5);
RESET statement_timeout;
SELECT basic_epsilon_spent, epsilon_remaining, releases FROM gazepriv.budget_status WHERE dataset = 'gaze';
-- The preview says what a release would leave, without charging.
SELECT * FROM gazepriv.preview_cost('gaze', 0.25);
SELECT * FROM gazepriv.preview_cost('gaze', 0.3);
-- A huge cost is simply not allowed; a cost that is not one is refused.
SELECT accounting, epsilon_remaining_after, allowed FROM gazepriv.preview_cost('gaze', 1e308);
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.preview_cost('gaze', -1)$$, $$SELECT gazepriv.preview_cost('gaze', 'NaN')$$,
    $$SELECT gazepriv.preview_cost('gaze', 'Infinity')$$, $$SELECT gazepriv.preview_cost('gaze', 1, 1)$$,
    $$SELECT gazepriv.preview_cost('gaze', 1, 0, -1)$$, $$SELECT gazepriv.preview_cost('gaze', NULL)$$]) q;
-- Over budget: its own SQLSTATE, the requested and remaining amounts, nothing released or charged.
SELECT gazepriv_test.error_of($$SELECT gazepriv.release_count('gaze', 0.3)$$);
SELECT gazepriv.release_count('gaze', 0.25) IS NOT NULL AS last_quarter;
SELECT basic_epsilon_spent, epsilon_remaining, releases FROM gazepriv.budget_status WHERE dataset = 'gaze';
SELECT gazepriv_test.error_of($$SELECT gazepriv.release_count('gaze', 1e-6)$$);
RESET ROLE;

-- No budget, revoked budget, unknown dataset, bad epsilon.
SET ROLE budget_bob;
SELECT gazepriv.release_count('gaze', 0.5) IS NOT NULL AS bob_released;
RESET ROLE;
SELECT gazepriv.revoke_budget('gaze', 'budget_bob');
SET ROLE budget_bob;
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.release_count('gaze', 0.5)$$,
    $$SELECT gazepriv.release_count('nope', 0.5)$$]) q;
RESET ROLE;
-- Bad arguments are refused before anything is charged (the budget is checked first: one answer for unknown
-- datasets and missing budgets).
SET ROLE budget_alice;
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.release_count('gaze', 0)$$,
    $$SELECT gazepriv.release_count('gaze', 'NaN')$$,
    $$SELECT gazepriv.release_count('gaze', 'Infinity')$$,
    $$SELECT gazepriv.release_count('budget_gaze', 1)$$]) q;
RESET ROLE;
CREATE ROLE budget_carol NOLOGIN IN ROLE gazepriv_analyst;
SET ROLE budget_carol;
SELECT gazepriv_test.error_of($$SELECT gazepriv.release_count('gaze', 0.5)$$);
RESET ROLE;
-- Re-granting after a revoke lets the role spend again, from what it had already spent.
SELECT gazepriv.grant_budget('gaze', 'budget_bob', 3.0, 1e-6);
SELECT role, releases, zcdp_rho_spent, revoked FROM gazepriv.budget_status WHERE role = 'budget_bob'::regrole;

-- Charging from a parallel plan: the leader is in parallel mode (it cannot write), the worker commits.
SELECT gazepriv.grant_budget('gaze', 'postgres', 1.0, 0, accounting => 'basic');
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT gazepriv.release_count('gaze', 0.1) AS dp_count, count(*) FROM budget_gaze;
SELECT count(*) AS rows_scanned_in_parallel FROM (
    SELECT gazepriv.release_count('gaze', 0.1) AS dp_count, count(*) FROM budget_gaze) s;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
SELECT basic_epsilon_spent, releases FROM gazepriv.budget_status WHERE role = 'postgres'::regrole;

-- Budgets are charged only where a query is issued: never inside a Citus shard query.
SET application_name = 'citus_internal gpid=10000000001';
SELECT gazepriv_test.error_of($$SELECT gazepriv.charge_budget('gaze', 'test', 0.1)$$);
RESET application_name;

-- Curators charge releases made by other means on datasets they own; amounts are validated.
CREATE ROLE budget_curator NOLOGIN IN ROLE gazepriv_curator;
CREATE TABLE curated_gaze (participant text);
ALTER TABLE curated_gaze OWNER TO budget_curator;
SET ROLE budget_curator;
SELECT gazepriv.register_dataset('curated', 'curated_gaze', 'participant');
SELECT gazepriv.grant_budget('curated', 'budget_curator', 12, 1e-5, accounting => 'zcdp');
SELECT gazepriv_test.error_of($$SELECT gazepriv.charge_budget('gaze', 'test', 0.1)$$) AS not_its_dataset;
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.charge_budget('curated', 'test', -1)$$,
    $$SELECT gazepriv.charge_budget('curated', 'test', 'NaN')$$,
    $$SELECT gazepriv.charge_budget('curated', 'test', 1, 1)$$,
    $$SELECT gazepriv.charge_budget('curated', 'test', 1, rho => -2)$$,
    $$SELECT gazepriv.charge_budget('curated', 'test', 1, guarantee => 'vibes')$$,
    $$SELECT gazepriv.charge_budget('curated', 'stream', 1, guarantee => 'w-event')$$,
    $$SELECT gazepriv.charge_budget(NULL, 'test', 1)$$,
    $$SELECT gazepriv.charge_budget('curated', repeat('x', 300), 1)$$,
    $$SELECT gazepriv.charge_budget('curated', 'test', 1, parameters => jsonb_build_object('x', repeat('y', 5000)))$$]) q;
-- The worked example: 100 Gaussian releases, each (1, 1e-5)-DP by Dwork-Roth calibration (rho = 0.0213),
-- all fit in epsilon 12 under zCDP (about 11.15), where basic composition would allow 12.
SELECT count(gazepriv.charge_budget('curated', 'gaussian', 1, 1e-5,
                                    rho => gazepriv.zcdp_rho(1, sqrt(2 * ln(1.25e5))))) AS charged
FROM generate_series(1, 100);
SELECT basic_epsilon_spent, basic_delta_spent, round(zcdp_rho_spent, 4) AS rho,
       round(zcdp_epsilon_spent::numeric, 2) AS zcdp_epsilon, round(epsilon_remaining::numeric, 2) AS remaining
FROM gazepriv.budget_status WHERE role = 'budget_curator'::regrole;
-- k-anonymity and plausible-deniability releases are logged and spend nothing.
SELECT gazepriv.charge_budget('curated', 'k_same_select', 0, guarantee => 'k-anonymity',
                              parameters => '{"k": 4}') > 0 AS logged;
-- A curator reads the catalog rows of its own datasets only.
SELECT dataset, count(*) AS ledger_rows FROM gazepriv.ledger GROUP BY dataset;
SELECT name FROM gazepriv.datasets;
SELECT DISTINCT dataset FROM gazepriv.budget_status;
RESET ROLE;
SELECT mechanism, parameters, epsilon, delta, guarantee, non_private FROM gazepriv.ledger
WHERE role = 'budget_curator'::regrole AND mechanism <> 'gaussian';
-- Every charge is in the ledger, with the totals of the budget rows.
SELECT l.role, count(*) AS ledger_rows, sum(l.epsilon) AS ledger_epsilon, b.releases, b.spent_epsilon
FROM gazepriv.ledger l JOIN gazepriv.budgets b ON b.dataset = l.dataset AND b.role = l.role
GROUP BY l.role, b.releases, b.spent_epsilon ORDER BY l.role::text;
RESET gazepriv.seed;
