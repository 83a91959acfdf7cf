-- Events and features: from raw gaze samples to fixations and saccades (I-VT, I-DT) and to windowed
-- feature vectors, the inputs of the k-same, plausible-deniability and FPA releases. This is
-- preprocessing on raw data for the curator: nothing here adds noise or charges a budget, and every
-- result is as identifying as the samples it came from. The functions read only what the caller can
-- already read (none is SECURITY DEFINER).

-- The trace type ---------------------------------------------------------------------------------------

CREATE TYPE @extschema@.gaze_trace;

CREATE FUNCTION @extschema@.gaze_trace_in(cstring) RETURNS @extschema@.gaze_trace
    AS 'MODULE_PATHNAME', 'gazepriv_gaze_trace_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.gaze_trace_in(cstring) IS
    'Text input of gaze_trace: {(t_ms,x,y),(t_ms,x,y,pupil),...}; NaN marks a missing value. Samples are '
    'sorted by time and samples sharing a timestamp are merged (their mean). ERROR 22P02 for malformed text '
    'or a non-finite time. Privacy: parses raw data and releases it unprotected; curator-only.';

CREATE FUNCTION @extschema@.gaze_trace_out(@extschema@.gaze_trace) RETURNS cstring
    AS 'MODULE_PATHNAME', 'gazepriv_gaze_trace_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.gaze_trace_out(@extschema@.gaze_trace) IS
    'Text output of gaze_trace, exact (shortest round-trip numbers). '
    'Privacy: prints raw data unprotected; curator-only.';

CREATE TYPE @extschema@.gaze_trace (
    INPUT = @extschema@.gaze_trace_in, OUTPUT = @extschema@.gaze_trace_out,
    INTERNALLENGTH = VARIABLE, ALIGNMENT = double, STORAGE = extended);
COMMENT ON TYPE @extschema@.gaze_trace IS
    'The time-ordered gaze samples (t_ms, x, y, pupil) of one recording, built by make_trace and read by '
    'detect_events, label_samples and feature_windows. At most 33,554,431 samples (1 GB). '
    'Privacy: holds raw data unprotected; curator-only.';

-- make_trace: one trace per group of sample rows ------------------------------------------------------

-- The transition state: every sample as it came, duplicates of a time kept apart, so that partial states
-- (parallel workers, Citus shards) combine exactly whatever the split; only the final function sorts and
-- merges duplicate times. Its text form is a gaze_trace's without the merging (how Citus ships states).
CREATE TYPE @extschema@.trace_state;

CREATE FUNCTION @extschema@.trace_state_in(cstring) RETURNS @extschema@.trace_state
    AS 'MODULE_PATHNAME', 'gazepriv_trace_state_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.trace_state_in(cstring) IS
    'Text input of trace_state: {(t_ms,x,y),(t_ms,x,y,pupil),...} kept in order, duplicate times not merged. '
    'ERROR 22P02 for malformed text or a non-finite time. Privacy: parses raw data unprotected; curator-only.';

CREATE FUNCTION @extschema@.trace_state_out(@extschema@.trace_state) RETURNS cstring
    AS 'MODULE_PATHNAME', 'gazepriv_trace_state_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.trace_state_out(@extschema@.trace_state) IS
    'Text output of trace_state: every sample exactly, as held. Privacy: prints raw data unprotected; curator-only.';

CREATE TYPE @extschema@.trace_state (
    INPUT = @extschema@.trace_state_in, OUTPUT = @extschema@.trace_state_out,
    INTERNALLENGTH = VARIABLE, ALIGNMENT = double, STORAGE = extended);
COMMENT ON TYPE @extschema@.trace_state IS
    'Transition state of make_trace: its samples unsorted, duplicate times not yet merged, so that partial '
    'states combine exactly. Privacy: holds raw data unprotected; never released by make_trace itself.';
COMMENT ON TYPE @extschema@.trace_state[] IS 'Array of trace_state. Privacy: holds raw data unprotected.';

CREATE FUNCTION @extschema@._make_trace_sfunc(@extschema@.trace_state, float8, float8, float8)
    RETURNS @extschema@.trace_state
    AS 'MODULE_PATHNAME', 'gazepriv_make_trace_sfunc' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._make_trace_sfunc(@extschema@.trace_state, float8, float8, float8) IS
    'Transition function of make_trace(t_ms, x, y); not callable directly. '
    'Privacy: collects raw data unprotected; curator-only preprocessing.';

