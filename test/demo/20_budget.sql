-- A privacy budget: an analyst who may not read raw gaze data releases within epsilon 1
SELECT gazepriv.register_dataset('uniss', 'uniss_samples', 'participant', stimulus_column => 'stimulus',
                                 time_column => 't_ms', x_column => 'x', y_column => 'y', observers => 20,
                                 description => 'Uniss-FGD, face image 2, 20 observers') \g /dev/null
CREATE ROLE demo_analyst NOLOGIN IN ROLE gazepriv_analyst;
SELECT gazepriv.grant_budget('uniss', 'demo_analyst', epsilon => 1.0, delta => 1e-6, accounting => 'zcdp') \g /dev/null
\echo 'The curator registered uniss_samples as dataset "uniss" and granted demo_analyst (epsilon 1, delta 1e-6).'
\set VERBOSITY terse

SET ROLE demo_analyst;
\echo 'The analyst cannot read the raw samples:'
\set ON_ERROR_STOP off
SELECT count(*) FROM uniss_samples;
\set ON_ERROR_STOP on
\echo 'but can release a DP count of participants (epsilon 0.5, exact discrete Laplace noise):'
SELECT gazepriv.release_count('uniss', 0.5) AS dp_participants;
\echo 'What would another release of epsilon 0.5 leave? (zCDP accounting: the better of basic composition and the zCDP bound)'
SELECT * FROM gazepriv.preview_cost('uniss', 0.5);
SELECT gazepriv.release_count('uniss', 0.5) AS dp_participants_again;
\echo 'The budget is spent: the next release is refused (SQLSTATE PB001) and nothing is released.'
\set ON_ERROR_STOP off
SELECT gazepriv.release_count('uniss', 0.1);
\set ON_ERROR_STOP on
SELECT dataset, accounting, epsilon_limit, basic_epsilon_spent, round(zcdp_epsilon_spent::numeric, 3) AS zcdp_epsilon,
       epsilon_spent, epsilon_remaining, releases
FROM gazepriv.budget_status;
RESET ROLE;
\echo 'The curator sees the ledger: every release, charged before its noise was drawn.'
SELECT id, role, mechanism, parameters, epsilon, delta, guarantee, non_private FROM gazepriv.ledger ORDER BY id;
