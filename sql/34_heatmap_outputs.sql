-- Post-processing and outputs: cells for BI tools, pictures, metrics, blur; Algorithm 1; the labels.
-- heatmap_cells: one row per cell, at the cell's top-left pixel.
SELECT * FROM gazepriv.heatmap_cells((SELECT gazepriv.gaze_map(participant, x, y, 5, 3, 1, 2) FROM gazepriv_test.hm_points))
ORDER BY y, x;
SELECT count(*) AS cells, round(sum(value)::numeric, 6) AS total FROM gazepriv.heatmap_cells(
    (SELECT gazepriv.gaze_map(participant, x, y, 40, 30, 1) FROM gazepriv_test.hm_gaze));

-- heatmap_png: a PNG with the screen extent in its header (IHDR width and height).
SELECT substr(p, 1, 8) = '\x89504e470d0a1a0a'::bytea AS png_signature,
       get_byte(p, 16) * 16777216 + get_byte(p, 17) * 65536 + get_byte(p, 18) * 256 + get_byte(p, 19) AS width,
       get_byte(p, 20) * 16777216 + get_byte(p, 21) * 65536 + get_byte(p, 22) * 256 + get_byte(p, 23) AS height,
       get_byte(p, 25) AS colour_type_rgba
FROM (SELECT gazepriv.heatmap_png(gazepriv.gaze_map(participant, x, y, 40, 30, 1, 4)) p FROM gazepriv_test.hm_gaze) s;
SELECT length(gazepriv.heatmap_png(m, 'viridis', false)) > 100 AS viridis_opaque,
       length(gazepriv.heatmap_png(m, 'gray')) > 100 AS gray
FROM (SELECT gazepriv.gaze_map(participant, x, y, 40, 30, 1) m FROM gazepriv_test.hm_gaze) s;

-- heatmap_png's options (issue 21). png_size reads the IHDR's width and height.
CREATE FUNCTION pg_temp.png_size(p bytea) RETURNS text LANGUAGE sql AS $$
    SELECT (get_byte(p, 16) * 16777216 + get_byte(p, 17) * 65536 + get_byte(p, 18) * 256 + get_byte(p, 19)) || 'x' ||
           (get_byte(p, 20) * 16777216 + get_byte(p, 21) * 65536 + get_byte(p, 22) * 256 + get_byte(p, 23)) $$;
-- A generated stimulus: a 40 x 30 gradient rendered by heatmap_png itself (a PNG), and an all-zero truth.
CREATE TEMP TABLE hm_stimulus AS
SELECT gazepriv.heatmap_png(ROW(40, 30, 1, 40, 30, (SELECT array_agg(i::float8 ORDER BY i) FROM generate_series(1, 1200) i),
                                1, 2000, 'none', NULL, NULL, NULL, NULL, NULL, NULL, 0)::gazepriv.heatmap, 'gray', false) AS png,
       ROW(80, 60, 1, 80, 60, array_fill(0::float8, ARRAY[4800]), 10, 1, 'none', NULL, NULL, NULL, NULL, NULL, NULL,
           0)::gazepriv.heatmap AS zero;
SET gazepriv.seed = 21;
CREATE TEMP TABLE hm_noise AS
SELECT gazepriv.privatize(zero, gazepriv.heatmap_spec(80, 60, 1)) AS released,
       gazepriv.privatize(zero, gazepriv.heatmap_spec(80, 60, 1, blur_sigma => 3)) AS blurred FROM hm_stimulus;
