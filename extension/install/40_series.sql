-- Time-series release (Bozkir, Günlü, Fuhl, Schaefer, Kasneci, PLOS ONE 2021): LPA, FPA, chunked CFPA and
-- difference DCFPA on feature signals, the NMSE utility and the choice of k; the Exponential-DP baseline
-- (Steil et al. 2019 as David-John et al. 2022 describe it).

-- One signal (float8[] in, float8[] out; VOLATILE: fresh noise per call) -------------------------------

CREATE FUNCTION @extschema@.lpa(series float8[], epsilon float8, l1_sensitivity float8) RETURNS float8[]
    AS 'MODULE_PATHNAME', 'gazepriv_lpa' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.lpa(float8[], float8, float8) IS
    'Laplace Perturbation Algorithm: every sample + Laplace(l1_sensitivity / epsilon) noise, on a power-of-two grid '
    'with the rounding added to the sensitivity. l1_sensitivity bounds the L1 change of the whole series between '
    'neighbours. Privacy: epsilon-DP per call for the relation the sensitivity was computed for; charges no budget.';

CREATE FUNCTION @extschema@.fpa(series float8[], k int, epsilon float8, l2_sensitivity float8) RETURNS float8[]
    AS 'MODULE_PATHNAME', 'gazepriv_fpa' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.fpa(float8[], int, float8, float8) IS
    'Fourier Perturbation Algorithm (Rastogi & Nath 2010) with the corrected scale lambda = sqrt(n k) l2_sensitivity '
    '/ epsilon for the non-unitary DFT (Bozkir et al. Eq. 8): Laplace(lambda) on Re F_0 and on Re and Im of F_1..F_k-1 '
    '(the Nyquist bin, for even n and k = n/2 + 1, has no imaginary coordinate), the other bins zeroed, a Hermitian '
    'reconstruction by FFTW c2r. 1 <= k <= floor(n/2) + 1. Per-sample noise variance 2 lambda^2 (4k - 3) / n^2. '
    'Privacy: epsilon-DP per call for a series whose L2 change between neighbours is at most l2_sensitivity; '
    'charges no budget.';

CREATE FUNCTION @extschema@.cfpa(series float8[], k int, chunk int, epsilon float8,
                                 chunk_l2_sensitivities float8[]) RETURNS float8[]
    AS 'MODULE_PATHNAME', 'gazepriv_cfpa' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.cfpa(float8[], int, int, float8, float8[]) IS
    'Chunked FPA (Bozkir et al.): the series cut into chunks of `chunk` samples (the last may be shorter: it uses '
    'its own length and k lowered to its own limit), each released by fpa with its own L2 sensitivity '
    '(chunk_l2_sensitivities: one per chunk, or one for all) and 1 <= k <= floor(chunk/2) + 1. Privacy: epsilon-DP '
    'per chunk. If one individual can change every chunk (the participant-level relation), the chunks compose '
    'sequentially: ceil(n / chunk) x epsilon for the series; the paper''s parallel composition holds only if a '
    'neighbour changes one chunk. Charges no budget.';

CREATE FUNCTION @extschema@.dcfpa(series float8[], k int, chunk int, epsilon float8,
                                  chunk_l2_sensitivities float8[]) RETURNS float8[]
    AS 'MODULE_PATHNAME', 'gazepriv_dcfpa' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dcfpa(float8[], int, int, float8, float8[]) IS
    'Difference and chunk FPA (Bozkir et al. Algorithm 1): inside each chunk the differences d_1 = x_1, d_t = x_t - '
    'x_t-1 (the first element kept and noised with the rest) are released by fpa and summed back cumulatively. '
    'chunk_l2_sensitivities are those of the difference chunks. Privacy: as cfpa, epsilon-DP per chunk and '
    'ceil(n / chunk) x epsilon for the series under the participant-level relation; charges no budget.';

CREATE FUNCTION @extschema@.nmse(original float8[], released float8[]) RETURNS float8
    AS 'MODULE_PATHNAME', 'gazepriv_nmse' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.nmse(float8[], float8[]) IS
    'Normalised mean square error of Bozkir et al. Eqs. 4-5: mean((a - b)^2) / (mean(a) mean(b)); 0 for identical '
    'series, Infinity when a mean is zero; it can be negative. Privacy: a utility metric on data you hold; '
    'releases nothing.';

