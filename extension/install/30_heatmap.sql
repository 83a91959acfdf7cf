-- DP gaze heatmaps (Liu et al. 2019): exact capped gaze maps, their DP release as parallel, Citus-ready
-- aggregates, pictures and utility metrics.

-- The transition state: per-(participant, cell) capped counts. Its serialized form is versioned, checksummed
-- and printable, so the flat value, the text (how Citus ships states) and the binary form are the same bytes;
-- it is validated on input.
CREATE TYPE @extschema@.heatmap_state;

CREATE FUNCTION @extschema@.heatmap_state_in(cstring) RETURNS @extschema@.heatmap_state
    AS 'MODULE_PATHNAME', 'gazepriv_heatmap_state_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.heatmap_state_in(cstring) IS
    'Text input of heatmap_state (its printable serialized form); validates checksum, structure and ranges, '
    'corrupted input is ERROR XX001. Privacy: releases nothing (a state holds exact per-participant counts; treat it as raw data).';
CREATE FUNCTION @extschema@.heatmap_state_out(@extschema@.heatmap_state) RETURNS cstring
    AS 'MODULE_PATHNAME', 'gazepriv_heatmap_state_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.heatmap_state_out(@extschema@.heatmap_state) IS
    'Text output of heatmap_state (its printable serialized form). Privacy: NOT private, the exact '
    'per-participant counts; only roles that may read the raw gaze rows can produce a state.';
CREATE FUNCTION @extschema@.heatmap_state_recv(internal) RETURNS @extschema@.heatmap_state
    AS 'MODULE_PATHNAME', 'gazepriv_heatmap_state_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.heatmap_state_recv(internal) IS
    'Binary input of heatmap_state, validated like the text input. Privacy: releases nothing.';
CREATE FUNCTION @extschema@.heatmap_state_send(@extschema@.heatmap_state) RETURNS bytea
    AS 'MODULE_PATHNAME', 'gazepriv_heatmap_state_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.heatmap_state_send(@extschema@.heatmap_state) IS
    'Binary output of heatmap_state. Privacy: NOT private, the exact per-participant counts.';

CREATE TYPE @extschema@.heatmap_state (
    INPUT = @extschema@.heatmap_state_in, OUTPUT = @extschema@.heatmap_state_out,
    RECEIVE = @extschema@.heatmap_state_recv, SEND = @extschema@.heatmap_state_send,
    INTERNALLENGTH = VARIABLE, STORAGE = extended);
COMMENT ON TYPE @extschema@.heatmap_state IS
    'Transition state of gaze_map, dp_heatmap and optimal_cap: every (participant, cell) pair''s count, capped '
    'at m, so that partial states merge exactly; memory grows with distinct pairs. Privacy: NOT private, '
    'exact counts; never released by the aggregates themselves.';
COMMENT ON TYPE @extschema@.heatmap_state[] IS 'Array of heatmap_state. Privacy: NOT private, exact counts.';

CREATE TYPE @extschema@.heatmap_spec AS (
    width int4, height int4, epsilon float8, delta float8, cap int4, mechanism text, calibration text,
    blur_sigma float8, cell_size int4, observers int8, dataset text);
COMMENT ON TYPE @extschema@.heatmap_spec IS
    'Parameters of a DP heatmap release; build it with heatmap_spec(), which validates them. Privacy: '
    'epsilon, delta and cap set the guarantee; a release with a dataset charges that dataset''s budget.';
COMMENT ON TYPE @extschema@.heatmap_spec[] IS 'Array of heatmap_spec. Privacy: parameters only, releases nothing.';

-- The heatmap composite itself is in 20_budget.sql: the release store keeps maps in it.

-- Specification and cost (validate, release nothing) -------------------------------------------------