-- One call: the release over the stimulus (scaled to the map's 80 x 60), a colour bar (a 52-pixel panel) and
-- the significance mask; every colour map, a fixed scale.
SELECT pg_temp.png_size(png) AS stimulus,
       pg_temp.png_size(gazepriv.heatmap_png(released, stimulus => png, colorbar => true, significance => 0.05)) AS overlay,
       pg_temp.png_size(gazepriv.heatmap_png(released, 'cividis', vmin => -0.1, vmax => 0.1, opacity => 0.5)) AS fixed_scale,
       (SELECT string_agg(c || ':' || pg_temp.png_size(gazepriv.heatmap_png(released, c, colorbar => true)), ' ')
        FROM unnest(ARRAY['inferno', 'viridis', 'magma', 'plasma', 'cividis', 'gray', 'jet']) c) AS colormaps,
       gazepriv.heatmap_png(NULL::gazepriv.heatmap) IS NULL AS null_map
FROM hm_stimulus, hm_noise;
-- The mask's threshold from the public sigma: z(1 - a) sigma, a = 0.05 per cell or 0.05 / 4800 over the map;
-- a blur of 3 px divides the noise sd by about 2 * 3 * sqrt(pi).
SELECT round((gazepriv.heatmap_significance_threshold(released, 0.05, 'per_cell') / (released).sigma)::numeric, 4) AS z_per_cell,
       round((gazepriv.heatmap_significance_threshold(released) / (released).sigma)::numeric, 4) AS z_bonferroni,
       round((gazepriv.heatmap_significance_threshold(blurred, 0.05, 'per_cell') / (blurred).sigma * 6 * sqrt(pi()))::numeric, 2)
           AS z_blurred_times_kernel
FROM hm_noise;
-- False positives on pure noise (the truth is all 0): per cell about 5% of the 4800 cells (240, sd 15) at
-- the stated level; with Bonferroni no cell of the map in most releases (at most 5% of maps have any).
SELECT count(*) FILTER (WHERE v > gazepriv.heatmap_significance_threshold(released, 0.05, 'per_cell'))
           BETWEEN 180 AND 300 AS per_cell_near_5_percent
FROM hm_noise, unnest((released).values) v;
-- After a blur of 3 px neighbouring cells share their noise, so one map's rate varies much more: pooled over
-- 20 maps the rate is near 5% (a little below: cells near the edges have less noise than the threshold assumes).
SELECT count(*) FILTER (WHERE v > gazepriv.heatmap_significance_threshold(m, 0.05, 'per_cell')) * 1.0 / count(*)
           BETWEEN 0.03 AND 0.065 AS blurred_near_5_percent
FROM (SELECT gazepriv.privatize(zero, gazepriv.heatmap_spec(80, 60, 1, blur_sigma => 3)) AS m
      FROM hm_stimulus, generate_series(1, 20)) maps, unnest((m).values) v;
SELECT count(*) AS maps, count(*) FILTER (WHERE marked > 0) <= 4 AS at_most_4_maps_with_a_false_cell
FROM (SELECT (SELECT count(*) FROM unnest((m).values) v
              WHERE v > gazepriv.heatmap_significance_threshold(m)) AS marked
      FROM (SELECT gazepriv.privatize(zero, gazepriv.heatmap_spec(80, 60, 1)) AS m
            FROM hm_stimulus, generate_series(1, 40)) maps) s;
-- The accuracy every released map carries (heatmap_accuracy): on the all-zero truth, value +- half_width must
-- hold 0 in at least 95% of the cells. Unblurred, the half-width is the smallest for the integer noise (a whole
-- number of counts / n), so over 4800 cells the coverage is 95% within sampling error (sd 0.3 points) plus at
-- most one lattice point's mass (here sigma is 258 counts: negligible); blurred, a valid bound.
SELECT a.exact, round((a.noise_sd / (released).sigma)::numeric, 6) AS sd_is_sigma,
       a.half_width * (released).n = round(a.half_width * (released).n) AS whole_counts,
       (SELECT count(*) FILTER (WHERE abs(v) <= a.half_width)::float8 / count(*) FROM unnest((released).values) v)
           BETWEEN 0.94 AND 0.96 AS covers_95
FROM hm_noise, gazepriv.heatmap_accuracy(released) a;
SELECT a.exact, round((a.noise_sd * 6 * sqrt(pi()) / (blurred).sigma)::numeric, 2) AS sd_times_kernel,
       (SELECT count(*) FILTER (WHERE abs(v) <= a.half_width)::float8 / count(*) FROM unnest((blurred).values) v)
           >= 0.95 AS covers_at_least_95
FROM hm_noise, gazepriv.heatmap_accuracy(blurred) a;
SELECT a.exact, (SELECT count(*) FILTER (WHERE abs(v) <= a.half_width)::float8 / count(*) FROM unnest((m).values) v)
           BETWEEN 0.94 AND 0.96 AS laplace_covers_95
FROM (SELECT gazepriv.privatize(zero, gazepriv.heatmap_spec(80, 60, 1, mechanism => 'laplace')) AS m FROM hm_stimulus) l,
     gazepriv.heatmap_accuracy(m, 0.95) a;
SELECT (gazepriv.heatmap_accuracy(zero)).* FROM hm_stimulus;
-- The inverse, before anything is spent: the smallest epsilon whose release meets a requested half-width,
-- checked against heatmap_accuracy of real releases at that epsilon and just below it (Gaussian, Laplace,
-- blurred).
SELECT s.label, round(e::numeric, 3) AS epsilon,
       (gazepriv.heatmap_accuracy(gazepriv.privatize(zero, gazepriv.heatmap_spec(80, 60, e, mechanism => s.mechanism,
            blur_sigma => s.blur, observers => 10)))).half_width <= s.hw AS meets_it,
       (gazepriv.heatmap_accuracy(gazepriv.privatize(zero, gazepriv.heatmap_spec(80, 60, e * (1 - 1e-6),
            mechanism => s.mechanism, blur_sigma => s.blur, observers => 10)))).half_width > s.hw AS not_below
FROM hm_stimulus, (VALUES ('gaussian', 'gaussian', 0, 0.5), ('laplace', 'laplace', 0, 2),
                          ('blurred', 'gaussian', 3, 0.05)) s(label, mechanism, blur, hw),
     LATERAL gazepriv.heatmap_epsilon_for_accuracy(gazepriv.heatmap_spec(80, 60, 1, mechanism => s.mechanism,
                                                   blur_sigma => s.blur, observers => 10), s.hw) e;
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.heatmap_epsilon_for_accuracy(gazepriv.heatmap_spec(80, 60, 1), 0.5)$$,
    $$SELECT gazepriv.heatmap_epsilon_for_accuracy(gazepriv.heatmap_spec(80, 60, 1, observers => 10), 0)$$,
    $$SELECT gazepriv.heatmap_epsilon_for_accuracy(gazepriv.heatmap_spec(80, 60, 1, observers => 10), 'NaN')$$,
    $$SELECT gazepriv.heatmap_epsilon_for_accuracy(gazepriv.heatmap_spec(80, 60, 1, observers => 10), 5e-324)$$,
    $$SELECT gazepriv.heatmap_epsilon_for_accuracy(gazepriv.heatmap_spec(80, 60, 1, observers => 10), 1, 0)$$,
    $$SELECT gazepriv.heatmap_epsilon_for_accuracy(NULL, 1)$$]) q;
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.heatmap_accuracy(released, 1) FROM hm_noise$$,
    $$SELECT gazepriv.heatmap_accuracy(released, 'NaN') FROM hm_noise$$,
    $$SELECT gazepriv.heatmap_accuracy(released, NULL) FROM hm_noise$$]) q;
