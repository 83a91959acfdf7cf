-- Kaleido (Li et al., USENIX Security 2021): (epsilon, w, r)-private gaze streams, in batch and live.

-- Cost preview (pure calculation) --------------------------------------------------------------------

CREATE FUNCTION @extschema@.kaleido_cost(epsilon float8, w integer, r float8, l_thresh float8 DEFAULT NULL,
                                         t_skip float8 DEFAULT 50, h float8 DEFAULT 2,
                                         max_tests integer DEFAULT NULL)
    RETURNS @extschema@.release_cost
    AS 'MODULE_PATHNAME', 'gazepriv_kaleido_cost' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.kaleido_cost(float8, integer, float8, float8, float8, float8, integer) IS
    'What a Kaleido release with these parameters costs, computed from the parameters alone (the ledger '
    'record): epsilon per window of w consecutive samples of one stream, delta 0, and the derived test and '
    'publication budgets. Validates the parameters like kaleido(). Privacy: releases nothing.';

-- Batch ----------------------------------------------------------------------------------------------

CREATE FUNCTION @extschema@.kaleido(t_ms float8[], x float8[], y float8[], epsilon float8, w integer, r float8,
                                    l_thresh float8 DEFAULT NULL, t_skip float8 DEFAULT NULL, h float8 DEFAULT 2,
                                    max_tests integer DEFAULT NULL, clamp_to box DEFAULT NULL,
                                    dataset text DEFAULT NULL)
    RETURNS TABLE (t_ms float8, x float8, y float8, published boolean, action text, epsilon_spent float8,
                   noise_radius float8)
    AS 'MODULE_PATHNAME', 'gazepriv_kaleido' LANGUAGE C VOLATILE PARALLEL RESTRICTED ROWS 10000;
COMMENT ON FUNCTION @extschema@.kaleido(float8[], float8[], float8[], float8, integer, float8, float8, float8,
                                        float8, integer, box, text) IS
    'Releases one stream of gaze samples (t_ms[], x[], y[] in time order, e.g. array_agg(... ORDER BY t_ms) '
    'per participant) with Kaleido: one row per sample with the released point, whether it is a new release '
    '(published) or a repeat of the last one (action: published, reused, skipped, capped, exhausted, '
    'missing), the budget spent at that sample, and noise_radius: the released point lies within noise_radius '
    'of the true position at the sample that published it (this one, or the earlier one a repeat shows) with '
    'probability at least 95 %, about 4.74 r / epsilon_pub (NULL before the first release; with clamp_to, for '
    'true positions inside the box). w counts samples; t_skip is in the unit of t_ms (ms); '
    'r and l_thresh are in the unit of x and y. Defaults from the stream''s own rate, dt the median interval of t_ms '
    '(public under the relation below): t_skip (NULL) is the supplement''s 50 ms as the nearest whole number k >= 1 '
    'of intervals, less half an interval, (k - 1/2) dt (a test every k-th sample, robust to jitter below half an '
    'interval; 50 for a stream of fewer than two samples); at most max_tests tests in any w consecutive samples '
    '(default ceil(w / ceil(t_skip / dt)), in [1, w]: the supplement''s n_test with t_skip in samples). kaleido_cost '
    'and live feeds, which see no stream, use t_skip 50 and dt = 1000/60 ms. l_thresh defaults to r. A NULL or non-finite x or y is a missing sample; '
    'decreasing t_ms is an error. clamp_to clamps the released points into a box (post-processing). '
    'Privacy: w-event geo-indistinguishability: streams that differ only inside w consecutive samples, each '
    'position by at most r (same timestamps and missing samples, which are public), get output '
    'probabilities within a factor e^epsilon; the whole stream of T samples only ceil(T/w) epsilon. '
    'Draws fresh noise. With dataset, charges kaleido_cost (epsilon per window, guarantee kind w-event) to the '
    'caller''s budget on that dataset before any noise is drawn; without, charges nothing.';

-- Live -----------------------------------------------------------------------------------------------