CREATE FUNCTION @extschema@.nmse_utility(original float8[], released float8[]) RETURNS float8
    AS 'MODULE_PATHNAME', 'gazepriv_nmse_utility' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.nmse_utility(float8[], float8[]) IS
    'Utility = 1 / |NMSE| (Bozkir et al. Eq. 6). Privacy: a utility metric on data you hold; releases nothing.';

CREATE FUNCTION @extschema@.public_k(method text, epsilon float8, length int, chunk int DEFAULT 64) RETURNS int
    AS 'MODULE_PATHNAME', 'gazepriv_public_k' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.public_k(text, float8, int, int) IS
    'The public default k that release_series uses when k is NULL: 1 + #{j >= 1 : 800 (8j + 1) < epsilon^2}, at '
    'most the limit floor(m/2) + 1 (m = chunk for cfpa and dcfpa, length for fpa): one more coefficient is kept '
    'only while the noise it adds per sample stays below the variance of a signal spread over a tenth of its clip '
    'bounds, so k = 1 (each block''s mean) up to epsilon = 84.8 (calibrated on public Hoppe 2018 features, where '
    'the NMSE-optimal k was 1 up to epsilon 10). Privacy: depends on epsilon and the lengths only, never on data.';

CREATE FUNCTION @extschema@.choose_k(series float8[], epsilon float8, l2_sensitivities float8[],
                                     method text DEFAULT 'fpa', chunk int DEFAULT 64, candidates int[] DEFAULT NULL,
                                     runs int DEFAULT 100)
    RETURNS TABLE (k int, mean_abs_nmse float8, utility float8, chosen boolean)
    AS 'MODULE_PATHNAME', 'gazepriv_choose_k' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.choose_k(float8[], float8, float8[], text, int, int[], int) IS
    'The paper''s choice of k: for each candidate (default 1..16 then about 1.25x apart up to the limit) the mean '
    '|NMSE| of `runs` releases of the series by fpa, cfpa or dcfpa; chosen marks the smallest. l2_sensitivities: one '
    'value for fpa, one per chunk (or one) for cfpa and dcfpa. Privacy: NON-PRIVATE. It looks at the data (the paper '
    'admits the optimal k leaks); use public_k, a fixed k or k chosen on public data for a private release. Its '
    'noisy releases are never returned; charges no budget.';

