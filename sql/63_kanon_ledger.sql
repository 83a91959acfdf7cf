-- k-anonymity releases are logged in the ledger (guarantee k-anonymity, k, epsilon 0) before they read, when
-- a dataset is named; analysts release k-same-select sequences of a registered dataset without reading it,
-- served once, with the k of the owner's release policy.
SELECT gazepriv.register_dataset('kanon_feat', 'kanon_features', 'participant', task_column => 'task',
                                 window_column => 'window', features_column => 'features', observers => 11);
SELECT gazepriv.register_dataset('kanon_people', 'kanon_table1', 'participant');
CREATE ROLE kanon_analyst NOLOGIN IN ROLE gazepriv_analyst;
CREATE ROLE kanon_stranger NOLOGIN IN ROLE gazepriv_analyst;
SELECT gazepriv.grant_budget('kanon_feat', 'kanon_analyst', epsilon => 0, accounting => 'basic');

-- The analyst cannot read the rows, but can release them k-anonymised, with the owner's k.
SELECT gazepriv.set_release_policy('kanon_feat', 'k_same_select', '{"k": 4}');
SELECT policy FROM gazepriv.release_policies WHERE dataset = 'kanon_feat';
SET gazepriv.seed = 53;
SET ROLE kanon_analyst;
SELECT gazepriv_test.error_of($$SELECT count(*) FROM kanon_features$$);
SELECT gazepriv_test.error_of($$SELECT count(*) FROM gazepriv.k_same_select('kanon_features', 3)$$);
WITH r AS (SELECT * FROM gazepriv.release_k_same_select('kanon_feat')),  -- one release (materialised)
     g AS (SELECT task, group_id, count(DISTINCT participant) AS members FROM r GROUP BY task, group_id)
SELECT (SELECT count(*) FROM r) AS rows, (SELECT count(DISTINCT participant) FROM r) AS participants,
       min(members) AS smallest_group, max(members) AS largest_group FROM g;
-- Served once: every later request (k given or not) returns the identical release, with no new ledger row.
SELECT (SELECT md5(string_agg(format('%s %s %s %s', participant, task, "window", group_id), '|'
                              ORDER BY participant, task, "window")) FROM gazepriv.release_k_same_select('kanon_feat'))
     = (SELECT md5(string_agg(format('%s %s %s %s', participant, task, "window", group_id), '|'
                              ORDER BY participant, task, "window")) FROM gazepriv.release_k_same_select('kanon_feat', 4))
       AS identical;
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT * FROM gazepriv.release_k_same_select('kanon_feat', 1)$$,
    $$SELECT * FROM gazepriv.release_k_same_select('kanon_feat', 12)$$,
    $$SELECT * FROM gazepriv.release_k_same_select('kanon_feat', 4, across_tasks => false)$$,
    $$SELECT * FROM gazepriv.release_k_same_select('kanon_people', 2)$$,
    $$SELECT * FROM gazepriv.release_k_same_select('kanon_nothing', 2)$$]) q;
SELECT dataset, releases, basic_epsilon_spent, epsilon_remaining FROM gazepriv.budget_status WHERE dataset = 'kanon_feat';
RESET ROLE;
-- Without a budget row nothing is released.
SET ROLE kanon_stranger;
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.release_k_same_select('kanon_feat')$$);
RESET ROLE;
-- The owner changes the policy only after a deliberate reset (the ledger records it): then the paper's
-- per-task groupings, and a k above the participants (refused after it is logged: fail closed).
SELECT gazepriv_test.error_of($$SELECT gazepriv.set_release_policy('kanon_feat', 'k_same_select', '{"k": 3}')$$);
SELECT gazepriv.reset_release('kanon_feat', 'k_same_select') > 0 AS reset;
SELECT gazepriv.set_release_policy('kanon_feat', 'k_same_select', '{"k": 4, "across_tasks": false}');
SET ROLE kanon_analyst;
SELECT count(*) AS rows, count(DISTINCT (task, group_id)) AS groups FROM gazepriv.release_k_same_select('kanon_feat');
RESET ROLE;
SELECT gazepriv.reset_release('kanon_feat', 'k_same_select') > 0 AS reset;
SELECT gazepriv.set_release_policy('kanon_feat', 'k_same_select', '{"k": 12}');
SET ROLE kanon_analyst;
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.release_k_same_select('kanon_feat')$$);
RESET ROLE;
SELECT gazepriv.set_release_policy('kanon_feat', 'k_same_select', NULL);
SELECT count(*) AS policies_left FROM gazepriv.release_policies WHERE dataset = 'kanon_feat';

-- A curator's own releases are logged when a dataset is named (here the curator needs a budget row too).
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.k_same_select('kanon_features', 3, dataset => 'kanon_feat')$$);
SELECT gazepriv.grant_budget('kanon_feat', 'postgres', epsilon => 0, accounting => 'basic');
SELECT gazepriv.grant_budget('kanon_people', 'postgres', epsilon => 0, accounting => 'basic');
SELECT count(*) AS released FROM gazepriv.k_same_select('kanon_features', 3, dataset => 'kanon_feat');
SELECT count(*) AS released FROM gazepriv.generalize_demographics('kanon_table1', 6, dataset => 'kanon_people');
SELECT count(*) AS classes FROM gazepriv.generalize_demographics_ranges('kanon_table1', 15,
    ranges => ARRAY['M/F:23-28', 'M/F:29-52'], dataset => 'kanon_people');
-- Without dataset => nothing is logged.
SELECT count(*) AS released FROM gazepriv.k_same_select('kanon_features', 3);
RESET gazepriv.seed;

-- Every release is logged before it reads: the failed k = 12 attempt too (fail closed, nothing released); the
-- owner's resets are in the ledger.
SELECT role, dataset, mechanism, parameters - 'release' AS parameters, epsilon, delta, rho, guarantee, non_private
FROM gazepriv.ledger WHERE dataset LIKE 'kanon%' ORDER BY id;
-- The ledger records exactly what the cost previews say.
SELECT l.mechanism, l.parameters = c.parameters AS same_parameters, l.non_private = c.non_private_choices AS same_flag
FROM gazepriv.ledger l, gazepriv.k_same_select_cost(3, source => 'kanon_features') c
WHERE l.dataset = 'kanon_feat' AND l.role = 'postgres'::regrole AND l.mechanism = 'k_same_select';
