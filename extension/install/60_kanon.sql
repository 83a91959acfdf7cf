-- k-anonymity (David-John, Butler and Jain, ETRA 2022 and its TVCG 2023 supplement): k-same-select sequence
-- releases of feature windows, k-anonymous generalisation of demographics, and the k-anonymity check.
--
-- None of this is differential privacy. A release is k-anonymous: every released sequence (or demographic
-- class) is shared by at least k participants, so re-identification from the release alone is bounded by
-- 1/k. Releases spend no epsilon; with dataset => (a registered dataset) they are logged in the ledger, as
-- guarantee 'k-anonymity' with their k, before anything is read (the caller needs a budget row on the
-- dataset; epsilon 0 suffices). Curator functions read a source directly: a table or view name, or a query
-- (text starting with SELECT, WITH, VALUES, TABLE or "("), with the caller's privileges.

-- Cost previews (the ledger record, from the parameters alone) -----------------------------------------------

CREATE FUNCTION @extschema@.k_same_select_cost(k integer, class_column name DEFAULT NULL,
                                               across_tasks boolean DEFAULT true, source text DEFAULT NULL)
    RETURNS @extschema@.release_cost
    AS 'MODULE_PATHNAME', 'gazepriv_k_same_select_cost' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.k_same_select_cost(integer, name, boolean, text) IS
    'The ledger record of a k_same_select release with these parameters: mechanism k_same_select, guarantee '
    'k-anonymity, epsilon 0, delta 0, no data-dependent choice (the grouping is random), parameters {k, '
    'across_tasks, grouping (''across tasks'', the default, or ''per task (paper)''), class_column, source}. '
    'ERROR 22023 for k < 2. Privacy: pure calculation, releases nothing.';

CREATE FUNCTION @extschema@.generalize_demographics_cost(k integer,
                                                         quasi_identifiers text[] DEFAULT ARRAY['gender', 'age'],
                                                         ranges text[] DEFAULT NULL, source text DEFAULT NULL)
    RETURNS @extschema@.release_cost
    AS 'MODULE_PATHNAME', 'gazepriv_generalize_demographics_cost' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.generalize_demographics_cost(integer, text[], text[], text) IS
    'The ledger record of a generalize_demographics release (generalize_demographics_ranges logs the same under '
    'its own name): guarantee k-anonymity, epsilon 0, delta 0, parameters {k, quasi_identifiers, ranges, '
    'source}; non_private_choices is true when the ranges are optimised on the data (ranges NULL) and false for '
    'given ranges. ERROR 22023 for k < 2. Privacy: pure calculation, releases nothing.';

-- k-same-select sequence ---------------------------------------------------------------------------------

CREATE FUNCTION @extschema@.k_same_select(source text, k integer, participant_column name DEFAULT 'participant',
                                          task_column name DEFAULT 'task', window_column name DEFAULT 'window',
                                          features_column name DEFAULT 'features', class_column name DEFAULT NULL,
                                          across_tasks boolean DEFAULT true, dataset text DEFAULT NULL,
                                          secret bytea DEFAULT NULL)
    RETURNS TABLE (participant text, task text, "window" integer, features float8[], group_id integer)
    AS 'MODULE_PATHNAME', 'gazepriv_k_same_select' LANGUAGE C VOLATILE PARALLEL RESTRICTED ROWS 1000;
COMMENT ON FUNCTION @extschema@.k_same_select(text, integer, name, name, name, name, name, boolean, text, bytea) IS
    'Curator: the k-same-select sequence release (David-John et al., ETRA 2022) of feature windows read from '
    'source (a table or view name, or a query) with columns participant, task, "window", features float8[] '
    '(other names via the *_column parameters). The participants are shuffled with the CSPRNG (reproducible '
    'only under the superuser test setting gazepriv.seed) and cut into floor(N/k) groups of sizes differing by '
    'at most one (between k and 2k-1). By default (across_tasks => true) one grouping holds for all tasks, so '
    'every participant must have rows in every task (ERROR 22023 naming the participant and task otherwise); '
    'across_tasks => false is the paper''s variant: every task draws its own grouping over its own '
    'participants. The grouping holds for the whole sequence of a task; each sequence (windows in order) is '
    'padded to the task''s longest by repeating its last vector, and each member receives its group''s mean '
    'vector at every position. Output: every participant of the task with the original id, windows numbered '
    'from the task''s first window number, the group''s vectors and the group_id (1-based per task). '
    'class_column: the original k-Same-Select of Gross et al. (2005): groups are drawn within each utility class '
    '(constant per participant and task; across tasks, per participant), never mixing classes. '
    'Rows whose features are NULL or hold NULL, NaN or infinite values are dropped (not counted). ERROR 22023: '
    'k < 2, a task, class or source with fewer than k participants, no usable rows, feature arrays of different '
    'lengths within a task, empty or multi-dimensional arrays, two rows for one (participant, task, window), '
    'NULL participant, task, window or class, a class changing within a sequence. '
    'Privacy: k-anonymity, not DP: every released sequence is shared by at least k participants, so the '
    'release alone links a sequence to a participant with probability at most 1/k; the participant ids, '
    'the tasks and each task''s longest length are released as they are. Across tasks (the default) a '
    'participant''s whole release (all tasks) is shared by at least k. With the paper''s per-task groupings a '
    'participant''s sequences in different tasks come from different groups and the kept ids link them: their '
    'combination can single a participant out (an attacker matching each task to its group intersects the '
    'groups). With dataset => (a dataset the caller owns) it is logged in that dataset''s ledger '
    '(k_same_select_cost; epsilon 0) before the source is read. With a secret (32 bytes or more) the grouping '
    'is drawn from it alone: the same rows give the same release, as a served-once release must.';