-- Omitted (NULL) arguments take the defaults of the C++ SpecFields (src/pg/heatmap/heatmap_types.hpp), as
-- NULL fields of a heatmap_spec composite do: delta 1e-5, cap 1, gaussian, analytic, blur 0, cell_size 1.
CREATE FUNCTION @extschema@.heatmap_spec(width int4, height int4, epsilon float8, delta float8 DEFAULT NULL,
                                         cap int4 DEFAULT NULL, mechanism text DEFAULT NULL,
                                         calibration text DEFAULT NULL, blur_sigma float8 DEFAULT NULL,
                                         cell_size int4 DEFAULT NULL, observers int8 DEFAULT NULL,
                                         dataset text DEFAULT NULL) RETURNS @extschema@.heatmap_spec
    AS 'MODULE_PATHNAME', 'gazepriv_heatmap_spec' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.heatmap_spec(int4, int4, float8, float8, int4, text, text, float8, int4, int8, text) IS
    'Validated parameters of a DP heatmap: a width x height pixel grid of cell_size px cells (at most '
    'gazepriv.max_heatmap_cells cells, checked when the spec is built, which for constant arguments is before '
    'any row is read), cap m >= 1, mechanism gaussian (delta in (0, 1); calibration analytic, liu2019 or '
    'dwork_roth) or laplace, blur_sigma in pixels, observers = the public n (NULL: the exact participant count, '
    'then treated as public), dataset (the budget a release charges; NULL: none). Omitted or NULL arguments '
    'take the defaults delta 1e-5, cap 1, mechanism gaussian, calibration analytic, blur_sigma 0, cell_size 1. '
    'Errors are 22023 (22004 for a NULL width, height or epsilon). Privacy: releases nothing; see '
    'heatmap_release_cost for what a release with it costs.';

CREATE FUNCTION @extschema@.heatmap_release_cost(spec @extschema@.heatmap_spec,
    OUT mechanism text, OUT guarantee text, OUT epsilon float8, OUT delta float8, OUT rho float8,
    OUT non_private_choices boolean, OUT parameters jsonb,
    OUT sigma float8, OUT scale float8, OUT noise_sd float8, OUT map_sd float8, OUT l2_sensitivity float8,
    OUT l1_sensitivity float8, OUT cells int8) RETURNS record
    AS 'MODULE_PATHNAME', 'gazepriv_heatmap_release_cost' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.heatmap_release_cost(@extschema@.heatmap_spec) IS
    'Preview of the privacy cost of one dp_heatmap or privatize release with this spec, computed from the spec '
    'alone exactly as the release computes it: the columns of release_cost (mechanism dp_heatmap, guarantee, '
    'epsilon, delta (Gaussian; includes the sampler''s and the discreteness reserves), rho (zCDP, Gaussian), '
    'non_private_choices, parameters), then sigma or scale of the integer noise on each capped sum (noise_sd), '
    'map_sd = noise_sd / observers (per cell of the released map, when observers is given), sensitivities '
    'm sqrt(r) and m r, and the number of cells. Privacy: releases nothing.';

-- What a release will look like, from public facts (doc/privacy/heatmap.md §9) ------------------------------

CREATE FUNCTION @extschema@.heatmap_preview(spec @extschema@.heatmap_spec, prior @extschema@.heatmap,
    OUT expected_cc float8, OUT signal_sd float8, OUT noise_sd float8, OUT verdict text) RETURNS record
    AS 'MODULE_PATHNAME', 'gazepriv_heatmap_preview' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.heatmap_preview(@extschema@.heatmap_spec, @extschema@.heatmap) IS
    'The correlation (CC) a dp_heatmap, privatize or release_heatmap release with this spec is expected to have '
    'with the true map blurred alike, before anything is spent: expected_cc = sqrt(s^2 / (s^2 + v)), s = '
    'signal_sd the spatial sd of the prior blurred to spec.blur_sigma, sqrt(v) = noise_sd the spatial sd of the '
    'release''s noise after the blur (heatmap_release_cost''s map_sd times the blur kernel''s sum of squared '
    'weights, exact at the edges). prior is the curator''s stated expectation of the true map, in the map''s '
    'units (capped counts per observer per cell: e.g. gaze_map of a pilot study or of public data on the same '
    'grid and cap, possibly blurred by at most spec.blur_sigma); its values finite (a prior that is itself a noisy release overstates signal_sd). verdict: noise '
    '(expected_cc < 0.3), weak (< 0.7) or usable. spec.observers (the public n) is required. Errors: 22023 '
    '(bad spec, a prior on another grid or cap, a NaN or infinite prior value, a prior blurred more '
    'than the spec), 54000 (a grid above gazepriv.max_heatmap_cells), 22004 (NULL spec, spec.observers or prior). '
    'Privacy: public parameters and a public prior only; reads no data, draws no noise and charges nothing '
    '(not even spec.dataset''s budget): free.';

