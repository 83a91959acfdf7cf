-- The privacy budget: registered datasets, per-role budgets, the append-only ledger, and the charge.
--
-- Who can do what:
--   curators (members of gazepriv_curator, and superusers) register datasets, grant and revoke budgets,
--   read the ledger, and charge budgets for releases they make by other means;
--   analysts (members of gazepriv_analyst) cannot read the raw tables of registered datasets; they release
--   through the SECURITY DEFINER release_* functions, which charge the caller's budget before any noise is
--   drawn; they see their own rows of budget_status.
-- Charges are committed by the database's charge worker, a background worker, in transactions of its own (see
-- src/pg/budget/), so a ROLLBACK, an error or a cancel after the charge never refunds it.

DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'gazepriv_analyst') THEN
        CREATE ROLE gazepriv_analyst NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'gazepriv_curator') THEN
        CREATE ROLE gazepriv_curator NOLOGIN;
    END IF;
END $$;

CREATE TABLE @extschema@.datasets (
    name text PRIMARY KEY CHECK (name <> ''),
    relation regclass NOT NULL,
    participant_column name NOT NULL,
    stimulus_column name,
    time_column name,
    x_column name,
    y_column name,
    task_column name,
    window_column name,
    features_column name,
    observers bigint CHECK (observers > 0),
    bounds jsonb CHECK (bounds IS NULL OR jsonb_typeof(bounds) = 'object'),
    description text,
    registered_by regrole NOT NULL,
    registered_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE @extschema@.datasets IS
    'Registered datasets: a table or view whose participant column is the privacy unit, the columns the release '
    'functions read, and public facts about it (observers = the public number of participants; bounds = public '
    'value ranges as JSON). Privacy: public facts must be public: never derive them from the data.';

CREATE TABLE @extschema@.budgets (
    dataset text NOT NULL REFERENCES @extschema@.datasets (name) ON UPDATE CASCADE,
    role regrole NOT NULL,
    epsilon_limit numeric NOT NULL CHECK (epsilon_limit >= 0),
    delta_limit numeric NOT NULL CHECK (delta_limit >= 0 AND delta_limit < 1),
    accounting text NOT NULL CHECK (accounting IN ('basic', 'zcdp')),
    -- Running totals, written only by the charge worker; the ledger holds every term.
    spent_epsilon numeric NOT NULL DEFAULT 0,   -- basic composition: sum of epsilon
    spent_delta numeric NOT NULL DEFAULT 0,     -- basic composition: sum of delta
    spent_rho numeric NOT NULL DEFAULT 0,       -- zCDP: sum of rho (Gaussian rho, or epsilon^2/2 for pure DP)
    other_epsilon numeric NOT NULL DEFAULT 0,   -- zCDP: approximate-DP releases with no zCDP form
    other_delta numeric NOT NULL DEFAULT 0,
    sampler_distance numeric NOT NULL DEFAULT 0 CHECK (sampler_distance >= 0),  -- zCDP: see budget_after
    releases bigint NOT NULL DEFAULT 0,
    revoked boolean NOT NULL DEFAULT false,
    granted_by regrole NOT NULL,
    granted_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (dataset, role),
    CHECK (accounting = 'basic' OR delta_limit > 0)
);
COMMENT ON TABLE @extschema@.budgets IS
    'Privacy budget of each role on each dataset: limits, the accounting enforced (basic: sums of epsilon and delta; '
    'zcdp: Gaussian releases add rho = l2^2/(2 sigma^2), pure epsilon-DP releases add epsilon^2/2, the total is '
    'converted to (epsilon, delta) by Canonne-Kamath-Steinke; table-sampled Gaussian releases also add their '
    'statistical distance from the exact sampler, sampler_distance), and running totals under both. '
    'Privacy: totals only ever grow; revoking stops further releases.';

CREATE TABLE @extschema@.ledger (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at timestamptz NOT NULL DEFAULT clock_timestamp(),
    role regrole NOT NULL,
    dataset text NOT NULL,
    mechanism text NOT NULL,
    parameters jsonb NOT NULL DEFAULT '{}',
    epsilon numeric NOT NULL CHECK (epsilon >= 0),
    delta numeric NOT NULL CHECK (delta >= 0 AND delta < 1),
    rho numeric CHECK (rho >= 0),
    guarantee text NOT NULL CHECK (guarantee IN ('dp', 'w-event', 'record-dp', 'k-anonymity',
                                                 'plausible-deniability')),
    non_private boolean NOT NULL,
    accounting text NOT NULL,
    backend_pid integer NOT NULL
);
COMMENT ON TABLE @extschema@.ledger IS
    'Append-only record of every charged release: when, who, which dataset and mechanism, its parameters, its '
    'epsilon, delta and (for Gaussian releases) rho, its guarantee kind (dp: participant-level; w-event: '
    'epsilon per window of w samples of a stream; record-dp: epsilon per record, e.g. one feature vector; '
    'participant-level DP implies both, so one limit over all kinds bounds the narrower losses; k-anonymity and '
    'plausible-deniability: logged, no epsilon) and whether any '
    'choice in it was non-private. Privacy: written only by the charge worker, committed before the release '
    'draws noise.';

CREATE INDEX ledger_dataset_role ON @extschema@.ledger (dataset, role);

CREATE FUNCTION @extschema@._ledger_append_only() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RAISE EXCEPTION 'the privacy ledger is append-only' USING ERRCODE = '42501';
END $$;
COMMENT ON FUNCTION @extschema@._ledger_append_only() IS
    'Trigger: rejects UPDATE, DELETE and TRUNCATE on the ledger. Privacy: keeps the spending record intact.';
CREATE TRIGGER ledger_append_only BEFORE UPDATE OR DELETE ON @extschema@.ledger
    FOR EACH ROW EXECUTE FUNCTION @extschema@._ledger_append_only();
CREATE TRIGGER ledger_no_truncate BEFORE TRUNCATE ON @extschema@.ledger
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._ledger_append_only();

-- pg_dump keeps the rows of these tables (and the ledger's identity sequence).
SELECT pg_catalog.pg_extension_config_dump('@extschema@.datasets', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.budgets', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ledger', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ledger_id_seq', '');

REVOKE ALL ON @extschema@.datasets, @extschema@.budgets, @extschema@.ledger FROM PUBLIC;
GRANT SELECT, INSERT, DELETE ON @extschema@.datasets TO gazepriv_curator;
GRANT UPDATE (relation, participant_column, stimulus_column, time_column, x_column, y_column, task_column,
              window_column, features_column, observers, bounds, description) ON @extschema@.datasets TO gazepriv_curator;
GRANT SELECT, INSERT ON @extschema@.budgets TO gazepriv_curator;
GRANT UPDATE (epsilon_limit, delta_limit, accounting, revoked, granted_by, granted_at)
    ON @extschema@.budgets TO gazepriv_curator;
GRANT SELECT ON @extschema@.ledger TO gazepriv_curator;

-- The cost record: what one release costs, as the ledger records it. Every *_cost function returns these
-- columns first (and some add their own after them).
CREATE TYPE @extschema@.release_cost AS (
    mechanism text, guarantee text, epsilon float8, delta float8, rho float8, non_private_choices boolean,
    parameters jsonb);
COMMENT ON TYPE @extschema@.release_cost IS
    'What one release costs, computed from its parameters before anything is drawn, exactly as it is charged: the '
    'mechanism, its guarantee kind (dp, w-event, record-dp, k-anonymity, plausible-deniability), epsilon and delta '
    'under basic composition, rho (zCDP) for Gaussian releases (NULL otherwise), whether any choice was '
    'data-dependent (non-private), and all parameters as jsonb. Privacy: describes a release, releases nothing.';

-- Status -------------------------------------------------------------------------------------------------

-- The one place where budget arithmetic lives: the totals and what remains after charging (epsilon, delta,
-- rho) to a budget with the given limits and totals, and whether the enforced accounting allows it. With a
-- zero charge it gives the current state. Sums are numeric (exact); the zCDP conversion is in float8.
-- Under 'zcdp' both analyses bound the same composed mechanism, so the budget holds when either does:
-- epsilon_spent is the smaller of basic composition (when its delta fits) and the zCDP conversion.
-- rho-zCDP holds for exact samplers; a release drawn within total variation v of one (the discrete Gaussian
-- table) adds v to sampler_distance. If the composed exact mechanism is (epsilon, delta)-DP, the sampled one
-- is within the sum V of those distances of it, hence (epsilon, delta + (1 + e^epsilon) V)-DP: the zCDP
-- conversion runs at the delta left after other_delta and (1 + e^epsilon_limit) V (epsilon <= epsilon_limit
-- whenever the zCDP bound admits the charge; using the current limit keeps it valid if a grant changes it).
CREATE FUNCTION @extschema@.budget_after(
        accounting text, epsilon_limit numeric, delta_limit numeric,
        spent_epsilon numeric, spent_delta numeric, spent_rho numeric, other_epsilon numeric, other_delta numeric,
        charge_epsilon float8, charge_delta float8, charge_rho float8,
        sampler_distance numeric DEFAULT 0, charge_sampler_distance float8 DEFAULT 0,
        OUT new_spent_epsilon numeric, OUT new_spent_delta numeric, OUT new_spent_rho numeric,
        OUT new_other_epsilon numeric, OUT new_other_delta numeric, OUT new_sampler_distance numeric,
        OUT zcdp_epsilon_spent float8,
        OUT epsilon_spent float8, OUT epsilon_remaining float8, OUT delta_remaining numeric, OUT allowed boolean)
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    basic_ok boolean;
    zcdp_ok boolean;
    zcdp_delta numeric;  -- delta the zCDP side has used besides the conversion's own
BEGIN
    new_spent_epsilon := spent_epsilon + charge_epsilon::numeric;
    new_spent_delta := spent_delta + charge_delta::numeric;
    new_spent_rho := spent_rho;
    new_other_epsilon := other_epsilon;
    new_other_delta := other_delta;
    new_sampler_distance := sampler_distance + coalesce(charge_sampler_distance, 0)::numeric;
    IF charge_rho IS NOT NULL THEN
        new_spent_rho := new_spent_rho + charge_rho::numeric;              -- Gaussian: rho-zCDP
    ELSIF charge_delta = 0 THEN
        new_spent_rho := trim_scale(new_spent_rho + (charge_epsilon::numeric) ^ 2 / 2);  -- pure eps-DP: eps^2/2-zCDP
    ELSE
        new_other_epsilon := new_other_epsilon + charge_epsilon::numeric;  -- approximate DP with no zCDP
        new_other_delta := new_other_delta + charge_delta::numeric;        -- form composes basically
    END IF;
    zcdp_delta := new_other_delta;
    IF new_sampler_distance > 0 THEN
        zcdp_delta := zcdp_delta + CASE WHEN epsilon_limit > 700 THEN 1  -- e^epsilon_limit overflows: no room
                                        ELSE (1 + exp(epsilon_limit)) * new_sampler_distance END;
    END IF;
    IF new_spent_rho = 0 THEN
        zcdp_epsilon_spent := new_other_epsilon::float8;
    ELSIF delta_limit - zcdp_delta <= 0 THEN
        zcdp_epsilon_spent := 'Infinity';
    ELSE
        zcdp_epsilon_spent := @extschema@.zcdp_epsilon(new_spent_rho::float8, (delta_limit - zcdp_delta)::float8)
                              + new_other_epsilon::float8;
    END IF;
    basic_ok := new_spent_epsilon <= epsilon_limit AND new_spent_delta <= delta_limit;
    zcdp_ok := zcdp_epsilon_spent <= epsilon_limit::float8 AND zcdp_delta < delta_limit;
    IF accounting = 'basic'
       OR (new_spent_delta <= delta_limit AND new_spent_epsilon::float8 <= zcdp_epsilon_spent) THEN
        epsilon_spent := new_spent_epsilon::float8;                  -- basic composition (or it is tighter)
        epsilon_remaining := (epsilon_limit - new_spent_epsilon)::float8;
        delta_remaining := delta_limit - new_spent_delta;
    ELSE
        epsilon_spent := zcdp_epsilon_spent;
        epsilon_remaining := epsilon_limit::float8 - zcdp_epsilon_spent;
        delta_remaining := delta_limit - zcdp_delta;
    END IF;
    allowed := basic_ok OR (accounting = 'zcdp' AND zcdp_ok);
END $$;
COMMENT ON FUNCTION @extschema@.budget_after(text, numeric, numeric, numeric, numeric, numeric, numeric, numeric,
                                            float8, float8, float8, numeric, float8) IS
    'Budget arithmetic: the totals and what remains of a budget with the given limits and totals after a charge of '
    '(epsilon, delta, rho, sampler distance), under basic composition and zCDP (a Gaussian release adds rho, a pure '
    'epsilon-DP release adds epsilon^2/2, an approximate-DP release without a zCDP form composes basically; the '
    'statistical distance of table-sampled releases from the exact sampler takes (1 + e^epsilon_limit) times itself '
    'of the zCDP side''s delta), and whether the accounting allows it; a zcdp budget holds when either bound does. '
    'Privacy: pure accounting, releases nothing.';

CREATE VIEW @extschema@.budget_status AS
SELECT b.dataset, b.role, b.accounting, b.epsilon_limit, b.delta_limit,
       b.spent_epsilon AS basic_epsilon_spent, b.spent_delta AS basic_delta_spent,
       b.spent_rho AS zcdp_rho_spent, a.zcdp_epsilon_spent,
       b.other_epsilon AS zcdp_other_epsilon, b.other_delta AS zcdp_other_delta,
       b.sampler_distance AS zcdp_sampler_distance,
       a.epsilon_spent, a.epsilon_remaining, a.delta_remaining, b.releases, b.revoked
FROM @extschema@.budgets b,
     LATERAL @extschema@.budget_after(b.accounting, b.epsilon_limit, b.delta_limit, b.spent_epsilon, b.spent_delta,
                                       b.spent_rho, b.other_epsilon, b.other_delta, 0, 0, NULL,
                                       b.sampler_distance) a
WHERE pg_catalog.pg_has_role(b.role, 'MEMBER')
   OR pg_catalog.pg_has_role('gazepriv_curator', 'MEMBER');
COMMENT ON VIEW @extschema@.budget_status IS
    'Each role''s budgets (curators see all): limits; spending under basic composition (sums of epsilon and delta) '
    'and under zCDP (sum of rho from Gaussian and pure-DP releases, converted by Canonne-Kamath-Steinke at the '
    'delta left by approximate-DP releases without a zCDP form, zcdp_other_*, and by the table samplers'' '
    'statistical distance, zcdp_sampler_distance, times 1 + e^epsilon_limit); what remains under the accounting '
    'the budget enforces (epsilon_spent: basic under basic; the smaller valid bound under zcdp). '
    'Privacy: shows spending, never data.';
GRANT SELECT ON @extschema@.budget_status TO PUBLIC;

-- Curator functions (SECURITY INVOKER: they need the curator's own privileges) ------------------------------

CREATE FUNCTION @extschema@.register_dataset(
        name text, relation regclass, participant_column name,
        stimulus_column name DEFAULT NULL, time_column name DEFAULT NULL,
        x_column name DEFAULT NULL, y_column name DEFAULT NULL,
        task_column name DEFAULT NULL, window_column name DEFAULT NULL, features_column name DEFAULT NULL,
        observers bigint DEFAULT NULL, bounds jsonb DEFAULT NULL, description text DEFAULT NULL)
    RETURNS void LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    col name;
BEGIN
    IF name IS NULL OR name = '' THEN
        RAISE EXCEPTION 'dataset name must not be empty' USING ERRCODE = '22023';
    END IF;
    IF relation IS NULL OR participant_column IS NULL THEN
        RAISE EXCEPTION 'relation and participant_column are required' USING ERRCODE = '22023';
    END IF;
    IF observers IS NOT NULL AND observers < 1 THEN
        RAISE EXCEPTION 'observers must be at least 1, got %', observers USING ERRCODE = '22023';
    END IF;
    IF EXISTS (SELECT FROM @extschema@.datasets d WHERE d.name = register_dataset.name) THEN
        RAISE EXCEPTION 'dataset "%" is already registered', name USING ERRCODE = '42710';
    END IF;
    IF bounds IS NOT NULL AND jsonb_typeof(bounds) <> 'object' THEN
        RAISE EXCEPTION 'bounds must be a JSON object' USING ERRCODE = '22023';
    END IF;
    FOREACH col IN ARRAY ARRAY[participant_column, stimulus_column, time_column, x_column, y_column,
                                task_column, window_column, features_column] LOOP
        IF col IS NOT NULL AND NOT EXISTS (
                SELECT FROM pg_attribute a
                WHERE a.attrelid = relation AND a.attname = col AND a.attnum > 0 AND NOT a.attisdropped) THEN
            RAISE EXCEPTION 'column "%" of relation % does not exist', col, relation USING ERRCODE = '42703';
        END IF;
    END LOOP;
    -- Analysts must not read the raw rows: only the release functions (running as the extension's owner) do.
    EXECUTE format('REVOKE ALL ON %s FROM PUBLIC, gazepriv_analyst', relation);
    INSERT INTO @extschema@.datasets
        VALUES (name, relation, participant_column, stimulus_column, time_column, x_column, y_column,
                task_column, window_column, features_column, observers, bounds, description,
                current_user::regrole, now());
END $$;
COMMENT ON FUNCTION @extschema@.register_dataset(text, regclass, name, name, name, name, name, name, name, name,
                                                bigint, jsonb, text) IS
    'Curator: declares a table or view as a dataset whose participant column is the privacy unit, names the '
    'columns release functions read, records public facts (observers = public number of participants, bounds), '
    'and revokes the raw rows from PUBLIC and gazepriv_analyst. Privacy: releases nothing.';

CREATE FUNCTION @extschema@.grant_budget(dataset text, role regrole, epsilon float8, delta float8 DEFAULT 0,
                                         accounting text DEFAULT 'zcdp')
    RETURNS void LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF NOT EXISTS (SELECT FROM @extschema@.datasets d WHERE d.name = grant_budget.dataset) THEN
        RAISE EXCEPTION 'dataset "%" is not registered', dataset USING ERRCODE = '22023';
    END IF;
    IF role IS NULL THEN
        RAISE EXCEPTION 'role must not be NULL' USING ERRCODE = '22023';
    END IF;
    IF epsilon IS NULL OR epsilon = 'NaN' OR epsilon < 0 OR epsilon = 'Infinity' THEN
        RAISE EXCEPTION 'epsilon must be a finite number of at least 0, got %', epsilon USING ERRCODE = '22023';
    END IF;
    IF delta IS NULL OR delta = 'NaN' OR delta < 0 OR delta >= 1 THEN
        RAISE EXCEPTION 'delta must be at least 0 and below 1, got %', delta USING ERRCODE = '22023';
    END IF;
    IF accounting IS NULL OR accounting NOT IN ('basic', 'zcdp') THEN
        RAISE EXCEPTION 'unknown accounting "%": expected basic or zcdp', accounting USING ERRCODE = '22023';
    END IF;
    IF accounting = 'zcdp' AND delta = 0 THEN
        RAISE EXCEPTION 'zcdp accounting needs a delta above 0 to convert rho into epsilon'
            USING ERRCODE = '22023', HINT = 'Pass delta => 1e-6 (say), or accounting => ''basic''.';
    END IF;
    -- Re-granting changes the limits; what was spent stays spent.
    INSERT INTO @extschema@.budgets AS b (dataset, role, epsilon_limit, delta_limit, accounting, granted_by)
        VALUES (dataset, role, epsilon::numeric, delta::numeric, accounting, current_user::regrole)
    ON CONFLICT ON CONSTRAINT budgets_pkey DO UPDATE
        SET epsilon_limit = excluded.epsilon_limit, delta_limit = excluded.delta_limit,
            accounting = excluded.accounting, revoked = false, granted_by = excluded.granted_by, granted_at = now();
END $$;
COMMENT ON FUNCTION @extschema@.grant_budget(text, regrole, float8, float8, text) IS
    'Curator: gives a role a privacy budget (epsilon, delta) on a dataset, enforced by basic composition or by zCDP '
    '(default). Granting again changes the limits; spending is never refunded. Privacy: releases nothing.';

CREATE FUNCTION @extschema@.revoke_budget(dataset text, role regrole) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    UPDATE @extschema@.budgets b SET revoked = true
    WHERE b.dataset = revoke_budget.dataset AND b.role = revoke_budget.role;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'role % has no budget on dataset "%"', role, dataset USING ERRCODE = '22023';
    END IF;
END $$;
COMMENT ON FUNCTION @extschema@.revoke_budget(text, regrole) IS
    'Curator: stops a role''s further releases on a dataset; the record of what it spent stays. '
    'Privacy: releases nothing.';

-- Charging ---------------------------------------------------------------------------------------------

-- Run by the charge worker (as the bootstrap superuser) in a transaction of its own.
CREATE FUNCTION @extschema@._apply_charge(p_dataset text, p_role oid, p_mechanism text, p_parameters jsonb,
                                          p_epsilon float8, p_delta float8, p_rho float8, p_guarantee text,
                                          p_non_private boolean, p_pid integer, p_sampler_distance float8)
    RETURNS TABLE (status text, message text, ledger_id bigint)
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    b @extschema@.budgets;
    after record;
    now_ record;
    id bigint;
BEGIN
    IF p_epsilon IS NULL OR p_epsilon = 'NaN' OR p_epsilon < 0 OR p_epsilon = 'Infinity'
       OR p_delta IS NULL OR p_delta = 'NaN' OR p_delta < 0 OR p_delta >= 1
       OR p_rho = 'NaN' OR p_rho < 0 OR p_rho = 'Infinity'
       OR p_sampler_distance IS NULL OR p_sampler_distance = 'NaN' OR p_sampler_distance < 0
       OR p_sampler_distance >= 1 THEN
        RETURN QUERY SELECT 'invalid', format('invalid charge: epsilon %s, delta %s, rho %s', p_epsilon, p_delta,
                                              coalesce(p_rho::text, 'NULL')), NULL::bigint;
        RETURN;
    END IF;
    IF p_guarantee IS NULL
       OR p_guarantee NOT IN ('dp', 'w-event', 'record-dp', 'k-anonymity', 'plausible-deniability') THEN
        RETURN QUERY SELECT 'invalid', format('unknown guarantee kind "%s": expected dp, w-event, record-dp, '
                                              'k-anonymity or plausible-deniability', p_guarantee), NULL::bigint;
        RETURN;
    END IF;
    -- NOWAIT: a row locked by another transaction fails this charge alone (55P03, the caller tries again)
    -- instead of parking the worker that charges every dataset of the database.
    SELECT * INTO b FROM @extschema@.budgets bb WHERE bb.dataset = p_dataset AND bb.role = p_role FOR UPDATE NOWAIT;
    IF NOT FOUND THEN
        IF NOT EXISTS (SELECT FROM @extschema@.datasets d WHERE d.name = p_dataset) THEN
            RETURN QUERY SELECT 'unknown_dataset', format('dataset "%s" is not registered', p_dataset), NULL::bigint;
        ELSE
            RETURN QUERY SELECT 'no_budget', format('role %s has no privacy budget on dataset "%s"',
                                                     p_role::regrole, p_dataset), NULL::bigint;
        END IF;
        RETURN;
    END IF;
    IF b.revoked THEN
        RETURN QUERY SELECT 'no_budget', format('the privacy budget of role %s on dataset "%s" was revoked',
                                                 p_role::regrole, p_dataset), NULL::bigint;
        RETURN;
    END IF;
    after := @extschema@.budget_after(b.accounting, b.epsilon_limit, b.delta_limit, b.spent_epsilon, b.spent_delta,
                                       b.spent_rho, b.other_epsilon, b.other_delta, p_epsilon, p_delta, p_rho,
                                       b.sampler_distance, p_sampler_distance);
    IF NOT after.allowed THEN
        now_ := @extschema@.budget_after(b.accounting, b.epsilon_limit, b.delta_limit, b.spent_epsilon, b.spent_delta,
                                          b.spent_rho, b.other_epsilon, b.other_delta, 0, 0, NULL,
                                          b.sampler_distance);
        RETURN QUERY SELECT 'over_budget', format(
            'privacy budget exceeded for role %s on dataset "%s": %s requests epsilon %s, delta %s%s; '
            'remaining under %s accounting: epsilon %s, delta %s',
            p_role::regrole, p_dataset, p_mechanism, p_epsilon, p_delta,
            CASE WHEN p_rho IS NULL THEN '' ELSE format(' (rho %s)', p_rho) END, b.accounting,
            now_.epsilon_remaining, now_.delta_remaining), NULL::bigint;
        RETURN;
    END IF;
    INSERT INTO @extschema@.ledger (role, dataset, mechanism, parameters, epsilon, delta, rho, guarantee,
                                   non_private, accounting, backend_pid)
        VALUES (p_role::regrole, p_dataset, p_mechanism, coalesce(p_parameters, '{}'), p_epsilon::numeric,
                p_delta::numeric, p_rho::numeric, p_guarantee, coalesce(p_non_private, false), b.accounting, p_pid)
        RETURNING ledger.id INTO id;
    UPDATE @extschema@.budgets bb
        SET spent_epsilon = after.new_spent_epsilon, spent_delta = after.new_spent_delta,
            spent_rho = after.new_spent_rho, other_epsilon = after.new_other_epsilon,
            other_delta = after.new_other_delta, sampler_distance = after.new_sampler_distance,
            releases = bb.releases + 1
        WHERE bb.dataset = p_dataset AND bb.role = p_role;
    RETURN QUERY SELECT 'charged', NULL::text, id;
END $$;
COMMENT ON FUNCTION @extschema@._apply_charge(text, oid, text, jsonb, float8, float8, float8, text, boolean, integer,
                                             float8) IS
    'Internal: checks and records one charge under the budget row lock; run only by the charge worker. '
    'Privacy: the single place where budgets are spent.';

CREATE FUNCTION @extschema@.charge_budget(dataset text, mechanism text, epsilon float8, delta float8 DEFAULT 0,
                                          rho float8 DEFAULT NULL, parameters jsonb DEFAULT '{}',
                                          guarantee text DEFAULT 'dp', non_private boolean DEFAULT false)
    RETURNS bigint AS 'MODULE_PATHNAME', 'gazepriv_charge_budget' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.charge_budget(text, text, float8, float8, float8, jsonb, text, boolean) IS
    'Charges the calling role''s budget on a dataset for a release made by other means and returns the ledger id. '
    'The charge is committed by the database''s charge worker in its own transaction before this returns: a later '
    'ROLLBACK, error or cancel does not refund it. Over budget: ERROR PB001; no budget: PB002; refused here '
    '(parallel worker, Citus shard query): PB003; worker unavailable or failed: PB004; the budget row stayed '
    'locked by another transaction for gazepriv.charge_timeout: 55P03 (uncharged); parameters over 4 kB: 54000. '
    'Privacy: spends budget; releases nothing.';
REVOKE ALL ON FUNCTION @extschema@.charge_budget(text, text, float8, float8, float8, jsonb, text, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.charge_budget(text, text, float8, float8, float8, jsonb, text, boolean)
    TO gazepriv_curator;

CREATE FUNCTION @extschema@.preview_cost(dataset text, epsilon float8, delta float8 DEFAULT 0, rho float8 DEFAULT NULL)
    RETURNS TABLE (accounting text, epsilon_remaining float8, delta_remaining numeric,
                   epsilon_remaining_after float8, delta_remaining_after numeric, allowed boolean)
    LANGUAGE sql STABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
    SELECT s.accounting, s.epsilon_remaining, s.delta_remaining, a.epsilon_remaining, a.delta_remaining,
           a.allowed AND NOT s.revoked
    FROM @extschema@.budget_status s,
         LATERAL @extschema@.budget_after(s.accounting, s.epsilon_limit, s.delta_limit, s.basic_epsilon_spent,
                                           s.basic_delta_spent, s.zcdp_rho_spent, s.zcdp_other_epsilon,
                                           s.zcdp_other_delta, $2, $3, $4, s.zcdp_sampler_distance) a
    WHERE s.dataset = $1 AND s.role = current_user::regrole
$$;
COMMENT ON FUNCTION @extschema@.preview_cost(text, float8, float8, float8) IS
    'What a release costing (epsilon, delta, rho) would leave of the calling role''s budget on a dataset, and '
    'whether it would be allowed, without charging. Release functions have their own preview overloads that '
    'compute the cost from their parameters. Privacy: reads budgets, releases nothing.';

-- Releases for analysts -------------------------------------------------------------------------------

CREATE FUNCTION @extschema@.release_count(dataset text, epsilon float8, stimulus bigint DEFAULT NULL)
    RETURNS bigint LANGUAGE plpgsql VOLATILE PARALLEL RESTRICTED SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    d @extschema@.datasets;
    n bigint;
BEGIN
    SELECT * INTO d FROM @extschema@.datasets ds WHERE ds.name = release_count.dataset;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'dataset "%" is not registered', dataset USING ERRCODE = '22023';
    END IF;
    IF epsilon IS NULL OR epsilon = 'NaN' OR epsilon <= 0 OR epsilon = 'Infinity' THEN  -- NaN > 0 in SQL
        RAISE EXCEPTION 'epsilon must be a finite number greater than 0, got %', epsilon USING ERRCODE = '22023';
    END IF;
    IF stimulus IS NOT NULL AND d.stimulus_column IS NULL THEN
        RAISE EXCEPTION 'dataset "%" has no stimulus column', dataset USING ERRCODE = '22023';
    END IF;
    -- Charge first: nothing below runs unless the charge is committed.
    PERFORM @extschema@.charge_budget(dataset, 'release_count', epsilon,
                                      parameters => jsonb_build_object('epsilon', epsilon, 'stimulus', stimulus));
    EXECUTE format('SELECT count(DISTINCT %I) FROM %s WHERE %s', d.participant_column, d.relation,
                   CASE WHEN stimulus IS NULL THEN 'true' ELSE format('%I = $1', d.stimulus_column) END)
        INTO n USING stimulus;
    RETURN n + @extschema@.discrete_laplace_noise(1 / epsilon);
END $$;
COMMENT ON FUNCTION @extschema@.release_count(text, float8, bigint) IS
    'Analyst release: the number of participants in a dataset (optionally those with data on one stimulus) plus '
    'exact discrete Laplace noise of scale 1/epsilon. Privacy: epsilon-DP under add/remove-one-participant '
    '(sensitivity 1); charges epsilon (rho = epsilon^2/2 under zCDP) to the caller''s budget before drawing noise.';
REVOKE ALL ON FUNCTION @extschema@.release_count(text, float8, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.release_count(text, float8, bigint) TO gazepriv_analyst, gazepriv_curator;