-- One participant's synthetic stream in the making: its group's event sequence and the last sampling period.
CREATE TYPE @extschema@._synth_stream AS (participant text, task text, group_id integer, last_period float8,
                                          events @extschema@.gaze_event[]);
COMMENT ON TYPE @extschema@._synth_stream IS
    'Internal: a stream of k_same_synth before its samples are drawn. Privacy: group parameters only.';

-- k-same-synth (David-John et al. 2023, supplement 2.1): k-same-select over the fixation and the saccade
-- parameters, then samples synthesised from the group's parameters on a public time grid. Composed from
-- k_same_select (grouping, padding, ledger) and synthesize_samples (SynthFixation, SynthSaccade).
CREATE FUNCTION @extschema@.k_same_synth(source regclass, k integer, sampling_rate_hz float8,
                                         participant_column name DEFAULT 'participant',
                                         task_column name DEFAULT 'task', across_tasks boolean DEFAULT true,
                                         dataset text DEFAULT NULL, secret bytea DEFAULT NULL)
    RETURNS TABLE (participant text, task text, t_ms float8, x float8, y float8, event_index integer, type text,
                   group_id integer)
    LANGUAGE plpgsql VOLATILE PARALLEL RESTRICTED ROWS 10000
    SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    period float8;
    bad record;
    found_bad bigint;
    total numeric;
    events text;
    streams @extschema@._synth_stream[];