CREATE FUNCTION @extschema@._make_trace_sfunc(@extschema@.trace_state, float8, float8, float8, float8)
    RETURNS @extschema@.trace_state
    AS 'MODULE_PATHNAME', 'gazepriv_make_trace_pupil_sfunc' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._make_trace_sfunc(@extschema@.trace_state, float8, float8, float8, float8) IS
    'Transition function of make_trace(t_ms, x, y, pupil); not callable directly. '
    'Privacy: collects raw data unprotected; curator-only preprocessing.';

CREATE FUNCTION @extschema@._make_trace_combinefunc(@extschema@.trace_state, @extschema@.trace_state)
    RETURNS @extschema@.trace_state
    AS 'MODULE_PATHNAME', 'gazepriv_make_trace_combinefunc' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._make_trace_combinefunc(@extschema@.trace_state, @extschema@.trace_state) IS
    'Combine function of make_trace (parallel and distributed aggregation): concatenates partial states, '
    'duplicate times still apart. '
    'Privacy: collects raw data unprotected; curator-only preprocessing.';

CREATE FUNCTION @extschema@._make_trace_finalfunc(@extschema@.trace_state) RETURNS @extschema@.gaze_trace
    AS 'MODULE_PATHNAME', 'gazepriv_make_trace_finalfunc' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._make_trace_finalfunc(@extschema@.trace_state) IS
    'Final function of make_trace: sorts by time when needed and merges duplicate timestamps. '
    'Privacy: releases raw data unprotected; curator-only preprocessing.';

