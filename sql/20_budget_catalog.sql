-- The budget catalog: registering datasets, granting and revoking budgets, and their bad inputs.
CREATE TABLE budget_gaze (participant text, stimulus int, t_ms float8, x float8, y float8);
INSERT INTO budget_gaze SELECT 'p' || (i % 20), i % 3, i * 3.3, i % 500, i % 400 FROM generate_series(1, 2000) i;
GRANT SELECT ON budget_gaze TO PUBLIC;  -- registration must take this away

SELECT gazepriv.register_dataset('gaze', 'budget_gaze', 'participant', stimulus_column => 'stimulus',
                                 time_column => 't_ms', x_column => 'x', y_column => 'y', observers => 20,
                                 bounds => '{"x": [0, 500], "y": [0, 400]}', description => 'test gaze');
SELECT name, relation, owner, participant_column, stimulus_column, x_column, observers, bounds, registered_by
FROM gazepriv.datasets;
SELECT has_table_privilege('public', 'budget_gaze', 'SELECT') AS public_can_read_raw,
       has_table_privilege('gazepriv_analyst', 'budget_gaze', 'SELECT') AS analysts_can_read_raw;

CREATE ROLE budget_alice NOLOGIN IN ROLE gazepriv_analyst;
CREATE ROLE budget_bob NOLOGIN IN ROLE gazepriv_analyst;
SELECT gazepriv.grant_budget('gaze', 'budget_alice', 1.0, 1e-5, accounting => 'basic');
SELECT gazepriv.grant_budget('gaze', 'budget_bob', 2.0, 1e-6);   -- zcdp by default
SELECT dataset, role, kind, accounting, epsilon_limit, delta_limit, epsilon_remaining, delta_remaining, releases, revoked
FROM gazepriv.budget_status ORDER BY role::text;
-- Granting again changes the limits (spending is never refunded: see 21_budget_charging).
SELECT gazepriv.grant_budget('gaze', 'budget_bob', 3.0, 1e-6, accounting => 'zcdp');
SELECT role, epsilon_limit FROM gazepriv.budget_status WHERE role = 'budget_bob'::regrole;

-- Bad input: named parameters, documented SQLSTATEs, nothing stored.
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.register_dataset('x', 'no_such_table', 'participant')$$,
    $$SELECT gazepriv.register_dataset('x', 'budget_gaze', 'no_such_column')$$,
    $$SELECT gazepriv.register_dataset('x', 'budget_gaze', 'participant', x_column => 'nope')$$,
    $$SELECT gazepriv.register_dataset('x', 'budget_gaze', 'participant', observers => 0)$$,
    $$SELECT gazepriv.register_dataset('x', 'budget_gaze', 'participant', bounds => '[1, 2]')$$,
    $$SELECT gazepriv.register_dataset('', 'budget_gaze', 'participant')$$,
    $$SELECT gazepriv.register_dataset(repeat('x', 256), 'budget_gaze', 'participant')$$,
    $$SELECT gazepriv.register_dataset('gaze', 'budget_gaze', 'participant')$$,
    $$SELECT gazepriv.grant_budget('no_such_dataset', 'budget_alice', 1, 1e-5)$$,
    $$SELECT gazepriv.grant_budget('gaze', 'no_such_role', 1, 1e-5)$$,
    $$SELECT gazepriv.grant_budget('gaze', 'budget_alice', 'NaN', 1e-5)$$,
    $$SELECT gazepriv.grant_budget('gaze', 'budget_alice', -1, 1e-5)$$,
    $$SELECT gazepriv.grant_budget('gaze', 'budget_alice', 'Infinity', 1e-5)$$,
    $$SELECT gazepriv.grant_budget('gaze', 'budget_alice', 1, 1)$$,
    $$SELECT gazepriv.grant_budget('gaze', 'budget_alice', 1, 'NaN')$$,
    $$SELECT gazepriv.grant_budget('gaze', 'budget_alice', 1, 1e-5, accounting => 'renyi')$$,
    $$SELECT gazepriv.grant_budget('gaze', 'budget_alice', 1, 0, accounting => 'zcdp')$$,
    $$SELECT gazepriv.grant_budget('gaze', 'budget_alice', 1, 0, accounting => 'basic', kind => 'k-anonymity')$$,
    $$SELECT gazepriv.revoke_budget('gaze', 'postgres')$$,
    $$SELECT gazepriv.revoke_budget('gaze', 'budget_alice', kind => 'w-event')$$]) q;
SELECT count(*) AS datasets FROM gazepriv.datasets;

-- pg_dump keeps the catalog: the tables and the ledger's sequence are extension configuration.
SELECT c.relname FROM pg_extension e, unnest(e.extconfig) cfg JOIN pg_class c ON c.oid = cfg
WHERE e.extname = 'gazepriv' ORDER BY 1;

-- The budget arithmetic (pure): 100 Gaussian releases at (1, 1e-5) by Dwork-Roth: basic composition spends
-- epsilon 100, zCDP about 11.15 (rho adds up, converted once by Canonne-Kamath-Steinke).
WITH r AS (SELECT gazepriv.zcdp_rho(1, gazepriv.gaussian_sigma(1, 0.999999999999, 1e-5, 'dwork_roth')) AS rho),
     a AS (SELECT (gazepriv.budget_after('zcdp', 100, 1e-3, 99, 99e-5, 99 * r.rho::numeric, 0, 0, 1, 1e-5, r.rho)).*
           FROM r)
SELECT new_spent_epsilon AS basic_epsilon, round(new_spent_rho, 4) AS rho, round(zcdp_epsilon_spent::numeric, 2)
       AS zcdp_epsilon_at_delta_1e3
FROM a;
SELECT round((gazepriv.budget_after('zcdp', 12, 1e-5, 0, 0, 0, 0, 0, 0, 0,
                                    100 * gazepriv.zcdp_rho(1, sqrt(2 * ln(1.25e5))))).zcdp_epsilon_spent::numeric, 2)
       AS zcdp_epsilon_of_100_releases;
-- Laplace releases count epsilon^2/2 under zCDP; approximate-DP releases without a zCDP form compose basically.
-- A single Laplace release: the zCDP conversion alone would say epsilon 2.0, basic composition 0.5; a zcdp
-- budget holds when either bound does.
SELECT new_spent_rho, new_other_epsilon, round(zcdp_epsilon_spent::numeric, 3) AS zcdp_bound, epsilon_spent, allowed
FROM gazepriv.budget_after('zcdp', 1, 1e-5, 0, 0, 0, 0, 0, 0.5, 0, NULL);
SELECT new_spent_rho, new_other_epsilon, new_other_delta, allowed
FROM gazepriv.budget_after('zcdp', 1, 1e-5, 0, 0, 0, 0, 0, 0.3, 1e-6, NULL);
SELECT allowed FROM gazepriv.budget_after('basic', 1, 1e-5, 0.9, 0, 0, 0, 0, 0.1, 0, NULL) AS exactly_at_limit;
SELECT allowed FROM gazepriv.budget_after('basic', 1, 1e-5, 0.9, 0, 0, 0, 0, 0.1000001, 0, NULL) AS just_over;