BEGIN
    IF source IS NULL OR k IS NULL OR sampling_rate_hz IS NULL OR across_tasks IS NULL OR participant_column IS NULL
       OR task_column IS NULL THEN
        RAISE EXCEPTION 'source, k, sampling_rate_hz, participant_column, task_column and across_tasks must not be NULL'
            USING ERRCODE = '22004';
    END IF;
    IF NOT (sampling_rate_hz > 0 AND sampling_rate_hz < 'Infinity') THEN
        RAISE EXCEPTION 'sampling_rate_hz must be positive and finite, got %', sampling_rate_hz USING ERRCODE = '22023';
    END IF;
    period := 1000 / sampling_rate_hz;
    -- Unusable events are errors naming the value (saccades without a fitted profile are left out: there is
    -- nothing to average).
    EXECUTE format($q$SELECT %2$I::text AS participant, event_index, type, duration_ms, centroid_x, centroid_y,
                           sigma_x, sigma_y, profile_a, profile_b, profile_c FROM %1$s
                    WHERE type IS DISTINCT FROM 'fixation' AND type IS DISTINCT FROM 'saccade'
                       OR NOT duration_ms >= 0 OR duration_ms IS NULL OR duration_ms = 'Infinity'
                       OR type = 'fixation' AND NOT (abs(centroid_x) < 'Infinity' AND abs(centroid_y) < 'Infinity'
                                                     AND sigma_x >= 0 AND sigma_x < 'Infinity'
                                                     AND sigma_y >= 0 AND sigma_y < 'Infinity')
                       OR type = 'saccade' AND profile_a IS NOT NULL
                          AND NOT (abs(profile_a) < 'Infinity' AND abs(profile_b) < 'Infinity'
                                   AND profile_c > 0 AND profile_c < 'Infinity')
                    LIMIT 1$q$, source, participant_column) INTO bad;
    GET DIAGNOSTICS found_bad = ROW_COUNT;
    IF found_bad > 0 THEN
        RAISE EXCEPTION 'k_same_synth: unusable event % of participant %: type %, duration_ms %', bad.event_index,
                        bad.participant, bad.type, bad.duration_ms
            USING ERRCODE = '22023',
                  DETAIL = format('centroid (%s, %s), sigma (%s, %s), profile (%s, %s, %s)', bad.centroid_x,
                                  bad.centroid_y, bad.sigma_x, bad.sigma_y, bad.profile_a, bad.profile_b, bad.profile_c),
                  HINT = 'types are fixation or saccade; durations finite and >= 0; sigmas >= 0; profile_c > 0';
    END IF;
    -- One k_same_select over two pseudo-tasks per task: "<task> f" (fixations: centroid, sigma, duration) and
    -- "<task> s" (saccades: profile a, b, c, duration). Across tasks one grouping holds for both.
    events := format($q$SELECT %2$I::text AS participant, %3$I::text || ' f' AS task,
                               row_number() OVER (PARTITION BY %2$I, %3$I ORDER BY event_index)::int AS "window",
                               ARRAY[centroid_x, centroid_y, sigma_x, sigma_y, duration_ms]::float8[] AS features
                        FROM %1$s WHERE type = 'fixation'
                        UNION ALL
                        SELECT %2$I::text, %3$I::text || ' s',
                               row_number() OVER (PARTITION BY %2$I, %3$I ORDER BY event_index)::int,
                               ARRAY[profile_a, profile_b, profile_c, duration_ms]::float8[]
                        FROM %1$s WHERE type = 'saccade' AND profile_a IS NOT NULL$q$,
                     source, participant_column, task_column);
    -- One query, no temporary table (a release runs it in a security-restricted operation): the released
    -- event sequence of each participant and task, from the group's parameter sequences held as 2-D arrays
    -- (rows in window order): fixation w, then saccade w from fixation w's centroid to fixation w + 1's
    -- (saccades beyond the last fixation have no end point and are left out). Durations are rounded to whole
    -- sampling periods; events follow each other one period apart, from t = 0. (n_samples is capped: a stream
    -- too long to make is refused below, with the limit named.)
    SELECT coalesce(array_agg(ROW(q.participant, q.task, q.group_id, q.last_period, q.events)::@extschema@._synth_stream
                              ORDER BY q.participant, q.task), '{}')
    INTO streams
    FROM (SELECT p.participant, p.task, min(e.group_id) AS group_id, max(e.start_period + e.periods) AS last_period,
                 array_agg(ROW(e.pos, e.type, e.start_period * period, (e.start_period + e.periods) * period,
                               e.periods * period, least(e.periods + 1, 2147483647)::int, e.centroid_x, e.centroid_y, e.sigma_x,
                               e.sigma_y, e.from_x, e.from_y, e.to_x, e.to_y, NULL, NULL, NULL, e.a, e.b, e.c
                               )::@extschema@.gaze_event ORDER BY e.pos) AS events
          FROM (SELECT r.participant, left(r.task, -2) AS task,
                       array_agg(r.features ORDER BY r."window") FILTER (WHERE right(r.task, 1) = 'f') AS fix,
                       array_agg(r.group_id ORDER BY r."window") FILTER (WHERE right(r.task, 1) = 'f') AS fix_group,
                       array_agg(r.features ORDER BY r."window") FILTER (WHERE right(r.task, 1) = 's') AS sac
                FROM @extschema@.k_same_select(events, k, across_tasks => across_tasks, dataset => dataset,
                                               secret => secret) r
                GROUP BY 1, 2) p,
               LATERAL (SELECT o.*, sum(o.periods + 1) OVER (ORDER BY o.pos) - o.periods - 1 AS start_period
                        FROM (SELECT 2 * w - 1 AS pos, 'fixation' AS type, round(p.fix[w][5] / period) AS periods,
                                     p.fix[w][1] AS centroid_x, p.fix[w][2] AS centroid_y, p.fix[w][3] AS sigma_x,
                                     p.fix[w][4] AS sigma_y, 0::float8 AS from_x, 0::float8 AS from_y,
                                     0::float8 AS to_x, 0::float8 AS to_y, NULL::float8 AS a, NULL::float8 AS b,
                                     NULL::float8 AS c, p.fix_group[w] AS group_id
                              FROM generate_series(1, coalesce(array_length(p.fix, 1), 0)) w
                              UNION ALL
                              SELECT 2 * w, 'saccade', round(p.sac[w][4] / period), 0, 0, 0, 0,
                                     p.fix[w][1], p.fix[w][2], p.fix[w + 1][1], p.fix[w + 1][2],
                                     p.sac[w][1], p.sac[w][2], p.sac[w][3], p.fix_group[w]
                              FROM generate_series(1, least(coalesce(array_length(p.sac, 1), 0),
                                                            coalesce(array_length(p.fix, 1), 0) - 1)) w) o) e
          GROUP BY 1, 2) q;
    -- The stream's size, bounded before any sample is made (the same limit as synthesize_samples).
    SELECT coalesce(sum(q.last_period::numeric + 1), 0) INTO total FROM unnest(streams) q;
    IF total > current_setting('gazepriv.max_synthesized_samples')::numeric THEN
        RAISE EXCEPTION 'the synthesised streams would have % samples, more than gazepriv.max_synthesized_samples (%)',
                        total::float8, current_setting('gazepriv.max_synthesized_samples') USING ERRCODE = '54000';
    END IF;
    -- With a secret, each stream's fixation samples come from a key of its own derived from it (the same
    -- release whatever order the streams are made in).
    RETURN QUERY
    SELECT q.participant, q.task, s.t_ms, s.x, s.y, s.event_index, s.type, q.group_id
    FROM unnest(streams) q,
         LATERAL @extschema@.synthesize_samples(q.events,
             (SELECT @extschema@.make_trace(g * period, 0, 0) FROM generate_series(0, q.last_period::bigint) g),
             sha256(secret || convert_to(format('k_same_synth samples %s:%s:%s', length(q.participant),
                                                q.participant, q.task), 'UTF8'))) s
    ORDER BY q.participant, q.task, s.t_ms;
