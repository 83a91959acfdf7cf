-- The DP release: specification, cost preview, dp_heatmap and privatize (uses hm_points from 20).

-- heatmap_spec validates every parameter before any row is read (a constant spec is folded at planning).
SELECT gazepriv.heatmap_spec(562, 762, 1) AS defaults;
SELECT gazepriv.heatmap_spec(640, 480, 0.5, 1e-6, 3, 'laplace', 'liu2019', 12.5, 8, 20, 'study A') AS everything;
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.heatmap_spec(0, 10, 1)$$,
    $$SELECT gazepriv.heatmap_spec(10, 0, 1)$$,
    $$SELECT gazepriv.heatmap_spec(NULL, 10, 1)$$,
    $$SELECT gazepriv.heatmap_spec(10, 10, 0)$$,
    $$SELECT gazepriv.heatmap_spec(10, 10, -1)$$,
    $$SELECT gazepriv.heatmap_spec(10, 10, 'NaN')$$,
    $$SELECT gazepriv.heatmap_spec(10, 10, 'Infinity')$$,
    $$SELECT gazepriv.heatmap_spec(10, 10, NULL)$$,
    $$SELECT gazepriv.heatmap_spec(10, 10, 1, 0)$$,
    $$SELECT gazepriv.heatmap_spec(10, 10, 1, 1)$$,
    $$SELECT gazepriv.heatmap_spec(10, 10, 1, 'NaN')$$,
    $$SELECT gazepriv.heatmap_spec(10, 10, 1, cap => 0)$$,
    $$SELECT gazepriv.heatmap_spec(10, 10, 1, mechanism => 'exponential')$$,
    $$SELECT gazepriv.heatmap_spec(10, 10, 1, calibration => 'optimal')$$,
    $$SELECT gazepriv.heatmap_spec(10, 10, 2, calibration => 'dwork_roth')$$,
    $$SELECT gazepriv.heatmap_spec(10, 10, 1, blur_sigma => -1)$$,
    $$SELECT gazepriv.heatmap_spec(10, 10, 1, blur_sigma => 'Infinity')$$,
    $$SELECT gazepriv.heatmap_spec(10, 10, 1, cell_size => 0)$$,
    $$SELECT gazepriv.heatmap_spec(10, 10, 1, observers => 0)$$,
    $$SELECT gazepriv.heatmap_spec(100000, 100000, 1)$$,
    -- the error comes from planning: no row of a table is read
    $$SELECT gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(10, 10, 0)) FROM gazepriv_test.hm_points$$]) q;

-- The cost preview, computed from the spec alone exactly as a release computes it.
SELECT epsilon, delta, round(rho::numeric, 6) AS rho, round(sigma::numeric, 2) AS sigma_counts,
       round(map_sd::numeric, 2) AS map_sd, round(l2_sensitivity::numeric, 3) AS l2, cells, guarantee,
       non_private_choices, mechanism, parameters->>'certificate' AS certificate, parameters->>'sampler' AS sampler,
       (parameters->>'delta_sampler')::float8 < 1e-9 AS sampler_delta_tiny
FROM gazepriv.heatmap_release_cost(gazepriv.heatmap_spec(562, 762, 1, observers => 20));
SELECT epsilon, delta, rho, sigma, scale, round(noise_sd::numeric, 3) AS noise_sd, l1_sensitivity,
       parameters->>'n' AS n, parameters->>'dataset' AS dataset
FROM gazepriv.heatmap_release_cost(gazepriv.heatmap_spec(100, 100, 2, cap => 2, mechanism => 'laplace', cell_size => 10,
                                                         dataset => 'uniss'));
-- The discrete Gaussian's sigma is the named calibration's (plus a negligible discreteness term).
SELECT c.calibration, abs(r.sigma / gazepriv.gaussian_sigma(r.l2_sensitivity, c.eps, 1e-5, c.calibration) - 1) < 1e-4 AS matches
FROM (VALUES ('analytic', 1.0), ('liu2019', 1.0), ('dwork_roth', 0.5)) c(calibration, eps),
     gazepriv.heatmap_release_cost(gazepriv.heatmap_spec(200, 100, c.eps, calibration => c.calibration)) r;

-- With a huge epsilon the release is the exact map (Gaussian and Laplace), and says what it is.
SELECT m.mechanism, (d).values = (e).values AS equals_exact, (d).n, (d).mechanism, (d).calibration, (d).epsilon,
       (d).delta, (d).rho > 1e6 AS huge_rho, (d).sigma < 1e-3 AS tiny_sigma, (d).scale < 1e-3 AS tiny_scale
FROM (VALUES ('gaussian'), ('laplace')) m(mechanism),
     LATERAL (SELECT gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(4, 4, 1e9, mechanism => m.mechanism)) d,
                     gazepriv.gaze_map(participant, x, y, 4, 4, 1) e FROM gazepriv_test.hm_points) s
ORDER BY 1;
-- observers is the public n: values are capped sums / observers.
SELECT (gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(4, 4, 1e9, observers => 10))).values[1] AS cell_0_over_10
FROM gazepriv_test.hm_points;
-- Blur comes after the noise: at huge epsilon, the release is the blurred exact map.
SELECT (d).values = (gazepriv.heatmap_blur(e, 1.5)).values AS blurred_release_equals_blurred_exact, (d).blur_sigma
FROM (SELECT gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(4, 4, 1e9, blur_sigma => 1.5)) d,
             gazepriv.gaze_map(participant, x, y, 4, 4, 1) e FROM gazepriv_test.hm_points) s;

