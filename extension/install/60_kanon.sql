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
