-- Plausible deniability: the band index, the randomized test's theorem, the cost preview, the labels.
-- Bands (doc/privacy/pd.md §2): i = floor(-ln p / ln gamma); gamma = 2: p = 0.3 -> 1, p = 0.25 -> 2 (a power of
-- gamma sits on its band's upper edge); densities above 1 give negative bands.
SELECT gazepriv.pd_band(0.3, 2) AS p_03, gazepriv.pd_band(0.25, 2) AS p_025, gazepriv.pd_band(0.5, 2) AS p_05,
       gazepriv.pd_band(1, 2) AS p_1, gazepriv.pd_band(3, 2) AS density_3, gazepriv.pd_band(3e-301, 10) AS tiny;
-- The randomized test per candidate (doc/privacy/pd.md §4): k = 50, gamma = 2, epsilon0 = 0.1, t = 10 -> 0.2823, 0.0183.
SELECT round(epsilon::numeric, 4) AS epsilon, round(delta::numeric, 4) AS delta,
       abs(epsilon - (0.1 + ln(1.2::float8))) < 1e-15 AS exact_epsilon,
       abs(delta - exp(-4::float8)) < 1e-17 AS exact_delta
FROM gazepriv.pd_randomized_privacy(50, 2, 0.1, 10);
-- Cost previews. Deterministic test, data-range bins: plausible deniability, nothing spent, non-private bins.
SELECT epsilon, delta, guarantee, non_private, mechanism, parameters
FROM gazepriv.pd_release_cost(5, 2, features => 5, records => 1000);
-- ... with public bounds and a DP model: the model's epsilon, bins no longer non-private.
SELECT epsilon, delta, guarantee, non_private
FROM gazepriv.pd_release_cost(5, 2, features => 2, records => 1000, model_epsilon => 0.5,
                              bounds => ARRAY[[0, 1], [0, 1]]);
-- Randomized test: 2 attempts x 3 records = 6 candidates, each (0.1 + ln 1.2, e^-4), after the model.
SELECT abs(epsilon - (1 + 6 * (0.1 + ln(1.2::float8)))) < 1e-14 AS epsilon_composed,
       abs(delta - 6 * exp(-4::float8)) < 1e-16 AS delta_composed,
       guarantee, parameters ->> 't' AS t, parameters ->> 'candidates' AS candidates
FROM gazepriv.pd_release_cost(50, 2, features => 1, records => 3, epsilon0 => 0.1, t => 10, model_epsilon => 1,
                              max_attempts => 2, bounds => ARRAY[[0, 1]]);
-- target_delta chooses the largest t (smallest epsilon) that meets it: 1000 candidates, delta 1e-6,
-- epsilon0 = 1: k - t >= ln(1e9) = 20.7, so t = 29 of k = 50.
SELECT parameters ->> 't' AS t, delta <= 1e-6 AS meets_target, delta > 1e-6 / exp(1.0) AS largest_t
FROM gazepriv.pd_release_cost(50, 2, features => 1, records => 1000, epsilon0 => 1, target_delta => 1e-6,
                              model_epsilon => 1);
-- A disjoint split: the model and the test compose in parallel (the maximum).
SELECT abs(epsilon - greatest(1, 10 * (1 + ln(1 + 2::float8 / 29)))) < 1e-12 AS parallel_with_model
FROM gazepriv.pd_release_cost(50, 2, features => 1, records => 10, epsilon0 => 1, t => 29, model_epsilon => 1,
                              split => 0.5);

-- Bad input: 22023 naming the parameter (22004 for NULLs), never a crash.
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.pd_band(0, 2)$$,
    $$SELECT gazepriv.pd_band(-1, 2)$$,
    $$SELECT gazepriv.pd_band('NaN', 2)$$,
    $$SELECT gazepriv.pd_band(0.5, 1)$$,
    $$SELECT gazepriv.pd_band(0.5, 'Infinity')$$,
    $$SELECT gazepriv.pd_randomized_privacy(50, 2, 0.1, 50)$$,
    $$SELECT gazepriv.pd_randomized_privacy(50, 2, 0, 10)$$,
    $$SELECT gazepriv.pd_randomized_privacy(1, 2, 0.1, 1)$$,
    $$SELECT gazepriv.pd_randomized_privacy(50, 0.5, 0.1, 10)$$,
    $$SELECT * FROM gazepriv.pd_release_cost(0, 2, 5, 10)$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 'NaN', 5, 10)$$,
    $$SELECT * FROM gazepriv.pd_release_cost(NULL, 2, 5, 10)$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 5, 10, bins => 1)$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 5, 10, bins => 257)$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 5, 10, model => 'gan')$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 5, 10, model => 'seed_based')$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 5, 10, model => 'seed_based', omega => 6)$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 5, 10, model => 'seed_based', omega => 0)$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 5, 10, omega => 2)$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 5, 10, resample => 'first')$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 5, 10, test => 'group')$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 5, 10, alpha => -1)$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 5, 10, split => 1)$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 5, 10, max_attempts => 0)$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 2, 10, bounds => ARRAY[0, 1])$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 2, 10, bounds => ARRAY[[0, 1]])$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 1, 10, bounds => ARRAY[[1, 0]])$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 1, 10, bounds => ARRAY[[0, 'Infinity']]::float8[])$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 5, 10, t => 2)$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 5, 10, epsilon0 => 1, model_epsilon => 1)$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 5, 10, epsilon0 => 1, t => 2)$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 5, 10, epsilon0 => 1, t => 5, model_epsilon => 1)$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 5, 10, epsilon0 => 1, t => 2, model_epsilon => 1, test => 'identity')$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 5, 10, epsilon0 => 'NaN', t => 2, model_epsilon => 1)$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 5, 10, epsilon0 => 1, target_delta => 1, model_epsilon => 1)$$,
    $$SELECT * FROM gazepriv.pd_release_cost(20, 2, 5, 1000, epsilon0 => 1, target_delta => 1e-6, model_epsilon => 1)$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 5, 1000, epsilon0 => 0.1, t => 4, model_epsilon => 1)$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 0, 10)$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 2000, 10)$$,
    $$SELECT * FROM gazepriv.pd_release_cost(5, 2, 65, 10, model => 'seed_based', omega => 2)$$]) q;

-- Labels of the plausible-deniability functions, frozen.
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.proisstrict, p.prosecdef
FROM pg_proc p
WHERE p.pronamespace = 'gazepriv'::regnamespace AND p.proname LIKE '%pd\_%'
ORDER BY (p.oid::regprocedure)::text;
-- Who may call what: analysts release only through pd_release; its plan is not PUBLIC's; pd_synthesize reads
-- with its caller's rights.
SELECT p.proname, has_function_privilege('public', p.oid, 'EXECUTE') AS public,
       has_function_privilege('gazepriv_analyst', p.oid, 'EXECUTE') AS analyst
FROM pg_proc p WHERE p.pronamespace = 'gazepriv'::regnamespace
  AND p.proname IN ('pd_release', '_plan_pd_release', 'pd_synthesize')
ORDER BY 1;
