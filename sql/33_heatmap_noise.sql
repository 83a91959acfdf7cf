-- The noise of a release has the calibrated scale, for both mechanisms and every calibration: over many
-- releases of a fixed map, the per-cell noise (value - exact) * n, in counts, has standard deviation sigma
-- (Gaussian) or that of the discrete Laplace with scale b, within 2.5%. 60,000 cells per configuration put
-- the estimate's standard error near 0.3%, so a 5% error in the scale fails (checked on the same samples).
SET gazepriv.seed = 23;
CREATE TEMP TABLE hm_exact AS
SELECT gazepriv.gaze_map(participant, x, y, 40, 30, 2) AS m FROM gazepriv_test.hm_gaze;
CREATE TEMP TABLE hm_noise AS
SELECT c.label, (r).sigma * (r).n AS sigma_counts, (r).scale * (r).n AS scale_counts, (r).calibration,
       ((r).values[j] - (e.m).values[j]) * (r).n AS noise
FROM (VALUES ('analytic', 'gaussian', 'analytic', 1.0), ('liu2019', 'gaussian', 'liu2019', 1.0),
             ('dwork_roth', 'gaussian', 'dwork_roth', 0.5), ('laplace', 'laplace', 'analytic', 8.0)) c(label, mechanism, calibration, eps),
     hm_exact e,
     LATERAL (SELECT gazepriv.privatize(e.m, gazepriv.heatmap_spec(40, 30, c.eps, cap => 2, mechanism => c.mechanism,
                                                                   calibration => c.calibration)) AS r
              FROM generate_series(1, 50)) releases, -- 50 independent releases
     generate_series(1, 1200) j;
RESET gazepriv.seed;
SELECT label, count(*) AS cells, bool_and(abs(noise - round(noise)) < 1e-6) AS integer_noise, abs(avg(noise)) < 0.05 * stddev(noise) AS centred,
       -- expected standard deviation: sigma, or the discrete Laplace's sqrt(2q) / (1 - q) with q = exp(-1/b)
       abs(stddev(noise) / max(expected) - 1) < 0.025 AS scale_ok,
       abs(stddev(noise) / (1.05 * max(expected)) - 1) < 0.025 AS five_percent_off_passes
FROM (SELECT *, coalesce(sigma_counts, sqrt(2 * exp(-1 / scale_counts)) / (1 - exp(-1 / scale_counts))) AS expected
      FROM hm_noise) s
GROUP BY label ORDER BY label;
-- The released sigma is the named calibration's, for the map's sensitivity m sqrt(r) = 2 sqrt(1200).
SELECT label, round(max(sigma_counts)::numeric, 3) AS sigma_counts,
       round(gazepriv.gaussian_sigma(2 * sqrt(1200), CASE label WHEN 'dwork_roth' THEN 0.5 ELSE 1 END, 1e-5, label)::numeric, 3)
       AS continuous_sigma
FROM hm_noise WHERE sigma_counts IS NOT NULL GROUP BY label ORDER BY label;
SELECT max(scale_counts) AS laplace_scale_counts, 2 * 1200 / 8.0 AS m_r_over_epsilon FROM hm_noise WHERE label = 'laplace';
