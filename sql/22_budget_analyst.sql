-- The analyst model: an analyst cannot read raw rows, read or touch the catalog (ledger, budgets, policies,
-- stored releases and their secrets), call curator functions, set the seed, the charge timeout or a limit, or
-- call internal functions; sees only its own budget rows. A dataset's owner sees its dataset's rows.
SELECT gazepriv.version() IS NOT NULL AS library_loaded;  -- so that SET gazepriv.seed meets the real setting
SET ROLE budget_alice;
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT count(*) FROM budget_gaze$$,
    $$SELECT count(*) FROM gazepriv.ledger$$,
    $$DELETE FROM gazepriv.ledger$$,
    $$INSERT INTO gazepriv.ledger (role, dataset, mechanism, epsilon, delta, guarantee, non_private, accounting, backend_pid) VALUES ('budget_alice', 'gaze', 'x', 0, 0, 'dp', false, 'basic', 0)$$,
    $$UPDATE gazepriv.budgets SET spent_epsilon = 0$$,
    $$SELECT gazepriv.grant_budget('gaze', 'budget_alice', 100, 1e-5)$$,
    $$SELECT gazepriv.register_dataset('mine', 'budget_gaze', 'participant')$$,
    $$SELECT gazepriv.set_release_policy('gaze', 'heatmap', '{"cap": 100}')$$,
    $$SELECT gazepriv.reset_release('gaze', 'k_same_select')$$,
    $$SELECT gazepriv.drop_dataset('gaze')$$,
    $$SELECT count(*) FROM gazepriv.release_policies$$,
    $$SELECT count(*) FROM gazepriv.releases$$,
    $$SELECT count(*) FROM gazepriv.release_secrets$$,
    $$SET gazepriv.seed = 1$$,
    $$SET gazepriv.charge_timeout = '1h'$$,
    $$SET gazepriv.max_heatmap_cells = 100000000$$,
    $$SELECT gazepriv.charge_budget('gaze', 'refund', 0)$$,
    $$SELECT * FROM gazepriv._apply_charge('gaze', 0, 'x', '{}', 0, 0, NULL, 'dp', false, 0, 0)$$]) q;
SELECT dataset, role, releases FROM gazepriv.budget_status ORDER BY role::text;
RESET ROLE;
SELECT dataset, role, releases FROM gazepriv.budget_status ORDER BY role::text;
-- The ledger is append-only even for superusers.
SELECT gazepriv_test.error_of($$DELETE FROM gazepriv.ledger$$);
SELECT gazepriv_test.error_of($$UPDATE gazepriv.ledger SET epsilon = 0$$);
SELECT gazepriv_test.error_of($$TRUNCATE gazepriv.ledger$$);
-- No internal function is executable by PUBLIC; no function of the extension is SECURITY DEFINER (the release
-- and curator functions switch identities themselves: src/pg/budget/identity.hpp), and any that were would pin
-- search_path.
SELECT count(*) AS security_definer_functions FROM pg_proc p
WHERE p.pronamespace = 'gazepriv'::regnamespace AND p.prosecdef;
SELECT p.oid::regprocedure AS internal_function_callable_by_public
FROM pg_proc p WHERE p.pronamespace = 'gazepriv'::regnamespace AND p.proname LIKE '\_%'
  AND has_function_privilege('public', p.oid, 'EXECUTE');
SELECT p.oid::regprocedure AS definer_without_search_path
FROM pg_proc p WHERE p.pronamespace = 'gazepriv'::regnamespace AND p.prosecdef
  AND NOT EXISTS (SELECT FROM unnest(p.proconfig) c WHERE c LIKE 'search_path=%');
-- Labels of the budget functions, frozen: charging is PARALLEL RESTRICTED (never in a parallel worker).
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.proisstrict, p.prosecdef
FROM pg_proc p
WHERE p.pronamespace = 'gazepriv'::regnamespace
  AND p.proname IN ('register_dataset', 'grant_budget', 'revoke_budget', 'charge_budget', 'preview_cost',
                    'budget_after', 'release_count', '_apply_charge', 'set_release_policy', 'reset_release',
                    'drop_dataset')
ORDER BY (p.oid::regprocedure)::text;
