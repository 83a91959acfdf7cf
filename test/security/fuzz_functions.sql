-- The calls of the bounded fuzz test (fuzz_functions.sh): for every function of the extension that ROLE may
-- execute, one call per argument and hostile value of its type, the other arguments at plain values. Prints
-- one statement per line; run by psql as ROLE, each under statement_timeout.
WITH f AS (
    SELECT p.oid, p.proname, p.proretset, p.prokind, p.pronargs, p.pronargdefaults,
           p.proargtypes::oid[] AS types, p.proargnames AS names,
           coalesce(p.proargmodes, pg_catalog.array_fill('i'::"char", ARRAY[p.pronargs])) AS modes
    FROM pg_catalog.pg_proc p
    WHERE p.pronamespace = 'gazepriv'::regnamespace AND p.prokind IN ('f', 'a')
      AND p.prorettype NOT IN ('trigger'::regtype, 'event_trigger'::regtype, 'internal'::regtype)
      AND NOT 'internal'::regtype = ANY (p.proargtypes::oid[]) AND NOT 'cstring'::regtype = ANY (p.proargtypes::oid[])
      AND pg_catalog.has_function_privilege(:'role', p.oid, 'EXECUTE')
      AND p.proname NOT IN ('drop_dataset', 'forget_releases', 'kaleido_reset', 'revoke_budget', 'reset_release')
), args AS (  -- the IN arguments, numbered 1..pronargs, with their names
    SELECT f.oid, i AS pos, f.types[i - 1] AS type,
           (SELECT n FROM (SELECT f.names[k] AS n, pg_catalog.sum(CASE WHEN f.modes[k] IN ('i', 'b', 'v') THEN 1 ELSE 0 END)
                                  OVER (ORDER BY k) AS ord
                           FROM pg_catalog.generate_subscripts(coalesce(f.names, ARRAY[]::text[]), 1) k
                           WHERE f.modes[k] IN ('i', 'b', 'v')) s WHERE s.ord = i) AS name
    FROM f, pg_catalog.generate_series(1, f.pronargs) i
), plain AS (  -- an ordinary value per argument, from its type and name
    SELECT a.*, CASE
        WHEN a.type = 'text'::regtype AND a.name ~ 'dataset' THEN '''uniss'''
        WHEN a.type = 'text'::regtype AND a.name ~ 'participant|stream' THEN '''00'''
        WHEN a.type = 'text'::regtype AND a.name ~ 'source' THEN '''public.uniss_samples'''
        WHEN a.type = 'text'::regtype AND a.name ~ 'mechanism' THEN '''heatmap'''
        WHEN a.type = 'text'::regtype AND a.name ~ 'method' THEN '''fpa'''
        WHEN a.type = 'text'::regtype THEN '''x'''
        WHEN a.type IN ('float8'::regtype, 'float4'::regtype, 'numeric'::regtype) THEN '1'
        WHEN a.type IN ('int4'::regtype, 'int8'::regtype, 'int2'::regtype) THEN '2'
        WHEN a.type = 'bool'::regtype THEN 'false'
        WHEN a.type = 'regclass'::regtype THEN '''public.uniss_samples''::regclass'
        WHEN a.type = 'regrole'::regtype THEN '''analyst_a''::regrole'
        WHEN a.type = 'name'::regtype THEN '''participant''::name'
        WHEN a.type = 'jsonb'::regtype THEN '''{}''::jsonb'
        WHEN a.type = 'box'::regtype THEN '''((0,0),(1,1))''::box'
        WHEN a.type = 'float8[]'::regtype THEN '''{0.5,1,2}''::float8[]'
        WHEN a.type = 'text[]'::regtype THEN '''{00}''::text[]'
        WHEN a.type IN ('int4[]'::regtype, 'int8[]'::regtype) THEN pg_catalog.format('''{1,2}''::%s', a.type::regtype)
        WHEN a.type = 'gazepriv.heatmap_spec'::regtype THEN 'gazepriv.heatmap_spec(64, 64, 1, observers => 20)'
        WHEN a.type = 'gazepriv.heatmap'::regtype THEN
            '(SELECT gazepriv.gaze_map(''00''::text, 1::float8, 1::float8, 64, 64, 1))'
        ELSE pg_catalog.format('NULL::%s', a.type::regtype) END AS value
    FROM args a
), hostile AS (  -- the hostile values of each type
    SELECT a.oid, a.pos, h AS value FROM args a, LATERAL pg_catalog.unnest(CASE
        WHEN a.type IN ('float8'::regtype, 'float4'::regtype) THEN
            ARRAY['''NaN''::float8', '''Infinity''::float8', '''-Infinity''::float8', '5e-324::float8', '1e308::float8',
                  '-1::float8', '0::float8', 'NULL::float8']
        WHEN a.type = 'int4'::regtype THEN ARRAY['0', '-1', '2147483647', '(-2147483647 - 1)', 'NULL::int4']
        WHEN a.type = 'int8'::regtype THEN ARRAY['0::int8', '-1::int8', '9223372036854775807::int8', 'NULL::int8']
        WHEN a.type = 'text'::regtype THEN ARRAY['''''', 'NULL::text', 'pg_catalog.repeat(''x'', 100000)']
        WHEN a.type = 'float8[]'::regtype THEN
            ARRAY['''{}''::float8[]', '''{NaN,Infinity,-Infinity}''::float8[]', '''{1e308,5e-324,-1e308}''::float8[]',
                  'NULL::float8[]', '''{{1,2},{3,4}}''::float8[]', '''{NULL}''::float8[]']
        WHEN a.type IN ('int4[]'::regtype, 'int8[]'::regtype) THEN
            ARRAY[pg_catalog.format('''{}''::%s', a.type::regtype), pg_catalog.format('''{-1,2147483647}''::%s', a.type::regtype),
                  pg_catalog.format('NULL::%s', a.type::regtype)]
        WHEN a.type = 'text[]'::regtype THEN ARRAY['''{}''::text[]', '''{NULL}''::text[]', 'NULL::text[]']
        WHEN a.type = 'jsonb'::regtype THEN
            ARRAY['''{}''::jsonb', '''null''::jsonb', '''[]''::jsonb', '''{"cap": 1e308, "k": -1, "w": 2147483648}''::jsonb',
                  'NULL::jsonb']
        WHEN a.type = 'box'::regtype THEN ARRAY['''((1e308,1e308),(-1e308,-1e308))''::box', 'NULL::box']
        WHEN a.type = 'bytea'::regtype THEN ARRAY['''\x''::bytea', '''\xffffffffffffffff''::bytea', 'NULL::bytea']
        WHEN a.type = 'gazepriv.heatmap_spec'::regtype THEN
            ARRAY['ROW(2147483647, 2147483647, 5e-324, 5e-324, 2147483647, ''gaussian'', ''analytic'', 1e308, 1, -1, NULL)::gazepriv.heatmap_spec',
                  'ROW(64, 64, ''NaN'', ''NaN'', 0, ''laplace'', NULL, ''Infinity'', 0, 0, NULL)::gazepriv.heatmap_spec',
                  'NULL::gazepriv.heatmap_spec']
        WHEN a.type = 'gazepriv.heatmap'::regtype THEN  -- forged maps: non-finite values, a grid its values do not fill
            ARRAY['ROW(64, 64, 1, 64, 64, pg_catalog.array_fill(''NaN''::float8, ARRAY[4096]), 1, 1, ''gaussian'', NULL, 1, 1e-5, 1, 1, NULL, 0)::gazepriv.heatmap',
                  'ROW(2, 1, 1, 2, 1, ''{Infinity,-Infinity}'', 9223372036854775807, 2147483647, ''laplace'', NULL, 5e-324, 0, NULL, NULL, 1e308, 1e308)::gazepriv.heatmap',
                  'ROW(2147483647, 2147483647, 1, 2147483647, 2147483647, ''{1}'', 1, 1, ''none'', NULL, NULL, NULL, NULL, NULL, NULL, ''NaN'')::gazepriv.heatmap',
                  'NULL::gazepriv.heatmap']
        ELSE ARRAY[pg_catalog.format('NULL::%s', a.type::regtype)] END) h
), calls AS (  -- required arguments by position; an optional hostile one by name (aggregates: by position)
    SELECT f.oid, h.pos, h.value, n.named,
           (SELECT pg_catalog.string_agg(CASE WHEN p.pos = h.pos THEN h.value ELSE p.value END, ', ' ORDER BY p.pos)
            FROM plain p WHERE p.oid = f.oid AND (p.pos <= f.pronargs - f.pronargdefaults
                                                  OR (NOT n.named AND p.pos <= h.pos))) AS positional,
           (SELECT pg_catalog.format('%I => %s', a.name, h.value) FROM args a
            WHERE a.oid = f.oid AND a.pos = h.pos AND a.name IS NOT NULL) AS by_name
    FROM f JOIN hostile h ON h.oid = f.oid
    CROSS JOIN LATERAL (SELECT h.pos > f.pronargs - f.pronargdefaults AND f.prokind = 'f'
                               AND (SELECT a.name FROM args a WHERE a.oid = f.oid AND a.pos = h.pos) IS NOT NULL AS named) n
    UNION ALL  -- and each function once with plain values only
    SELECT f.oid, 0, NULL, false, (SELECT pg_catalog.string_agg(p.value, ', ' ORDER BY p.pos) FROM plain p
                                    WHERE p.oid = f.oid AND p.pos <= f.pronargs - f.pronargdefaults), NULL
    FROM f
), texts AS (
    SELECT c.*, CASE WHEN c.named THEN pg_catalog.concat_ws(', ', c.positional, c.by_name)
                     ELSE coalesce(c.positional, '') END AS arguments
    FROM calls c
)
SELECT CASE WHEN f.proretset THEN pg_catalog.format('SELECT count(*) FROM gazepriv.%I(%s);', f.proname, coalesce(c.arguments, ''))
            ELSE pg_catalog.format('SELECT gazepriv.%I(%s) IS NULL;', f.proname, coalesce(c.arguments, '')) END
FROM texts c JOIN f ON f.oid = c.oid
ORDER BY f.proname, c.oid, c.pos, c.value;
