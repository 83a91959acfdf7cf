-- The privacy budget and the trust boundary: registered datasets and their owners, per-role budgets of each
-- guarantee kind, the append-only ledger, release policies, stored releases, and the charge.
--
-- Who can do what (README, "Privacy budgets and analysts"):
--   curators (members of gazepriv_curator, and superusers) register relations they own; on the datasets they
--   own they grant and revoke budgets, set release policies, reset served-once releases, drop the dataset
--   and charge releases they make from raw data; they read only their own datasets' catalog rows (row-level
--   security). Nobody writes the catalog tables directly: the curator functions are one C function that
--   switches to the catalog's owner and calls the internal _name(caller, ...) (src/pg/budget/
--   catalog_functions.cpp), and charges are written by the charge worker.
--   analysts (members of gazepriv_analyst) cannot read the registered relations; they release through the
--   release functions, one C function (src/pg/budget/analyst_release.cpp) that charges the role whose
--   privileges run the call and reads the relation as its owner, with what defines the guarantee taken from
--   the owner's release policy; they see their own rows of budget_status and, through the my_* views
--   (90_analyst_views.sql), the public facts and policies of their datasets, their ledger rows and their stored
--   releases. Every analyst release is kept in the release store (releases) and returned from it; a repeat
--   within the dataset's freshness window (set_release_freshness) is served from it, uncharged.
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
    name text PRIMARY KEY CHECK (name <> '' AND octet_length(name) < 256),
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
    registered_at timestamptz NOT NULL DEFAULT now(),
    owner regrole NOT NULL
);
COMMENT ON TABLE @extschema@.datasets IS
    'Registered datasets: a table or view whose participant column is the privacy unit, the columns the release '
    'functions read, and public facts about it (observers = the public number of participants; bounds = public '
    'value ranges as JSON); owner is the relation''s owner at registration: it manages the dataset, and releases '
    'read the relation with its rights. Privacy: public facts must be public: never derive them from the data. '
    'Written only by the curator functions; curators read the rows of datasets they own.';

CREATE TABLE @extschema@.budgets (
    dataset text NOT NULL REFERENCES @extschema@.datasets (name) ON UPDATE CASCADE,
    role regrole NOT NULL,
    kind text NOT NULL DEFAULT 'dp' CHECK (kind IN ('dp', 'w-event', 'record-dp')),
    epsilon_limit numeric NOT NULL CHECK (epsilon_limit >= 0),
    delta_limit numeric NOT NULL CHECK (delta_limit >= 0 AND delta_limit < 1),
    accounting text NOT NULL CHECK (accounting IN ('basic', 'zcdp')),
    -- Running totals, written only by the charge worker; the ledger holds every term.
    spent_epsilon numeric NOT NULL DEFAULT 0 CHECK (spent_epsilon >= 0), -- basic composition: sum of epsilon
    spent_delta numeric NOT NULL DEFAULT 0 CHECK (spent_delta >= 0),     -- basic composition: sum of delta
    spent_rho numeric NOT NULL DEFAULT 0 CHECK (spent_rho >= 0),         -- zCDP: sum of rho (Gaussian rho, or
                                                                         -- epsilon^2/2 for pure DP)
    other_epsilon numeric NOT NULL DEFAULT 0 CHECK (other_epsilon >= 0), -- zCDP: approximate-DP releases with no
    other_delta numeric NOT NULL DEFAULT 0 CHECK (other_delta >= 0),     -- zCDP form
    sampler_distance numeric NOT NULL DEFAULT 0 CHECK (sampler_distance >= 0), -- zCDP: see budget_after
    releases bigint NOT NULL DEFAULT 0 CHECK (releases >= 0),
    revoked boolean NOT NULL DEFAULT false,
    granted_by regrole NOT NULL,
    granted_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (dataset, role, kind),
    CHECK (accounting = 'basic' OR delta_limit > 0)
);
COMMENT ON TABLE @extschema@.budgets IS
    'Privacy budget of each role on each dataset, per guarantee kind it buys (dp: participant-level releases, and '
    'the log of k-anonymity and plausible-deniability releases; w-event: Kaleido streams, epsilon per window; '
    'record-dp: releases protecting one record, the randomized PD test): limits, the accounting enforced (basic: '
    'sums of epsilon and delta; zcdp: Gaussian releases add rho = l2^2/(2 sigma^2), pure epsilon-DP releases add '
    'epsilon^2/2, the total is converted to (epsilon, delta) by Canonne-Kamath-Steinke; table-sampled Gaussian '
    'releases also add their statistical distance from the exact sampler, sampler_distance), and running totals '
    'under both. Privacy: totals only ever grow (constraints keep them non-negative); revoking stops further releases; '
    'a kind is bought only with a budget of that kind, granted explicitly.';

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
    'Append-only record of every charged release: when, who (the role whose privileges ran it), which dataset and '
    'mechanism, its parameters, its epsilon, delta and (for Gaussian releases) rho, its guarantee kind (dp: '
    'participant-level; w-event: epsilon per window of w samples of a stream; record-dp: epsilon per record, e.g. '
    'one feature vector; k-anonymity and plausible-deniability: logged, no epsilon) and whether any choice in it '
    'was non-private; and the owners'' deliberate acts (reset_release, drop_dataset; accounting none). Privacy: '
    'charges are written only by the charge worker, committed before the release reads its data.';

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

CREATE TABLE @extschema@.release_policies (
    dataset text NOT NULL REFERENCES @extschema@.datasets (name) ON UPDATE CASCADE,
    mechanism text NOT NULL CHECK (mechanism IN ('heatmap', 'kaleido', 'k_same_select', 'k_same_synth', 'pd', 'series',
                                                 'event_synth')),
    policy jsonb NOT NULL CHECK (jsonb_typeof(policy) = 'object'),
    set_by regrole NOT NULL,
    set_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (dataset, mechanism)
);
COMMENT ON TABLE @extschema@.release_policies IS
    'What defines each mechanism''s guarantee on a dataset, set by its owner with set_release_policy (validated, '
    'defaults filled in): heatmap {cap}; kaleido {w, r, l_thresh, t_skip, h, max_tests}; k_same_select {k, '
    'across_tasks}; k_same_synth {k, across_tasks, sampling_rate_hz}; pd {k, gamma, bins, model, omega, resample, test, epsilon0, t, target_delta, model_epsilon, '
    'alpha, split, max_attempts, records, include_failed} with the dataset''s public feature bounds; series '
    '{methods, length, recordings} with its public feature bounds; event_synth {k, gamma, model, sampling_rate_hz, '
    'max_attempts} with a saccade model of the dataset. Analyst releases take the rest (epsilon, delta, '
    'which stimulus or participant, grid, chunk) and are refused without a policy. Privacy: parameters only.';

-- A gaze heatmap (its functions are in 30_heatmap.sql); defined here because the release store keeps
-- release_heatmap's maps in this type rather than as JSON numbers.
CREATE TYPE @extschema@.heatmap AS (
    width int4, height int4, cell_size int4, columns int4, rows int4, "values" float8[], n int8, cap int4,
    mechanism text, calibration text, epsilon float8, delta float8, rho float8, sigma float8, scale float8,
    blur_sigma float8);
COMMENT ON TYPE @extschema@.heatmap IS
    'A gaze heatmap: values (float8[], rows x columns, row-major; cell (c, r) covers pixels [c*cell_size, '
    '(c+1)*cell_size) x [r*cell_size, (r+1)*cell_size)) hold the capped count sum divided by n, plus how it was '
    'made: mechanism (none for exact maps), calibration, epsilon, delta, rho (zCDP), sigma (Gaussian) or scale '
    '(Laplace) of the noise per cell of values, blur_sigma in pixels. Privacy: as stated by its fields; '
    'mechanism none means exact and NOT private.';