-- The state of each live stream: everything in it (the last release, the recent test and release
-- indices and budgets, the last timestamp) is derived from the published output and the timestamps.
-- Only the trigger writes it (as this table's owner), so no role can rewind a stream's budget.
CREATE TABLE @extschema@.kaleido_streams (
    source regclass NOT NULL,
    stream text NOT NULL,
    parameters text NOT NULL,
    samples bigint NOT NULL,
    releases bigint NOT NULL,
    last_t_ms float8,
    state bytea NOT NULL,
    PRIMARY KEY (source, stream)
);
REVOKE ALL ON @extschema@.kaleido_streams FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('@extschema@.kaleido_streams', '');
COMMENT ON TABLE @extschema@.kaleido_streams IS
    'Per-stream state of live Kaleido feeds (kaleido_publish triggers), one row per source table and stream '
    'key, locked per stream while a statement inserts into it. parameters are the ones the stream started '
    'with; a trigger with other parameters fails until kaleido_reset. Privacy: holds only public '
    'information (released points, timestamps, budgets spent); readable and writable by the extension '
    'owner only, so that nobody can reset a stream''s window accounting except through kaleido_reset.';

CREATE FUNCTION @extschema@.kaleido_publish() RETURNS trigger
    AS 'MODULE_PATHNAME', 'gazepriv_kaleido_publish' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.kaleido_publish() IS
    'Trigger function of a live Kaleido feed: AFTER INSERT ... REFERENCING NEW TABLE AS ... FOR EACH '
    'STATEMENT EXECUTE FUNCTION kaleido_publish(''published=TABLE'', ''stream=COLUMN'', ''epsilon=E'', '
    '''w=W'', ''r=R'' [, ''l_thresh='', ''t_skip='', ''h='', ''max_tests='', ''t='', ''x='', ''y='', '
    '''clamp_to=XMIN,YMIN,XMAX,YMAX'']) (kaleido_attach writes it). Each inserted sample is released into '
    'the published table in the inserting transaction, in insertion order per stream, continuing the '
    'stream''s state across statements, transactions and sessions: a rolled-back insert rolls back its '
    'releases and its state together. Streams are locked in one order; a later statement of a transaction that '
    'already holds streams fails with 40001 (retry) rather than wait for another''s. Privacy: as '
    'kaleido(), per stream; charges no budget.';

-- Dropping a feed's source drops its stream states (src/pg/kaleido/kaleido_live.cpp).
CREATE FUNCTION @extschema@._kaleido_forget_dropped() RETURNS event_trigger
    AS 'MODULE_PATHNAME', 'gazepriv__kaleido_forget_dropped' LANGUAGE C;
COMMENT ON FUNCTION @extschema@._kaleido_forget_dropped() IS
    'Internal: event trigger that deletes the kaleido_streams rows of dropped source tables. Privacy: releases '
    'nothing; the state of a dropped feed is not kept.';
CREATE EVENT TRIGGER gazepriv_kaleido_forget_dropped ON sql_drop
    WHEN TAG IN ('DROP TABLE', 'DROP SCHEMA', 'DROP OWNED')
    EXECUTE FUNCTION @extschema@._kaleido_forget_dropped();

CREATE FUNCTION @extschema@.kaleido_reset(source regclass, stream text DEFAULT NULL) RETURNS bigint
    AS 'MODULE_PATHNAME', 'gazepriv_kaleido_reset' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.kaleido_reset(regclass, text) IS
    'Forgets the live state of one stream (or, with stream NULL, all streams) of a source table; only its '
    'owner may. Returns the number of streams forgotten. Privacy: the next sample starts a fresh '
    'accounting, so a window that spans the reset can spend up to 2 epsilon; use it to change parameters '
    'or to restart a stream, not routinely. It locks the streams as a feed statement does (40001 when a later '
    'statement of its transaction meets a stream another holds), so it never deadlocks with inserts.';