CREATE FUNCTION @extschema@.heatmap_preview(spec @extschema@.heatmap_spec, centre_sd float8,
    points_per_observer float8, OUT expected_cc float8, OUT signal_sd float8, OUT noise_sd float8,
    OUT verdict text) RETURNS record
    AS 'MODULE_PATHNAME', 'gazepriv_heatmap_preview_centre_bias' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.heatmap_preview(@extschema@.heatmap_spec, float8, float8) IS
    'heatmap_preview with a parametric prior: a centre bias, an isotropic Gaussian of sd centre_sd pixels '
    'around the grid''s centre holding points_per_observer capped counts per observer on the map (for cap 1, '
    'the number of distinct cells one observer''s gaze enters: about the fixations per observer when cells are '
    'larger than a fixation), each cell at most the cap. Errors as heatmap_preview(spec, prior); 22023 for a '
    'centre_sd or points_per_observer that is not positive and finite. Privacy: public parameters only, free.';

-- Exact capped gaze maps (NOT private) -----------------------------------------------------------------

CREATE FUNCTION @extschema@._gaze_map_sfunc(@extschema@.heatmap_state, text, float8, float8, int4, int4, int4)
    RETURNS @extschema@.heatmap_state
    AS 'MODULE_PATHNAME', 'gazepriv__gaze_map_sfunc_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@._gaze_map_sfunc(@extschema@.heatmap_state, text, float8, float8, int4, int4, int4, int4)
    RETURNS @extschema@.heatmap_state
    AS 'MODULE_PATHNAME', 'gazepriv__gaze_map_sfunc_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@._gaze_map_sfunc(@extschema@.heatmap_state, int8, float8, float8, int4, int4, int4)
    RETURNS @extschema@.heatmap_state
    AS 'MODULE_PATHNAME', 'gazepriv__gaze_map_sfunc_bigint' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@._gaze_map_sfunc(@extschema@.heatmap_state, int8, float8, float8, int4, int4, int4, int4)
    RETURNS @extschema@.heatmap_state
    AS 'MODULE_PATHNAME', 'gazepriv__gaze_map_sfunc_bigint' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._gaze_map_sfunc(@extschema@.heatmap_state, text, float8, float8, int4, int4, int4) IS
    'Transition function of gaze_map(text, ...): counts the point for its participant, capped. Privacy: exact, internal.';
COMMENT ON FUNCTION @extschema@._gaze_map_sfunc(@extschema@.heatmap_state, text, float8, float8, int4, int4, int4, int4) IS
    'Transition function of gaze_map(text, ..., cell_size). Privacy: exact, internal.';
COMMENT ON FUNCTION @extschema@._gaze_map_sfunc(@extschema@.heatmap_state, int8, float8, float8, int4, int4, int4) IS
    'Transition function of gaze_map(bigint, ...). Privacy: exact, internal.';
COMMENT ON FUNCTION @extschema@._gaze_map_sfunc(@extschema@.heatmap_state, int8, float8, float8, int4, int4, int4, int4) IS
    'Transition function of gaze_map(bigint, ..., cell_size). Privacy: exact, internal.';

CREATE FUNCTION @extschema@._heatmap_combine(@extschema@.heatmap_state, @extschema@.heatmap_state)
    RETURNS @extschema@.heatmap_state
    AS 'MODULE_PATHNAME', 'gazepriv__heatmap_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._heatmap_combine(@extschema@.heatmap_state, @extschema@.heatmap_state) IS
    'Combine function of the heatmap aggregates: merges per-(participant, cell) counts with min(a + b, m), '
    'exact however a participant''s rows were split; a NULL state is empty. Privacy: exact, internal.';

CREATE FUNCTION @extschema@._gaze_map_final(@extschema@.heatmap_state) RETURNS @extschema@.heatmap
    AS 'MODULE_PATHNAME', 'gazepriv__gaze_map_final' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._gaze_map_final(@extschema@.heatmap_state) IS
    'Final function of gaze_map: capped sums divided by the participant count. Privacy: exact, NOT private.';

CREATE AGGREGATE @extschema@.gaze_map(participant text, x float8, y float8, width int4, height int4, cap int4) (
    SFUNC = @extschema@._gaze_map_sfunc, STYPE = @extschema@.heatmap_state, SSPACE = 1048576,
    COMBINEFUNC = @extschema@._heatmap_combine, FINALFUNC = @extschema@._gaze_map_final,
    FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE);
CREATE AGGREGATE @extschema@.gaze_map(participant text, x float8, y float8, width int4, height int4, cap int4,
                                      cell_size int4) (
    SFUNC = @extschema@._gaze_map_sfunc, STYPE = @extschema@.heatmap_state, SSPACE = 1048576,
    COMBINEFUNC = @extschema@._heatmap_combine, FINALFUNC = @extschema@._gaze_map_final,
    FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE);