-- Dataset releases (read a relation with the caller's privileges) ---------------------------------

CREATE FUNCTION @extschema@.release_series(source regclass, method text, epsilon float8, k int DEFAULT NULL,
                                           chunk int DEFAULT 64, sensitivity text DEFAULT 'clipped',
                                           bounds float8[] DEFAULT NULL, length int DEFAULT NULL,
                                           chunk_semantics text DEFAULT 'participant',
                                           participant_column name DEFAULT 'participant', dataset text DEFAULT NULL,
                                           recordings text[] DEFAULT NULL, clamp boolean DEFAULT true,
                                           k_share float8 DEFAULT NULL, bounds_share float8 DEFAULT NULL)
    RETURNS TABLE (participant text, recording text, feature text, series float8[])
    AS 'MODULE_PATHNAME', 'gazepriv_release_series' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.release_series(regclass, text, float8, int, int, text, float8[], int, text, name, text,
                                              text[], boolean, float8, float8) IS
    'Releases every participant''s feature signals perturbed by lpa, fpa, cfpa or dcfpa (Bozkir et al. 2021), one row '
    'per participant, recording and feature with the whole released signal. Source columns: participant (or '
    'participant_column), optional recording or task, t or window (orders each signal), and either features (an '
    'array per row) or feature and value. Signals of a recording are padded to the longest (or to the public '
    '`length`, truncating longer ones). sensitivity: clipped (default, strict: values clipped to public bounds '
    '[lo, hi] per feature or for all, Delta from the bounds) or empirical (the paper''s Eq. 7, max over pairs of '
    'participants, per chunk; NON-PRIVATE). k NULL: public_k. Privacy: epsilon is per feature (per chunk for cfpa '
    'and dcfpa). Neighbours differ in one participant''s signals; the release costs epsilon x features x (sum over '
    'recordings of the chunks per signal) under that relation, or epsilon x features (the paper''s number) with '
    'chunk_semantics => ''chunk''; release_series_cost shows both. Non-private choices: empirical sensitivity, '
    'length NULL. recordings: only the rows of these recordings (tasks) are read. With dataset (one the caller '
    'owns), charges release_series_cost''s total to the caller''s budget on it before any noise is drawn '
    '(guarantee kind dp; record-dp under chunk semantics, which protect one chunk, not a participant); without, '
    'charges nothing. clamp (default true; NULL is 22004): with bounds, every released value is clamped into its '
    'feature''s [lo, hi], free post-processing that never moves a value away from the (clipped) truth; it biases '
    'means of values near an edge toward the middle; clamp => false gives the unbiased raw noisy values. '
    'Private parameter choice (clipped sensitivity, participant semantics; NULL for none, else in (0, 1), sum below 1): '
    'bounds_share of every signal''s epsilon chooses each feature''s clipping bounds inside the public bounds (DP '
    'quantiles 0.1 and 0.9 of the participants'' averaged value distribution, exponential mechanism over 128 '
    'points, sensitivity 1); k_share (fpa, cfpa) chooses k per recording and feature by the exponential mechanism '
    'over 1..k (k NULL: the largest) with utility minus the expected squared error (energy outside the kept bins plus '
    'the public noise variance), sensitivity n (hi - lo)^2 / 4; the noise gets the rest of epsilon. The cost does not '
    'change (the shares compose sequentially inside it); the ledger''s parameters record the shares '
    '(private_selection) and a NOTICE reports what was chosen (a DP output).';

CREATE FUNCTION @extschema@.release_series_cost(source regclass, method text, epsilon float8, k int DEFAULT NULL,
                                                chunk int DEFAULT 64, sensitivity text DEFAULT 'clipped',
                                                bounds float8[] DEFAULT NULL, length int DEFAULT NULL,
                                                chunk_semantics text DEFAULT 'participant',
                                                participant_column name DEFAULT 'participant')
    RETURNS TABLE (mechanism text, guarantee text, epsilon float8, delta float8, rho float8,
                   non_private_choices boolean, parameters jsonb, paper_epsilon float8, participant_epsilon float8,
                   total_epsilon float8, total_delta float8)
    AS 'MODULE_PATHNAME', 'gazepriv_release_series_cost' LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.release_series_cost(regclass, text, float8, int, int, text, float8[], int, text, name) IS
    'What release_series with the same arguments would cost, computed the same way, without drawing noise: '
    'the columns of release_cost (epsilon is what a budget charges; total_epsilon and total_delta repeat epsilon '
    'and delta under their names before 0.2), paper_epsilon (epsilon x features, as the paper reports it), '
    'participant_epsilon (epsilon x features x chunks per signal summed over recordings), delta, the guarantee, '
    'whether a non-private choice is involved, and the parameters (jsonb, with the k and chunks used). '
    'Privacy: reads the data''s shape (lengths, features, recordings); releases no values; charges no budget.';

CREATE FUNCTION @extschema@.series_sensitivities(source regclass, method text, chunk int DEFAULT 64,
                                                 sensitivity text DEFAULT 'empirical', bounds float8[] DEFAULT NULL,
                                                 length int DEFAULT NULL,
                                                 participant_column name DEFAULT 'participant')
    RETURNS TABLE (recording text, feature text, chunk_index int, first_position int, chunk_length int,
                   sensitivity_value float8)
    AS 'MODULE_PATHNAME', 'gazepriv_series_sensitivities' LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.series_sensitivities(regclass, text, int, text, float8[], int, name) IS
    'The sensitivity release_series uses for each recording, feature and chunk (one chunk for lpa and fpa): the '
    'paper''s Eq. 7 (L1 for lpa, L2 otherwise, on difference chunks for dcfpa) or the value from the clip bounds. '
    'Privacy: NON-PRIVATE: empirical values are exact functions of the data; for curators, never for analysts.';

CREATE FUNCTION @extschema@.exponential_dp(source regclass, epsilon float8, variant text DEFAULT 'laplace',
                                           sensitivity text DEFAULT 'clipped', bounds float8[] DEFAULT NULL,
                                           length int DEFAULT NULL, participant_column name DEFAULT 'participant',
                                           dataset text DEFAULT NULL)
    RETURNS TABLE (participant text, recording text, feature text, series float8[])
    AS 'MODULE_PATHNAME', 'gazepriv_exponential_dp' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.exponential_dp(regclass, float8, text, text, float8[], int, name, text) IS
    'Exponential-DP (Steil et al. 2019) as David-John et al. 2022 describe it, over the same sources as '
    'release_series: per feature the range delta_i (max - min, or hi - lo of public bounds), per recording t_max '
    'with shorter signals padded by repeating their last value. variant => ''paper'': every value + -ln(y) / (lambda '
    't_max), y ~ Exponential(mean 1/lambda), lambda = epsilon / (2 t_max delta_i): paper-literal, NO DP PROOF (ln of an '
    'exponential is not Laplace noise). variant => ''laplace'' (default, corrected): every value + Laplace(2 '
    'delta_i / epsilon). Privacy: the papers report epsilon per feature; for the laplace variant each value is '
    'epsilon/2-DP and one participant''s values compose to features x (sum over recordings of t_max) x epsilon / 2 '
    '(see exponential_dp_cost). Non-private choices: the paper variant, empirical ranges, length NULL. With dataset, '
    'charges the laplace variant''s cost to the caller''s budget before any noise; the paper variant has no DP proof '
    'and cannot be charged (22023).';

CREATE FUNCTION @extschema@.exponential_dp_cost(source regclass, epsilon float8, variant text DEFAULT 'laplace',
                                                sensitivity text DEFAULT 'clipped', bounds float8[] DEFAULT NULL,
                                                length int DEFAULT NULL,
                                                participant_column name DEFAULT 'participant')
    RETURNS TABLE (mechanism text, guarantee text, epsilon float8, delta float8, rho float8,
                   non_private_choices boolean, parameters jsonb, paper_epsilon float8, participant_epsilon float8,
                   total_epsilon float8, total_delta float8)
    AS 'MODULE_PATHNAME', 'gazepriv_exponential_dp_cost' LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.exponential_dp_cost(regclass, float8, text, text, float8[], int, name) IS
    'What exponential_dp with the same arguments would cost, without drawing noise (the columns of release_cost, '
    'then paper_epsilon, participant_epsilon, and total_epsilon and total_delta as release_series_cost): for the laplace variant '
    'total_epsilon = participant_epsilon = features x (sum of t_max) x epsilon / 2; for the paper variant the '
    'paper''s claim epsilon x features, flagged non-private (no DP proof) with participant_epsilon NULL. '
    'Privacy: reads the data''s shape and ranges; releases no values; charges no budget.';

-- Analyst release (src/pg/budget/analyst_release.cpp) ---------------------------------------------------

CREATE FUNCTION @extschema@.series_public_cost(method text, epsilon float8, k int, chunk int, bounds float8[],
                                               length int, recordings int)
    RETURNS TABLE (mechanism text, guarantee text, epsilon float8, delta float8, rho float8,
                   non_private_choices boolean, parameters jsonb, paper_epsilon float8, participant_epsilon float8,
                   total_epsilon float8, total_delta float8)
    AS 'MODULE_PATHNAME', 'gazepriv_series_public_cost' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.series_public_cost(text, float8, int, int, float8[], int, int) IS
    'What release_series (strict clipped sensitivity, participant-level accounting) costs on any data of a public '
    'shape: `recordings` recordings per participant, signals of the public `length`, one feature per [lower, upper] '
    'row of bounds; the columns of release_series_cost. Analyst series releases are charged this from their '
    'policy before any row is read. Privacy: pure calculation, reads no data.';

CREATE FUNCTION @extschema@.series_accuracy(method text, epsilon float8, k int, chunk int, bounds float8[],
                                            length int, confidence float8 DEFAULT 0.95, k_share float8 DEFAULT NULL,
                                            bounds_share float8 DEFAULT NULL)
    RETURNS TABLE (feature int, noise_sd float8, half_width float8, exact boolean)
    AS 'MODULE_PATHNAME', 'gazepriv_series_accuracy' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.series_accuracy(text, float8, int, int, float8[], int, float8, float8, float8) IS
    'The accuracy of every value of a strict (clipped) release_series or release_feature_series of this public '
    'shape, per feature (one per [lower, upper] row of bounds): noise_sd, the largest standard deviation of a '
    'value''s noise over chunks and positions, and half_width, so that value +- half_width holds the clipped truth '
    'with the given confidence. exact: the noise of a value is one Laplace variable (lpa; fpa, cfpa and dcfpa '
    'with k = 1); otherwise it is a sum of 2k - 1 Laplace variables, noise_sd is exact (an upper bound for dcfpa) '
    'and half_width that of a Laplace variable of that sd (approximate). k NULL: public_k. Clamping (the default) '
    'only shortens the distance to the truth. With k_share or bounds_share (as release_series): the noise of the '
    'noise share''s epsilon with the public bounds and the largest candidate k (k, or the largest allowed when NULL), '
    'an upper bound since the chosen bounds lie inside and the chosen k is at most that (exact false). '
    'Privacy: pure calculation on public parameters; reads no data.';

CREATE FUNCTION @extschema@.release_feature_series(dataset text, method text, epsilon float8, k int DEFAULT NULL,
                                                   chunk int DEFAULT 64, length int DEFAULT NULL)
    RETURNS TABLE (participant text, recording text, feature text, series float8[])
    AS 'MODULE_PATHNAME', 'gazepriv_analyst_release' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.release_feature_series(text, text, float8, int, int, int) IS
    'Analyst release: every participant''s feature signals of a registered dataset (columns task or recording, window '
    'or t, features) released by release_series with a method the dataset''s series release policy allows, the '
    'strict clipped sensitivity from the dataset''s public feature bounds, and the policy''s public length '
    '(passing another is refused, 42501) and recordings (only those are read); k and chunk are the analyst''s. The '
    'policy''s k_share and bounds_share, when set, choose k (fpa, cfpa; the analyst''s k is then the largest candidate) '
    'and the clipping bounds privately inside the same cost (see release_series); the analyst cannot change them. '
    'Privacy: epsilon per feature (per chunk for cfpa, dcfpa); neighbours differ in one participant''s signals; '
    'charges series_public_cost (epsilon x features x recordings x chunks per signal) to the dp budget of the role '
    'whose privileges run the call, before the data is read as its owner.';
REVOKE ALL ON FUNCTION @extschema@.release_feature_series(text, text, float8, int, int, int) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.release_feature_series(text, text, float8, int, int, int)
    TO gazepriv_analyst, gazepriv_curator;

-- {"methods": [...], "length": n, "recordings": [...], "k_share": s, "bounds_share": s}: the methods analysts may
-- use (default all four), the public signal length (default the dataset's bounds.length) and the public recordings
-- (tasks) released, required when the dataset has a task or recording column; the cost counts them. The optional
-- shares of epsilon choose k and the clipping bounds privately (release_series); the cost does not change.
CREATE FUNCTION @extschema@._policy_series(d @extschema@.datasets, policy jsonb) RETURNS jsonb
    LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    methods jsonb := coalesce(policy -> 'methods', '["lpa", "fpa", "cfpa", "dcfpa"]');
    length int4 := coalesce(@extschema@._policy_count('series', policy, 'length'),
                            @extschema@._policy_count('series', d.bounds, 'length'));
    recordings jsonb := policy -> 'recordings';
    bounds float8[] := @extschema@._feature_bounds(d);
    k_share float8 := @extschema@._policy_number('series', policy, 'k_share');
    bounds_share float8 := @extschema@._policy_number('series', policy, 'bounds_share');
BEGIN
    PERFORM @extschema@._policy_keys('series', policy, ARRAY['methods', 'length', 'recordings', 'k_share', 'bounds_share'],
                                     ARRAY[]::text[]);
    IF NOT (coalesce(k_share, 0.5) > 0 AND coalesce(k_share, 0.5) < 1 AND coalesce(bounds_share, 0.5) > 0
            AND coalesce(bounds_share, 0.5) < 1 AND coalesce(k_share, 0) + coalesce(bounds_share, 0) < 1) THEN
        RAISE EXCEPTION 'the series policy''s k_share and bounds_share must each be in (0, 1) with a sum below 1, got % and %',
            k_share, bounds_share USING ERRCODE = '22023';
    END IF;
    IF jsonb_typeof(methods) <> 'array' OR jsonb_array_length(methods) = 0 OR EXISTS (
            SELECT FROM jsonb_array_elements(methods) m
            WHERE jsonb_typeof(m) <> 'string' OR m #>> '{}' NOT IN ('lpa', 'fpa', 'cfpa', 'dcfpa')) THEN
        RAISE EXCEPTION 'the series policy''s methods must be a non-empty array of lpa, fpa, cfpa, dcfpa'
            USING ERRCODE = '22023';
    END IF;
    IF length IS NULL THEN
        RAISE EXCEPTION 'a series policy needs a public "length" (or the dataset''s bounds.length)' USING ERRCODE = '22023';
    END IF;
    -- release_series reads the columns (participant, task or recording, window or t, features): a curator
    -- registers a view that renames other columns.
    IF d.features_column IS DISTINCT FROM 'features' OR d.window_column NOT IN ('window', 't')
       OR (d.task_column IS NOT NULL AND d.task_column NOT IN ('task', 'recording')) THEN
        RAISE EXCEPTION 'dataset "%" must name its columns task (or recording), window (or t) and features for a series '
                        'release', d.name USING ERRCODE = '22023', HINT = 'A curator registers a view that renames the columns.';
    END IF;
    IF bounds IS NULL THEN
        RAISE EXCEPTION 'dataset "%" has no public feature bounds', d.name USING ERRCODE = '22023',
            HINT = 'Register bounds => ''{"features": [[lower, upper], ...]}'', one row per feature.';
    END IF;
    IF d.task_column IS NULL AND recordings IS NOT NULL THEN
        RAISE EXCEPTION 'dataset "%" has no task or recording column for recordings', d.name USING ERRCODE = '22023';
    END IF;
    IF d.task_column IS NOT NULL AND (jsonb_typeof(recordings) IS DISTINCT FROM 'array'
                                      OR jsonb_array_length(recordings) = 0
                                      OR EXISTS (SELECT FROM jsonb_array_elements(recordings) r
                                                 WHERE jsonb_typeof(r) <> 'string')) THEN
        RAISE EXCEPTION 'a series policy on dataset "%" needs "recordings": the public names of the recordings '
                        '(tasks) it releases', d.name USING ERRCODE = '22023';
    END IF;
    PERFORM @extschema@.series_public_cost('lpa', 1, NULL, 64, bounds, length,  -- validates (22023)
                                           coalesce(jsonb_array_length(recordings), 1));
    RETURN jsonb_strip_nulls(jsonb_build_object('methods', methods, 'length', length, 'recordings', recordings,
                                                'k_share', k_share, 'bounds_share', bounds_share));
END $$;
COMMENT ON FUNCTION @extschema@._policy_series(@extschema@.datasets, jsonb) IS
    'Internal: validates a series release policy. Privacy: parameters only.';

CREATE FUNCTION @extschema@._plan_release_feature_series(caller regrole, dataset text, method text, epsilon float8,
                                                         k int, chunk int, length int)
    RETURNS @extschema@._release_plan LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    d @extschema@.datasets := @extschema@._release_dataset(caller, dataset, 'dp');
    p jsonb := @extschema@._release_policy(d, 'series');
    bounds float8[] := @extschema@._feature_bounds(d);
    recordings text[] := (SELECT array_agg(r ORDER BY r) FROM jsonb_array_elements_text(p -> 'recordings') r);
    -- The policy's shares (the analyst cannot pass any): k is chosen privately for fpa and cfpa only.
    k_share float8 := CASE WHEN method IN ('fpa', 'cfpa') THEN (p ->> 'k_share')::float8 END;
    bounds_share float8 := (p ->> 'bounds_share')::float8;
    selection jsonb := CASE WHEN k_share IS NOT NULL OR bounds_share IS NOT NULL THEN
        jsonb_build_object('private_selection', jsonb_strip_nulls(jsonb_build_object(
            'k_share', k_share, 'bounds_share', bounds_share,
            'noise_share', 1 - coalesce(k_share::numeric, 0) - coalesce(bounds_share::numeric, 0),
            'k_rule', CASE WHEN k_share IS NOT NULL THEN 'private' END,
            'bounds_rule', CASE WHEN bounds_share IS NOT NULL THEN 'private' ELSE 'public' END)))
        ELSE '{}' END;
    c record;
BEGIN
    IF NOT (p -> 'methods') ? method THEN
        RAISE EXCEPTION 'method "%" is not allowed by the series release policy of dataset "%" (%)', method, dataset,
            p -> 'methods' USING ERRCODE = '42501';
    END IF;
    PERFORM @extschema@._fixed(d, 'series', 'length', p -> 'length', to_jsonb(length));
    SELECT * INTO c FROM @extschema@.series_public_cost(method, epsilon, k, chunk, bounds, (p ->> 'length')::int4,
                                                         coalesce(cardinality(recordings), 1));
    RETURN ROW(d.name, d.owner, c.mechanism, c.guarantee, c.epsilon, c.delta, c.rho, 0, c.non_private_choices,
               c.parameters || jsonb_build_object('recordings', recordings) || selection,
               format('SELECT * FROM @extschema@.release_series(%L::regclass, $2, $3, $4, $5, ''clipped'', %L::float8[], '
                      '%s, ''participant'', %L, NULL, %L::text[], true, %L::float8, %L::float8)',
                      d.relation::text, bounds, p ->> 'length', d.participant_column, recordings, k_share,
                      bounds_share),
               NULL, NULL, NULL)::@extschema@._release_plan;
END $$;
COMMENT ON FUNCTION @extschema@._plan_release_feature_series(regrole, text, text, float8, int, int, int) IS
    'Internal: the plan of release_feature_series. Privacy: its cost depends on the arguments, the policy and the '
    'public bounds only.';