CREATE FUNCTION @extschema@.kaleido_attach(source regclass, published text, stream_column name, epsilon float8,
                                           w integer, r float8, l_thresh float8 DEFAULT NULL,
                                           t_skip float8 DEFAULT 50, h float8 DEFAULT 2,
                                           max_tests integer DEFAULT NULL, clamp_to box DEFAULT NULL,
                                           t_column name DEFAULT 't_ms', x_column name DEFAULT 'x',
                                           y_column name DEFAULT 'y', dataset text DEFAULT NULL,
                                           max_gap float8 DEFAULT NULL) RETURNS text
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    stream_type text;
    trigger_name text := 'kaleido_publish';
    names text[] := pg_catalog.parse_ident(published);
    qualified text;
    published_oid oid;
    cost record;
    citus_table boolean;
BEGIN
    -- Validates the parameters (ERROR 22023) before anything is created.
    SELECT * INTO cost FROM @extschema@.kaleido_cost(epsilon, w, r, l_thresh, t_skip, h, max_tests);
    IF max_gap IS NOT NULL AND NOT (max_gap > 0 AND max_gap < 'Infinity'::float8) THEN
        RAISE EXCEPTION 'max_gap must be a finite number greater than 0, got %', max_gap USING ERRCODE = '22023';
    END IF;
    -- Citus runs no trigger on a distributed table (and one on a shard could not find the stream's state, kept
    -- on the coordinator): a live feed ingests through a table of the coordinator, whose published table may
    -- be distributed by the stream column.
    IF pg_catalog.to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
        EXECUTE 'SELECT EXISTS (SELECT FROM pg_catalog.pg_dist_partition WHERE logicalrelid = $1)'
            INTO citus_table USING source;
        IF citus_table THEN
            RAISE EXCEPTION 'the source of a live feed cannot be a Citus table: % is one', source
                USING ERRCODE = '0A000',
                      HINT = 'Insert the samples into a plain table on the coordinator and attach the feed to it; '
                             'its published table may be distributed by the stream column.';
        END IF;
    END IF;
    -- An unqualified published name lives in the source table's schema (this function's search_path is
    -- pinned, so the caller's cannot be used).
    IF pg_catalog.cardinality(names) = 1 THEN
        SELECT pg_catalog.format('%I.%I', n.nspname, names[1]) INTO qualified
          FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = source;
    ELSIF pg_catalog.cardinality(names) = 2 THEN
        qualified := pg_catalog.format('%I.%I', names[1], names[2]);
    ELSE
        RAISE EXCEPTION 'published must be a table name, optionally schema-qualified, got %', published
            USING ERRCODE = '22023';
    END IF;
    published_oid := pg_catalog.to_regclass(qualified);
    SELECT pg_catalog.format_type(a.atttypid, a.atttypmod) INTO stream_type FROM pg_catalog.pg_attribute a
     WHERE a.attrelid = source AND a.attname = stream_column AND a.attnum > 0 AND NOT a.attisdropped;
    IF stream_type IS NULL THEN
        RAISE EXCEPTION 'stream_column "%" is not a column of %', stream_column, source USING ERRCODE = '22023';
    END IF;
    IF (SELECT pg_catalog.count(*) FROM pg_catalog.pg_attribute a WHERE a.attrelid = source AND NOT a.attisdropped
          AND a.attname IN (t_column, x_column, y_column)) <> 3 THEN
        RAISE EXCEPTION '% must have the columns %, % and %', source, t_column, x_column, y_column
            USING ERRCODE = '22023';
    END IF;
    IF published_oid IS NOT NULL AND (SELECT pg_catalog.count(*) FROM pg_catalog.pg_attribute a
                                       WHERE a.attrelid = published_oid AND NOT a.attisdropped
                                         AND a.attname IN (stream_column, t_column, x_column, y_column, 'published',
                                                           'action', 'epsilon_spent')) <> 7 THEN
        RAISE EXCEPTION '% exists but lacks some of the columns %, %, %, %, published, action, epsilon_spent',
            qualified, stream_column, t_column, x_column, y_column USING ERRCODE = '22023';
    END IF;
    IF published_oid IS NULL THEN
        EXECUTE pg_catalog.format('CREATE TABLE %s (%I %s NOT NULL, %I float8 NOT NULL, %I float8, %I float8, '
                                  'published boolean NOT NULL, action text NOT NULL, epsilon_spent float8 NOT NULL, '
                                  'noise_radius float8)',
                                  qualified, stream_column, stream_type, t_column, x_column, y_column);
        published_oid := pg_catalog.to_regclass(qualified);
        EXECUTE pg_catalog.format('COMMENT ON TABLE %s IS %L', qualified,
                                  'Kaleido releases of ' || source::text || ' (written by its kaleido_publish '
                                  'trigger). Privacy: w-event geo-indistinguishable with epsilon = ' || epsilon
                                  || ' per ' || w || ' samples, r = ' || r || '.');
    END IF;
    -- The live feed's standing guarantee is recorded once, before the trigger can release anything.
    IF dataset IS NOT NULL THEN
        PERFORM @extschema@.charge_budget(dataset, 'kaleido_live', cost.epsilon, guarantee => 'w-event',
                                          parameters => cost.parameters || pg_catalog.jsonb_build_object('source', source::text));
    END IF;
    EXECUTE pg_catalog.format(
        'CREATE TRIGGER %I AFTER INSERT ON %s REFERENCING NEW TABLE AS kaleido_new_samples FOR EACH STATEMENT '
        'EXECUTE FUNCTION @extschema@.kaleido_publish(%L, %L, %L, %L, %L, %L, %L, %L, %L, %L, %L %s %s %s)',
        trigger_name, source, 'published=' || qualified, 'stream=' || stream_column,
        't=' || t_column, 'x=' || x_column, 'y=' || y_column, 'epsilon=' || epsilon, 'w=' || w, 'r=' || r,
        't_skip=' || t_skip, 'h=' || h,
        'l_thresh=' || coalesce(l_thresh, r),
        CASE WHEN max_tests IS NULL THEN '' ELSE pg_catalog.format(', %L', 'max_tests=' || max_tests) END,
        CASE WHEN clamp_to IS NULL THEN '' ELSE pg_catalog.format(', %L', 'clamp_to=' ||
            (clamp_to[1])[0] || ',' || (clamp_to[1])[1] || ',' || (clamp_to[0])[0] || ',' || (clamp_to[0])[1]) END,
        CASE WHEN max_gap IS NULL THEN '' ELSE pg_catalog.format(', %L', 'max_gap=' || max_gap) END);
    RETURN trigger_name;