END
$fn$;
COMMENT ON FUNCTION @extschema@.k_same_synth(regclass, integer, float8, name, name, boolean, text, bytea) IS
    'Curator: k-same-synth (David-John et al. 2023, supplement 2.1). The source holds events as detect_events '
    'returns them plus participant and task columns (participant, task, event_index, type, duration_ms, '
    'centroid_x/y, sigma_x/y, profile_a/b/c; other participant and task names via *_column). The fixation parameter sequences (centroid, sigma, duration) and the '
    'saccade parameter sequences (profile a, b, c, duration) of every task are made k-anonymous by k_same_select '
    '(the same grouping, padding and errors; across_tasks => true, the default, draws one grouping for the '
    'fixations and saccades of every task; false is the paper''s variant: separate groupings for the fixations '
    'and for the saccades of each task), then each participant''s stream is synthesised from their group''s '
    'sequences at the public sampling grid t = j * 1000 / sampling_rate_hz from 0: fixation w, then saccade w '
    'from fixation w''s centroid to fixation w+1''s, one period apart, durations rounded to whole periods '
    '(synthesize_samples: fixation samples from the CSPRNG, saccades along the Gaussian speed profile). Saccades '
    'without a profile (NULL profile_a) are left out. ERROR 22023 naming the event for an unknown type, a '
    'negative, NULL or non-finite duration, non-finite or negative fixation parameters, a non-finite profile or '
    'profile_c <= 0, a non-positive sampling rate, and as k_same_select (k < 2, k above the participants of a task, '
    'a participant missing from a task across tasks); 54000 above gazepriv.max_synthesized_samples samples. '
    'Privacy: k-anonymity of the parameter sequences (not DP): every released stream is synthesised from a '
    'parameter sequence shared by at least k participants (across tasks: the whole release of a participant); '
    'the synthetic samples add fresh noise to the fixations only. Released exactly: participant ids, tasks, '
    'the group ids, each group''s event counts (the task''s longest sequences, padded) and mean durations '
    '(rounded), hence timestamps. With dataset => logged as k_same_select (epsilon 0) before the source is read. '
    'With a secret (32 bytes or more) the grouping and every stream''s fixation draws (a key per participant and '
    'task derived from it) come from it alone, as the served-once release_k_same_synth needs.';

-- Analyst release (src/pg/budget/analyst_release.cpp): served once ------------------------------------------

CREATE FUNCTION @extschema@.release_k_same_select(dataset text, k integer DEFAULT NULL,
                                                  across_tasks boolean DEFAULT NULL)
    RETURNS TABLE (participant text, task text, "window" integer, features float8[], group_id integer)
    AS 'MODULE_PATHNAME', 'gazepriv_analyst_release' LANGUAGE C VOLATILE PARALLEL UNSAFE ROWS 1000;