CREATE AGGREGATE @extschema@.gaze_map(participant int8, x float8, y float8, width int4, height int4, cap int4) (
    SFUNC = @extschema@._gaze_map_sfunc, STYPE = @extschema@.heatmap_state, SSPACE = 1048576,
    COMBINEFUNC = @extschema@._heatmap_combine, FINALFUNC = @extschema@._gaze_map_final,
    FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE);
CREATE AGGREGATE @extschema@.gaze_map(participant int8, x float8, y float8, width int4, height int4, cap int4,
                                      cell_size int4) (
    SFUNC = @extschema@._gaze_map_sfunc, STYPE = @extschema@.heatmap_state, SSPACE = 1048576,
    COMBINEFUNC = @extschema@._heatmap_combine, FINALFUNC = @extschema@._gaze_map_final,
    FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.gaze_map(text, float8, float8, int4, int4, int4) IS
    'The exact capped gaze map G = (1/n) sum_i min(count_i(cell), cap) on a width x height grid of 1 px cells '
    '(n = distinct participants); points outside the grid, NaN or infinite are dropped, NULL participants '
    'ignored. Parallel and Citus safe. Privacy: exact, NOT private (for curators and utility metrics).';
COMMENT ON AGGREGATE @extschema@.gaze_map(text, float8, float8, int4, int4, int4, int4) IS
    'gaze_map with cells of cell_size px. Privacy: exact, NOT private.';
COMMENT ON AGGREGATE @extschema@.gaze_map(int8, float8, float8, int4, int4, int4) IS
    'gaze_map for bigint participants. Privacy: exact, NOT private.';
COMMENT ON AGGREGATE @extschema@.gaze_map(int8, float8, float8, int4, int4, int4, int4) IS
    'gaze_map for bigint participants with cells of cell_size px. Privacy: exact, NOT private.';

-- The DP release ---------------------------------------------------------------------------------------

CREATE FUNCTION @extschema@._dp_heatmap_sfunc(@extschema@.heatmap_state, text, float8, float8, @extschema@.heatmap_spec)
    RETURNS @extschema@.heatmap_state
    AS 'MODULE_PATHNAME', 'gazepriv__dp_heatmap_sfunc_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@._dp_heatmap_sfunc(@extschema@.heatmap_state, int8, float8, float8, @extschema@.heatmap_spec)
    RETURNS @extschema@.heatmap_state
    AS 'MODULE_PATHNAME', 'gazepriv__dp_heatmap_sfunc_bigint' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._dp_heatmap_sfunc(@extschema@.heatmap_state, text, float8, float8, @extschema@.heatmap_spec) IS
    'Transition function of dp_heatmap(text, ...): exact capped counting, no noise. Privacy: exact, internal.';
COMMENT ON FUNCTION @extschema@._dp_heatmap_sfunc(@extschema@.heatmap_state, int8, float8, float8, @extschema@.heatmap_spec) IS
    'Transition function of dp_heatmap(bigint, ...): exact capped counting, no noise. Privacy: exact, internal.';

CREATE FUNCTION @extschema@._dp_heatmap_final(@extschema@.heatmap_state) RETURNS @extschema@.heatmap
    AS 'MODULE_PATHNAME', 'gazepriv__dp_heatmap_final' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._dp_heatmap_final(@extschema@.heatmap_state) IS
    'Final function of dp_heatmap, the only place it draws noise: exact discrete Gaussian or discrete Laplace '
    'noise on every capped sum, divided by n, then the blur; never modifies the state, refuses window use. '
    'Privacy: one (epsilon, delta)-DP release per group, as heatmap_release_cost states.';

CREATE AGGREGATE @extschema@.dp_heatmap(participant text, x float8, y float8, spec @extschema@.heatmap_spec) (
    SFUNC = @extschema@._dp_heatmap_sfunc, STYPE = @extschema@.heatmap_state, SSPACE = 1048576,
    COMBINEFUNC = @extschema@._heatmap_combine, FINALFUNC = @extschema@._dp_heatmap_final,
    FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE);
CREATE AGGREGATE @extschema@.dp_heatmap(participant int8, x float8, y float8, spec @extschema@.heatmap_spec) (
    SFUNC = @extschema@._dp_heatmap_sfunc, STYPE = @extschema@.heatmap_state, SSPACE = 1048576,
    COMBINEFUNC = @extschema@._heatmap_combine, FINALFUNC = @extschema@._dp_heatmap_final,
    FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.dp_heatmap(text, float8, float8, @extschema@.heatmap_spec) IS
    'DP gaze heatmap (Liu et al. 2019): capped sums S on spec''s grid, exact integer noise (discrete Gaussian, '
    'sensitivity m sqrt(r), or discrete Laplace, m r), divided by n, then blurred (noise before blur). Parallel '
    'and Citus safe; the spec must be the same on every row of a group. Privacy: (epsilon, delta)-DP '
    '(Gaussian, also rho-zCDP) or epsilon-DP (Laplace) per group under replace-one-participant neighbours with n '
    'public; one release per distinct call (identical calls in one query level are evaluated once); with '
    'spec.dataset, each group''s release charges heatmap_release_cost to the caller''s budget before its noise '
    'is drawn.';
COMMENT ON AGGREGATE @extschema@.dp_heatmap(int8, float8, float8, @extschema@.heatmap_spec) IS
    'dp_heatmap for bigint participants. Privacy: as dp_heatmap(text, ...): (epsilon, delta)-DP or epsilon-DP '
    'per group, replace-one neighbours, n public; one release per distinct call; charges spec.dataset per group.';

CREATE FUNCTION @extschema@.privatize(map @extschema@.heatmap, spec @extschema@.heatmap_spec)
    RETURNS @extschema@.heatmap
    AS 'MODULE_PATHNAME', 'gazepriv_privatize' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.privatize(@extschema@.heatmap, @extschema@.heatmap_spec) IS
    'The DP release of an exact map from gaze_map (same grid and cap as spec; the capped sums are map values '
    'times map n): draws noise exactly as dp_heatmap, divides by spec.observers or map.n, then blurs. Privacy: '
    '(epsilon, delta)-DP or epsilon-DP per call as heatmap_release_cost states, provided map is gaze_map''s '
    'output over the participants to protect; with spec.dataset, charges the cost before drawing noise.';

-- Algorithm 1 (NON-PRIVATE) ----------------------------------------------------------------------------

CREATE FUNCTION @extschema@._optimal_cap_sfunc(@extschema@.heatmap_state, text, float8, float8, @extschema@.heatmap_spec)
    RETURNS @extschema@.heatmap_state
    AS 'MODULE_PATHNAME', 'gazepriv__optimal_cap_sfunc_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@._optimal_cap_sfunc(@extschema@.heatmap_state, int8, float8, float8, @extschema@.heatmap_spec)
    RETURNS @extschema@.heatmap_state
    AS 'MODULE_PATHNAME', 'gazepriv__optimal_cap_sfunc_bigint' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._optimal_cap_sfunc(@extschema@.heatmap_state, text, float8, float8, @extschema@.heatmap_spec) IS
    'Transition function of optimal_cap(text, ...): exact uncapped counting. Privacy: exact, internal.';
COMMENT ON FUNCTION @extschema@._optimal_cap_sfunc(@extschema@.heatmap_state, int8, float8, float8, @extschema@.heatmap_spec) IS
    'Transition function of optimal_cap(bigint, ...): exact uncapped counting. Privacy: exact, internal.';
CREATE FUNCTION @extschema@._optimal_cap_final(@extschema@.heatmap_state) RETURNS int4
    AS 'MODULE_PATHNAME', 'gazepriv__optimal_cap_final' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._optimal_cap_final(@extschema@.heatmap_state) IS
    'Final function of optimal_cap: Algorithm 1 of Liu et al. Privacy: NON-PRIVATE, reads raw counts.';

CREATE AGGREGATE @extschema@.optimal_cap(participant text, x float8, y float8, spec @extschema@.heatmap_spec) (
    SFUNC = @extschema@._optimal_cap_sfunc, STYPE = @extschema@.heatmap_state, SSPACE = 1048576,
    COMBINEFUNC = @extschema@._heatmap_combine, FINALFUNC = @extschema@._optimal_cap_final,
    FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE);
CREATE AGGREGATE @extschema@.optimal_cap(participant int8, x float8, y float8, spec @extschema@.heatmap_spec) (
    SFUNC = @extschema@._optimal_cap_sfunc, STYPE = @extschema@.heatmap_state, SSPACE = 1048576,
    COMBINEFUNC = @extschema@._heatmap_combine, FINALFUNC = @extschema@._optimal_cap_final,
    FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.optimal_cap(text, float8, float8, @extschema@.heatmap_spec) IS
    'Algorithm 1 of Liu et al. 2019: the cap m in [1, largest per-participant cell count] minimising Theorem '
    '4.1''s expected MSE (noise variance of spec''s mechanism at cap m + squared capping bias) on spec''s grid '
    '(spec.cap is ignored). Privacy: NON-PRIVATE, a data-dependent choice read from raw counts; a strict '
    'alternative is a cap fixed in advance.';
COMMENT ON AGGREGATE @extschema@.optimal_cap(int8, float8, float8, @extschema@.heatmap_spec) IS
    'optimal_cap for bigint participants. Privacy: NON-PRIVATE, a data-dependent choice read from raw counts.';

-- Post-processing: blur, cells, pictures, metrics -------------------------------------------------------

CREATE FUNCTION @extschema@.heatmap_blur(heatmap @extschema@.heatmap, sigma float8) RETURNS @extschema@.heatmap
    AS 'MODULE_PATHNAME', 'gazepriv_heatmap_blur' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.heatmap_blur(@extschema@.heatmap, float8) IS
    'The map convolved with a Gaussian point-spread function of standard deviation sigma pixels (the same blur '
    'as spec.blur_sigma; zero outside the map); blur_sigma becomes sqrt(old^2 + sigma^2). Privacy: '
    'post-processing, keeps the input''s guarantee.';

CREATE FUNCTION @extschema@.heatmap_clamp(heatmap @extschema@.heatmap) RETURNS @extschema@.heatmap
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
    SELECT ROW(h.width, h.height, h.cell_size, h.columns, h.rows,
               (SELECT array_agg(greatest(0, least(coalesce(h.cap, 1), v)) ORDER BY i)
                FROM unnest(h.values) WITH ORDINALITY u(v, i)),
               h.n, h.cap, h.mechanism, h.calibration, h.epsilon, h.delta, h.rho, h.sigma, h.scale,
               h.blur_sigma)::@extschema@.heatmap
    FROM (SELECT (heatmap).*) h
$$;
COMMENT ON FUNCTION @extschema@.heatmap_clamp(@extschema@.heatmap) IS
    'The map with every cell clamped into [0, cap] (cap 1 when NULL): the range of the true values, each a capped '
    'count sum over n with at most cap per participant and cell (a blur keeps it, its kernel sums to at most 1). '
    'Each cell moves toward the truth, so the MSE can only shrink; it is biased upward in empty cells (the negative '
    'noise is cut) and the map''s sum is no longer unbiased. Privacy: post-processing, keeps the input''s guarantee.';

CREATE FUNCTION @extschema@.heatmap_cells(heatmap @extschema@.heatmap, OUT x int4, OUT y int4, OUT value float8)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME', 'gazepriv_heatmap_cells' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 10000;
COMMENT ON FUNCTION @extschema@.heatmap_cells(@extschema@.heatmap) IS
    'One row per cell for BI tools: x, y = the cell''s top-left pixel, value. Privacy: post-processing, keeps '
    'the input''s guarantee.';

CREATE FUNCTION @extschema@.heatmap_png(heatmap @extschema@.heatmap, colormap text DEFAULT 'inferno',
                                        alpha_from_value boolean DEFAULT true, vmin float8 DEFAULT NULL,
                                        vmax float8 DEFAULT NULL, colorbar boolean DEFAULT false,
                                        stimulus bytea DEFAULT NULL, opacity float8 DEFAULT NULL,
                                        significance float8 DEFAULT NULL, correction text DEFAULT 'bonferroni')
    RETURNS bytea
    AS 'MODULE_PATHNAME', 'gazepriv_heatmap_png' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.heatmap_png(@extschema@.heatmap, text, boolean, float8, float8, boolean, bytea,
                                            float8, float8, text) IS
    'An RGBA PNG of the map, one pixel per screen pixel (per cell above 2^24 pixels), NULL for a NULL map. '
    'Values from vmin (default 0) to vmax (default the map''s maximum; fix both to compare maps) through '
    'colormap inferno, viridis, magma, plasma, cividis, gray or jet; with alpha_from_value the opacity '
    'follows the value. colorbar adds a panel with the scale and the release''s noise sd. stimulus (a PNG '
    'or JPEG, at most gazepriv.max_stimulus_pixels pixels: 54000; corrupt: 22023) is drawn under the heat '
    'at opacity (default 0.6 over a stimulus, 1 without). significance (a level in (0, 0.5]) outlines the '
    'cells above what the noise alone exceeds with that probability (correction bonferroni: over the whole '
    'map; per_cell: per cell) and fades the others. Privacy: post-processing of the released values and '
    'public parameters, keeps the input''s guarantee.';

CREATE FUNCTION @extschema@.heatmap_significance_threshold(heatmap @extschema@.heatmap,
                                                           significance float8 DEFAULT 0.05,
                                                           correction text DEFAULT 'bonferroni') RETURNS float8
    AS 'MODULE_PATHNAME', 'gazepriv_heatmap_significance_threshold' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.heatmap_significance_threshold(@extschema@.heatmap, float8, text) IS
    'The value above which a cell of a released map is significant at the level: the noise''s (1 - a) '
    'quantile (its sigma or scale, after the map''s blur), a = significance / cells (bonferroni: on a map '
    'whose true values are all 0, no cell exceeds it with probability >= 1 - significance) or a = '
    'significance (per_cell). 22023 for an exact map or a blurred Laplace map. Privacy: a function of public '
    'parameters, free.';

CREATE FUNCTION @extschema@.heatmap_accuracy(heatmap @extschema@.heatmap, confidence float8 DEFAULT 0.95,
                                             OUT noise_sd float8, OUT half_width float8, OUT exact boolean)
    AS 'MODULE_PATHNAME', 'gazepriv_heatmap_accuracy' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.heatmap_accuracy(@extschema@.heatmap, float8) IS
    'The accuracy of every cell of a released map, from its public fields: noise_sd (after the map''s blur) and '
    'half_width, so that value +- half_width holds the cell''s exact capped value / n with the given confidence. '
    'exact: half_width is the smallest such value (an unblurred map: the discrete Gaussian or discrete Laplace '
    'noise on the capped sums, in steps of 1 / n); otherwise a valid but wider bound (blurred Gaussian: the '
    'sub-Gaussian tail sd sqrt(2 ln(2 / (1 - confidence))); blurred Laplace: Chebyshev sd / sqrt(1 - '
    'confidence)). Clamping (heatmap_clamp) keeps the interval valid. An exact map (mechanism none) has 0 and 0. '
    '22023 for a confidence outside (0, 1); 22004 for NULL. Privacy: public parameters only, free.';

CREATE FUNCTION @extschema@.heatmap_epsilon_for_accuracy(spec @extschema@.heatmap_spec, half_width float8,
                                                         confidence float8 DEFAULT 0.95) RETURNS float8
    AS 'MODULE_PATHNAME', 'gazepriv_heatmap_epsilon_for_accuracy' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.heatmap_epsilon_for_accuracy(@extschema@.heatmap_spec, float8, float8) IS
    'The inverse of heatmap_accuracy, before anything is spent: the smallest epsilon (to 1e-9 relative) at which '
    'a release with this spec (its epsilon ignored; its observers required) keeps every cell within +- '
    'half_width of its exact capped value / n with the given confidence. 22023 without observers, for a '
    'half_width that is not positive and finite, or when no epsilon up to 1e6 reaches it; 22004 for NULL. '
    'Privacy: public parameters only, free.';

CREATE FUNCTION @extschema@.heatmap_mse(a @extschema@.heatmap, b @extschema@.heatmap) RETURNS float8
    AS 'MODULE_PATHNAME', 'gazepriv_heatmap_mse' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.heatmap_mse(@extschema@.heatmap, @extschema@.heatmap) IS
    'Mean squared error between two maps of the same grid. Privacy: a function of both inputs; comparing with '
    'an exact map is NOT private.';

CREATE FUNCTION @extschema@.heatmap_cc(a @extschema@.heatmap, b @extschema@.heatmap) RETURNS float8
    AS 'MODULE_PATHNAME', 'gazepriv_heatmap_cc' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.heatmap_cc(@extschema@.heatmap, @extschema@.heatmap) IS
    'Pearson correlation coefficient (CC) between two maps of the same grid, NULL when either is constant. '
    'Privacy: a function of both inputs; comparing with an exact map is NOT private.';

-- Analyst release (src/pg/budget/analyst_release.cpp) ---------------------------------------------------

CREATE FUNCTION @extschema@.release_heatmap(dataset text, stimulus bigint, spec @extschema@.heatmap_spec)
    RETURNS @extschema@.heatmap AS 'MODULE_PATHNAME', 'gazepriv_analyst_release'
    LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.release_heatmap(text, bigint, @extschema@.heatmap_spec) IS
    'Analyst release: the DP heatmap of a registered dataset (its participant, x and y columns; one stimulus, or '
    'all when NULL) with spec''s grid, cell size, epsilon, delta, mechanism, calibration and blur; the cap is the '
    'dataset''s heatmap release policy''s and n its registered observers (spec.cap, spec.observers and '
    'spec.dataset are ignored). A stimulus nobody looked at gives the noise on an empty map, charged alike. '
    'Privacy: as dp_heatmap, replace-one-participant neighbours with n public; charges heatmap_release_cost to the '
    'dp budget of the role whose privileges run the call, before the data is read as its owner.';
REVOKE ALL ON FUNCTION @extschema@.release_heatmap(text, bigint, @extschema@.heatmap_spec) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.release_heatmap(text, bigint, @extschema@.heatmap_spec)
    TO gazepriv_analyst, gazepriv_curator;

-- {"cap": m}: the cap on a participant's count per cell (Liu et al.'s m), which the release's noise is
-- calibrated to; the public n is the dataset's registered observers.
CREATE FUNCTION @extschema@._policy_heatmap(d @extschema@.datasets, policy jsonb) RETURNS jsonb
    LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    cap int4 := @extschema@._policy_count('heatmap', policy, 'cap');
BEGIN
    PERFORM @extschema@._policy_keys('heatmap', policy, ARRAY['cap'], ARRAY['cap']);
    PERFORM @extschema@.heatmap_spec(1, 1, 1, cap => cap);  -- validates (22023)
    IF d.x_column IS NULL OR d.y_column IS NULL THEN
        RAISE EXCEPTION 'dataset "%" needs x and y columns for a heatmap', d.name USING ERRCODE = '22023';
    END IF;
    IF d.observers IS NULL THEN
        RAISE EXCEPTION 'dataset "%" has no public number of observers, the n of its heatmaps', d.name
            USING ERRCODE = '22023', HINT = 'Register it with observers => n (a public fact, not counted from the data).';
    END IF;
    RETURN jsonb_build_object('cap', cap);
END $$;
COMMENT ON FUNCTION @extschema@._policy_heatmap(@extschema@.datasets, jsonb) IS
    'Internal: validates a heatmap release policy. Privacy: parameters only.';

CREATE FUNCTION @extschema@._plan_release_heatmap(caller regrole, dataset text, stimulus bigint,
                                                  spec @extschema@.heatmap_spec)
    RETURNS @extschema@._release_plan LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    d @extschema@.datasets := @extschema@._release_dataset(caller, dataset, 'dp');
    policy jsonb := @extschema@._release_policy(d, 'heatmap');
    s @extschema@.heatmap_spec := spec;
    c record;
    released text;  -- the spec the release uses: the analyst's, with the policy's cap and the public n
BEGIN
    IF spec IS NULL THEN
        RAISE EXCEPTION 'spec must not be NULL' USING ERRCODE = '22023';
    END IF;
    IF stimulus IS NOT NULL AND d.stimulus_column IS NULL THEN
        RAISE EXCEPTION 'dataset "%" has no stimulus column', dataset USING ERRCODE = '22023';
    END IF;
    s.cap := (policy ->> 'cap')::int4;
    s.observers := d.observers;
    s.dataset := NULL;
    SELECT * INTO c FROM @extschema@.heatmap_release_cost(s);  -- validates the spec (22023)
    released := format('ROW(($3).width, ($3).height, ($3).epsilon, ($3).delta, %s, ($3).mechanism, ($3).calibration, '
                       '($3).blur_sigma, ($3).cell_size, %s, NULL)::@extschema@.heatmap_spec', s.cap, s.observers);
    RETURN ROW(d.name, d.owner, c.mechanism, c.guarantee, c.epsilon, c.delta, c.rho,
               coalesce((c.parameters ->> 'sampler_distance')::float8, 0), c.non_private_choices,
               c.parameters || jsonb_build_object('stimulus', stimulus),
               -- No rows (a stimulus nobody looked at) is the noise on an empty map of the same grid.
               format('SELECT coalesce((SELECT @extschema@.dp_heatmap(%I::text, %I::float8, %I::float8, %s) '
                      'FROM %s WHERE %s), @extschema@.privatize((SELECT @extschema@.gaze_map(''''::text, '
                      '-1::float8, -1::float8, ($3).width, ($3).height, %s, coalesce(($3).cell_size, 1))), %s))',
                      d.participant_column, d.x_column, d.y_column, released, d.relation,
                      CASE WHEN stimulus IS NULL THEN 'true' ELSE format('%I = $2', d.stimulus_column) END,
                      s.cap, released),
               NULL, NULL, NULL)::@extschema@._release_plan;
END $$;
COMMENT ON FUNCTION @extschema@._plan_release_heatmap(regrole, text, bigint, @extschema@.heatmap_spec) IS
    'Internal: the plan of release_heatmap. Privacy: its cost depends on the spec, the policy''s cap and the '
    'registered n only.';
