-- Calibration formulas against the test vectors of doc/privacy/noise.md §1-2.
-- Liu et al.'s "good privacy": Delta2 = 1/3 (300x300 px, m = 1, n = 900), epsilon = 1, delta = 900^(-1.5).
SELECT method, round(gazepriv.gaussian_sigma(1.0/3, 1, 900^(-1.5), method)::numeric, 4) AS sigma
FROM unnest(ARRAY['analytic', 'liu2019']) method;
SELECT round(gazepriv.gaussian_sigma(1.0/3, 0.999999999, 900^(-1.5), 'dwork_roth')::numeric, 4) AS dwork_roth;
SELECT round(gazepriv.gaussian_sigma(1.0/3, 1, 900^(-1.5))::numeric, 4) AS default_is_analytic;
-- The paper's 1050x1680 example: n = 50,000, sigma = 1.5, solve for epsilon.
SELECT method, round(gazepriv.gaussian_epsilon(0.02656, 1.5, 50000^(-1.5), method)::numeric, 4) AS epsilon
FROM unnest(ARRAY['analytic', 'dwork_roth', 'liu2019']) method;
-- The analytic sigma is exactly on the privacy profile.
SELECT abs(gazepriv.gaussian_delta(1, gazepriv.gaussian_sigma(1, 1, 1e-5), 1) / 1e-5 - 1) < 1e-6 AS on_profile;
SELECT gazepriv.laplace_scale(3, 0.5) AS laplace_scale, gazepriv.zcdp_rho(1, 2) AS rho;
-- 100 releases calibrated to (1, 1e-5) by Dwork-Roth: basic composition 100, zCDP about 11.
SELECT round((100 * gazepriv.zcdp_rho(1, sqrt(2 * ln(1.25e5))))::numeric, 4) AS total_rho,
       round(gazepriv.zcdp_epsilon(100 * gazepriv.zcdp_rho(1, sqrt(2 * ln(1.25e5))), 1e-5)::numeric, 3) AS zcdp_eps;
SELECT round(gazepriv.zcdp_delta(2.13, gazepriv.zcdp_epsilon(2.13, 1e-5))::numeric, 9) AS delta_back;

-- Bad input: ERROR 22023 naming the parameter; NULL in, NULL out (STRICT).
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.gaussian_sigma(1, 0, 1e-5)$$,
    $$SELECT gazepriv.gaussian_sigma(1, -1, 1e-5)$$,
    $$SELECT gazepriv.gaussian_sigma(1, 'NaN', 1e-5)$$,
    $$SELECT gazepriv.gaussian_sigma(1, 'Infinity', 1e-5)$$,
    $$SELECT gazepriv.gaussian_sigma(1, 1, 0)$$,
    $$SELECT gazepriv.gaussian_sigma(1, 1, 1)$$,
    $$SELECT gazepriv.gaussian_sigma(1, 1, 'NaN')$$,
    $$SELECT gazepriv.gaussian_sigma(0, 1, 1e-5)$$,
    $$SELECT gazepriv.gaussian_sigma('-Infinity', 1, 1e-5)$$,
    $$SELECT gazepriv.gaussian_sigma(1, 1, 1e-5, 'gauss')$$,
    $$SELECT gazepriv.gaussian_sigma(1, 1, 1e-5, 'dwork_roth')$$,
    $$SELECT gazepriv.gaussian_epsilon(1, 0, 1e-5)$$,
    $$SELECT gazepriv.gaussian_delta(1, 1, -1)$$,
    $$SELECT gazepriv.laplace_scale(-2, 1)$$,
    $$SELECT gazepriv.laplace_scale(1, 'NaN')$$,
    $$SELECT gazepriv.zcdp_rho(1, 0)$$,
    $$SELECT gazepriv.zcdp_epsilon(-0.5, 1e-5)$$,
    $$SELECT gazepriv.zcdp_epsilon(1, 2)$$,
    $$SELECT gazepriv.zcdp_delta(1, 'NaN')$$]) q;
SELECT gazepriv.gaussian_sigma(NULL, 1, 1e-5) IS NULL AS strict_null;

-- Accuracy from public facts: the noise's sd and the half-width of a 95 % interval, and the inverse.
SELECT round(noise_sd::numeric, 6) AS sd, round(half_width::numeric, 6) AS half_width
FROM gazepriv.noise_accuracy('laplace', 2);  -- 2 sqrt 2, 2 ln 20
SELECT round(noise_sd::numeric, 6) AS sd, half_width FROM gazepriv.noise_accuracy('discrete_laplace', 1 / 0.5);
SELECT round(half_width::numeric, 6) AS gaussian_half_width FROM gazepriv.noise_accuracy('gaussian', 1, 0.95);
-- What epsilon gives release_count +- 5 participants 95 % of the time, and back.
SELECT round(gazepriv.epsilon_for_accuracy('discrete_laplace', 1, 5)::numeric, 6) AS count_epsilon,
       (SELECT half_width FROM gazepriv.noise_accuracy('discrete_laplace',
                                                       1 / gazepriv.epsilon_for_accuracy('discrete_laplace', 1, 5)))
           AS half_width_back,
       round(gazepriv.epsilon_for_accuracy('laplace', 1, ln(20))::numeric, 9) AS laplace_epsilon,
       round(gazepriv.epsilon_for_accuracy('gaussian', 1, 2, delta => 1e-5)::numeric, 6) AS gaussian_epsilon;
-- The empirical coverage of the count interval on real draws: at the epsilon for +- 5, 2,000 draws hold it
-- 95 % of the time (sd 0.5 points; the check allows 4 sd). Seeded: the draws are the same in every run.
SET gazepriv.seed = 11;
SELECT abs(avg((abs(gazepriv.discrete_laplace_noise(1 / gazepriv.epsilon_for_accuracy('discrete_laplace', 1, 5)))
               <= 5)::int) - 0.95) < 0.02 AS count_coverage_ok
FROM generate_series(1, 2000);
RESET gazepriv.seed;
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.noise_accuracy('cauchy', 1)$$,
    $$SELECT gazepriv.noise_accuracy('laplace', 0)$$,
    $$SELECT gazepriv.noise_accuracy('laplace', 'NaN')$$,
    $$SELECT gazepriv.noise_accuracy('laplace', 'Infinity')$$,
    $$SELECT gazepriv.noise_accuracy('laplace', 1, 1)$$,
    $$SELECT gazepriv.noise_accuracy('laplace', 1, 'NaN')$$,
    $$SELECT gazepriv.epsilon_for_accuracy('laplace', 1, 0)$$,
    $$SELECT gazepriv.epsilon_for_accuracy('laplace', 1, 1e308, 0.5)$$,
    $$SELECT gazepriv.epsilon_for_accuracy('gaussian', 1, 1)$$,
    $$SELECT gazepriv.epsilon_for_accuracy('laplace', NULL, 1)$$,
    $$SELECT gazepriv.epsilon_for_accuracy('discrete_laplace', 1, 5e-324)$$]) q;
