-- Plausible deniability (Bindschaedler, Shokri and Gunter, PVLDB 2017; David-John, Butler and Jain, ETRA 2022
-- and TVCG 2023): synthetic feature windows and fixations, each released only if it passes the (k, gamma)
-- privacy test: at least k records (or k - 1 other participants) could have generated it with probabilities
-- within a factor gamma of the seed's. Probabilities are handled in log space throughout.
--
-- Curators call pd_synthesize / pd_synthesize_fixations on a source relation directly (invoker's rights;
-- dataset => charges or logs the release on a dataset they own). Analysts call pd_release on a registered
-- dataset with the parameters of its owner's release policy (always charged or logged, before the rows are
-- read, with a cost from the policy's public facts only). A curator's release is charged after its rows are read
-- and before any candidate is made (its cost counts the largest task's records, unless records bounds them).

-- Pure helpers ----------------------------------------------------------------------------------------------

CREATE FUNCTION @extschema@.pd_band(probability float8, gamma float8) RETURNS bigint
    AS 'MODULE_PATHNAME', 'gazepriv_pd_band' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.pd_band(float8, float8) IS
    'The privacy test''s band of a probability or density p: the integer i with gamma^(-i-1) < p <= gamma^(-i), '
    'i.e. floor(-ln p / ln gamma), computed in log space; negative for densities above 1 (gamma = 2: p = 0.3 -> 1, '
    'p = 0.25 -> 2). Records in one band have probabilities within a factor gamma. gamma must exceed 1. '
    'Privacy: pure arithmetic, releases nothing.';

CREATE FUNCTION @extschema@.pd_randomized_privacy(k int, gamma float8, epsilon0 float8, t int,
                                                  OUT epsilon float8, OUT delta float8)
    AS 'MODULE_PATHNAME', 'gazepriv_pd_randomized_privacy' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.pd_randomized_privacy(int, float8, float8, int) IS
    'Bindschaedler et al.''s theorem for one candidate of the randomized privacy test (threshold k plus Laplace '
    'of scale 1/epsilon0): epsilon = epsilon0 + ln(1 + gamma/t), delta = exp(-epsilon0 (k - t)), for an integer '
    '1 <= t < k (k = 50, gamma = 2, epsilon0 = 0.1, t = 10: 0.2823, 0.0183). Privacy: per candidate, add/remove '
    'one record; a release of many candidates composes (pd_release_cost). Pure arithmetic, releases nothing.';

CREATE FUNCTION @extschema@.pd_release_cost(
        k int, gamma float8, features int, records bigint, bins int DEFAULT 30, model text DEFAULT 'marginals',
        omega int DEFAULT NULL, resample text DEFAULT 'random', test text DEFAULT 'record',
        epsilon0 float8 DEFAULT NULL, t int DEFAULT NULL, target_delta float8 DEFAULT NULL,
        model_epsilon float8 DEFAULT NULL, alpha float8 DEFAULT 1, split float8 DEFAULT 0,
        bounds float8[] DEFAULT NULL, max_attempts int DEFAULT NULL,
        OUT mechanism text, OUT guarantee text, OUT epsilon float8, OUT delta float8, OUT rho float8,
        OUT non_private_choices boolean, OUT parameters jsonb, OUT non_private boolean)
    AS 'MODULE_PATHNAME', 'gazepriv_pd_release_cost' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.pd_release_cost(int, float8, int, bigint, int, text, int, text, text, float8, int,
                                               float8, float8, float8, float8, float8[], int) IS
    'Cost preview of pd_synthesize / pd_release with these parameters on data with `features` features whose '
    'largest task has `records` seed records: exactly the ReleaseCost the release charges, as the columns of '
    'release_cost, then non_private (= non_private_choices, its name before 0.2). Deterministic tests: '
    'epsilon = model_epsilon (0 without a DP model), delta 0, guarantee plausible-deniability. Randomized test: '
    'C = max_attempts x records candidates, each (epsilon0 + ln(1 + gamma/t), exp(-epsilon0 (k - t)))-DP, '
    'composed basically within a task and in parallel over tasks, plus model_epsilon (or its maximum with a '
    'split); t is given or the largest meeting target_delta; guarantee dp. non_private is true when bins '
    'cover the data range (no public bounds). Privacy: pure arithmetic, releases nothing.';

-- Curator releases ------------------------------------------------------------------------------------------

CREATE FUNCTION @extschema@.pd_synthesize(
        source regclass, k int, gamma float8, bins int DEFAULT 30, model text DEFAULT 'marginals',
        omega int DEFAULT NULL, resample text DEFAULT 'random', test text DEFAULT 'record',
        epsilon0 float8 DEFAULT NULL, t int DEFAULT NULL, target_delta float8 DEFAULT NULL,
        model_epsilon float8 DEFAULT NULL, alpha float8 DEFAULT 1, split float8 DEFAULT 0,
        bounds float8[] DEFAULT NULL, max_attempts int DEFAULT NULL, include_failed boolean DEFAULT false,
        dataset text DEFAULT NULL, records int DEFAULT NULL, participant_column name DEFAULT 'participant',
        task_column name DEFAULT 'task', window_column name DEFAULT 'window', features_column name DEFAULT 'features',
        secret bytea DEFAULT NULL)
    RETURNS TABLE (participant text, task text, "window" int, features float8[], attempts int)
    AS 'MODULE_PATHNAME', 'gazepriv_pd_synthesize' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.pd_synthesize(regclass, int, float8, int, text, int, text, text, float8, int, float8,
                                             float8, float8, float8, float8[], int, boolean, text, int, name, name,
                                             name, name, bytea) IS
    'Curator: plausibly deniable synthetic feature windows from a relation with columns participant, task, '
    '"window", features float8[] (other names via the *_column parameters; window may be NULL). Per task: every feature is cut into `bins` equal-width bins (public `bounds`, '
    'one [lower, upper] row per feature, values outside clamped; or the task''s data range, non-private); the '
    'marginals are learned (Dirichlet alpha; DP with model_epsilon; from a random `split` fraction of the records '
    'that then seed nothing); each seed record gets up to max_attempts candidates (default 100; 1 with the '
    'randomized test) and the first that passes the test is released, its bins mapped back to uniform values '
    'inside the bin. model: marginals (every feature resampled: seedless, so the test passes whenever the task '
    'has k records and protection comes from the coarse marginals) or seed_based (copies m - omega features of '
    'the seed and resamples omega: a random omega-subset per candidate, or the last omega with resample => last). '
    'test: record (k records in the seed''s probability band, the seed included) or identity (k - 1 other '
    'participants, one record each); epsilon0 makes it randomized (threshold k plus fresh discrete Laplace noise '
    'of scale 1/epsilon0 per candidate; needs model_epsilon and t or target_delta). Output: one row per seed '
    'record that passed, labelled with that record''s participant, task and window (deterministic tests seed '
    'with the labelled record itself, so with seed_based the label names whose record was copied; the '
    'randomized test draws seeds uniformly from the task); attempts = candidates made; include_failed adds '
    'failed slots with NULL features. Rows whose features are NULL or not finite are dropped. '
    'Privacy: deterministic tests give (k, gamma)-plausible deniability per released row, not DP (logged with '
    'epsilon 0, plus model_epsilon); the randomized test gives (epsilon, delta)-DP per candidate for add/remove '
    'one feature vector, composed as pd_release_cost shows; the stratification (which participant, task and '
    'window rows exist) is released exactly. records (a public bound on a task''s records): at most that many '
    'slots of a task, the first in participant order, and the cost counts them instead of the data''s records. '
    'With a secret (32 bytes or more) the release is drawn from it alone (rows read in participant, task and '
    'window order): the same rows give the same release, as a served-once release must. With dataset => (a '
    'dataset the caller owns) it is charged (or logged) on that dataset before any candidate is generated; '
    'data-range bins are flagged non-private.';

CREATE FUNCTION @extschema@.pd_synthesis_stats(
        source regclass, k int, gamma float8, bins int DEFAULT 30, model text DEFAULT 'marginals',
        omega int DEFAULT NULL, resample text DEFAULT 'random', test text DEFAULT 'record',
        epsilon0 float8 DEFAULT NULL, t int DEFAULT NULL, target_delta float8 DEFAULT NULL,
        model_epsilon float8 DEFAULT NULL, alpha float8 DEFAULT 1, split float8 DEFAULT 0,
        bounds float8[] DEFAULT NULL, max_attempts int DEFAULT NULL)
    RETURNS TABLE (task text, participant text, records bigint, released bigint, failed bigint,
                   candidates bigint, pass_rate float8)
    LANGUAGE sql VOLATILE PARALLEL RESTRICTED SET search_path = pg_catalog, pg_temp AS $$
    SELECT s.task, s.participant, count(*), count(s.features), count(*) - count(s.features),
           sum(s.attempts)::bigint, count(s.features)::float8 / sum(s.attempts)
    FROM @extschema@.pd_synthesize($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                                   include_failed => true) s
    GROUP BY s.task, s.participant
    ORDER BY s.task, s.participant
$$;
COMMENT ON FUNCTION @extschema@.pd_synthesis_stats(regclass, int, float8, int, text, int, text, text, float8, int,
                                                  float8, float8, float8, float8, float8[], int) IS
    'Curator: runs pd_synthesize with these parameters and reports, per task and participant, the seed records, '
    'the rows released, the seeds that never passed within max_attempts, the candidates generated and the pass '
    'rate (released / candidates), to tune k and gamma. Privacy: for the curator''s eyes: the counts are exact '
    'functions of the data; it charges nothing.';

CREATE FUNCTION @extschema@.pd_synthesize_fixations(
        source regclass, k int, gamma float8, max_attempts int DEFAULT 100, include_failed boolean DEFAULT false,
        dataset text DEFAULT NULL)
    RETURNS TABLE (participant text, task text, fixation int, x float8[], y float8[], attempts int)
    AS 'MODULE_PATHNAME', 'gazepriv_pd_synthesize_fixations' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.pd_synthesize_fixations(regclass, int, float8, int, boolean, text) IS
    'Curator: event-synth-PD for fixations (David-John et al. 2023, supplement 2.2). The source has columns '
    'participant, task, fixation, mu_x, mu_y, sigma_x, sigma_y, samples; each fixation is replaced by `samples` '
    'points drawn from N(mu_x, sigma_x^2) x N(mu_y, sigma_y^2) (exact discrete Gaussian on a fine grid), redrawn '
    'until the PD event test passes: at least k - 1 other participants have a fixation of the same task and the '
    'same number of samples whose density of the drawn points is in the seed''s band (log space; densities above '
    '1 give negative bands). At most max_attempts draws; a fixation that never passes is left out, or returned '
    'with NULL x, y when include_failed. Rows with NULL or non-finite parameters, sigma <= 0 or samples < 1 are '
    'dropped. Privacy: (k, gamma)-plausible deniability per fixation against other participants, not DP; the '
    'output is labelled with the seed''s participant; with dataset => the release is logged there with epsilon 0 '
    'before any sample is drawn.';

-- event-synth-PD with saccades (src/pg/pd/event_synth.cpp): the C-VAE over saccade speed profiles, its
-- catalog of trained models, and the synthetic sample streams ------------------------------------------

CREATE TABLE @extschema@.saccade_models (
    name text PRIMARY KEY CHECK (octet_length(name) BETWEEN 1 AND 255),
    dataset text NOT NULL REFERENCES @extschema@.datasets (name) ON UPDATE CASCADE,
    trained_by regrole NOT NULL,
    trained_at timestamptz NOT NULL DEFAULT now(),
    parameters jsonb NOT NULL,
    validation_loss float8 NOT NULL,
    model bytea NOT NULL
);
COMMENT ON TABLE @extschema@.saccade_models IS
    'Trained saccade C-VAEs (train_saccade_model), one per name, each belonging to a dataset: the settings and '
    'split sizes (parameters), the loss on the held-out quarter and the model (a versioned, checksummed blob). '
    'Privacy: the model is fitted to raw saccades unprotected (it is not a release); written only by '
    'train_saccade_model and drop_saccade_model, read only by the owners of its dataset (row-level security).';
SELECT pg_catalog.pg_extension_config_dump('@extschema@.saccade_models', '');
REVOKE ALL ON @extschema@.saccade_models FROM PUBLIC;
GRANT SELECT ON @extschema@.saccade_models TO gazepriv_curator;
ALTER TABLE @extschema@.saccade_models ENABLE ROW LEVEL SECURITY;
CREATE POLICY owners_read ON @extschema@.saccade_models FOR SELECT
    USING (EXISTS (SELECT FROM @extschema@.datasets d WHERE d.name = dataset));

CREATE FUNCTION @extschema@.fit_saccade_model(
        source regclass, profile_length int DEFAULT 32, epochs int DEFAULT 20, batch_size int DEFAULT 100,
        learning_rate float8 DEFAULT 0.01)
    RETURNS TABLE (parameters jsonb, training_saccades int, validation_saccades int, epoch_loss float8[],
                   validation_loss float8, model bytea)
    AS 'MODULE_PATHNAME', 'gazepriv_fit_saccade_model' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.fit_saccade_model(regclass, int, int, int, float8) IS
    'Curator: trains the conditional VAE of event-synth-PD (David-John et al., TVCG 2023, supplement 2.2-4) on '
    'the saccades of an events relation (columns participant, task, event_index, type, start_ms, end_ms, '
    'centroid_x, centroid_y, sigma_x, sigma_y, amplitude, profile_a, profile_b, profile_c: detect_events'' rows '
    'with participant and task) and returns it without storing it. Each saccade''s Gaussian speed profile is '
    'taken at profile_length bin centres, divided by its mean speed 1000 amplitude / duration, and conditioned on '
    'ln amplitude and ln duration (standardised); encoder 32 ReLU units, latent 64, decoder 96 linear units, Adam, '
    'loss (squared error + KL) / profile_length, 75/25 split, all randomness from the CSPRNG (reproducible under '
    'gazepriv.seed). ERROR 22023 naming the event for a non-positive duration, a negative or non-finite '
    'amplitude, a partial profile or profile_c <= 0, an unknown type, fewer than 8 saccades, or settings out of '
    'range (profile_length 2-256, epochs 1-1000, batch_size 1-100000, learning_rate in (0, 1]); 54000 above '
    'gazepriv.max_training_saccades. Privacy: computes on raw data unprotected; charges nothing.';

CREATE FUNCTION @extschema@.store_saccade_model(
        name text, dataset text, parameters jsonb, validation_loss float8, model bytea)
    RETURNS void AS 'MODULE_PATHNAME', 'gazepriv_catalog_function' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.store_saccade_model(text, text, jsonb, float8, bytea) IS
    'Curator: stores a model fit_saccade_model returned under a new name, for a dataset the caller owns (42501 '
    'otherwise; 42710 if the name is taken; 22023 for an empty name or an unregistered dataset; XX001 naming '
    'the fault for a blob that is not an intact model, which is checked again when used). Privacy: releases '
    'nothing.';

CREATE FUNCTION @extschema@._check_saccade_model(model bytea)
    RETURNS int AS 'MODULE_PATHNAME', 'gazepriv_check_saccade_model' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._check_saccade_model(bytea) IS
    'Internal: the profile length of an intact saccade model blob (magic, version, sizes, checksum, values); '
    'XX001 otherwise. Privacy: none.';

CREATE FUNCTION @extschema@._store_saccade_model(
        caller regrole, name text, dataset text, parameters jsonb, validation_loss float8, model bytea)
    RETURNS void LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    d @extschema@.datasets := @extschema@._owned_dataset(caller, dataset);
BEGIN
    IF name IS NULL OR name = '' OR octet_length(name) > 255 THEN
        RAISE EXCEPTION 'a saccade model name must have 1 to 255 bytes' USING ERRCODE = '22023';
    END IF;
    IF parameters IS NULL OR validation_loss IS NULL OR model IS NULL THEN
        RAISE EXCEPTION 'parameters, validation_loss and model are required' USING ERRCODE = '22004';
    END IF;
    PERFORM @extschema@._check_saccade_model(model);
    IF EXISTS (SELECT FROM @extschema@.saccade_models m WHERE m.name = _store_saccade_model.name) THEN
        RAISE EXCEPTION 'saccade model "%" already exists', name USING ERRCODE = '42710',
            HINT = 'drop_saccade_model removes it.';
    END IF;
    INSERT INTO @extschema@.saccade_models (name, dataset, trained_by, parameters, validation_loss, model)
    VALUES (name, d.name, caller, parameters, validation_loss, model);
END $$;
COMMENT ON FUNCTION @extschema@._store_saccade_model(regrole, text, text, jsonb, float8, bytea) IS
    'Internal: store_saccade_model as the catalog''s owner. Privacy: none.';

CREATE FUNCTION @extschema@.drop_saccade_model(name text)
    RETURNS void AS 'MODULE_PATHNAME', 'gazepriv_catalog_function' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.drop_saccade_model(text) IS
    'Curator: removes a saccade model of a dataset the caller owns (42501 otherwise, 22023 if there is no such '
    'model). Privacy: releases nothing.';

CREATE FUNCTION @extschema@._drop_saccade_model(caller regrole, name text)
    RETURNS void LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    owner_dataset text := (SELECT m.dataset FROM @extschema@.saccade_models m WHERE m.name = _drop_saccade_model.name);
BEGIN
    IF owner_dataset IS NULL THEN
        RAISE EXCEPTION 'unknown saccade model "%"', name USING ERRCODE = '22023';
    END IF;
    PERFORM @extschema@._owned_dataset(caller, owner_dataset);
    DELETE FROM @extschema@.saccade_models m WHERE m.name = _drop_saccade_model.name;
END $$;
COMMENT ON FUNCTION @extschema@._drop_saccade_model(regrole, text) IS
    'Internal: drop_saccade_model as the catalog''s owner. Privacy: none.';

CREATE FUNCTION @extschema@.train_saccade_model(
        name text, dataset text, source regclass, profile_length int DEFAULT 32, epochs int DEFAULT 20,
        batch_size int DEFAULT 100, learning_rate float8 DEFAULT 0.01)
    RETURNS TABLE (training_saccades int, validation_saccades int, epoch_loss float8[], validation_loss float8)
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    f record;
BEGIN
    SELECT * INTO f FROM @extschema@.fit_saccade_model(source, profile_length, epochs, batch_size, learning_rate);
    PERFORM @extschema@.store_saccade_model(name, dataset, f.parameters, f.validation_loss, f.model);
    RETURN QUERY SELECT f.training_saccades, f.validation_saccades, f.epoch_loss, f.validation_loss;
END $$;
COMMENT ON FUNCTION @extschema@.train_saccade_model(text, text, regclass, int, int, int, float8) IS
    'Curator: fit_saccade_model on the source''s saccades, stored as `name` for `dataset` (a dataset the caller '
    'owns) with store_saccade_model; returns the split sizes, each epoch''s mean training loss and the loss on '
    'the held-out quarter. Errors as fit_saccade_model and store_saccade_model. Privacy: the model is fitted '
    'to raw data unprotected and readable only by the dataset''s owners; charges nothing.';

CREATE FUNCTION @extschema@.event_synth_pd(
        source regclass, model text, k int, gamma float8, sampling_rate_hz float8, max_attempts int DEFAULT 100,
        include_failed boolean DEFAULT false, dataset text DEFAULT NULL, secret bytea DEFAULT NULL)
    RETURNS TABLE (participant text, task text, event_index int, type text, passed boolean, t_ms float8,
                   x float8, y float8, attempts int)
    AS 'MODULE_PATHNAME', 'gazepriv_event_synth_pd' LANGUAGE C VOLATILE PARALLEL RESTRICTED ROWS 10000;
COMMENT ON FUNCTION @extschema@.event_synth_pd(regclass, text, int, float8, float8, int, boolean, text, bytea) IS
    'Curator: event-synth-PD (David-John et al., TVCG 2023, supplement 2.2, Alg. 2.2): a synthetic sample stream '
    'per participant and task from an events relation (the columns fit_saccade_model reads), at the public times '
    'j * 1000 / sampling_rate_hz within each event. Fixations as pd_synthesize_fixations (t = the event''s '
    'sampling times). Saccades: the model''s encoder maps the saccade to 64 independent Normals, a candidate is '
    'drawn from them (exact discrete Gaussians from the CSPRNG) and kept when at least k - 1 other participants '
    'have a saccade of the same task whose encoder Normals give it a density in the seed''s band (gamma, log '
    'space); it is decoded under the seed''s amplitude and duration into a speed profile, and the samples move '
    'along the segment from the previous to the next released fixation of the stream (their sample means) at the '
    'share of the path that profile has covered; a passing saccade without a released fixation on each side is '
    'left out. At most max_attempts candidates per event (attempts: how many were drawn). Events without samples '
    '(failed: passed false; unanchored saccades: passed true) are left out, or returned as one row with NULL '
    't_ms, x, y when include_failed. ERROR 22023 naming the value for an unknown type, a non-positive duration, '
    'non-finite parameters, sigma <= 0, a partial profile, k above the participants, gamma < 1, a non-positive '
    'rate or an unknown model (or one of another dataset than dataset =>); XX001 for a corrupt model; 54000 above '
    'gazepriv.max_synthesized_samples sampling times. Privacy: (k, gamma)-plausible deniability per event '
    'against the other participants, not DP; released exactly: which events exist, their types, start and end '
    'times (hence counts, durations and order) and the participant and task labels; the decoder''s condition is '
    'the seed''s amplitude and duration. With dataset => (a dataset the caller owns, the model''s) the release is '
    'logged there with epsilon 0 before anything is drawn. With a secret (32 bytes or more) the release is drawn '
    'from it alone (events read in participant, task, start order): the same rows give the same release, as a '
    'served-once release must.';

-- Analyst release (src/pg/budget/analyst_release.cpp) ---------------------------------------------------

CREATE FUNCTION @extschema@.pd_release(
        dataset text, k int DEFAULT NULL, gamma float8 DEFAULT NULL, bins int DEFAULT NULL, model text DEFAULT NULL,
        omega int DEFAULT NULL, resample text DEFAULT NULL, test text DEFAULT NULL,
        epsilon0 float8 DEFAULT NULL, t int DEFAULT NULL, target_delta float8 DEFAULT NULL,
        model_epsilon float8 DEFAULT NULL, alpha float8 DEFAULT NULL, split float8 DEFAULT NULL,
        bounds float8[] DEFAULT NULL, max_attempts int DEFAULT NULL, include_failed boolean DEFAULT NULL)
    RETURNS TABLE (participant text, task text, "window" int, features float8[], attempts int)
    AS 'MODULE_PATHNAME', 'gazepriv_analyst_release' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.pd_release(text, int, float8, int, text, int, text, text, float8, int, float8, float8,
                                          float8, float8, float8[], int, boolean) IS
    'Analyst release: pd_synthesize over a registered dataset (its participant, task, window and features '
    'columns, its public feature bounds {"features": [[lower, upper], ...]}) with everything else from the '
    'dataset''s pd release policy (passing a parameter is allowed only with the policy''s value; 42501 otherwise). '
    'A deterministic test is served once: the first request makes the release, logged as plausible-deniability '
    '(epsilon 0, or the DP model''s record-level epsilon on a record-dp budget) and every later request, by any '
    'analyst with a budget on the dataset, returns the identical rows until the owner calls reset_release. The '
    'randomized test is a new release each time, charged its composed (epsilon, delta) for add/remove one feature '
    'vector to the record-dp budget, counting the policy''s public records per task (never the data''s). Privacy: '
    'as pd_synthesize; charged to the role whose privileges run the call, before the data is read as its owner.';
REVOKE ALL ON FUNCTION @extschema@.pd_release(text, int, float8, int, text, int, text, text, float8, int, float8,
                                             float8, float8, float8, float8[], int, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.pd_release(text, int, float8, int, text, int, text, text, float8, int, float8,
                                                float8, float8, float8, float8[], int, boolean)
    TO gazepriv_analyst, gazepriv_curator;

-- Everything pd_synthesize takes but the source, the bounds (the dataset's public ones) and the dataset;
-- records (the public bound of a task's records) is required by the randomized test.
CREATE FUNCTION @extschema@._policy_pd(d @extschema@.datasets, policy jsonb) RETURNS jsonb
    LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    keys text[] := ARRAY['k', 'gamma', 'bins', 'model', 'omega', 'resample', 'test', 'epsilon0', 't', 'target_delta',
                         'model_epsilon', 'alpha', 'split', 'max_attempts', 'records', 'include_failed'];
    p jsonb;
    bounds float8[] := @extschema@._feature_bounds(d);
BEGIN
    PERFORM @extschema@._policy_keys('pd', policy, keys,
        CASE WHEN policy ? 'epsilon0' THEN ARRAY['k', 'gamma', 'records'] ELSE ARRAY['k', 'gamma'] END);
    IF coalesce(jsonb_typeof(policy -> 'include_failed'), 'boolean') <> 'boolean'
       OR coalesce(jsonb_typeof(policy -> 'model'), 'string') <> 'string'
       OR coalesce(jsonb_typeof(policy -> 'resample'), 'string') <> 'string'
       OR coalesce(jsonb_typeof(policy -> 'test'), 'string') <> 'string' THEN
        RAISE EXCEPTION 'the pd policy''s model, resample and test are strings, include_failed true or false'
            USING ERRCODE = '22023';
    END IF;
    p := jsonb_strip_nulls(jsonb_build_object(
        'k', @extschema@._policy_count('pd', policy, 'k'),
        'gamma', @extschema@._policy_number('pd', policy, 'gamma'),
        'bins', coalesce(@extschema@._policy_count('pd', policy, 'bins'), 30),
        'model', coalesce(policy ->> 'model', 'marginals'),
        'omega', @extschema@._policy_count('pd', policy, 'omega'),
        'resample', coalesce(policy ->> 'resample', 'random'),
        'test', coalesce(policy ->> 'test', 'record'),
        'epsilon0', @extschema@._policy_number('pd', policy, 'epsilon0'),
        't', @extschema@._policy_count('pd', policy, 't'),
        'target_delta', @extschema@._policy_number('pd', policy, 'target_delta'),
        'model_epsilon', @extschema@._policy_number('pd', policy, 'model_epsilon'),
        'alpha', coalesce(@extschema@._policy_number('pd', policy, 'alpha'), 1),
        'split', coalesce(@extschema@._policy_number('pd', policy, 'split'), 0),
        'max_attempts', @extschema@._policy_count('pd', policy, 'max_attempts'),
        'records', @extschema@._policy_count('pd', policy, 'records'),
        'include_failed', coalesce((policy -> 'include_failed')::boolean, false)));
    IF d.task_column IS NULL OR d.features_column IS NULL THEN
        RAISE EXCEPTION 'dataset "%" has no task or features column', d.name USING ERRCODE = '22023',
            HINT = 'A curator registers it with task_column and features_column (and window_column).';
    END IF;
    IF bounds IS NULL THEN  -- bins over the data's range are a non-private choice: curators only
        RAISE EXCEPTION 'dataset "%" has no public feature bounds', d.name USING ERRCODE = '22023',
            HINT = 'Register bounds => ''{"features": [[lower, upper], ...]}'', one row per feature.';
    END IF;
    PERFORM @extschema@._pd_cost(p, bounds);  -- validates (22023)
    RETURN p;
END $$;
COMMENT ON FUNCTION @extschema@._policy_pd(@extschema@.datasets, jsonb) IS
    'Internal: validates a pd release policy. Privacy: parameters only.';

-- What a release with a policy costs: pd_release_cost with the policy's public records per task.
CREATE FUNCTION @extschema@._pd_cost(p jsonb, bounds float8[]) RETURNS @extschema@.release_cost
    LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT c.mechanism, c.guarantee, c.epsilon, c.delta, c.rho, c.non_private_choices,
           c.parameters || jsonb_strip_nulls(jsonb_build_object('records', (p ->> 'records')::int8))
    FROM @extschema@.pd_release_cost(
        (p ->> 'k')::int4, (p ->> 'gamma')::float8, array_length(bounds, 1), coalesce((p ->> 'records')::int8, 1),
        (p ->> 'bins')::int4, p ->> 'model', (p ->> 'omega')::int4, p ->> 'resample', p ->> 'test',
        (p ->> 'epsilon0')::float8, (p ->> 't')::int4, (p ->> 'target_delta')::float8,
        (p ->> 'model_epsilon')::float8, (p ->> 'alpha')::float8, (p ->> 'split')::float8, bounds,
        (p ->> 'max_attempts')::int4) c
$$;
COMMENT ON FUNCTION @extschema@._pd_cost(jsonb, float8[]) IS
    'Internal: the cost of a pd release under a policy. Privacy: pure arithmetic.';

CREATE FUNCTION @extschema@._plan_pd_release(
        caller regrole, dataset text, k int, gamma float8, bins int, model text, omega int, resample text, test text,
        epsilon0 float8, t int, target_delta float8, model_epsilon float8, alpha float8, split float8,
        bounds float8[], max_attempts int, include_failed boolean)
    RETURNS @extschema@._release_plan LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    -- Any budget opens the dataset: the charge then takes the kind the release is bought with (dp, or record-dp
    -- for record-level epsilon).
    d @extschema@.datasets := @extschema@._release_dataset(caller, dataset, NULL);
    p jsonb := @extschema@._release_policy(d, 'pd');
    public_bounds float8[] := @extschema@._feature_bounds(d);
    c @extschema@.release_cost;
    plan @extschema@._release_plan;
BEGIN
    PERFORM @extschema@._fixed(d, 'pd', 'k', p -> 'k', to_jsonb(k)),
            @extschema@._fixed(d, 'pd', 'gamma', p -> 'gamma', to_jsonb(gamma)),
            @extschema@._fixed(d, 'pd', 'bins', p -> 'bins', to_jsonb(bins)),
            @extschema@._fixed(d, 'pd', 'model', p -> 'model', to_jsonb(model)),
            @extschema@._fixed(d, 'pd', 'omega', p -> 'omega', to_jsonb(omega)),
            @extschema@._fixed(d, 'pd', 'resample', p -> 'resample', to_jsonb(resample)),
            @extschema@._fixed(d, 'pd', 'test', p -> 'test', to_jsonb(test)),
            @extschema@._fixed(d, 'pd', 'epsilon0', p -> 'epsilon0', to_jsonb(epsilon0)),
            @extschema@._fixed(d, 'pd', 't', p -> 't', to_jsonb(t)),
            @extschema@._fixed(d, 'pd', 'target_delta', p -> 'target_delta', to_jsonb(target_delta)),
            @extschema@._fixed(d, 'pd', 'model_epsilon', p -> 'model_epsilon', to_jsonb(model_epsilon)),
            @extschema@._fixed(d, 'pd', 'alpha', p -> 'alpha', to_jsonb(alpha)),
            @extschema@._fixed(d, 'pd', 'split', p -> 'split', to_jsonb(split)),
            @extschema@._fixed(d, 'pd', 'bounds', to_jsonb(public_bounds), to_jsonb(bounds)),
            @extschema@._fixed(d, 'pd', 'max_attempts', p -> 'max_attempts', to_jsonb(max_attempts)),
            @extschema@._fixed(d, 'pd', 'include_failed', p -> 'include_failed', to_jsonb(include_failed));
    c := @extschema@._pd_cost(p, public_bounds);
    plan := ROW(d.name, d.owner, c.mechanism, c.guarantee, c.epsilon, c.delta, c.rho, 0, c.non_private_choices,
                c.parameters,
                format('SELECT * FROM @extschema@.pd_synthesize(%L::regclass, %L::int4, %L::float8, %L::int4, %L, '
                       '%L::int4, %L, %L, %L::float8, %L::int4, %L::float8, %L::float8, %L::float8, %L::float8, '
                       '%L::float8[], %L::int4, %L::boolean, NULL, %L::int4, %L, %L, %L, %L, $18)',
                       d.relation::text, p ->> 'k', p ->> 'gamma', p ->> 'bins', p ->> 'model', p ->> 'omega',
                       p ->> 'resample', p ->> 'test', p ->> 'epsilon0', p ->> 't', p ->> 'target_delta',
                       p ->> 'model_epsilon', p ->> 'alpha', p ->> 'split', public_bounds, p ->> 'max_attempts',
                       p ->> 'include_failed', p ->> 'records', d.participant_column, d.task_column,
                       d.window_column, d.features_column),
                NULL, NULL, NULL);
    IF p ? 'epsilon0' THEN  -- the randomized test: DP, composes; a new release each time
        RETURN plan;
    END IF;
    RETURN @extschema@._served_once(plan, d, 'pd');
END $$;
COMMENT ON FUNCTION @extschema@._plan_pd_release(regrole, text, int, float8, int, text, int, text, text, float8, int,
                                                float8, float8, float8, float8, float8[], int, boolean) IS
    'Internal: the plan of pd_release. Privacy: its cost depends on the policy and public bounds only.';

-- event-synth-PD for analysts: event_synth_release over a registered events dataset, served once.
CREATE FUNCTION @extschema@.event_synth_release(
        dataset text, k int DEFAULT NULL, gamma float8 DEFAULT NULL, model text DEFAULT NULL,
        sampling_rate_hz float8 DEFAULT NULL, max_attempts int DEFAULT NULL)
    RETURNS TABLE (participant text, task text, event_index int, type text, passed boolean, t_ms float8,
                   x float8, y float8, attempts int)
    AS 'MODULE_PATHNAME', 'gazepriv_analyst_release' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.event_synth_release(text, int, float8, text, float8, int) IS
    'Analyst release: event_synth_pd over a registered events dataset (a relation with participant, task and '
    'detect_events'' columns) with k, gamma, the saccade model, the sampling rate and max_attempts from the '
    'dataset''s event_synth release policy (passing one is allowed only with the policy''s value; 42501 '
    'otherwise). Served once: the first request makes the release, logged as plausible-deniability with epsilon 0, '
    'drawn from the dataset''s secret; every later request, by any analyst with a budget on the dataset, returns the '
    'identical rows until the owner calls reset_release(dataset, ''event_synth''). Only events with samples are '
    'returned. Privacy: as event_synth_pd, (k, gamma)-plausible deniability per event against other participants, '
    'not DP; event existence, types and times are released exactly; charged to the role whose privileges run the '
    'call, before the data is read as its owner.';
REVOKE ALL ON FUNCTION @extschema@.event_synth_release(text, int, float8, text, float8, int) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.event_synth_release(text, int, float8, text, float8, int)
    TO gazepriv_analyst, gazepriv_curator;

CREATE FUNCTION @extschema@._policy_event_synth(d @extschema@.datasets, policy jsonb) RETURNS jsonb
    LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    p jsonb;
BEGIN
    PERFORM @extschema@._policy_keys('event_synth', policy,
                                     ARRAY['k', 'gamma', 'model', 'sampling_rate_hz', 'max_attempts'],
                                     ARRAY['k', 'gamma', 'model', 'sampling_rate_hz']);
    IF jsonb_typeof(policy -> 'model') <> 'string' THEN
        RAISE EXCEPTION 'the event_synth policy''s model is the name of a saccade model' USING ERRCODE = '22023';
    END IF;
    IF NOT EXISTS (SELECT FROM @extschema@.saccade_models m WHERE m.name = policy ->> 'model' AND m.dataset = d.name) THEN
        RAISE EXCEPTION 'dataset "%" has no saccade model "%"', d.name, policy ->> 'model' USING ERRCODE = '22023',
            HINT = 'train_saccade_model trains one for the dataset.';
    END IF;
    p := jsonb_build_object(
        'k', @extschema@._policy_count('event_synth', policy, 'k'),
        'gamma', @extschema@._policy_number('event_synth', policy, 'gamma'),
        'model', policy ->> 'model',
        'sampling_rate_hz', @extschema@._policy_number('event_synth', policy, 'sampling_rate_hz'),
        'max_attempts', coalesce(@extschema@._policy_count('event_synth', policy, 'max_attempts'), 100));
    IF NOT ((p ->> 'gamma')::float8 >= 1 AND (p ->> 'gamma')::float8 < 'Infinity') THEN
        RAISE EXCEPTION 'the event_synth policy''s gamma must be finite and at least 1, got %', p -> 'gamma'
            USING ERRCODE = '22023';
    END IF;
    IF NOT ((p ->> 'sampling_rate_hz')::float8 > 0 AND (p ->> 'sampling_rate_hz')::float8 <= 1000000) THEN
        RAISE EXCEPTION 'the event_synth policy''s sampling_rate_hz must be positive and at most 1000000, got %',
            p -> 'sampling_rate_hz' USING ERRCODE = '22023';
    END IF;
    IF (p ->> 'max_attempts')::int > 1000000 THEN
        RAISE EXCEPTION 'the event_synth policy''s max_attempts must be at most 1000000, got %', p -> 'max_attempts'
            USING ERRCODE = '22023';
    END IF;
    RETURN p;
END $$;
COMMENT ON FUNCTION @extschema@._policy_event_synth(@extschema@.datasets, jsonb) IS
    'Internal: validates an event_synth release policy. Privacy: parameters only.';

CREATE FUNCTION @extschema@._plan_event_synth_release(
        caller regrole, dataset text, k int, gamma float8, model text, sampling_rate_hz float8, max_attempts int)
    RETURNS @extschema@._release_plan LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    d @extschema@.datasets := @extschema@._release_dataset(caller, dataset, NULL);
    p jsonb := @extschema@._release_policy(d, 'event_synth');
    plan @extschema@._release_plan;
BEGIN
    PERFORM @extschema@._fixed(d, 'event_synth', 'k', p -> 'k', to_jsonb(k)),
            @extschema@._fixed(d, 'event_synth', 'gamma', p -> 'gamma', to_jsonb(gamma)),
            @extschema@._fixed(d, 'event_synth', 'model', p -> 'model', to_jsonb(model)),
            @extschema@._fixed(d, 'event_synth', 'sampling_rate_hz', p -> 'sampling_rate_hz', to_jsonb(sampling_rate_hz)),
            @extschema@._fixed(d, 'event_synth', 'max_attempts', p -> 'max_attempts', to_jsonb(max_attempts));
    -- The ledger record of event_synth_pd's cost (core/pd/event_synth.hpp): epsilon 0, the parameters.
    plan := ROW(d.name, d.owner, 'event_synth_pd', 'plausible-deniability', 0, 0, NULL, 0, false,
                jsonb_build_object('k', p -> 'k', 'gamma', p -> 'gamma', 'max_attempts', p -> 'max_attempts',
                                   'sampling_rate_hz', p -> 'sampling_rate_hz', 'model', p -> 'model',
                                   'test', 'identity (event)'),
                format('SELECT * FROM @extschema@.event_synth_pd(%L::regclass, %L, %L::int4, %L::float8, %L::float8, '
                       '%L::int4, false, NULL, $7)',
                       d.relation::text, p ->> 'model', p ->> 'k', p ->> 'gamma', p ->> 'sampling_rate_hz',
                       p ->> 'max_attempts'),
                NULL, NULL, NULL);
    RETURN @extschema@._served_once(plan, d, 'event_synth');
END $$;
COMMENT ON FUNCTION @extschema@._plan_event_synth_release(regrole, text, int, float8, text, float8, int) IS
    'Internal: the plan of event_synth_release. Privacy: its cost depends on the policy only.';