COMMENT ON FUNCTION @extschema@.release_k_same_select(text, integer, boolean) IS
    'Analyst release: k_same_select over a registered dataset''s relation (its participant, task, window and '
    'features columns) with the k and the grouping (across_tasks) of the dataset''s k_same_select release policy '
    '(passing them is allowed only with the policy''s values; 42501 otherwise). Served once: the first request '
    'makes the release (logged in the ledger of the role whose privileges run it, epsilon 0) and every later '
    'request, by any analyst holding a budget on the dataset, returns the identical rows without a new ledger row, '
    'until the owner calls reset_release. Privacy: k-anonymity (not DP), as k_same_select; two different '
    'groupings of the same data could be intersected, which serving once prevents.';
REVOKE ALL ON FUNCTION @extschema@.release_k_same_select(text, integer, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.release_k_same_select(text, integer, boolean)
    TO gazepriv_analyst, gazepriv_curator;

-- {"k": k, "across_tasks": true}: the group size and whether one grouping holds for every task.
CREATE FUNCTION @extschema@._policy_k_same_select(d @extschema@.datasets, policy jsonb) RETURNS jsonb
    LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    k int4 := @extschema@._policy_count('k_same_select', policy, 'k');
    across jsonb := coalesce(policy -> 'across_tasks', 'true');
BEGIN
    PERFORM @extschema@._policy_keys('k_same_select', policy, ARRAY['k', 'across_tasks'], ARRAY['k']);
    IF jsonb_typeof(across) <> 'boolean' THEN
        RAISE EXCEPTION 'the k_same_select policy''s across_tasks must be true or false' USING ERRCODE = '22023';
    END IF;
    PERFORM @extschema@.k_same_select_cost(k);  -- validates k (22023)
    IF d.task_column IS NULL OR d.window_column IS NULL OR d.features_column IS NULL THEN
        RAISE EXCEPTION 'dataset "%" has no task, window or features column', d.name USING ERRCODE = '22023',
            HINT = 'A curator registers them with register_dataset(..., task_column, window_column, features_column).';
    END IF;
    RETURN jsonb_build_object('k', k, 'across_tasks', across);
END $$;
COMMENT ON FUNCTION @extschema@._policy_k_same_select(@extschema@.datasets, jsonb) IS
    'Internal: validates a k_same_select release policy. Privacy: parameters only.';

CREATE FUNCTION @extschema@._plan_release_k_same_select(caller regrole, dataset text, k integer, across_tasks boolean)
    RETURNS @extschema@._release_plan LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    d @extschema@.datasets := @extschema@._release_dataset(caller, dataset, 'dp');
    p jsonb := @extschema@._release_policy(d, 'k_same_select');
    c @extschema@.release_cost;
BEGIN
    PERFORM @extschema@._fixed(d, 'k_same_select', 'k', p -> 'k', to_jsonb(k)),
            @extschema@._fixed(d, 'k_same_select', 'across_tasks', p -> 'across_tasks', to_jsonb(across_tasks));
    c := @extschema@.k_same_select_cost((p ->> 'k')::int4, NULL, (p ->> 'across_tasks')::boolean, d.relation::text);
    RETURN @extschema@._served_once(ROW(
        d.name, d.owner, c.mechanism, c.guarantee, c.epsilon, c.delta, c.rho, 0, c.non_private_choices, c.parameters,
        format('SELECT * FROM @extschema@.k_same_select(%L, %s, %L, %L, %L, %L, NULL, %s, NULL, $4)',
               d.relation::text, p ->> 'k', d.participant_column, d.task_column, d.window_column, d.features_column,
               p ->> 'across_tasks'),
        NULL, NULL, NULL)::@extschema@._release_plan, d, 'k_same_select');
END $$;
COMMENT ON FUNCTION @extschema@._plan_release_k_same_select(regrole, text, integer, boolean) IS
    'Internal: the plan of release_k_same_select, served once. Privacy: logged with epsilon 0.';

-- {"k": k, "across_tasks": true, "sampling_rate_hz": rate}: the group size, the grouping, and the public
-- sampling grid of the synthetic streams.
CREATE FUNCTION @extschema@.k_same_synth_cost(k integer, sampling_rate_hz float8, across_tasks boolean DEFAULT true,
                                              source text DEFAULT NULL)
    RETURNS @extschema@.release_cost LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    c @extschema@.release_cost := @extschema@.k_same_select_cost(k, NULL, across_tasks, source);  -- validates k
BEGIN
    IF NOT (sampling_rate_hz > 0 AND sampling_rate_hz < 'Infinity') THEN  -- NULL and NaN too
        RAISE EXCEPTION 'sampling_rate_hz must be positive and finite, got %', sampling_rate_hz USING ERRCODE = '22023';
    END IF;
    c.mechanism := 'k_same_synth';
    c.parameters := c.parameters - 'class_column' || jsonb_build_object('sampling_rate_hz', sampling_rate_hz);
    RETURN c;
END $$;
COMMENT ON FUNCTION @extschema@.k_same_synth_cost(integer, float8, boolean, text) IS
    'The ledger record of a release_k_same_synth release with these parameters: mechanism k_same_synth, guarantee '
    'k-anonymity, epsilon 0, delta 0, no data-dependent choice, parameters {k, across_tasks, grouping, '
    'sampling_rate_hz, source}. ERROR 22023 for k < 2 or a sampling rate that is not positive and finite. '
    'Privacy: pure calculation, releases nothing.';

CREATE FUNCTION @extschema@.release_k_same_synth(dataset text, k integer DEFAULT NULL,
                                                 across_tasks boolean DEFAULT NULL,
                                                 sampling_rate_hz float8 DEFAULT NULL)
    RETURNS TABLE (participant text, task text, t_ms float8, x float8, y float8, event_index integer, type text,
                   group_id integer)
    AS 'MODULE_PATHNAME', 'gazepriv_analyst_release' LANGUAGE C VOLATILE PARALLEL UNSAFE ROWS 10000;
COMMENT ON FUNCTION @extschema@.release_k_same_synth(text, integer, boolean, float8) IS
    'Analyst release: k_same_synth over a registered dataset whose relation holds events (detect_events columns '
    'plus its participant and task columns) with the k, the grouping (across_tasks) and the sampling rate of the '
    'dataset''s k_same_synth release policy (passing them is allowed only with the policy''s values; 42501 '
    'otherwise). Served once: the first request makes the release (logged in the ledger of the role whose '
    'privileges run it as k_same_synth, epsilon 0, k_same_synth_cost) and every later request, by any analyst '
    'holding a budget on the dataset, returns the identical rows without a new ledger row, until the owner calls '
    'reset_release(dataset, ''k_same_synth''). The grouping and the fixation draws come from the dataset''s '
    'release secret, so a first release recomputed after a rolled-back transaction is the same. Privacy: '
    'k-anonymity of the parameter sequences (not DP), as k_same_synth; two releases of the same data could be '
    'intersected (groupings) or averaged (fixation draws), which serving once prevents.';
REVOKE ALL ON FUNCTION @extschema@.release_k_same_synth(text, integer, boolean, float8) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.release_k_same_synth(text, integer, boolean, float8)
    TO gazepriv_analyst, gazepriv_curator;

-- The events k_same_synth reads, besides the dataset's participant and task columns.
CREATE FUNCTION @extschema@._policy_k_same_synth(d @extschema@.datasets, policy jsonb) RETURNS jsonb
    LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    k int4 := @extschema@._policy_count('k_same_synth', policy, 'k');
    across jsonb := coalesce(policy -> 'across_tasks', 'true');
    rate float8 := @extschema@._policy_number('k_same_synth', policy, 'sampling_rate_hz');
    missing text;
BEGIN
    PERFORM @extschema@._policy_keys('k_same_synth', policy, ARRAY['k', 'across_tasks', 'sampling_rate_hz'],
                                     ARRAY['k', 'sampling_rate_hz']);
    IF jsonb_typeof(across) <> 'boolean' THEN
        RAISE EXCEPTION 'the k_same_synth policy''s across_tasks must be true or false' USING ERRCODE = '22023';
    END IF;
    PERFORM @extschema@.k_same_synth_cost(k, rate);  -- validates k and the rate (22023)
    IF d.task_column IS NULL THEN
        RAISE EXCEPTION 'dataset "%" has no task column', d.name USING ERRCODE = '22023',
            HINT = 'A curator registers it with register_dataset(..., task_column => ...).';
    END IF;
    SELECT string_agg(c, ', ' ORDER BY o) INTO missing
    FROM unnest(ARRAY['event_index', 'type', 'duration_ms', 'centroid_x', 'centroid_y', 'sigma_x', 'sigma_y',
                      'profile_a', 'profile_b', 'profile_c']) WITH ORDINALITY e(c, o)
    WHERE NOT EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = d.relation AND a.attname = e.c
                                                   AND a.attnum > 0 AND NOT a.attisdropped);
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'the relation of dataset "%" has no event column %', d.name, missing USING ERRCODE = '22023',
            HINT = 'k_same_synth reads events as detect_events returns them, with participant and task columns.';
    END IF;
    RETURN jsonb_build_object('k', k, 'across_tasks', across, 'sampling_rate_hz', to_jsonb(rate));