CREATE AGGREGATE @extschema@.make_trace(t_ms float8, x float8, y float8) (
    SFUNC = @extschema@._make_trace_sfunc, STYPE = @extschema@.trace_state,
    COMBINEFUNC = @extschema@._make_trace_combinefunc,
    FINALFUNC = @extschema@._make_trace_finalfunc, FINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.make_trace(float8, float8, float8) IS
    'The gaze_trace of a group of sample rows (GROUP BY participant, and stimulus or task). Rows may come in '
    'any order (no ORDER BY needed: the trace is sorted by t_ms, in O(n) when already sorted); rows sharing a '
    't_ms are merged into their mean; rows with NULL t_ms are skipped; NULL, NaN or infinite x or y make a '
    'sample missing; a NaN or infinite t_ms is ERROR 22023. Parallel safe; no window use (0A000). '
    'Privacy: collects raw data unprotected; curator-only preprocessing, no noise, charges no budget.';

CREATE AGGREGATE @extschema@.make_trace(t_ms float8, x float8, y float8, pupil float8) (
    SFUNC = @extschema@._make_trace_sfunc, STYPE = @extschema@.trace_state,
    COMBINEFUNC = @extschema@._make_trace_combinefunc,
    FINALFUNC = @extschema@._make_trace_finalfunc, FINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.make_trace(float8, float8, float8, float8) IS
    'make_trace with a pupil diameter per sample (NULL, NaN, infinite or <= 0 means missing, as trackers '
    'write 0 for no pupil). Privacy: collects raw data unprotected; curator-only preprocessing, no noise, '
    'charges no budget.';

CREATE FUNCTION @extschema@.trace_samples(trace @extschema@.gaze_trace)
    RETURNS TABLE (t_ms float8, x float8, y float8, pupil float8)
    AS 'MODULE_PATHNAME', 'gazepriv_trace_samples' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 10000;
COMMENT ON FUNCTION @extschema@.trace_samples(@extschema@.gaze_trace) IS
    'The samples of a trace as rows, in time order (NULL for missing values): the inverse of make_trace. '
    'Privacy: releases raw data unprotected; curator-only.';

-- Viewing geometry and detectors --------------------------------------------------------------------

CREATE TYPE @extschema@.viewing_geometry AS (
    projection text, -- 'plane' (a flat screen or pinhole camera image) or 'linear' (pixels per degree)
    origin_x float8, -- plane: input coordinates of the point straight ahead of the eye
    origin_y float8,
    unit_x float8,   -- plane: length per input unit; linear: degrees per input unit
    unit_y float8,
    distance float8); -- plane: eye-to-plane distance in the unit of unit_x and unit_y
COMMENT ON TYPE @extschema@.viewing_geometry IS
    'How input coordinates map to degrees of visual angle; build it with screen_geometry, camera_geometry '
    'or linear_geometry. Privacy: a public parameter, holds no data.';

CREATE FUNCTION @extschema@.screen_geometry(width_px float8, height_px float8, width_mm float8, height_mm float8,
                                            distance_mm float8, origin_x float8 DEFAULT NULL,
                                            origin_y float8 DEFAULT NULL)
    RETURNS @extschema@.viewing_geometry
    AS 'MODULE_PATHNAME', 'gazepriv_screen_geometry' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.screen_geometry(float8, float8, float8, float8, float8, float8, float8) IS
    'A screen of width_px x height_px pixels measuring width_mm x height_mm (pixels need not be square), seen '
    'from distance_mm with the eye in front of (origin_x, origin_y) (default: the screen centre). Angles are '
    'exact: the angle between the gaze directions, not a pixels-per-degree approximation. ERROR 22023 for '
    'non-positive sizes, 22004 for NULL. Privacy: a public parameter, releases nothing.';

CREATE FUNCTION @extschema@.camera_geometry(horizontal_fov_deg float8, vertical_fov_deg float8,
                                            width float8 DEFAULT 1, height float8 DEFAULT 1)
    RETURNS @extschema@.viewing_geometry
    AS 'MODULE_PATHNAME', 'gazepriv_camera_geometry' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.camera_geometry(float8, float8, float8, float8) IS
    'A head-mounted scene-camera image with the given fields of view (degrees, below 180), coordinates over '
    '[0, width] x [0, height] (1 x 1: normalised), optical axis through the centre (pinhole model). '
    'Privacy: a public parameter, releases nothing.';

CREATE FUNCTION @extschema@.linear_geometry(pixels_per_degree float8, pixels_per_degree_y float8 DEFAULT NULL)
    RETURNS @extschema@.viewing_geometry
    AS 'MODULE_PATHNAME', 'gazepriv_linear_geometry' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.linear_geometry(float8, float8) IS
    'Degrees = coordinate / pixels_per_degree (per axis; pixels_per_degree_y defaults to the same), the '
    'usual small-angle approximation. Privacy: a public parameter, releases nothing.';

CREATE TYPE @extschema@.event_detector AS (
    method text,                 -- 'ivt' or 'idt'
    velocity_threshold float8,   -- ivt: saccade samples are faster than this (deg/s with a geometry)
    dispersion_threshold float8, -- idt: (max x - min x) + (max y - min y) of a fixation (deg with a geometry)
    min_fixation_ms float8,      -- ivt: shorter fixations are dropped; idt: the window duration
    velocity_window_ms float8,   -- velocity over +-window/2 around each sample (0: central difference)
    max_gap_ms float8,           -- a longer interval between samples ends events
    gap_fill_ms float8,          -- missing samples spanning at most this do not end events
    geometry @extschema@.viewing_geometry); -- NULL: thresholds in input units
COMMENT ON TYPE @extschema@.event_detector IS
    'Parameters of an event detector; build it with ivt() or idt(). Privacy: a public parameter, holds no data.';

CREATE FUNCTION @extschema@.ivt(velocity_threshold float8, min_fixation_ms float8 DEFAULT 0,
                                velocity_window_ms float8 DEFAULT 0, max_gap_ms float8 DEFAULT 75,
                                gap_fill_ms float8 DEFAULT 0,
                                geometry @extschema@.viewing_geometry DEFAULT NULL)
    RETURNS @extschema@.event_detector
    AS 'MODULE_PATHNAME', 'gazepriv_ivt' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ivt(float8, float8, float8, float8, float8, @extschema@.viewing_geometry) IS
    'I-VT (Salvucci & Goldberg 2000): a sample is a saccade sample when its velocity exceeds '
    'velocity_threshold (degrees/s with a geometry, else input units/s), otherwise a fixation sample; runs '
    'of each form events; fixations shorter than min_fixation_ms are dropped (their samples unclassified). '
    'ERROR 22023 for a non-positive threshold or max_gap_ms, negative durations, NaN; 22004 for NULL. '
    'Privacy: a public parameter, releases nothing.';

CREATE FUNCTION @extschema@.idt(dispersion_threshold float8, min_fixation_ms float8 DEFAULT 100,
                                velocity_window_ms float8 DEFAULT 0, max_gap_ms float8 DEFAULT 75,
                                gap_fill_ms float8 DEFAULT 0,
                                geometry @extschema@.viewing_geometry DEFAULT NULL)
    RETURNS @extschema@.event_detector
    AS 'MODULE_PATHNAME', 'gazepriv_idt' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idt(float8, float8, float8, float8, float8, @extschema@.viewing_geometry) IS
    'I-DT (Salvucci & Goldberg 2000): a window of at least min_fixation_ms whose dispersion (x range + y '
    'range, degrees with a geometry) is within dispersion_threshold starts a fixation, which grows while it '
    'stays within; samples between fixations form saccades. Errors as for ivt. '
    'Privacy: a public parameter, releases nothing.';

-- Detection --------------------------------------------------------------------------------------------

CREATE TYPE @extschema@.gaze_event AS (
    event_index int,       -- 1, 2, ... in time order within the trace
    type text,             -- 'fixation' or 'saccade'
    start_ms float8,       -- time of the first sample
    end_ms float8,         -- time of the last sample
    duration_ms float8,    -- end_ms - start_ms
    n_samples int,         -- samples with gaze (missing samples bridged by gap_fill_ms are not counted)
    centroid_x float8,     -- mean position, input units
    centroid_y float8,
    sigma_x float8,        -- population standard deviation of the positions, input units
    sigma_y float8,
    start_x float8, start_y float8, end_x float8, end_y float8,
    amplitude float8,      -- angle (degrees with a geometry) or distance from the first to the last sample
    peak_velocity float8,  -- largest sample velocity (per second)
    mean_velocity float8,  -- mean sample velocity
    profile_a float8,      -- saccades: v(tau) = a exp(-(tau - b)^2 / (2 c^2)), tau = t - start_ms in ms;
    profile_b float8,      -- NULL for fixations or when no profile can be fitted
    profile_c float8);
COMMENT ON TYPE @extschema@.gaze_event IS
    'One fixation or saccade, as returned by detect_events. Privacy: describes raw data unprotected.';

CREATE FUNCTION @extschema@.detect_events(trace @extschema@.gaze_trace, detector @extschema@.event_detector)
    RETURNS SETOF @extschema@.gaze_event
    AS 'MODULE_PATHNAME', 'gazepriv_detect_events' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 500;
COMMENT ON FUNCTION @extschema@.detect_events(@extschema@.gaze_trace, @extschema@.event_detector) IS
    'Fixations and saccades of one trace, in time order, one pass over the samples. Missing samples and '
    'intervals longer than max_gap_ms end events; timestamps may be uneven. Positions (centroid, sigma, '
    'start and end) are in input units; amplitude and velocities in degrees (per second) with a geometry. '
    'Saccades carry a least-squares Gaussian velocity profile fitted to their sample velocities and their '
    'two neighbours. Use per participant: FROM (SELECT participant, make_trace(t_ms, x, y) AS trace ... GROUP BY '
    'participant) s, LATERAL detect_events(s.trace, ivt(30, geometry => ...)). '
    'Privacy: computes on raw data and releases it unprotected; curator-only preprocessing, charges no budget.';

CREATE FUNCTION @extschema@.label_samples(trace @extschema@.gaze_trace, detector @extschema@.event_detector)
    RETURNS TABLE (t_ms float8, x float8, y float8, label text, event_index int)
    AS 'MODULE_PATHNAME', 'gazepriv_label_samples' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 10000;
COMMENT ON FUNCTION @extschema@.label_samples(@extschema@.gaze_trace, @extschema@.event_detector) IS
    'Every sample of the trace with its label by detect_events: fixation or saccade (the samples from an '
    'event''s first to its last, with its event_index), missing (no gaze) or unclassified. For sample-level '
    'agreement with a tracker''s own labels. Privacy: computes on raw data and releases it unprotected; '
    'curator-only preprocessing, charges no budget.';

-- Features ---------------------------------------------------------------------------------------------

CREATE FUNCTION @extschema@.feature_windows(trace @extschema@.gaze_trace, detector @extschema@.event_detector,
                                            large_saccade float8, window_ms float8 DEFAULT 30000,
                                            step_ms float8 DEFAULT 500, blink_min_ms float8 DEFAULT 50,
                                            blink_max_ms float8 DEFAULT 500)
    RETURNS TABLE ("window" int, start_ms float8, end_ms float8, features float8[])
    AS 'MODULE_PATHNAME', 'gazepriv_feature_windows' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION @extschema@.feature_windows(@extschema@.gaze_trace, @extschema@.event_detector, float8,
                                                float8, float8, float8, float8) IS
    'Sliding-window feature vectors (MPIIDPEye: 30 s windows, 0.5 s step): windows [start, start + window_ms) '
    'from the first sample on, every step_ms, while the trace lasts (its last sample counting one median '
    'interval); "window" numbers them from 1. features holds the statistics named by feature_names() in order '
    '(fixations, saccades, saccades of amplitude >= large_saccade in detector units, missing data and blinks, '
    'pupil, gaze dispersion); an undefined statistic (no event, no pupil) is 0. One pass: O(samples). '
    'ERROR 22023 for non-positive window_ms, step_ms or large_saccade, 54000 above 10 million windows. '
    'Privacy: computes on raw data and releases it unprotected; curator-only preprocessing, charges no budget.';

CREATE FUNCTION @extschema@.feature_names() RETURNS text[]
    AS 'MODULE_PATHNAME', 'gazepriv_feature_names' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.feature_names() IS
    'Names of the elements of feature_windows().features, in order. Privacy: releases nothing.';

CREATE FUNCTION @extschema@.feature_catalog()
    RETURNS TABLE (feature int, name text, unit text, description text)
    AS 'MODULE_PATHNAME', 'gazepriv_feature_catalog' LANGUAGE C IMMUTABLE PARALLEL SAFE ROWS 33;
COMMENT ON FUNCTION @extschema@.feature_catalog() IS
    'Position, name, unit and definition of every feature of feature_windows(). Privacy: releases nothing.';

-- Synthesis: sample streams from event parameters ----------------------------------------------------

CREATE FUNCTION @extschema@.synthesize_samples(events @extschema@.gaze_event[], trace @extschema@.gaze_trace,
                                               secret bytea DEFAULT NULL)
    RETURNS TABLE (t_ms float8, x float8, y float8, event_index int, type text)
    AS 'MODULE_PATHNAME', 'gazepriv_synthesize_samples' LANGUAGE C VOLATILE PARALLEL RESTRICTED ROWS 10000;
COMMENT ON FUNCTION @extschema@.synthesize_samples(@extschema@.gaze_event[], @extschema@.gaze_trace, bytea) IS
    'SynthFixation and SynthSaccade (David-John et al. 2023, supplement 2.1-2.2): a sample stream from event '
    'parameters, at the trace''s sampling times within each event''s [start_ms, end_ms]. A fixation''s samples '
    'are drawn from N(centroid_x, sigma_x^2) x N(centroid_y, sigma_y^2) (exact discrete Gaussians from the '
    'CSPRNG; sigma 0 gives the centroid); a saccade''s samples lie on the segment from (start_x, start_y) to '
    '(end_x, end_y), at the share of the path its speed profile a exp(-(tau - b)^2 / 2c^2) has covered by '
    'tau = t - start_ms (constant speed when profile_a, b, c are all NULL). Events are emitted in array order; '
    'make_trace(t_ms, x, y) reads the stream back (it sorts, and merges samples of overlapping events). Only '
    'event_index, type, start_ms, end_ms, centroid, sigma, start, end and profile columns are read. '
    'ERROR 22023 (naming the event and value) for an unknown type, end_ms before start_ms, NULL or non-finite '
    'parameters, negative sigma, a partial profile or profile_c <= 0, a secret shorter than 32 bytes; 22004 for '
    'NULL events or trace or NULL elements; 54000 above gazepriv.max_synthesized_samples output samples. With a '
    'secret the fixation samples are drawn from a generator keyed from it alone (the same events and times give '
    'the same stream, as a served-once release must). Privacy: no protection of its own; the '
    'stream is as identifying as the events (curator-only unless the events are a protected release).';

CREATE FUNCTION @extschema@.synthesize_samples(events @extschema@.gaze_event[], sampling_rate_hz float8)
    RETURNS TABLE (t_ms float8, x float8, y float8, event_index int, type text)
    AS 'MODULE_PATHNAME', 'gazepriv_synthesize_samples_at_rate' LANGUAGE C VOLATILE PARALLEL RESTRICTED ROWS 10000;
COMMENT ON FUNCTION @extschema@.synthesize_samples(@extschema@.gaze_event[], float8) IS
    'synthesize_samples at the public sampling times j * 1000 / sampling_rate_hz (j an integer) instead of a '
    'trace''s: nothing but the events is read. 22023 for a non-positive or non-finite rate; 54000 when the grid '
    'over the events'' span (first start to last end) has more than gazepriv.max_synthesized_samples times. '
    'Otherwise as synthesize_samples(events, trace). Privacy: no protection of its own.';