END $$;
COMMENT ON FUNCTION @extschema@.kaleido_attach(regclass, text, name, float8, integer, float8, float8, float8,
                                               float8, integer, box, name, name, name, text, float8) IS
    'Turns an insert-only table of gaze samples into a live Kaleido feed: validates the parameters, creates '
    'the published table if it does not exist (stream, t_ms, x, y, published, action, epsilon_spent, noise_radius '
    'as in kaleido(); an existing table needs all but noise_radius, which is written when present; an '
    'unqualified name is created in the schema of source) and '
    'the statement-level kaleido_publish trigger on source. The trigger writes the published table as the '
    'owner of source: grant devices INSERT on source only, and other roles SELECT on the published table only. '
    'max_gap (the unit of t_ms) refuses a sample that jumps further after its stream''s last one (22023; the '
    'statement fails and the stream continues from its committed state); |t_ms| above 2^53 is always refused. '
    'Needs the privileges to create a trigger on source. On Citus the source is a plain table of the '
    'coordinator (ERROR 0A000 for a Citus table); the published table may be distributed by the stream column. '
    'Privacy: as kaleido(), per stream. With dataset '
    '(curators), the feed''s standing w-event guarantee (epsilon per window) is charged once, before the '
    'trigger exists; without, nothing is charged.';

-- Analyst release (src/pg/budget/analyst_release.cpp) ---------------------------------------------------