END $$;
COMMENT ON FUNCTION @extschema@._policy_k_same_synth(@extschema@.datasets, jsonb) IS
    'Internal: validates a k_same_synth release policy (and that the dataset''s relation has the event columns). '
    'Privacy: parameters and the relation''s column names only.';

-- What the release runs as the dataset's owner: k_same_synth, with its errors about the data (which name the
-- offending event and its values) replaced by ones that name no data: the analyst may not see the events.
CREATE FUNCTION @extschema@._release_k_same_synth(source regclass, k integer, sampling_rate_hz float8,
                                                  participant_column name, task_column name, across_tasks boolean,
                                                  secret bytea)
    RETURNS TABLE (participant text, task text, t_ms float8, x float8, y float8, event_index integer, type text,
                   group_id integer)
    LANGUAGE plpgsql VOLATILE PARALLEL RESTRICTED ROWS 10000 SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
    RETURN QUERY SELECT * FROM @extschema@.k_same_synth(source, k, sampling_rate_hz, participant_column, task_column,
                                                        across_tasks, NULL, secret);
EXCEPTION
    WHEN invalid_parameter_value THEN
        RAISE EXCEPTION 'the events of this dataset cannot be synthesised under its k_same_synth policy'
            USING ERRCODE = '22023', DETAIL = 'Nothing was released; the reason names data only its owner may see.',
                  HINT = 'The dataset''s owner runs k_same_synth on its relation to see why.';
    WHEN program_limit_exceeded THEN
        RAISE EXCEPTION 'the release would have more samples than gazepriv.max_synthesized_samples (%)',
                        current_setting('gazepriv.max_synthesized_samples') USING ERRCODE = '54000',
            DETAIL = 'Nothing was released.';
