-- DP gaze heatmaps (Liu et al. 2019) of a real face image: where 20 people looked, without revealing where any one looked
\echo 'Uniss-FGD image 2: 20 observers, 3 s each at 300 Hz. The face is drawn at x = 359, y = 131, 562 x 762 px;'
\echo 'coordinates are shifted onto the image. Every map below is blurred with a Gaussian of 20 px (about 0.7 degree).'
CREATE TEMP TABLE face AS
SELECT participant, x - 359 AS x, y - 131 AS y FROM uniss_samples WHERE stimulus = 2;

\echo
\echo 'The exact capped map (NOT private): the share of observers who looked at each pixel at least once (cap m = 1).'
CREATE TEMP TABLE exact AS
SELECT c.cell_size, gazepriv.gaze_map(participant, x, y, 562, 762, 1, c.cell_size) AS m
FROM face, (VALUES (1), (16), (32), (64)) c(cell_size) GROUP BY c.cell_size;
SELECT cell_size, (m).columns || ' x ' || (m).rows AS grid, (m).n AS observers,
       round((SELECT max(v) FROM unnest((m).values) v)::numeric, 2) AS largest_cell_value,
       (SELECT count(*) FROM unnest((m).values) v WHERE v > 0) AS cells_looked_at
FROM exact ORDER BY cell_size;

\echo
\echo 'What a release costs and how much noise it adds, before anything is released (heatmap_release_cost).'
\echo 'r = cells, L2 sensitivity m sqrt(r) on the capped sums; noise per cell of the normalised map = sd / n.'
SELECT c.cell_size, r.cells, round(r.l2_sensitivity::numeric, 1) AS l2_sensitivity, e.eps AS epsilon,
       round(r.map_sd::numeric, 3) AS gaussian_noise_per_cell,
       round((SELECT noise_sd FROM gazepriv.heatmap_release_cost(
                  gazepriv.heatmap_spec(562, 762, e.eps, mechanism => 'laplace', cell_size => c.cell_size, observers => 20)))::numeric / 20, 1)
           AS laplace_noise_per_cell
FROM (VALUES (1), (16), (64)) c(cell_size), (VALUES (1.0), (5.0)) e(eps),
     gazepriv.heatmap_release_cost(gazepriv.heatmap_spec(562, 762, e.eps, cell_size => c.cell_size, observers => 20)) r
ORDER BY c.cell_size, e.eps;
\echo 'Cell values are at most 1 (all 20 observers): at 1 px cells the Gaussian noise is about 122 per cell at epsilon 1,'
\echo 'so that map is pure noise. Fewer, larger cells (or many more observers) are the remedy.'

\echo
\echo 'Utility: Pearson CC between DP and exact maps (both blurred), mean of 3 releases, delta = 1e-5, cap 1.'
SET gazepriv.seed = 20; -- reproducible demo output; a seeded release is NOT private
-- n = 2000: the same gaze as if each observer had been recorded 100 times (Liu et al. replicate observers the
-- same way for their Figure 3): the map's values stay, its capped sums and n grow 100-fold.
CREATE TEMP TABLE maps (cell_size int, observers int, m gazepriv.heatmap, b gazepriv.heatmap);
ALTER TABLE maps ALTER COLUMN m SET STORAGE external, ALTER COLUMN b SET STORAGE external; -- no recompression
INSERT INTO maps SELECT cell_size, o.observers,
    ROW((m).width, (m).height, (m).cell_size, (m).columns, (m).rows, (m).values, o.observers, 1, 'none', NULL, NULL,
        NULL, NULL, NULL, NULL, 0)::gazepriv.heatmap, gazepriv.heatmap_blur(m, 20)
FROM exact, (VALUES (20), (2000)) o(observers);
CREATE TEMP TABLE sweep AS
SELECT e.cell_size, e.observers, p.eps, avg(gazepriv.heatmap_cc(e.b, d)) AS cc
FROM maps e, (VALUES (0.5), (1.0), (2.0), (5.0)) p(eps),
     LATERAL (SELECT gazepriv.privatize(e.m, gazepriv.heatmap_spec(562, 762, p.eps, blur_sigma => 20, cell_size => e.cell_size)) d
              FROM generate_series(1, CASE WHEN e.cell_size = 1 THEN 1 ELSE 3 END)) releases
GROUP BY e.cell_size, e.observers, p.eps;
SELECT CASE observers WHEN 20 THEN '20 (real)' ELSE '2000 (x100)' END AS observers, cell_size,
       round(max(cc) FILTER (WHERE eps = 0.5)::numeric, 2) AS "eps 0.5", round(max(cc) FILTER (WHERE eps = 1)::numeric, 2) AS "eps 1",
       round(max(cc) FILTER (WHERE eps = 2)::numeric, 2) AS "eps 2", round(max(cc) FILTER (WHERE eps = 5)::numeric, 2) AS "eps 5"