-- Under the test seed the output is reproducible; a second release with the same seed state differs.
SET gazepriv.seed = 2024;
CREATE TEMP TABLE hm_seeded AS
SELECT (gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(4, 4, 1))).values AS v1 FROM gazepriv_test.hm_points;
SET gazepriv.seed = 2024;
SELECT v1 = (SELECT (gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(4, 4, 1))).values FROM gazepriv_test.hm_points)
       AS same_seed_same_release,
       v1 <> (SELECT (gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(4, 4, 1))).values FROM gazepriv_test.hm_points)
       AS next_release_differs,
       (SELECT bool_and(v * 4 = round(v * 4)) FROM unnest(v1) v) AS integer_noise_on_counts
FROM hm_seeded;
-- One release per distinct call: identical calls in one query level are evaluated once.
SELECT (a).values = (b).values AS identical_calls_share_one_release
FROM (SELECT gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(4, 4, 1)) a,
             gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(4, 4, 1)) b FROM gazepriv_test.hm_points) s;
RESET gazepriv.seed;

-- privatize releases an exact map computed elsewhere exactly as dp_heatmap does.
SELECT (gazepriv.privatize(e, gazepriv.heatmap_spec(4, 4, 1e9))).values = (e).values AS privatize_huge_epsilon_exact,
       (gazepriv.privatize(e, gazepriv.heatmap_spec(4, 4, 1e9, observers => 8))).values[1] AS cell_0_over_8
FROM (SELECT gazepriv.gaze_map(participant, x, y, 4, 4, 1) e FROM gazepriv_test.hm_points) s;
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    -- the spec must describe the map's grid and cap
    $$SELECT gazepriv.privatize(gazepriv.gaze_map(participant, x, y, 4, 4, 1), gazepriv.heatmap_spec(4, 5, 1)) FROM gazepriv_test.hm_points$$,
    $$SELECT gazepriv.privatize(gazepriv.gaze_map(participant, x, y, 4, 4, 2), gazepriv.heatmap_spec(4, 4, 1)) FROM gazepriv_test.hm_points$$,
    -- only exact, unblurred maps: not a release, not a blurred map, not arbitrary values
    $$SELECT gazepriv.privatize(gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(4, 4, 1)), gazepriv.heatmap_spec(4, 4, 1)) FROM gazepriv_test.hm_points$$,
    $$SELECT gazepriv.privatize(gazepriv.heatmap_blur(gazepriv.gaze_map(participant, x, y, 4, 4, 1), 1), gazepriv.heatmap_spec(4, 4, 1)) FROM gazepriv_test.hm_points$$,
    $$SELECT gazepriv.privatize(ROW(2, 1, 1, 2, 1, '{0.3, 0}', 4, 1, 'none', NULL, NULL, NULL, NULL, NULL, NULL, 0)::gazepriv.heatmap, gazepriv.heatmap_spec(2, 1, 1))$$,
    $$SELECT gazepriv.privatize(ROW(2, 1, 1, 2, 1, '{1, NULL}', 4, 1, 'none', NULL, NULL, NULL, NULL, NULL, NULL, 0)::gazepriv.heatmap, gazepriv.heatmap_spec(2, 1, 1))$$,
    $$SELECT gazepriv.privatize(ROW(2, 1, 1, 3, 1, '{1, 0}', 4, 1, 'none', NULL, NULL, NULL, NULL, NULL, NULL, 0)::gazepriv.heatmap, gazepriv.heatmap_spec(2, 1, 1))$$,
    $$SELECT gazepriv.privatize(ROW(2, 1, 1, 2, 1, '{1, 0, 0}', 4, 1, 'none', NULL, NULL, NULL, NULL, NULL, NULL, 0)::gazepriv.heatmap, gazepriv.heatmap_spec(2, 1, 1))$$,
    $$SELECT gazepriv.privatize(ROW(2, 1, 1, 2, 1, '{1, 0}', 0, 1, 'none', NULL, NULL, NULL, NULL, NULL, NULL, 0)::gazepriv.heatmap, gazepriv.heatmap_spec(2, 1, 1))$$]) q;

-- dp_heatmap: a NULL spec, a spec changing between rows, invalid specs built with ROW(), window use.
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.dp_heatmap(participant, x, y, NULL) FROM gazepriv_test.hm_points$$,
    $$SELECT gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(4, 4, 1 + (x > 1)::int)) FROM gazepriv_test.hm_points$$,
    $$SELECT gazepriv.dp_heatmap(participant, x, y, ROW(4, 4, 2, 1e-5, 1, 'gaussian', 'dwork_roth', 0, 1, NULL, NULL)::gazepriv.heatmap_spec) FROM gazepriv_test.hm_points$$,
    $$SELECT gazepriv.dp_heatmap(participant, x, y, ROW(4, 4, -1, 1e-5, 1, 'gaussian', 'analytic', 0, 1, NULL, NULL)::gazepriv.heatmap_spec) FROM gazepriv_test.hm_points$$,
    $$SELECT gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(4, 4, 1)) OVER () FROM gazepriv_test.hm_points$$]) q;
-- A spec that varies per row but is the same within each group is fine.
SELECT participant, (m).epsilon FROM (
    SELECT participant, gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(4, 4, CASE WHEN participant = 'a' THEN 1e9 ELSE 2e9 END)) m
    FROM gazepriv_test.hm_points WHERE participant IN ('a', 'b') GROUP BY participant) s ORDER BY 1;