COMMENT ON TYPE @extschema@.heatmap[] IS 'Array of heatmap. Privacy: as stated by each element''s fields.';

-- The release store: every release made through an analyst release function (by an analyst or a curator) is
-- kept with the ledger row that charged it, its result as rows (a jsonb array of objects, one per result row;
-- a function returning one value is one row {"value": ...}) or, for release_heatmap, as the map itself (column
-- heatmap: millions of floats as JSON numbers cost seconds to convert and back, and stored typed they are
-- exact), and is returned from here, so that the caller and every later reader see the same values. Re-reading it (the my_* views) costs nothing: a release is public to
-- whoever received it. The served-once releases (k-same-select and deterministic plausible deniability) are
-- the ones every analyst is served.
CREATE TABLE @extschema@.releases (
    ledger_id bigint PRIMARY KEY,  -- the ledger row that charged it (no foreign key: the ledger is append-only)
    dataset text NOT NULL,
    mechanism text NOT NULL,
    role regrole NOT NULL,
    parameters jsonb NOT NULL,
    served_once text,
    result jsonb CHECK (jsonb_typeof(result) = 'array'),
    heatmap @extschema@.heatmap,  -- release_heatmap's map, its one row (result is then NULL)
    stored_at timestamptz NOT NULL DEFAULT now(),
    -- The call that made it: {"function": name, "arguments": [...]} (the key of a free repeat).
    request jsonb,
    CHECK (num_nulls(result, heatmap) = 1)  -- not IS NULL: a map with NULL fields IS NULL neither way
);
-- A map's noisy floats compress little: on a 1920x1080 map (16 MB) the default pglz took about 1 s to save
-- 55 %, lz4 saves 46 % in less time than writing it uncompressed (README, "Cost."); without lz4 in the server,
-- uncompressed.
DO $$
BEGIN
    ALTER TABLE @extschema@.releases ALTER COLUMN heatmap SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    ALTER TABLE @extschema@.releases ALTER COLUMN heatmap SET STORAGE EXTERNAL;
END $$;
CREATE UNIQUE INDEX releases_served_once ON @extschema@.releases (dataset, served_once) WHERE served_once IS NOT NULL;
CREATE INDEX releases_repeat ON @extschema@.releases (dataset, role, mechanism, stored_at);
COMMENT ON TABLE @extschema@.releases IS
    'The release store: every analyst release function''s result, kept with the ledger row that charged it: '
    'dataset, mechanism, the role charged, the parameters as charged, the call (request: function and arguments), '
    'the result (one JSON object per row; for release_heatmap NULL, and the map in heatmap, typed and exact). '
    'served_once names the release policy (k_same_select, k_same_synth, pd, event_synth) under which '
    'the release is the one every analyst receives until its owner resets it. A curator drops stored results with '
    'forget_releases (the ledger keeps the charge). Privacy: holds released values only; curators read their '
    'datasets'' rows, each role its own through the my_* views.';

