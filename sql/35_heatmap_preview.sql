-- heatmap_preview: the expected CC of a release with the truth, from public facts and a stated prior (uses
-- hm_points from 30). Expected values are computed here independently of the C++ (by hand, from
-- heatmap_release_cost's map_sd).

-- A small case by hand: the prior is a 4 x 2 map with cells 1 and 0.5 (all others 0): mean 1.5 / 8 = 0.1875,
-- spatial variance 1.25 / 8 - 0.1875^2 = 0.12109375. Without a blur the noise's expected spatial variance is
-- map_sd^2 (1 - 1/8) (the sample variance of 8 independent cells around their mean).
CREATE TEMP TABLE preview_prior AS
SELECT gazepriv.gaze_map(p, x, y, 4, 2, 1) AS map
FROM (VALUES ('a', 0.5, 0.5), ('b', 0.5, 0.5), ('a', 1.5, 1.5)) v(p, x, y);
SELECT (map).values AS prior_values FROM preview_prior;
SELECT abs(p.signal_sd - sqrt(0.12109375)) < 1e-12 AS signal_by_hand,
       abs(p.noise_sd - c.map_sd * sqrt(7.0 / 8)) < 1e-12 AS noise_by_hand,
       abs(p.expected_cc - sqrt(0.12109375 / (0.12109375 + c.map_sd ^ 2 * 7 / 8))) < 1e-12 AS cc_by_hand,
       round(p.expected_cc::numeric, 4) AS expected_cc, p.verdict
FROM preview_prior,
     gazepriv.heatmap_preview(gazepriv.heatmap_spec(4, 2, 1, observers => 10), map) p,
     gazepriv.heatmap_release_cost(gazepriv.heatmap_spec(4, 2, 1, observers => 10)) c;
-- More observers (or more epsilon) shrink the noise only: the verdict moves from noise to usable.
SELECT n, round(p.expected_cc::numeric, 4) AS expected_cc, round(p.signal_sd::numeric, 6) AS signal_sd, p.verdict
FROM preview_prior, (VALUES (1), (10), (100), (10000)) v(n),
     gazepriv.heatmap_preview(gazepriv.heatmap_spec(4, 2, 1, observers => n), map) p
ORDER BY n;

-- With a blur the noise's sd shrinks by the kernel's sum of squared weights, (sum_k w_k^2)^2 = 1 / (4 pi s^2)
-- per cell for a wide kernel away from the edges (s = 3 cells here; the edges of a 600 x 600 map lower it a little).
SELECT abs(p.noise_sd / (c.map_sd / (2 * 3 * sqrt(pi()))) - 1) < 0.02 AS noise_sd_shrinks_by_the_kernel
FROM gazepriv.heatmap_release_cost(gazepriv.heatmap_spec(600, 600, 1, blur_sigma => 6, cell_size => 2, observers => 20)) c,
     gazepriv.heatmap_preview(gazepriv.heatmap_spec(600, 600, 1, blur_sigma => 6, cell_size => 2, observers => 20), 100, 10) p;

-- The parametric prior: a centre bias on a face stimulus (562 x 762 px, 32 px cells, 24 px blur, 10 distinct
-- cells per observer). At a real study's n = 20 and epsilon = 1 the map is noise; with 2,000 observers usable.
SELECT n, eps, round(p.expected_cc::numeric, 3) AS expected_cc, p.verdict
FROM (VALUES (20, 1.0), (20, 16.0), (2000, 1.0)) v(n, eps),
     gazepriv.heatmap_preview(gazepriv.heatmap_spec(562, 762, eps, blur_sigma => 24, cell_size => 32, observers => n),
                              120, 10) p
ORDER BY n, eps;
-- A prior already blurred is blurred the rest of the way: the same prediction as from the raw prior (away from the
-- edges, where two blurs compose into one).
SELECT abs(b.signal_sd / a.signal_sd - 1) < 1e-6 AS same_signal, abs(b.expected_cc / a.expected_cc - 1) < 1e-6 AS same_cc
FROM (SELECT gazepriv.gaze_map(participant, x + 30, y + 30, 64, 64, 1) m FROM gazepriv_test.hm_points) s,
     gazepriv.heatmap_preview(gazepriv.heatmap_spec(64, 64, 1, blur_sigma => 3, observers => 5), m) a,
     gazepriv.heatmap_preview(gazepriv.heatmap_spec(64, 64, 1, blur_sigma => 3, observers => 5),
                              gazepriv.heatmap_blur(m, 2)) b;

-- It spends nothing and reads no data: IMMUTABLE, a spec naming a dataset with a budget charges nothing (privatize
-- with the same spec does), and a role without any privilege on the data can call it.
CREATE TABLE preview_points AS SELECT participant, x, y FROM gazepriv_test.hm_points;
SELECT gazepriv.register_dataset('preview_gaze', 'preview_points', 'participant', x_column => 'x', y_column => 'y',
                                 observers => 5) IS NOT NULL AS registered;
SELECT gazepriv.grant_budget('preview_gaze', current_user::regrole, 10, 1e-3) IS NOT NULL AS granted;
SELECT count(DISTINCT provolatile) = 1 AND bool_and(provolatile = 'i') AS immutable FROM pg_proc
WHERE proname = 'heatmap_preview' AND pronamespace = 'gazepriv'::regnamespace;
CREATE TEMP TABLE ledger_before AS SELECT count(*) AS n FROM gazepriv.ledger WHERE dataset = 'preview_gaze';
SELECT p.verdict IS NOT NULL AS previewed
FROM preview_prior,
     gazepriv.heatmap_preview(gazepriv.heatmap_spec(4, 2, 1, observers => 5, dataset => 'preview_gaze'), map) p;
SELECT p.verdict IS NOT NULL AS previewed
FROM gazepriv.heatmap_preview(gazepriv.heatmap_spec(4, 2, 1, observers => 5, dataset => 'preview_gaze'), 1, 1) p;
SELECT (SELECT count(*) FROM gazepriv.ledger WHERE dataset = 'preview_gaze') - n AS charges_by_preview FROM ledger_before;
SELECT (gazepriv.privatize(map, gazepriv.heatmap_spec(4, 2, 1, observers => 5, dataset => 'preview_gaze'))).mechanism
FROM preview_prior;
SELECT (SELECT count(*) FROM gazepriv.ledger WHERE dataset = 'preview_gaze') - n AS charges_by_privatize FROM ledger_before;
SET ROLE gazepriv_test_user;
SELECT gazepriv_test.error_of($$SELECT count(*) FROM preview_points$$) AS reading_the_data;
SELECT verdict FROM gazepriv.heatmap_preview(gazepriv.heatmap_spec(4, 2, 1, observers => 5, dataset => 'preview_gaze'),
                                             1, 1);
RESET ROLE;

-- Refusals: 22023 for bad values, 54000 for a grid above gazepriv.max_heatmap_cells, 22004 for NULL.
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.heatmap_preview(gazepriv.heatmap_spec(4, 2, 1, observers => 5), 'NaN', 1)$$,
    $$SELECT gazepriv.heatmap_preview(gazepriv.heatmap_spec(4, 2, 1, observers => 5), 'Infinity', 1)$$,
    $$SELECT gazepriv.heatmap_preview(gazepriv.heatmap_spec(4, 2, 1, observers => 5), '-Infinity', 1)$$,
    $$SELECT gazepriv.heatmap_preview(gazepriv.heatmap_spec(4, 2, 1, observers => 5), -1, 1)$$,
    $$SELECT gazepriv.heatmap_preview(gazepriv.heatmap_spec(4, 2, 1, observers => 5), 0, 1)$$,
    $$SELECT gazepriv.heatmap_preview(gazepriv.heatmap_spec(4, 2, 1, observers => 5), 1, 'NaN')$$,
    $$SELECT gazepriv.heatmap_preview(gazepriv.heatmap_spec(4, 2, 1, observers => 5), 1, 'Infinity')$$,
    $$SELECT gazepriv.heatmap_preview(gazepriv.heatmap_spec(4, 2, 1, observers => 5), 1, -1)$$,
    $$SELECT gazepriv.heatmap_preview(ROW(4, 2, 'NaN', 1e-5, 1, 'gaussian', 'analytic', 0, 1, 5, NULL)::gazepriv.heatmap_spec, 1, 1)$$,
    $$SELECT gazepriv.heatmap_preview(ROW(4, 2, 1, 1e-5, 1, 'gaussian', 'analytic', 'Infinity', 1, 5, NULL)::gazepriv.heatmap_spec, 1, 1)$$,
    $$SELECT gazepriv.heatmap_preview(ROW(4, 2, 1, 1e-5, 1, 'gaussian', 'analytic', 0, 1, -5, NULL)::gazepriv.heatmap_spec, 1, 1)$$,
    $$SELECT gazepriv.heatmap_preview(gazepriv.heatmap_spec(4, 2, 1, observers => 5),
                                      ROW(4, 2, 1, 4, 2, '{0,0,0,NaN,0,0,0,0}', 2, 1, 'none', NULL, NULL, NULL, NULL, NULL, NULL, 0)::gazepriv.heatmap)$$,
    $$SELECT gazepriv.heatmap_preview(gazepriv.heatmap_spec(4, 2, 1, observers => 5),
                                      ROW(4, 2, 1, 4, 2, '{0,0,0,-Infinity,0,0,0,0}', 2, 1, 'none', NULL, NULL, NULL, NULL, NULL, NULL, 0)::gazepriv.heatmap)$$,
    $$SELECT gazepriv.heatmap_preview(gazepriv.heatmap_spec(4, 2, 1, observers => 5),
                                      ROW(4, 2, 1, 4, 2, '{0,0,0}', 2, 1, 'none', NULL, NULL, NULL, NULL, NULL, NULL, 0)::gazepriv.heatmap)$$,
    $$SELECT gazepriv.heatmap_preview(gazepriv.heatmap_spec(8, 2, 1, observers => 5), map) FROM preview_prior$$,
    $$SELECT gazepriv.heatmap_preview(gazepriv.heatmap_spec(4, 2, 1, cap => 2, observers => 5), map) FROM preview_prior$$,
    $$SELECT gazepriv.heatmap_preview(gazepriv.heatmap_spec(4, 2, 1, blur_sigma => 1, observers => 5), gazepriv.heatmap_blur(map, 2)) FROM preview_prior$$,
    $$SELECT gazepriv.heatmap_preview(ROW(100000, 100000, 1, 1e-5, 1, 'gaussian', 'analytic', 0, 1, 5, NULL)::gazepriv.heatmap_spec, 1, 1)$$,
    $$SELECT gazepriv.heatmap_preview(NULL::gazepriv.heatmap_spec, 1, 1)$$,
    $$SELECT gazepriv.heatmap_preview(gazepriv.heatmap_spec(4, 2, 1), 1, 1)$$,
    $$SELECT gazepriv.heatmap_preview(gazepriv.heatmap_spec(4, 2, 1, observers => 5), NULL, 1)$$,
    $$SELECT gazepriv.heatmap_preview(gazepriv.heatmap_spec(4, 2, 1, observers => 5), 1, NULL)$$,
    $$SELECT gazepriv.heatmap_preview(gazepriv.heatmap_spec(4, 2, 1, observers => 5), NULL::gazepriv.heatmap)$$]) q;

SELECT gazepriv.drop_dataset('preview_gaze') IS NOT NULL AS dropped;
DROP TABLE preview_points;