RESET gazepriv.seed;
-- Bad pictures and options: clear SQLSTATEs, never a crash.
SET gazepriv.max_stimulus_pixels = 1000;
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.heatmap_png(released, stimulus => png) FROM hm_stimulus, hm_noise$$,
    $$SELECT gazepriv.heatmap_png(released, stimulus => '\x89504e470d0a1a0a0000000d49484452'::bytea) FROM hm_noise$$,
    $$SELECT gazepriv.heatmap_png(released, stimulus => substr(png, 1, 60)) FROM hm_stimulus, hm_noise$$,
    $$SELECT gazepriv.heatmap_png(released, stimulus => '\xffd8ffe000104a464946'::bytea) FROM hm_noise$$,
    $$SELECT gazepriv.heatmap_png(released, stimulus => 'GIF89a'::bytea) FROM hm_noise$$,
    $$SELECT gazepriv.heatmap_png(released, stimulus => ''::bytea) FROM hm_noise$$,
    $$SELECT gazepriv.heatmap_png(released, vmin => 1, vmax => 1) FROM hm_noise$$,
    $$SELECT gazepriv.heatmap_png(released, vmax => 'Infinity') FROM hm_noise$$,
    $$SELECT gazepriv.heatmap_png(released, vmin => 'NaN') FROM hm_noise$$,
    $$SELECT gazepriv.heatmap_png(released, opacity => 1.5) FROM hm_noise$$,
    $$SELECT gazepriv.heatmap_png(released, significance => 0) FROM hm_noise$$,
    $$SELECT gazepriv.heatmap_png(released, significance => 0.05, correction => 'holm') FROM hm_noise$$,
    $$SELECT gazepriv.heatmap_png(zero, significance => 0.05) FROM hm_stimulus$$,
    $$SELECT gazepriv.heatmap_png(released, colormap => NULL) FROM hm_noise$$,
    $$SELECT gazepriv.heatmap_significance_threshold(released, 5e-324) FROM hm_noise$$,
    $$SELECT gazepriv.heatmap_significance_threshold(released, NULL) FROM hm_noise$$,
    $$SELECT gazepriv.heatmap_significance_threshold(gazepriv.privatize(zero, gazepriv.heatmap_spec(80, 60, 1, mechanism => 'laplace', blur_sigma => 2))) FROM hm_stimulus$$]) q;