CREATE FUNCTION @extschema@.release_kaleido(dataset text, participant text, epsilon float8, w integer DEFAULT NULL,
                                            r float8 DEFAULT NULL, l_thresh float8 DEFAULT NULL,
                                            t_skip float8 DEFAULT NULL, h float8 DEFAULT NULL,
                                            max_tests integer DEFAULT NULL, clamp_to box DEFAULT NULL,
                                            stimulus bigint DEFAULT NULL)
    RETURNS TABLE (t_ms float8, x float8, y float8, published boolean, action text, epsilon_spent float8,
                   noise_radius float8)
    AS 'MODULE_PATHNAME', 'gazepriv_analyst_release' LANGUAGE C VOLATILE PARALLEL RESTRICTED ROWS 10000;
COMMENT ON FUNCTION @extschema@.release_kaleido(text, text, float8, integer, float8, float8, float8, float8, integer,
                                                box, bigint) IS
    'Analyst release: one participant''s gaze stream from a registered dataset (its time, x and y columns, '
    'optionally one stimulus), privatised by kaleido() with epsilon per window and the w, r, l_thresh, t_skip, h '
    'and max_tests of the dataset''s kaleido release policy (passing them is allowed only with the policy''s '
    'values; 42501 otherwise); clamp_to is post-processing. An unknown participant is an empty stream, charged '
    'alike (timestamps, and so a stream''s length, are public under Kaleido''s guarantee). Each row carries '
    'kaleido()''s noise_radius (95 % accuracy of the point it shows). Privacy: w-event '
    'geo-indistinguishability with epsilon per window of w samples and radius r; charges epsilon (guarantee kind '
    'w-event) to the w-event budget of the role whose privileges run the call, before the data is read as its owner.';