END
$fn$;
COMMENT ON FUNCTION @extschema@._release_k_same_synth(regclass, integer, float8, name, name, boolean, bytea) IS
    'Internal: k_same_synth as release_k_same_synth runs it (as the dataset''s owner), with errors that name no '
    'data. Privacy: as k_same_synth.';
GRANT EXECUTE ON FUNCTION @extschema@._release_k_same_synth(regclass, integer, float8, name, name, boolean, bytea)
    TO gazepriv_curator;

CREATE FUNCTION @extschema@._plan_release_k_same_synth(caller regrole, dataset text, k integer, across_tasks boolean,
                                                       sampling_rate_hz float8)
    RETURNS @extschema@._release_plan LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    d @extschema@.datasets := @extschema@._release_dataset(caller, dataset, 'dp');
    p jsonb := @extschema@._release_policy(d, 'k_same_synth');
    c @extschema@.release_cost;
BEGIN
    PERFORM @extschema@._fixed(d, 'k_same_synth', 'k', p -> 'k', to_jsonb(k)),
            @extschema@._fixed(d, 'k_same_synth', 'across_tasks', p -> 'across_tasks', to_jsonb(across_tasks)),
            @extschema@._fixed(d, 'k_same_synth', 'sampling_rate_hz', p -> 'sampling_rate_hz',
                               to_jsonb(sampling_rate_hz));
    c := @extschema@.k_same_synth_cost((p ->> 'k')::int4, (p ->> 'sampling_rate_hz')::float8,
                                       (p ->> 'across_tasks')::boolean, d.relation::text);
    RETURN @extschema@._served_once(ROW(
        d.name, d.owner, c.mechanism, c.guarantee, c.epsilon, c.delta, c.rho, 0, c.non_private_choices, c.parameters,
        format('SELECT * FROM @extschema@._release_k_same_synth(%L, %s, %L::float8, %L, %L, %s, $5)',
               d.relation::text, p ->> 'k', p ->> 'sampling_rate_hz', d.participant_column, d.task_column,
               p ->> 'across_tasks'),
        NULL, NULL, NULL)::@extschema@._release_plan, d, 'k_same_synth');
END $$;
COMMENT ON FUNCTION @extschema@._plan_release_k_same_synth(regrole, text, integer, boolean, float8) IS
    'Internal: the plan of release_k_same_synth, served once. Privacy: logged with epsilon 0.';

-- Demographic generalisation ----------------------------------------------------------------------------

CREATE FUNCTION @extschema@.generalize_demographics(source text, k integer,
                                                    quasi_identifiers text[] DEFAULT ARRAY['gender', 'age'],
                                                    participant_column name DEFAULT 'participant',
                                                    ranges text[] DEFAULT NULL, dataset text DEFAULT NULL)
    RETURNS TABLE (participant text, gender text, age_from integer, age_to integer, class_id integer,
                   class_size bigint)
    AS 'MODULE_PATHNAME', 'gazepriv_generalize_demographics' LANGUAGE C VOLATILE PARALLEL RESTRICTED ROWS 100;