-- How long a stored release is served again, for free, to the role that made it when it repeats the same call
-- with the same charged parameters (a dashboard refreshing): set per dataset by its owner; no row: never (every
-- call is a new release, charged).
CREATE TABLE @extschema@.release_freshness (
    dataset text PRIMARY KEY REFERENCES @extschema@.datasets (name) ON UPDATE CASCADE,
    fresh_for interval NOT NULL CHECK (fresh_for > '0'),
    set_by regrole NOT NULL,
    set_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE @extschema@.release_freshness IS
    'Per dataset, the window (fresh_for) within which a role repeating a release call with the same arguments and '
    'charged parameters receives its stored release again instead of a new one; set with set_release_freshness. '
    'Privacy: a repeat releases nothing new and is not charged; the data may have changed within the window.';

-- The secret of each dataset's served-once releases: their noise is drawn from it, so that computing one again
-- (after a rolled-back transaction lost the stored copy) gives the identical release. Readable by nobody but
-- the extension's owner; replaced by reset_release.
CREATE TABLE @extschema@.release_secrets (
    dataset text NOT NULL,
    mechanism text NOT NULL,
    secret bytea NOT NULL CHECK (octet_length(secret) >= 32),
    PRIMARY KEY (dataset, mechanism)
);
COMMENT ON TABLE @extschema@.release_secrets IS
    'Per dataset and served-once policy, the secret the release''s randomness is drawn from. Privacy: readable '
    'by the extension''s owner only.';

-- pg_dump keeps the rows of these tables (and the ledger's identity sequence).
SELECT pg_catalog.pg_extension_config_dump('@extschema@.datasets', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.budgets', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ledger', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ledger_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.release_policies', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.releases', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.release_secrets', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.release_freshness', '');

-- Nobody writes the catalog directly; curators read their own datasets' rows.
REVOKE ALL ON @extschema@.datasets, @extschema@.budgets, @extschema@.ledger, @extschema@.release_policies,
              @extschema@.releases, @extschema@.release_secrets, @extschema@.release_freshness FROM PUBLIC;
GRANT SELECT ON @extschema@.datasets, @extschema@.budgets, @extschema@.ledger, @extschema@.release_policies,
                @extschema@.releases, @extschema@.release_freshness TO gazepriv_curator;
ALTER TABLE @extschema@.datasets ENABLE ROW LEVEL SECURITY;
ALTER TABLE @extschema@.budgets ENABLE ROW LEVEL SECURITY;
ALTER TABLE @extschema@.ledger ENABLE ROW LEVEL SECURITY;
ALTER TABLE @extschema@.release_policies ENABLE ROW LEVEL SECURITY;
ALTER TABLE @extschema@.releases ENABLE ROW LEVEL SECURITY;
ALTER TABLE @extschema@.release_freshness ENABLE ROW LEVEL SECURITY;
-- A dataset belongs to its relation's owner (ALTER TABLE ... OWNER TO hands it over), or to the owner it was
-- registered with once the relation is gone; the same rule is in _dataset() and budget_status.
CREATE POLICY owners_read ON @extschema@.datasets FOR SELECT USING (pg_catalog.pg_has_role(
    coalesce((SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = relation), owner), 'USAGE'));
CREATE POLICY owners_read ON @extschema@.budgets FOR SELECT
    USING (EXISTS (SELECT FROM @extschema@.datasets d WHERE d.name = dataset));
CREATE POLICY owners_read ON @extschema@.ledger FOR SELECT
    USING (EXISTS (SELECT FROM @extschema@.datasets d WHERE d.name = dataset));
CREATE POLICY owners_read ON @extschema@.release_policies FOR SELECT
    USING (EXISTS (SELECT FROM @extschema@.datasets d WHERE d.name = dataset));
CREATE POLICY owners_read ON @extschema@.releases FOR SELECT
    USING (EXISTS (SELECT FROM @extschema@.datasets d WHERE d.name = dataset));
CREATE POLICY owners_read ON @extschema@.release_freshness FOR SELECT
    USING (EXISTS (SELECT FROM @extschema@.datasets d WHERE d.name = dataset));

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
    ELSIF delta_limit - zcdp_delta <= 0 OR new_spent_rho > 1e300 THEN  -- no room, or rho beyond float8
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
SELECT b.dataset, b.role, b.kind, b.accounting, b.epsilon_limit, b.delta_limit,
       b.spent_epsilon AS basic_epsilon_spent, b.spent_delta AS basic_delta_spent,
       b.spent_rho AS zcdp_rho_spent, a.zcdp_epsilon_spent,
       b.other_epsilon AS zcdp_other_epsilon, b.other_delta AS zcdp_other_delta,
       b.sampler_distance AS zcdp_sampler_distance,
       a.epsilon_spent, a.epsilon_remaining, a.delta_remaining, b.releases, b.revoked
FROM @extschema@.budgets b JOIN @extschema@.datasets d ON d.name = b.dataset
     LEFT JOIN pg_catalog.pg_class c ON c.oid = d.relation,
     LATERAL @extschema@.budget_after(b.accounting, b.epsilon_limit, b.delta_limit, b.spent_epsilon, b.spent_delta,
                                       b.spent_rho, b.other_epsilon, b.other_delta, 0, 0, NULL,
                                       b.sampler_distance) a
WHERE pg_catalog.pg_has_role(b.role, 'MEMBER') OR pg_catalog.pg_has_role(coalesce(c.relowner, d.owner), 'USAGE');
COMMENT ON VIEW @extschema@.budget_status IS
    'Each role''s budgets, per guarantee kind (a dataset''s owner sees all of its dataset''s): limits; spending '
    'under basic composition (sums of epsilon and delta) and under zCDP (sum of rho from Gaussian and pure-DP '
    'releases, converted by Canonne-Kamath-Steinke at the delta left by approximate-DP releases without a zCDP '
    'form, zcdp_other_*, and by the table samplers'' statistical distance, zcdp_sampler_distance, times '
    '1 + e^epsilon_limit); what remains under the accounting the budget enforces (epsilon_spent: basic under '
    'basic; the smaller valid bound under zcdp). Privacy: shows spending, never data.';
GRANT SELECT ON @extschema@.budget_status TO PUBLIC;

-- Internal helpers ---------------------------------------------------------------------------------------

-- The budget a charge of this guarantee is bought with: a w-event release from a w-event budget, a
-- record-level epsilon (the randomized PD test; a DP model of a plausibly deniable release) from a record-dp
-- budget, everything else from the participant-level dp budget (k-anonymity and PD releases log 0 there).
CREATE FUNCTION @extschema@._budget_kind(guarantee text, epsilon float8) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURN
    CASE WHEN guarantee = 'w-event' THEN 'w-event'
         WHEN guarantee = 'record-dp' OR (guarantee = 'plausible-deniability' AND epsilon > 0) THEN 'record-dp'
         ELSE 'dp' END;
COMMENT ON FUNCTION @extschema@._budget_kind(text, float8) IS
    'Internal: the budget kind (dp, w-event, record-dp) that pays for a charge of this guarantee kind. Privacy: a '
    'participant-level budget never pays for a narrower guarantee.';

-- A registered dataset with its owner: its relation's current owner (ALTER TABLE ... OWNER TO hands the dataset
-- over), or the owner it was registered with once the relation is gone. NULL when not registered.
CREATE FUNCTION @extschema@._dataset(name text) RETURNS @extschema@.datasets
    LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    d @extschema@.datasets;
BEGIN
    SELECT * INTO d FROM @extschema@.datasets ds WHERE ds.name = _dataset.name;
    d.owner := coalesce((SELECT c.relowner::regrole FROM pg_class c WHERE c.oid = d.relation), d.owner);
    RETURN d;
END $$;
COMMENT ON FUNCTION @extschema@._dataset(text) IS
    'Internal: a registered dataset with its effective owner (the relation''s owner). Privacy: none.';

-- A dataset the caller owns (has the privileges of its owner; superusers do), or ERROR.
CREATE FUNCTION @extschema@._owned_dataset(caller regrole, dataset text) RETURNS @extschema@.datasets
    LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    d @extschema@.datasets := @extschema@._dataset(dataset);
BEGIN
    IF d.name IS NULL THEN
        RAISE EXCEPTION 'dataset "%" is not registered', dataset USING ERRCODE = '22023';
    END IF;
    IF NOT pg_has_role(caller, d.owner, 'USAGE') THEN
        RAISE EXCEPTION 'must be owner of dataset "%"', dataset USING ERRCODE = '42501',
            DETAIL = format('Dataset "%s" belongs to role %s.', dataset, d.owner);
    END IF;
    RETURN d;
END $$;
COMMENT ON FUNCTION @extschema@._owned_dataset(regrole, text) IS
    'Internal: the dataset if the caller has its owner''s privileges, else ERROR 42501 (22023 if not registered). '
    'Privacy: the ownership check of every curator function.';

-- Refuses keys a policy does not know and requires the ones it needs.
CREATE FUNCTION @extschema@._policy_keys(mechanism text, policy jsonb, allowed text[], required text[])
    RETURNS void LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    k text;
BEGIN
    FOR k IN SELECT jsonb_object_keys(policy) LOOP
        IF NOT k = ANY (allowed) THEN
            RAISE EXCEPTION 'unknown key "%" in a % policy: expected %', k, mechanism, array_to_string(allowed, ', ')
                USING ERRCODE = '22023';
        END IF;
    END LOOP;
    FOREACH k IN ARRAY required LOOP
        IF policy -> k IS NULL OR jsonb_typeof(policy -> k) = 'null' THEN
            RAISE EXCEPTION 'a % policy needs "%"', mechanism, k USING ERRCODE = '22023';
        END IF;
    END LOOP;
END $$;
COMMENT ON FUNCTION @extschema@._policy_keys(text, jsonb, text[], text[]) IS
    'Internal: ERROR 22023 for a policy key the mechanism does not know or a required one missing. Privacy: none.';

-- A policy value that must be a whole number of at least 1 (NULL when absent).
CREATE FUNCTION @extschema@._policy_count(mechanism text, policy jsonb, key text) RETURNS int4
    LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    v jsonb := policy -> key;
BEGIN
    IF v IS NULL OR jsonb_typeof(v) = 'null' THEN
        RETURN NULL;
    END IF;
    IF jsonb_typeof(v) <> 'number' OR v::text::numeric <> trunc(v::text::numeric)
       OR v::text::numeric < 1 OR v::text::numeric > 2147483647 THEN
        RAISE EXCEPTION 'the % policy''s % must be a whole number of at least 1, got %', mechanism, key, v
            USING ERRCODE = '22023';
    END IF;
    RETURN v::text::numeric::int4;
END $$;
COMMENT ON FUNCTION @extschema@._policy_count(text, jsonb, text) IS
    'Internal: a whole number of at least 1 from a policy, or ERROR 22023. Privacy: none.';

-- A policy value that must be a finite number (NULL when absent).
CREATE FUNCTION @extschema@._policy_number(mechanism text, policy jsonb, key text) RETURNS float8
    LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    v jsonb := policy -> key;
BEGIN
    IF v IS NULL OR jsonb_typeof(v) = 'null' THEN
        RETURN NULL;
    END IF;
    IF jsonb_typeof(v) <> 'number' THEN
        RAISE EXCEPTION 'the % policy''s % must be a number, got %', mechanism, key, v USING ERRCODE = '22023';
    END IF;
    RETURN v::text::float8;
END $$;
COMMENT ON FUNCTION @extschema@._policy_number(text, jsonb, text) IS
    'Internal: a number from a policy, or ERROR 22023. Privacy: none.';

-- The dataset's public feature bounds {"features": [[lower, upper], ...]} as float8[][], or NULL.
CREATE FUNCTION @extschema@._feature_bounds(d @extschema@.datasets) RETURNS float8[]
    LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT CASE WHEN jsonb_typeof(d.bounds -> 'features') = 'array' THEN
        (SELECT array_agg(ARRAY[(e ->> 0)::float8, (e ->> 1)::float8] ORDER BY i)
         FROM jsonb_array_elements(d.bounds -> 'features') WITH ORDINALITY AS b(e, i)) END
$$;
COMMENT ON FUNCTION @extschema@._feature_bounds(@extschema@.datasets) IS
    'Internal: the registered public bounds of a dataset''s features, one [lower, upper] row each. Privacy: '
    'public facts.';

-- Curator functions: one C function, SECURITY INVOKER, that calls _name(caller, ...) as the catalog's owner --

CREATE FUNCTION @extschema@.register_dataset(
        name text, relation regclass, participant_column name,
        stimulus_column name DEFAULT NULL, time_column name DEFAULT NULL,
        x_column name DEFAULT NULL, y_column name DEFAULT NULL,
        task_column name DEFAULT NULL, window_column name DEFAULT NULL, features_column name DEFAULT NULL,
        observers bigint DEFAULT NULL, bounds jsonb DEFAULT NULL, description text DEFAULT NULL)
    RETURNS void AS 'MODULE_PATHNAME', 'gazepriv_catalog_function' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.register_dataset(text, regclass, name, name, name, name, name, name, name, name,
                                                bigint, jsonb, text) IS
    'Curator: declares a permanent table or view it owns (or any, as a superuser) as a dataset whose participant '
    'column is the privacy unit, names the columns release functions read, records public facts (observers = '
    'public number of participants, bounds), and revokes the raw rows from PUBLIC and gazepriv_analyst. The '
    'dataset belongs to the relation''s owner, whose rights read it in releases. ERROR 42501 for a relation the '
    'caller does not own, 22023 for a temporary one. Privacy: releases nothing.';

CREATE FUNCTION @extschema@._register_dataset(
        caller regrole, name text, relation regclass, participant_column name, stimulus_column name,
        time_column name, x_column name, y_column name, task_column name, window_column name,
        features_column name, observers bigint, bounds jsonb, description text)
    RETURNS void LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    col name;
    rel record;
BEGIN
    IF name IS NULL OR name = '' OR octet_length(name) > 255 THEN
        RAISE EXCEPTION 'a dataset name must have 1 to 255 bytes' USING ERRCODE = '22023';
    END IF;
    IF relation IS NULL OR participant_column IS NULL THEN
        RAISE EXCEPTION 'relation and participant_column are required' USING ERRCODE = '22023';
    END IF;
    SELECT c.relowner, c.relpersistence, c.relkind INTO rel FROM pg_class c WHERE c.oid = relation;
    IF rel.relpersistence = 't' THEN
        RAISE EXCEPTION 'relation % is temporary: a dataset''s relation must be permanent', relation
            USING ERRCODE = '22023';
    END IF;
    IF rel.relkind NOT IN ('r', 'p', 'v', 'm', 'f') THEN
        RAISE EXCEPTION '% is not a table, view, materialized view or foreign table', relation USING ERRCODE = '22023';
    END IF;
    IF NOT pg_has_role(caller, rel.relowner, 'USAGE') THEN
        RAISE EXCEPTION 'must be owner of relation % to register it', relation USING ERRCODE = '42501',
            HINT = 'Its owner registers it, or a superuser; the dataset then belongs to the relation''s owner.';
    END IF;
    IF observers IS NOT NULL AND observers < 1 THEN
        RAISE EXCEPTION 'observers must be at least 1, got %', observers USING ERRCODE = '22023';
    END IF;
    IF EXISTS (SELECT FROM @extschema@.datasets d WHERE d.name = _register_dataset.name) THEN
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
    -- Analysts must not read the raw rows (issued by a superuser, the REVOKE acts as the owner's).
    EXECUTE format('REVOKE ALL ON %s FROM PUBLIC, gazepriv_analyst', relation);
    INSERT INTO @extschema@.datasets (name, relation, participant_column, stimulus_column, time_column, x_column,
                                      y_column, task_column, window_column, features_column, observers, bounds,
                                      description, registered_by, registered_at, owner)
        VALUES (name, relation, participant_column, stimulus_column, time_column, x_column, y_column,
                task_column, window_column, features_column, observers, bounds, description, caller, now(),
                rel.relowner::regrole);
END $$;
COMMENT ON FUNCTION @extschema@._register_dataset(regrole, text, regclass, name, name, name, name, name, name,
                                                 name, name, bigint, jsonb, text) IS
    'Internal: register_dataset for the caller, run as the catalog''s owner. Privacy: releases nothing.';

CREATE FUNCTION @extschema@.grant_budget(dataset text, role regrole, epsilon float8, delta float8 DEFAULT 0,
                                         accounting text DEFAULT 'zcdp', kind text DEFAULT 'dp')
    RETURNS void AS 'MODULE_PATHNAME', 'gazepriv_catalog_function' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.grant_budget(text, regrole, float8, float8, text, text) IS
    'Curator, on a dataset it owns: gives a role a privacy budget (epsilon, delta) of a guarantee kind (dp: '
    'participant-level, the default; w-event: Kaleido streams; record-dp: the randomized PD test), enforced by '
    'basic composition or by zCDP (default). Granting again changes the limits; spending is never refunded. A '
    'kind is bought only with its own budget. Privacy: releases nothing.';

CREATE FUNCTION @extschema@._grant_budget(caller regrole, dataset text, role regrole, epsilon float8, delta float8,
                                          accounting text, kind text)
    RETURNS void LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM @extschema@._owned_dataset(caller, dataset);
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
    IF kind IS NULL OR kind NOT IN ('dp', 'w-event', 'record-dp') THEN
        RAISE EXCEPTION 'unknown budget kind "%": expected dp, w-event or record-dp', kind USING ERRCODE = '22023';
    END IF;
    -- Re-granting changes the limits; what was spent stays spent.
    INSERT INTO @extschema@.budgets AS b (dataset, role, kind, epsilon_limit, delta_limit, accounting, granted_by)
        VALUES (dataset, role, kind, epsilon::numeric, delta::numeric, accounting, caller)
    ON CONFLICT ON CONSTRAINT budgets_pkey DO UPDATE
        SET epsilon_limit = excluded.epsilon_limit, delta_limit = excluded.delta_limit,
            accounting = excluded.accounting, revoked = false, granted_by = excluded.granted_by, granted_at = now();
END $$;
COMMENT ON FUNCTION @extschema@._grant_budget(regrole, text, regrole, float8, float8, text, text) IS
    'Internal: grant_budget for the caller, run as the catalog''s owner. Privacy: releases nothing.';

CREATE FUNCTION @extschema@.revoke_budget(dataset text, role regrole, kind text DEFAULT NULL) RETURNS void
    AS 'MODULE_PATHNAME', 'gazepriv_catalog_function' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.revoke_budget(text, regrole, text) IS
    'Curator, on a dataset it owns: stops a role''s further releases of one budget kind (or, with kind NULL, of '
    'every kind); the record of what it spent stays. Privacy: releases nothing.';

CREATE FUNCTION @extschema@._revoke_budget(caller regrole, dataset text, role regrole, kind text) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM @extschema@._owned_dataset(caller, dataset);
    UPDATE @extschema@.budgets b SET revoked = true
    WHERE b.dataset = _revoke_budget.dataset AND b.role = _revoke_budget.role
      AND (_revoke_budget.kind IS NULL OR b.kind = _revoke_budget.kind);
    IF NOT FOUND THEN
        RAISE EXCEPTION 'role % has no % budget on dataset "%"', role, coalesce(kind, 'privacy'), dataset
            USING ERRCODE = '22023';
    END IF;
END $$;
COMMENT ON FUNCTION @extschema@._revoke_budget(regrole, text, regrole, text) IS
    'Internal: revoke_budget for the caller, run as the catalog''s owner. Privacy: releases nothing.';

CREATE FUNCTION @extschema@.set_release_policy(dataset text, mechanism text, policy jsonb) RETURNS void
    AS 'MODULE_PATHNAME', 'gazepriv_catalog_function' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.set_release_policy(text, text, jsonb) IS
    'Curator, on a dataset it owns: sets what defines the guarantee of a mechanism''s analyst releases (table '
    'release_policies lists the keys per mechanism: heatmap, kaleido, k_same_select, k_same_synth, pd, series, '
    'event_synth), '
    'validated, with '
    'defaults filled in; a NULL policy removes it (analysts are then refused). A served-once release (k_same_select, '
    'k_same_synth, deterministic pd, event_synth) must be reset before its policy changes (ERROR 55000). Privacy: releases nothing; the '
    'policy decides what analysts'' releases protect.';

CREATE FUNCTION @extschema@._set_release_policy(caller regrole, dataset text, mechanism text, policy jsonb)
    RETURNS void LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    d @extschema@.datasets := @extschema@._owned_dataset(caller, dataset);
    normalized jsonb;
BEGIN
    IF mechanism IS NULL OR mechanism NOT IN ('heatmap', 'kaleido', 'k_same_select', 'k_same_synth', 'pd', 'series',
                                              'event_synth') THEN
        RAISE EXCEPTION
            'unknown mechanism "%": expected heatmap, kaleido, k_same_select, k_same_synth, pd, series or event_synth',
            mechanism USING ERRCODE = '22023';
    END IF;
    IF EXISTS (SELECT FROM @extschema@.releases r
               WHERE r.dataset = d.name AND r.served_once = _set_release_policy.mechanism) THEN
        RAISE EXCEPTION 'dataset "%" has a % release that every analyst is served: reset it first', d.name, mechanism
            USING ERRCODE = '55000',
                  HINT = 'A new policy would give a second release of the same data; see reset_release().';
    END IF;
    IF policy IS NULL THEN
        DELETE FROM @extschema@.release_policies p WHERE p.dataset = d.name AND p.mechanism = _set_release_policy.mechanism;
        RETURN;
    END IF;
    IF jsonb_typeof(policy) <> 'object' THEN
        RAISE EXCEPTION 'a release policy must be a JSON object' USING ERRCODE = '22023';
    END IF;
    EXECUTE format('SELECT @extschema@.%I($1, $2)', '_policy_' || mechanism) INTO normalized USING d, policy;
    INSERT INTO @extschema@.release_policies AS p (dataset, mechanism, policy, set_by)
        VALUES (d.name, mechanism, normalized, caller)
    ON CONFLICT ON CONSTRAINT release_policies_pkey DO UPDATE
        SET policy = excluded.policy, set_by = excluded.set_by, set_at = now();
    IF mechanism IN ('k_same_select', 'k_same_synth', 'pd', 'event_synth') THEN
        INSERT INTO @extschema@.release_secrets VALUES (d.name, mechanism, @extschema@._new_secret())
        ON CONFLICT DO NOTHING;
    END IF;
END $$;
COMMENT ON FUNCTION @extschema@._set_release_policy(regrole, text, text, jsonb) IS
    'Internal: set_release_policy for the caller, run as the catalog''s owner. Privacy: releases nothing.';

CREATE FUNCTION @extschema@._new_secret() RETURNS bytea
    AS 'MODULE_PATHNAME', 'gazepriv__new_secret' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@._new_secret() IS
    'Internal: 32 bytes from the operating system''s strong random source. Privacy: a secret; never shown.';

-- A curator's act on its dataset (reset, drop, forget) in the ledger: charges nothing, shows what was done.
CREATE FUNCTION @extschema@._record_act(caller regrole, dataset text, act text, parameters jsonb, guarantee text)
    RETURNS bigint LANGUAGE sql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
    INSERT INTO @extschema@.ledger (role, dataset, mechanism, parameters, epsilon, delta, guarantee, non_private,
                                   accounting, backend_pid)
    VALUES ($1, $2, $3, $4, 0, 0, $5, false, 'none', pg_backend_pid())
    RETURNING id
$$;
COMMENT ON FUNCTION @extschema@._record_act(regrole, text, text, jsonb, text) IS
    'Internal: the ledger row of a curator''s act on its dataset (epsilon and delta 0, accounting none); returns '
    'its id. Privacy: releases nothing.';

CREATE FUNCTION @extschema@.reset_release(dataset text, mechanism text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'gazepriv_catalog_function' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.reset_release(text, text) IS
    'Curator, on a dataset it owns: forgets the release every analyst is served for a mechanism that does not '
    'compose (k_same_select, k_same_synth, pd, event_synth) and draws a new secret, so that the next request makes a new release; returns '
    'the id of the ledger row that records the reset (mechanism reset_release, the mechanism and the release in '
    'its parameters). Privacy: a second release of the same data can be intersected with the first: reset '
    'deliberately, e.g. after the data changed.';

CREATE FUNCTION @extschema@._reset_release(caller regrole, dataset text, mechanism text) RETURNS bigint
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    d @extschema@.datasets := @extschema@._owned_dataset(caller, dataset);
    released bigint;
BEGIN
    IF mechanism IS NULL OR mechanism NOT IN ('k_same_select', 'k_same_synth', 'pd', 'event_synth') THEN
        RAISE EXCEPTION 'only k_same_select, k_same_synth, pd and event_synth releases are served once, not "%"',
            mechanism
            USING ERRCODE = '22023';
    END IF;
    DELETE FROM @extschema@.releases r WHERE r.dataset = d.name AND r.served_once = _reset_release.mechanism
        RETURNING r.ledger_id INTO released;
    UPDATE @extschema@.release_secrets s SET secret = @extschema@._new_secret()
        WHERE s.dataset = d.name AND s.mechanism = _reset_release.mechanism;
    RETURN @extschema@._record_act(caller, d.name, 'reset_release',
                                   jsonb_build_object('mechanism', mechanism, 'release', released),
                                   CASE WHEN mechanism IN ('k_same_select', 'k_same_synth') THEN 'k-anonymity'
                                        ELSE 'plausible-deniability' END);
END $$;
COMMENT ON FUNCTION @extschema@._reset_release(regrole, text, text) IS
    'Internal: reset_release for the caller, run as the catalog''s owner. Privacy: releases nothing.';

CREATE FUNCTION @extschema@.drop_dataset(name text) RETURNS void
    AS 'MODULE_PATHNAME', 'gazepriv_catalog_function' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.drop_dataset(text) IS
    'Curator, on a dataset it owns: unregisters it with its budgets, policies and stored releases; the ledger '
    'keeps every row and records the drop (mechanism drop_dataset). Privacy: registering the relation again '
    'starts budgets afresh: the ledger shows it.';

CREATE FUNCTION @extschema@._drop_dataset(caller regrole, name text) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    d @extschema@.datasets := @extschema@._owned_dataset(caller, name);
BEGIN
    DELETE FROM @extschema@.releases r WHERE r.dataset = d.name;
    DELETE FROM @extschema@.release_secrets s WHERE s.dataset = d.name;
    DELETE FROM @extschema@.release_policies p WHERE p.dataset = d.name;
    DELETE FROM @extschema@.release_freshness f WHERE f.dataset = d.name;
    DELETE FROM @extschema@.budgets b WHERE b.dataset = d.name;
    DELETE FROM @extschema@.datasets ds WHERE ds.name = d.name;
    PERFORM @extschema@._record_act(caller, d.name, 'drop_dataset', jsonb_build_object('relation', d.relation::text),
                                    'dp');
END $$;
COMMENT ON FUNCTION @extschema@._drop_dataset(regrole, text) IS
    'Internal: drop_dataset for the caller, run as the catalog''s owner. Privacy: releases nothing.';

CREATE FUNCTION @extschema@.set_release_freshness(dataset text, fresh_for interval) RETURNS void
    AS 'MODULE_PATHNAME', 'gazepriv_catalog_function' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.set_release_freshness(text, interval) IS
    'Curator, on a dataset it owns: within fresh_for of a stored release, the role that made it receives it again, '
    'uncharged, when it repeats the same release call with the same arguments (and the policy still gives the '
    'same charged parameters); NULL: every call is a new release (the default). ERROR 22023 for a window that is '
    'not positive or longer than 366 days. Privacy: a repeat releases nothing new; within the window a changed '
    'dataset is not seen.';

CREATE FUNCTION @extschema@._set_release_freshness(caller regrole, dataset text, fresh_for interval) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    d @extschema@.datasets := @extschema@._owned_dataset(caller, dataset);
BEGIN
    IF fresh_for IS NULL THEN
        DELETE FROM @extschema@.release_freshness f WHERE f.dataset = d.name;
        RETURN;
    END IF;
    IF fresh_for <= '0' OR fresh_for > '366 days' THEN
        RAISE EXCEPTION 'fresh_for must be positive and at most 366 days, got %', fresh_for USING ERRCODE = '22023';
    END IF;
    INSERT INTO @extschema@.release_freshness AS f (dataset, fresh_for, set_by) VALUES (d.name, fresh_for, caller)
    ON CONFLICT ON CONSTRAINT release_freshness_pkey DO UPDATE
        SET fresh_for = excluded.fresh_for, set_by = excluded.set_by, set_at = now();
END $$;
COMMENT ON FUNCTION @extschema@._set_release_freshness(regrole, text, interval) IS
    'Internal: set_release_freshness for the caller, run as the catalog''s owner. Privacy: releases nothing.';

CREATE FUNCTION @extschema@.forget_releases(dataset text, stored_before timestamptz DEFAULT NULL) RETURNS bigint
    AS 'MODULE_PATHNAME', 'gazepriv_catalog_function' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.forget_releases(text, timestamptz) IS
    'Curator, on a dataset it owns: drops the stored results of its releases (all, or those stored before '
    'stored_before), except the served-once ones (reset_release), and returns how many; the ledger keeps every '
    'charge and records the act (mechanism forget_releases). Privacy: a forgotten release stays released: its '
    'charge is never refunded, and a repeat is a new release, charged.';

CREATE FUNCTION @extschema@._forget_releases(caller regrole, dataset text, stored_before timestamptz) RETURNS bigint
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    d @extschema@.datasets := @extschema@._owned_dataset(caller, dataset);
    forgotten bigint;
BEGIN
    DELETE FROM @extschema@.releases r
    WHERE r.dataset = d.name AND r.served_once IS NULL AND (stored_before IS NULL OR r.stored_at < stored_before);
    GET DIAGNOSTICS forgotten = ROW_COUNT;
    PERFORM @extschema@._record_act(caller, d.name, 'forget_releases',
                                    jsonb_build_object('stored_before', stored_before, 'forgotten', forgotten), 'dp');
    RETURN forgotten;
END $$;
COMMENT ON FUNCTION @extschema@._forget_releases(regrole, text, timestamptz) IS
    'Internal: forget_releases for the caller, run as the catalog''s owner. Privacy: releases nothing.';

REVOKE ALL ON FUNCTION @extschema@.register_dataset(text, regclass, name, name, name, name, name, name, name, name,
                                                   bigint, jsonb, text),
                       @extschema@.grant_budget(text, regrole, float8, float8, text, text),
                       @extschema@.revoke_budget(text, regrole, text),
                       @extschema@.set_release_policy(text, text, jsonb),
                       @extschema@.reset_release(text, text),
                       @extschema@.set_release_freshness(text, interval),
                       @extschema@.forget_releases(text, timestamptz),
                       @extschema@.drop_dataset(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.register_dataset(text, regclass, name, name, name, name, name, name, name, name,
                                                      bigint, jsonb, text),
                          @extschema@.grant_budget(text, regrole, float8, float8, text, text),
                          @extschema@.revoke_budget(text, regrole, text),
                          @extschema@.set_release_policy(text, text, jsonb),
                          @extschema@.reset_release(text, text),
                          @extschema@.set_release_freshness(text, interval),
                          @extschema@.forget_releases(text, timestamptz),
                          @extschema@.drop_dataset(text) TO gazepriv_curator;

-- Charging ---------------------------------------------------------------------------------------------

-- Run by the charge worker (as the bootstrap superuser) in a transaction of its own.
CREATE FUNCTION @extschema@._apply_charge(p_dataset text, p_role oid, p_mechanism text, p_parameters jsonb,
                                          p_epsilon float8, p_delta float8, p_rho float8, p_guarantee text,
                                          p_non_private boolean, p_pid integer, p_sampler_distance float8)
    RETURNS TABLE (status text, message text, ledger_id bigint)
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    b @extschema@.budgets;
    budget_kind text;
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
    budget_kind := @extschema@._budget_kind(p_guarantee, p_epsilon);
    -- NOWAIT: a row locked by another transaction fails this charge alone (55P03, the caller tries again)
    -- instead of parking the worker that charges every dataset of the database.
    SELECT * INTO b FROM @extschema@.budgets bb
    WHERE bb.dataset = p_dataset AND bb.role = p_role AND bb.kind = budget_kind FOR UPDATE NOWAIT;
    IF NOT FOUND THEN  -- one answer whether or not the dataset exists
        RETURN QUERY SELECT 'no_budget', format('role %s has no %sprivacy budget on dataset "%s"', p_role::regrole,
                                                 CASE budget_kind WHEN 'dp' THEN '' ELSE budget_kind || ' ' END, p_dataset),
                            NULL::bigint;
        RETURN;
    END IF;
    IF b.revoked THEN
        RETURN QUERY SELECT 'no_budget', format('the %sprivacy budget of role %s on dataset "%s" was revoked',
                                                 CASE budget_kind WHEN 'dp' THEN '' ELSE budget_kind || ' ' END, p_role::regrole,
                                                 p_dataset), NULL::bigint;
        RETURN;
    END IF;
    after := @extschema@.budget_after(b.accounting, b.epsilon_limit, b.delta_limit, b.spent_epsilon, b.spent_delta,
                                       b.spent_rho, b.other_epsilon, b.other_delta, p_epsilon, p_delta, p_rho,
                                       b.sampler_distance, p_sampler_distance);
    IF NOT after.allowed THEN
        -- The requested amounts follow from the release's parameters and registered public facts only.
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
        WHERE bb.dataset = p_dataset AND bb.role = p_role AND bb.kind = budget_kind;
    RETURN QUERY SELECT 'charged', NULL::text, id;
END $$;
COMMENT ON FUNCTION @extschema@._apply_charge(text, oid, text, jsonb, float8, float8, float8, text, boolean, integer,
                                             float8) IS
    'Internal: checks and records one charge under the lock of the budget row of the kind the guarantee is '
    'bought with; run only by the charge worker. Privacy: the single place where budgets are spent.';

CREATE FUNCTION @extschema@.charge_budget(dataset text, mechanism text, epsilon float8, delta float8 DEFAULT 0,
                                          rho float8 DEFAULT NULL, parameters jsonb DEFAULT '{}',
                                          guarantee text DEFAULT 'dp', non_private boolean DEFAULT false)
    RETURNS bigint AS 'MODULE_PATHNAME', 'gazepriv_charge_budget' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.charge_budget(text, text, float8, float8, float8, jsonb, text, boolean) IS
    'Curator, on a dataset it owns (42501 otherwise): charges the calling role''s budget (of the kind the '
    'guarantee is bought with) for a release made by other means and returns the ledger id. The charge is '
    'committed by the database''s charge worker in its own transaction before this returns: a later ROLLBACK, '
    'error or cancel does not refund it. Over budget: ERROR PB001; no budget: PB002; refused here (parallel '
    'worker, Citus shard query): PB003; worker unavailable or failed: PB004; the budget row stayed locked by '
    'another transaction for gazepriv.charge_timeout: 55P03 (uncharged); parameters over 4 kB: 54000. '
    'Privacy: spends budget; releases nothing.';
REVOKE ALL ON FUNCTION @extschema@.charge_budget(text, text, float8, float8, float8, jsonb, text, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.charge_budget(text, text, float8, float8, float8, jsonb, text, boolean)
    TO gazepriv_curator;

CREATE FUNCTION @extschema@.preview_cost(dataset text, epsilon float8, delta float8 DEFAULT 0, rho float8 DEFAULT NULL,
                                         kind text DEFAULT 'dp')
    RETURNS TABLE (accounting text, epsilon_remaining float8, delta_remaining numeric,
                   epsilon_remaining_after float8, delta_remaining_after numeric, allowed boolean)
    LANGUAGE plpgsql STABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF epsilon IS NULL OR delta IS NULL OR kind IS NULL THEN
        RAISE EXCEPTION 'epsilon, delta and kind must not be NULL' USING ERRCODE = '22004';
    END IF;
    IF NOT (epsilon >= 0 AND epsilon < 'Infinity' AND delta >= 0 AND delta < 1
            AND (rho IS NULL OR (rho >= 0 AND rho < 'Infinity'))) THEN  -- NaN too: NaN >= 0 but not < Infinity
        RAISE EXCEPTION 'a cost is a finite epsilon >= 0, a delta in [0, 1) and a finite rho >= 0 (or NULL), got '
                        '(%, %, %)', epsilon, delta, rho USING ERRCODE = '22023';
    END IF;
    RETURN QUERY
    SELECT s.accounting, s.epsilon_remaining, s.delta_remaining, a.epsilon_remaining, a.delta_remaining,
           a.allowed AND NOT s.revoked
    FROM @extschema@.budget_status s,
         LATERAL @extschema@.budget_after(s.accounting, s.epsilon_limit, s.delta_limit, s.basic_epsilon_spent,
                                           s.basic_delta_spent, s.zcdp_rho_spent, s.zcdp_other_epsilon,
                                           s.zcdp_other_delta, $2, $3, $4, s.zcdp_sampler_distance) a
    WHERE s.dataset = $1 AND s.role = current_user::regrole AND s.kind = $5;
END $$;
COMMENT ON FUNCTION @extschema@.preview_cost(text, float8, float8, float8, text) IS
    'What a release costing (epsilon, delta, rho) would leave of the calling role''s budget of a kind (dp by '
    'default) on a dataset, and whether it would be allowed, without charging. Release functions have their own '
    'cost previews that compute the cost from their parameters. 22023 for a negative, NaN or infinite cost or a '
    'delta outside [0, 1); 22004 for NULL epsilon, delta or kind. Privacy: reads budgets, releases nothing.';

-- Releases for analysts: one C function, SECURITY INVOKER (src/pg/budget/analyst_release.cpp) -------------

-- What _plan_<release>(caller, arguments...) returns: the charge (the columns of release_cost and the
-- table sampler's distance), the role that
-- reads the data (the dataset's owner), the query that makes the release from the release function's own
-- arguments ($1..$n, the secret as $n+1), and for served-once releases their policy, the stored release when
-- there is one, and the secret.
CREATE TYPE @extschema@._release_plan AS (
    dataset text, reader regrole, mechanism text, guarantee text, epsilon float8, delta float8, rho float8,
    sampler_distance float8, non_private boolean, parameters jsonb, query text, served_once text, stored jsonb,
    secret bytea);
COMMENT ON TYPE @extschema@._release_plan IS
    'Internal: how an analyst release is charged and made. Privacy: holds a secret; never leaves the server.';

-- The dataset an analyst releases from, if the caller holds a budget of that kind on it: one answer (PB002)
-- whether the dataset is not registered or the caller has no budget.
CREATE FUNCTION @extschema@._release_dataset(caller regrole, dataset text, kind text) RETURNS @extschema@.datasets
    LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    d @extschema@.datasets := @extschema@._dataset(dataset);
    revoked boolean;
BEGIN
    SELECT bool_and(b.revoked) INTO revoked FROM @extschema@.budgets b
    WHERE b.dataset = _release_dataset.dataset AND b.role = caller
      AND (_release_dataset.kind IS NULL OR b.kind = _release_dataset.kind);
    IF revoked IS NULL OR d.name IS NULL THEN
        RAISE EXCEPTION 'role % has no %privacy budget on dataset "%"', caller,
            CASE WHEN kind IS NULL OR kind = 'dp' THEN '' ELSE kind || ' ' END, dataset
            USING ERRCODE = 'PB002', DETAIL = 'Nothing was released.',
                  HINT = 'A curator grants budgets with gazepriv.grant_budget().';
    END IF;
    IF revoked THEN
        RAISE EXCEPTION 'the %privacy budget of role % on dataset "%" was revoked',
            CASE WHEN kind IS NULL OR kind = 'dp' THEN '' ELSE kind || ' ' END, caller, dataset
            USING ERRCODE = 'PB002', DETAIL = 'Nothing was released.';
    END IF;
    IF NOT EXISTS (SELECT FROM pg_class c WHERE c.oid = d.relation) THEN
        RAISE EXCEPTION 'the relation of dataset "%" no longer exists', dataset USING ERRCODE = '55000';
    END IF;
    RETURN d;
END $$;
COMMENT ON FUNCTION @extschema@._release_dataset(regrole, text, text) IS
    'Internal: the dataset if the caller holds an unrevoked budget of the kind (any kind: NULL) on it, else ERROR '
    'PB002 with one '
    'message for unknown datasets and missing budgets. Privacy: reveals no dataset''s existence.';

-- The dataset's policy for a mechanism, or ERROR 42501: without one, analysts release nothing.
CREATE FUNCTION @extschema@._release_policy(d @extschema@.datasets, mechanism text) RETURNS jsonb
    LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    policy jsonb;
BEGIN
    SELECT p.policy INTO policy FROM @extschema@.release_policies p
    WHERE p.dataset = d.name AND p.mechanism = _release_policy.mechanism;
    IF policy IS NULL THEN
        RAISE EXCEPTION 'dataset "%" has no release policy for %', d.name, mechanism USING ERRCODE = '42501',
            DETAIL = 'What defines the guarantee of a release is its owner''s choice, never an analyst''s.',
            HINT = 'The dataset''s owner sets one with gazepriv.set_release_policy().';
    END IF;
    RETURN policy;
END $$;
COMMENT ON FUNCTION @extschema@._release_policy(@extschema@.datasets, text) IS
    'Internal: the release policy of a dataset for a mechanism, or ERROR 42501. Privacy: parameters only.';

-- An argument an analyst may leave NULL or repeat, but not change: what the policy fixes.
CREATE FUNCTION @extschema@._fixed(d @extschema@.datasets, mechanism text, name text, fixed jsonb, given jsonb)
    RETURNS void LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF given IS NOT NULL AND jsonb_typeof(given) <> 'null' AND given IS DISTINCT FROM fixed THEN
        RAISE EXCEPTION '% is fixed by the % release policy of dataset "%" (%)', name, mechanism, d.name,
            coalesce(fixed::text, 'its default') USING ERRCODE = '42501',
            HINT = 'Leave it out: the policy''s value is used.';
    END IF;
END $$;
COMMENT ON FUNCTION @extschema@._fixed(@extschema@.datasets, text, text, jsonb, jsonb) IS
    'Internal: ERROR 42501 when an analyst passes a value other than the one the release policy fixes. Privacy: '
    'keeps what defines the guarantee with the dataset''s owner.';

-- A served-once plan: the stored release if there is one, else the secret its randomness is drawn from.
CREATE FUNCTION @extschema@._served_once(plan @extschema@._release_plan, d @extschema@.datasets, mechanism text)
    RETURNS @extschema@._release_plan LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    plan.served_once := mechanism;
    SELECT r.result INTO plan.stored FROM @extschema@.releases r
    WHERE r.dataset = d.name AND r.served_once = _served_once.mechanism;
    SELECT s.secret INTO plan.secret FROM @extschema@.release_secrets s
    WHERE s.dataset = d.name AND s.mechanism = _served_once.mechanism;
    IF plan.secret IS NULL THEN
        RAISE EXCEPTION 'the % release of dataset "%" has no secret', mechanism, d.name USING ERRCODE = '55000',
            HINT = 'Its owner sets the release policy again.';
    END IF;
    RETURN plan;
END $$;
COMMENT ON FUNCTION @extschema@._served_once(@extschema@._release_plan, @extschema@.datasets, text) IS
    'Internal: completes the plan of a release that is served once. Privacy: reads the secret for the server only.';

CREATE FUNCTION @extschema@._store_release(p_ledger_id bigint, p_dataset text, p_served_once text, p_role regrole,
                                           p_parameters jsonb, p_result jsonb, p_mechanism text, p_request jsonb,
                                           p_heatmap @extschema@.heatmap DEFAULT NULL)
    RETURNS jsonb LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF p_served_once IS NULL THEN
        INSERT INTO @extschema@.releases (ledger_id, dataset, mechanism, role, parameters, result, heatmap, request)
            VALUES (p_ledger_id, p_dataset, p_mechanism, p_role, p_parameters, p_result, p_heatmap, p_request);
        RETURN p_result;
    END IF;
    INSERT INTO @extschema@.releases (ledger_id, dataset, mechanism, role, parameters, served_once, result, request)
        VALUES (p_ledger_id, p_dataset, p_mechanism, p_role, p_parameters, p_served_once, p_result, p_request)
    ON CONFLICT (dataset, served_once) WHERE served_once IS NOT NULL DO NOTHING;
    RETURN (SELECT r.result FROM @extschema@.releases r WHERE r.dataset = p_dataset AND r.served_once = p_served_once);
END $$;
COMMENT ON FUNCTION @extschema@._store_release(bigint, text, text, regrole, jsonb, jsonb, text, jsonb,
                                               @extschema@.heatmap) IS
    'Internal: keeps a release in the store, its rows as JSON or a map in heatmap (never served once), and returns '
    'the rows kept (for a served-once release, the first of concurrent identical ones; a map is kept as given, '
    'NULL). Privacy: stores released values only.';

-- A repeat served from the store: the caller's latest stored release of the same call and charged parameters
-- on the dataset, if it is younger than the dataset's freshness window; no row otherwise (a new release).
CREATE FUNCTION @extschema@._repeat_release(caller regrole, dataset text, mechanism text, parameters jsonb,
                                            request jsonb)
    RETURNS SETOF @extschema@.releases LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT r.* FROM @extschema@.releases r JOIN @extschema@.release_freshness f ON f.dataset = r.dataset
    WHERE r.dataset = $2 AND r.role = $1 AND r.mechanism = $3 AND r.served_once IS NULL
      AND r.stored_at >= now() - f.fresh_for AND r.parameters = $4 AND r.request = $5
    ORDER BY r.stored_at DESC, r.ledger_id DESC LIMIT 1
$$;
COMMENT ON FUNCTION @extschema@._repeat_release(regrole, text, text, jsonb, jsonb) IS
    'Internal: the stored release a repeated call receives within the dataset''s freshness window, or no row. '
    'Privacy: depends on the caller''s own calls and the curator''s window only, never on the data.';

-- release_count -------------------------------------------------------------------------------------

CREATE FUNCTION @extschema@.release_count(dataset text, epsilon float8, stimulus bigint DEFAULT NULL)
    RETURNS bigint AS 'MODULE_PATHNAME', 'gazepriv_analyst_release' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.release_count(text, float8, bigint) IS
    'Analyst release: the number of participants in a dataset (optionally those with data on one stimulus) plus '
    'exact discrete Laplace noise of scale 1/epsilon; no release policy needed (epsilon is all that defines it). '
    'Privacy: epsilon-DP under add/remove-one-participant (sensitivity 1); charges epsilon (rho = epsilon^2/2 under '
    'zCDP) to the dp budget of the role whose privileges run the call, before the data is read as its owner.';
REVOKE ALL ON FUNCTION @extschema@.release_count(text, float8, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.release_count(text, float8, bigint) TO gazepriv_analyst, gazepriv_curator;

CREATE FUNCTION @extschema@._plan_release_count(caller regrole, dataset text, epsilon float8, stimulus bigint)
    RETURNS @extschema@._release_plan LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    d @extschema@.datasets := @extschema@._release_dataset(caller, dataset, 'dp');
    plan @extschema@._release_plan;
BEGIN
    IF epsilon IS NULL OR epsilon = 'NaN' OR epsilon < 1e-6 OR epsilon = 'Infinity' THEN  -- NaN > 0 in SQL
        RAISE EXCEPTION 'epsilon must be a finite number of at least 1e-06, got %', epsilon USING ERRCODE = '22023';
    END IF;
    IF stimulus IS NOT NULL AND d.stimulus_column IS NULL THEN
        RAISE EXCEPTION 'dataset "%" has no stimulus column', dataset USING ERRCODE = '22023';
    END IF;
    plan := ROW(d.name, d.owner, 'release_count', 'dp', epsilon, 0, NULL, 0, false,
                jsonb_build_object('epsilon', epsilon, 'stimulus', stimulus),
                format('SELECT count(DISTINCT %I) + @extschema@.discrete_laplace_noise(1 / $2) FROM %s WHERE %s',
                       d.participant_column, d.relation,
                       CASE WHEN stimulus IS NULL THEN 'true' ELSE format('%I = $3', d.stimulus_column) END),
                NULL, NULL, NULL);
    RETURN plan;
END $$;
COMMENT ON FUNCTION @extschema@._plan_release_count(regrole, text, float8, bigint) IS
    'Internal: the plan of release_count. Privacy: its cost depends on epsilon only.';

-- The ledger guard (src/pg/budget/ledger_guard.cpp): DROP EXTENSION gazepriv (or a DROP SCHEMA ... CASCADE or
-- DROP OWNED that would drop it) fails with 2BP01 while the ledger or the budgets hold rows, unless a superuser
-- sets gazepriv.allow_ledger_drop = on. The event trigger loads the library whose hook checks.
CREATE FUNCTION @extschema@._load_ledger_guard() RETURNS event_trigger
    AS 'MODULE_PATHNAME', 'gazepriv__load_ledger_guard' LANGUAGE C;
COMMENT ON FUNCTION @extschema@._load_ledger_guard() IS
    'Internal: event trigger that loads the ledger guard before a DROP runs. Privacy: keeps the ledger.';
CREATE EVENT TRIGGER gazepriv_ledger_guard ON ddl_command_start
    WHEN TAG IN ('DROP EXTENSION', 'DROP SCHEMA', 'DROP OWNED')
    EXECUTE FUNCTION @extschema@._load_ledger_guard();