FROM sweep GROUP BY observers, cell_size ORDER BY observers, cell_size;
\echo 'With the 20 real observers nothing survives at 1 px cells, and even 64 px cells keep only a faint trace'
\echo '(CC below 0.5 at epsilon 5). A hundred times more observers make 16-64 px maps recognisable at epsilon 1.'
\echo 'Liu et al. assumed 50,000 observers. At small n the honest choices are coarse cells, a larger epsilon, or'
\echo 'no release. Algorithm 1 (NON-PRIVATE: it reads raw counts) suggests the cap for each grid:'
SELECT c.cell_size, gazepriv.optimal_cap(participant, x, y, c.spec) AS optimal_cap_eps_1
FROM face, (SELECT cell_size, gazepriv.heatmap_spec(562, 762, 1, cell_size => cell_size) AS spec
            FROM (VALUES (1), (16), (64)) v(cell_size)) c
GROUP BY c.cell_size ORDER BY 1;

\echo
\echo 'Pictures in the demo output directory (open them, or lay them over the image at x = 359, y = 131):'
\echo '  heatmap_exact.png              exact, 1 px cells (NOT private)'
\echo '  heatmap_dp_1px_eps1.png        DP, 1 px cells, epsilon 1, n = 20: noise only'
\echo '  heatmap_dp_64px_eps5.png       DP, 64 px cells, epsilon 5, n = 20'
\echo '  heatmap_dp_16px_eps1_n2000.png DP, 16 px cells, epsilon 1, as if n = 2000'
\echo '  heatmap_overlay.png            a release of that map over a generated stimulus (a schematic face, licence-free),'
\echo '                                 with the colour bar and the significance mask: the outlined cells are above'
\echo '                                 what the noise alone gives (Bonferroni, 0.05); the others are faded'
\i test/demo/generated_stimulus.psql
\setenv DEMO_OUT :demo_out
\pset format unaligned
\pset tuples_only on
SELECT encode(gazepriv.heatmap_png(b), 'base64') FROM maps WHERE cell_size = 1 AND observers = 20
\g | base64 -d > "$DEMO_OUT/heatmap_exact.png"
SELECT encode(gazepriv.heatmap_png(gazepriv.privatize(m, gazepriv.heatmap_spec(562, 762, 1, blur_sigma => 20))), 'base64')
FROM exact WHERE cell_size = 1
\g | base64 -d > "$DEMO_OUT/heatmap_dp_1px_eps1.png"
SELECT encode(gazepriv.heatmap_png(gazepriv.privatize(m, gazepriv.heatmap_spec(562, 762, 5, blur_sigma => 20, cell_size => 64))), 'base64')
FROM exact WHERE cell_size = 64
\g | base64 -d > "$DEMO_OUT/heatmap_dp_64px_eps5.png"
SELECT encode(gazepriv.heatmap_png(gazepriv.privatize(m, gazepriv.heatmap_spec(562, 762, 1, blur_sigma => 20, cell_size => 16))),
              'base64')
FROM maps WHERE cell_size = 16 AND observers = 2000
\g | base64 -d > "$DEMO_OUT/heatmap_dp_16px_eps1_n2000.png"
SELECT encode(gazepriv.heatmap_png(gazepriv.privatize(m, gazepriv.heatmap_spec(562, 762, 1, blur_sigma => 20, cell_size => 16)),
                                   stimulus => png, colorbar => true, significance => 0.05), 'base64')
FROM maps, stimulus WHERE cell_size = 16 AND observers = 2000
\g | base64 -d > "$DEMO_OUT/heatmap_overlay.png"
\pset tuples_only off
\pset format aligned
RESET gazepriv.seed;

\echo
\echo 'The release as an aggregate, straight from the rows (dp_heatmap), and as rows for a BI tool (heatmap_cells):'
SELECT (h).columns || ' x ' || (h).rows AS grid, (h).n, (h).mechanism, (h).calibration, (h).epsilon, (h).delta,
       round((h).rho::numeric, 4) AS rho, round((h).sigma::numeric, 3) AS sigma_per_cell
FROM (SELECT gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(562, 762, 1, cell_size => 64, blur_sigma => 20)) h
      FROM face) s;
SELECT x, y, round(value::numeric, 3) AS value
FROM gazepriv.heatmap_cells((SELECT gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(562, 762, 1, cell_size => 64))
                             FROM face))
ORDER BY value DESC LIMIT 5;
\echo 'Each dp_heatmap call is one (epsilon, delta)-DP release per group; no budget is charged yet (see README).'