REVOKE ALL ON FUNCTION @extschema@.release_kaleido(text, text, float8, integer, float8, float8, float8, float8,
                                                   integer, box, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.release_kaleido(text, text, float8, integer, float8, float8, float8, float8,
                                                      integer, box, bigint) TO gazepriv_analyst, gazepriv_curator;

-- {"w": samples, "r": radius, "l_thresh", "t_skip" (50), "h" (2), "max_tests"}: everything that defines the
-- w-event guarantee and its tests.
CREATE FUNCTION @extschema@._policy_kaleido(d @extschema@.datasets, policy jsonb) RETURNS jsonb
    LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    normalized jsonb;
BEGIN
    PERFORM @extschema@._policy_keys('kaleido', policy, ARRAY['w', 'r', 'l_thresh', 't_skip', 'h', 'max_tests'],
                                     ARRAY['w', 'r']);
    normalized := jsonb_strip_nulls(jsonb_build_object(
        'w', @extschema@._policy_count('kaleido', policy, 'w'),
        'r', @extschema@._policy_number('kaleido', policy, 'r'),
        'l_thresh', @extschema@._policy_number('kaleido', policy, 'l_thresh'),
        't_skip', coalesce(@extschema@._policy_number('kaleido', policy, 't_skip'), 50),
        'h', coalesce(@extschema@._policy_number('kaleido', policy, 'h'), 2),
        'max_tests', @extschema@._policy_count('kaleido', policy, 'max_tests')));
    PERFORM @extschema@.kaleido_cost(1, (normalized ->> 'w')::int4, (normalized ->> 'r')::float8,  -- validates
                                     (normalized ->> 'l_thresh')::float8, (normalized ->> 't_skip')::float8,
                                     (normalized ->> 'h')::float8, (normalized ->> 'max_tests')::int4);
    IF d.time_column IS NULL OR d.x_column IS NULL OR d.y_column IS NULL THEN
        RAISE EXCEPTION 'dataset "%" needs time, x and y columns for a stream release', d.name USING ERRCODE = '22023';
    END IF;
    RETURN normalized;
END $$;
COMMENT ON FUNCTION @extschema@._policy_kaleido(@extschema@.datasets, jsonb) IS
    'Internal: validates a kaleido release policy. Privacy: parameters only.';

CREATE FUNCTION @extschema@._plan_release_kaleido(caller regrole, dataset text, participant text, epsilon float8,
                                                  w integer, r float8, l_thresh float8, t_skip float8, h float8,
                                                  max_tests integer, clamp_to box, stimulus bigint)
    RETURNS @extschema@._release_plan LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    d @extschema@.datasets := @extschema@._release_dataset(caller, dataset, 'w-event');
    p jsonb := @extschema@._release_policy(d, 'kaleido');
    c record;
BEGIN
    PERFORM @extschema@._fixed(d, 'kaleido', 'w', p -> 'w', to_jsonb(w)),
            @extschema@._fixed(d, 'kaleido', 'r', p -> 'r', to_jsonb(r)),
            @extschema@._fixed(d, 'kaleido', 'l_thresh', p -> 'l_thresh', to_jsonb(l_thresh)),
            @extschema@._fixed(d, 'kaleido', 't_skip', p -> 't_skip', to_jsonb(t_skip)),
            @extschema@._fixed(d, 'kaleido', 'h', p -> 'h', to_jsonb(h)),
            @extschema@._fixed(d, 'kaleido', 'max_tests', p -> 'max_tests', to_jsonb(max_tests));
    IF participant IS NULL THEN
        RAISE EXCEPTION 'participant must not be NULL' USING ERRCODE = '22023';
    END IF;
    IF stimulus IS NOT NULL AND d.stimulus_column IS NULL THEN
        RAISE EXCEPTION 'dataset "%" has no stimulus column', dataset USING ERRCODE = '22023';
    END IF;
    SELECT * INTO c FROM @extschema@.kaleido_cost(epsilon, (p ->> 'w')::int4, (p ->> 'r')::float8,
                                                   (p ->> 'l_thresh')::float8, (p ->> 't_skip')::float8,
                                                   (p ->> 'h')::float8, (p ->> 'max_tests')::int4);
    RETURN ROW(d.name, d.owner, c.mechanism, c.guarantee, c.epsilon, c.delta, c.rho, 0, c.non_private_choices,
               c.parameters || jsonb_build_object('participant', participant, 'stimulus', stimulus),
               -- The samples are read first and ordered afterwards: Citus cannot order an aggregate's input
               -- across the shards of a table distributed by another column than the participant.
               format('WITH raw AS MATERIALIZED (SELECT %1$I::float8 AS t, %2$I::float8 AS x, %3$I::float8 AS y '
                      'FROM %4$s WHERE %5$I::text = $2 AND %6$s), '
                      's(ts, xs, ys) AS (SELECT array_agg(t ORDER BY t), array_agg(x ORDER BY t), array_agg(y ORDER BY t) '
                      'FROM raw) SELECT k.* FROM s, LATERAL @extschema@.kaleido(coalesce(s.ts, ''{}''), coalesce(s.xs, ''{}''), coalesce(s.ys, ''{}''), '
                      '$3, %7$L::int4, %8$L::float8, %9$L::float8, %10$L::float8, %11$L::float8, %12$L::int4, $10, NULL) k',
                      d.time_column, d.x_column, d.y_column, d.relation, d.participant_column,
                      CASE WHEN stimulus IS NULL THEN 'true' ELSE format('%I = $11', d.stimulus_column) END,
                      -- max_tests: the policy's, or the 60 Hz rule kaleido_cost filled in from the policy's
                      -- parameters, as charged (an analyst's release never takes it from the data).
                      p ->> 'w', p ->> 'r', p ->> 'l_thresh', p ->> 't_skip', p ->> 'h', c.parameters ->> 'max_tests'),
               NULL, NULL, NULL)::@extschema@._release_plan;
END $$;
COMMENT ON FUNCTION @extschema@._plan_release_kaleido(regrole, text, text, float8, integer, float8, float8, float8,
                                                     float8, integer, box, bigint) IS
    'Internal: the plan of release_kaleido. Privacy: its cost depends on epsilon and the policy only.';
