-- Catalog-wide invariants, run last so that every area's objects exist.
-- Every function, aggregate, type, table and view of the extension has a COMMENT (its privacy contract).
SELECT 'function without comment: ' || p.oid::regprocedure AS missing
FROM pg_proc p LEFT JOIN pg_description d ON d.objoid = p.oid AND d.classoid = 'pg_proc'::regclass
WHERE p.pronamespace = 'gazepriv'::regnamespace AND d.description IS NULL
UNION ALL
SELECT 'type without comment: ' || t.oid::regtype
FROM pg_type t LEFT JOIN pg_description d ON d.objoid = t.oid AND d.classoid = 'pg_type'::regclass
WHERE t.typnamespace = 'gazepriv'::regnamespace AND t.typtype IN ('b', 'c', 'e', 'd') AND t.typrelid = 0
  AND t.typcategory <> 'A' -- the array types PostgreSQL creates for every type
  AND d.description IS NULL
UNION ALL
SELECT 'relation without comment: ' || c.oid::regclass
FROM pg_class c LEFT JOIN pg_description d ON d.objoid = c.oid AND d.classoid = 'pg_class'::regclass AND d.objsubid = 0
WHERE c.relnamespace = 'gazepriv'::regnamespace AND c.relkind IN ('r', 'v', 'm', 'p') AND d.description IS NULL
ORDER BY 1;
-- Every comment states the privacy contract.
SELECT p.oid::regprocedure AS comment_without_privacy_contract
FROM pg_proc p JOIN pg_description d ON d.objoid = p.oid AND d.classoid = 'pg_proc'::regclass
WHERE p.pronamespace = 'gazepriv'::regnamespace AND d.description NOT ILIKE '%privacy%'
ORDER BY 1;
-- No aggregate is named like a built-in one (Citus matches a non-combinable aggregate to its built-ins by name).
SELECT p.proname AS builtin_named_aggregate FROM pg_proc p
WHERE p.pronamespace = 'gazepriv'::regnamespace AND p.prokind = 'a'
  AND p.proname IN (SELECT proname FROM pg_proc WHERE pronamespace = 'pg_catalog'::regnamespace AND prokind = 'a')
ORDER BY 1;
-- Every aggregate combines (parallel query, Citus), is parallel safe, and ships a real state type with text
-- input/output rather than internal (Citus ships partial states between nodes through their text output).
SELECT a.aggfnoid::regprocedure AS aggregate_not_citus_ready
FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
WHERE p.pronamespace = 'gazepriv'::regnamespace
  AND (a.aggcombinefn = 0 OR p.proparallel <> 's' OR a.aggtranstype = 'internal'::regtype)
ORDER BY 1;
-- Nothing that can draw noise is IMMUTABLE or STABLE: functions documented as drawing noise are VOLATILE.
SELECT p.oid::regprocedure AS noise_function_not_volatile
FROM pg_proc p JOIN pg_description d ON d.objoid = p.oid AND d.classoid = 'pg_proc'::regclass
WHERE p.pronamespace = 'gazepriv'::regnamespace AND p.provolatile <> 'v' AND p.prokind = 'f'
  AND d.description ~* '(draws?|fresh) noise|noise from the csprng|\+ (laplace|gaussian) noise'
ORDER BY 1;
-- Labels of the foundation's functions, frozen.
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.proisstrict, p.prosecdef
FROM pg_proc p
WHERE p.pronamespace = 'gazepriv'::regnamespace
  AND p.proname IN ('version', 'gaussian_sigma', 'gaussian_epsilon', 'gaussian_delta', 'laplace_scale',
                    'zcdp_rho', 'zcdp_epsilon', 'zcdp_delta', 'laplace_noise', 'gaussian_noise',
                    'discrete_laplace_noise', 'discrete_gaussian_noise', 'laplace_mechanism', 'gaussian_mechanism')
ORDER BY (p.oid::regprocedure)::text;
