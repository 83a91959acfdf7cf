-- Calibrating noise and answering a first differentially private question
SELECT gazepriv.version() AS gazepriv_version;

\echo
\echo 'How much noise does a DP heatmap need? Gaussian sigma per cell of the normalised map'
\echo '(Liu et al. 2019: L2 sensitivity = m sqrt(r) / n with cap m = 1; the paper uses delta = n^-1.5,'
\echo 'which is weak for n = 20, so the Uniss rows use delta = 1e-5)'
SELECT setting, cells, observers AS n, delta,
       round((sqrt(cells) / observers)::numeric, 4) AS l2_sensitivity,
       round(gazepriv.gaussian_sigma(sqrt(cells) / observers, 1, delta, 'analytic')::numeric, 3) AS analytic,
       round(gazepriv.gaussian_sigma(sqrt(cells) / observers, 1, delta, 'liu2019')::numeric, 3) AS liu2019
FROM (VALUES ('paper: 300x300 px, n = 900', 300 * 300, 900, round((900 ^ (-1.5))::numeric, 7)::float8),
             ('Uniss-FGD face image, 1 px cells', 562 * 762, 20, 1e-5),
             ('Uniss-FGD face image, 16 px cells', 36 * 48, 20, 1e-5)) v(setting, cells, observers, delta);
\echo 'A cell of the normalised map holds the fraction of observers who looked there (at most 1): with'
\echo '20 observers only coarse cells, or many more observers, leave a recognisable picture.'

\echo
\echo 'A DP count with the exact discrete Laplace sampler: gaze samples on the face image.'
\echo 'Each participant contributes at most 912 samples (3 s at 300 Hz, clipped), so one person'
\echo 'changes the total by at most 912 (add/remove neighbours); epsilon = 1 gives scale 912.'
WITH per_person AS (
    SELECT participant,
           least(count(*) FILTER (WHERE x BETWEEN 359 AND 359 + 562 AND y BETWEEN 131 AND 131 + 762), 912) AS c
    FROM uniss_samples GROUP BY participant)
SELECT sum(c) AS exact_not_released,
       sum(c) + gazepriv.discrete_laplace_noise(gazepriv.laplace_scale(912, 1)) AS dp_count_epsilon_1,
       round(sqrt(2) * gazepriv.laplace_scale(912, 1)) AS noise_sd
FROM per_person;

\echo
\echo 'Composition: k Gaussian releases, each (1, 1e-5)-DP by Dwork-Roth calibration.'
\echo 'Basic composition adds epsilons; zCDP adds rho and converts once (Canonne-Kamath-Steinke).'
SELECT k AS releases, k AS basic_epsilon,
       round(gazepriv.zcdp_epsilon(k * gazepriv.zcdp_rho(1, sqrt(2 * ln(1.25e5))), 1e-5)::numeric, 2) AS zcdp_epsilon
FROM unnest(ARRAY[1, 10, 100, 1000]) k;
