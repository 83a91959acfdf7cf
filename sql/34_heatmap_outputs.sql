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
    $$SELECT gazepriv.heatmap_png(gazepriv.gaze_map(participant, x, y, 4, 4, 1), 'jet') FROM gazepriv_test.hm_points$$,
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