RESET gazepriv.max_stimulus_pixels;
SELECT gazepriv_test.error_of($$SELECT gazepriv.heatmap_png(released, stimulus => substr(png, 1, 60)) FROM hm_stimulus, hm_noise$$)
    AS truncated_png;
SET ROLE gazepriv_test_user;
SELECT gazepriv_test.error_of($$SET gazepriv.max_stimulus_pixels = 1000000000$$);
RESET ROLE;

-- Metrics: MSE and Pearson CC; identical maps give 0 and 1, a constant map gives NULL.
SELECT gazepriv.heatmap_mse(m, m) AS mse_self, gazepriv.heatmap_cc(m, m) AS cc_self,
       gazepriv.heatmap_cc(m, gazepriv.privatize(m, gazepriv.heatmap_spec(40, 30, 1e9))) AS cc_huge_epsilon,
       gazepriv.heatmap_cc(m, ROW(40, 30, 1, 40, 30, array_fill(1::float8, ARRAY[1200]), 7, 1, 'none', NULL, NULL, NULL, NULL, NULL,
                               NULL, 0)::gazepriv.heatmap) AS cc_constant
FROM (SELECT gazepriv.gaze_map(participant, x, y, 40, 30, 1) m FROM gazepriv_test.hm_gaze) s;
-- Blur: mass is preserved away from the edges, blur_sigma accumulates, sigma 0 changes nothing.
SELECT round((SELECT sum(v) FROM unnest((gazepriv.heatmap_blur(m, 3)).values) v)::numeric, 6) AS blurred_mass,
       (gazepriv.heatmap_blur(gazepriv.heatmap_blur(m, 3), 4)).blur_sigma AS accumulated,
       (gazepriv.heatmap_blur(m, 0)).values = (m).values AS zero_is_identity
FROM (SELECT ROW(41, 41, 1, 41, 41, array_fill(0::float8, ARRAY[20 * 41 + 20]) || 1::float8 || array_fill(0::float8, ARRAY[20 * 41 + 20]),
                 1, 1, 'none', NULL, NULL, NULL, NULL, NULL, NULL, 0)::gazepriv.heatmap AS m) s;
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.heatmap_mse(gazepriv.gaze_map(participant, x, y, 4, 4, 1), gazepriv.gaze_map(participant, x, y, 4, 5, 1)) FROM gazepriv_test.hm_points$$,
    $$SELECT gazepriv.heatmap_png(gazepriv.gaze_map(participant, x, y, 4, 4, 1), 'turbo') FROM gazepriv_test.hm_points$$,
    $$SELECT gazepriv.heatmap_blur(gazepriv.gaze_map(participant, x, y, 4, 4, 1), -1) FROM gazepriv_test.hm_points$$,
    $$SELECT gazepriv.heatmap_blur(gazepriv.gaze_map(participant, x, y, 4, 4, 1), 'NaN') FROM gazepriv_test.hm_points$$,
    $$SELECT gazepriv.heatmap_cells(ROW(2, 2, 1, 2, 2, '{1,2,3}', 1, 1, 'none', NULL, NULL, NULL, NULL, NULL, NULL, 0)::gazepriv.heatmap)$$,
    $$SELECT gazepriv.heatmap_cells(ROW(2, 2, 1, 2, 2, '{{1,2},{3,4}}', 1, 1, 'none', NULL, NULL, NULL, NULL, NULL, NULL, 0)::gazepriv.heatmap)$$,
    $$SELECT gazepriv.heatmap_cells(ROW(2, 2, 0, 2, 2, '{1,2,3,4}', 1, 1, 'none', NULL, NULL, NULL, NULL, NULL, NULL, 0)::gazepriv.heatmap)$$,
    $$SELECT gazepriv.heatmap_png(ROW(2, 2, 1, 2, 2, NULL, 1, 1, 'none', NULL, NULL, NULL, NULL, NULL, NULL, 0)::gazepriv.heatmap)$$]) q;