COMMENT ON FUNCTION @extschema@.generalize_demographics(text, integer, text[], name, text[], text) IS
    'Curator: k-anonymous demographics (David-John et al., TVCG 2023 supplement section 1). Reads participant, '
    'gender and age (quasi_identifiers => ARRAY[gender column, age column]; age cast to integer) from source '
    '(a table or view name, or a query) and returns every participant with a generalised gender (kept, or all '
    'genders merged into one label such as ''M/F'', majority first) and age range [age_from, age_to], so that '
    'every class holds at least k rows; rows ordered by class, then participant. Optimised ranges (the paper''s '
    'model: gender kept or merged for all, age ranges per gender labelled by their youngest and oldest member): '
    'the most classes, then the least information loss (normalised certainty penalty: class age span over the '
    'population''s, plus 1 per row of merged gender), then gender kept; exact (dynamic programming). Given ranges '
    '(''<gender>:<from>-<to>'', genders joined by ''/'', e.g. ARRAY[''F:23-31'', ''M/F:32-52'']) are applied as '
    'they are: they must not overlap for a gender, must cover every row, and each non-empty one must hold k '
    'rows. ERROR 22023: k < 2, k above the number of rows, an empty source, NULL participant, gender or age, a '
    'participant in two rows, bad ranges. Privacy: k-anonymity, not DP: each (gender, age range) class holds at '
    'least k rows; optimised ranges are a data-dependent (non-private) choice and their bounds are members'' '
    'ages; given public ranges are not. With dataset => logged in the ledger (generalize_demographics_cost; '
    'epsilon 0) before the source is read.';

CREATE FUNCTION @extschema@.generalize_demographics_ranges(source text, k integer,
                                                           quasi_identifiers text[] DEFAULT ARRAY['gender', 'age'],
                                                           participant_column name DEFAULT 'participant',
                                                           ranges text[] DEFAULT NULL, dataset text DEFAULT NULL)
    RETURNS TABLE (class_id integer, gender text, genders text[], age_from integer, age_to integer,
                   class_size bigint)
    AS 'MODULE_PATHNAME', 'gazepriv_generalize_demographics_ranges' LANGUAGE C VOLATILE PARALLEL RESTRICTED ROWS 10;
COMMENT ON FUNCTION @extschema@.generalize_demographics_ranges(text, integer, text[], name, text[], text) IS
    'Curator: the mapping of generalize_demographics with the same arguments: one row per class with its '
    'generalised gender, the original genders it covers, its age range and its size. Privacy: k-anonymity, not '
    'DP, as generalize_demographics (the class sizes are those of the generalised rows); logged with dataset => '
    'as generalize_demographics_ranges.';

-- The k-anonymity check ----------------------------------------------------------------------------------

CREATE FUNCTION @extschema@.k_anonymity_classes(source text, columns text[])
    RETURNS TABLE (class_values text[], class_size bigint)
    AS 'MODULE_PATHNAME', 'gazepriv_k_anonymity_classes' LANGUAGE C VOLATILE PARALLEL RESTRICTED ROWS 100;
COMMENT ON FUNCTION @extschema@.k_anonymity_classes(text, text[]) IS
    'The equivalence classes of source (a table or view name, or a query) over the given columns: rows whose '
    'values, compared as text, are equal (NULLs equal each other), with their sizes, smallest first. ERROR '
    '22023 for an empty source or no columns, 42703 for an unknown column. Privacy: reads with the caller''s '
    'privileges and shows exact class sizes: a curator''s check, not a release.';

CREATE FUNCTION @extschema@.k_anonymity(source text, columns text[]) RETURNS bigint
    LANGUAGE sql VOLATILE PARALLEL RESTRICTED
    RETURN (SELECT min(c.class_size) FROM @extschema@.k_anonymity_classes(source, columns) c);
COMMENT ON FUNCTION @extschema@.k_anonymity(text, text[]) IS
    'The k for which source is k-anonymous over the given quasi-identifier columns: the size of its smallest '
    'equivalence class (as PostgreSQL Anonymizer''s k_anonymity(), with the columns named here). '
    'Example: k_anonymity(''SELECT * FROM k_same_select(''''features'''', 4)'', ARRAY[''task'', ''window'', '
    '''features'']) >= 4. ERRORs as k_anonymity_classes. Privacy: reads with the caller''s privileges; a '
    'curator''s check, not a release.';