-- optimal_cap (Algorithm 1, NON-PRIVATE): participant z looks 12 times at one cell. With little noise
-- (epsilon large) keeping those counts pays; with the usual noise, m = 1.
CREATE TEMP TABLE hm_cap AS
SELECT 'z' AS participant, 0.5::float8 AS x, 0.5::float8 AS y FROM generate_series(1, 12)
UNION ALL SELECT 'w', 1.5, 0.5 UNION ALL SELECT 'w', 1.5, 0.5;
SELECT gazepriv.optimal_cap(participant, x, y, gazepriv.heatmap_spec(2, 1, 1)) AS usual_noise,
       gazepriv.optimal_cap(participant, x, y, gazepriv.heatmap_spec(2, 1, 1000)) AS little_noise,
       gazepriv.optimal_cap(participant, x, y, gazepriv.heatmap_spec(2, 1, 1e9)) AS no_noise,
       gazepriv.optimal_cap(participant, x, y, gazepriv.heatmap_spec(2, 1, 1e9, mechanism => 'laplace')) AS no_noise_laplace
FROM hm_cap;

-- Labels of this area's functions, frozen: noise is drawn only by VOLATILE functions.
SELECT p.oid::regprocedure AS function, p.prokind, p.provolatile, p.proparallel, p.proisstrict, p.prosecdef
FROM pg_proc p
WHERE p.pronamespace = 'gazepriv'::regnamespace
  AND (p.proname LIKE '%heatmap%' OR p.proname IN ('gaze_map', '_gaze_map_sfunc', '_gaze_map_final', 'privatize',
                                                  'optimal_cap', '_optimal_cap_sfunc', '_optimal_cap_final'))
ORDER BY (p.oid::regprocedure)::text;
-- Every aggregate of this area combines, is parallel safe, keeps its state read-only in the final function,
-- and ships a real (non-internal) state type.
SELECT a.aggfnoid::regprocedure AS aggregate, a.aggcombinefn <> 0 AS combines, a.aggfinalmodify AS final_modify,
       a.aggtranstype::regtype AS state, p.proparallel
FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
WHERE p.pronamespace = 'gazepriv'::regnamespace AND a.aggtranstype = 'gazepriv.heatmap_state'::regtype
ORDER BY (a.aggfnoid::regprocedure)::text;

-- heatmap_clamp (post-processing): cells into [0, cap]; the error to the truth can only shrink.
WITH m AS (SELECT gazepriv.privatize(ROW(4, 1, 1, 4, 1, ARRAY[0, 1, 0.4, 0]::float8[], 5, 1, 'none', NULL, NULL, NULL,
                                          NULL, NULL, NULL, 0)::gazepriv.heatmap,
                                      gazepriv.heatmap_spec(4, 1, 0.1, observers => 5)) AS r,
                  ROW(4, 1, 1, 4, 1, ARRAY[0, 1, 0.4, 0]::float8[], 5, 1, 'none', NULL, NULL, NULL, NULL, NULL, NULL,
                      0)::gazepriv.heatmap AS truth)
SELECT (SELECT min(v) >= 0 AND max(v) <= 1 FROM unnest((gazepriv.heatmap_clamp(r)).values) v) AS in_range,
       gazepriv.heatmap_mse(gazepriv.heatmap_clamp(r), truth) <= gazepriv.heatmap_mse(r, truth) AS closer,
       (gazepriv.heatmap_clamp(r)).sigma = (r).sigma AS keeps_fields
FROM m;
