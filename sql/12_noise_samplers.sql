-- Noise primitives: distributions (under a fixed seed, so the checks are deterministic), grids, errors.
SET gazepriv.seed = 1;
-- Laplace(2): variance 2 b^2 = 8, within 5% over 100,000 draws (the relative error is 0.7%).
SELECT abs(var_samp(v) / 8 - 1) < 0.05 AS variance_ok, abs(avg(v)) < 0.05 AS mean_ok
FROM (SELECT gazepriv.laplace_noise(2) AS v FROM generate_series(1, 100000)) s;
-- N(0, 3^2): variance 9 within 5%, and 99.73% of draws within 3 sigma.
SELECT abs(var_samp(v) / 9 - 1) < 0.05 AS variance_ok,
       abs(avg((abs(v) <= 9)::int) - 0.9973) < 0.002 AS three_sigma_ok
FROM (SELECT gazepriv.gaussian_noise(3) AS v FROM generate_series(1, 100000)) s;
-- Discrete noise is integer-valued with the discrete variances (Laplace: 2q/(1-q)^2, q = e^(-1/b)).
SELECT abs(var_samp(v) / (2 * exp(-1.0/4) / (1 - exp(-1.0/4))^2) - 1) < 0.05 AS laplace_variance_ok
FROM (SELECT gazepriv.discrete_laplace_noise(4) AS v FROM generate_series(1, 100000)) s;
SELECT abs(var_samp(v) / 25 - 1) < 0.05 AS gaussian_variance_ok, pg_typeof(min(v)) AS type
FROM (SELECT gazepriv.discrete_gaussian_noise(5) AS v FROM generate_series(1, 100000)) s;
-- Real-valued noise lies on the power-of-two grid 2^(floor(log2 scale) - 40).
SELECT bool_and(v * 2^40 = round(v * 2^40)) AS on_grid, bool_or(v * 2^39 <> round(v * 2^39)) AS uses_the_fine_grid
FROM (SELECT gazepriv.laplace_noise(1.5) AS v FROM generate_series(1, 1000)) s;
-- Mechanisms: centred on the value; a negligible scale releases the value itself.
SELECT abs(avg(v) - 100) < 0.1 AS laplace_mechanism_centred
FROM (SELECT gazepriv.laplace_mechanism(100, 1, 1) AS v FROM generate_series(1, 20000)) s;
SELECT abs(avg(v) - 100) < 0.1 AS gaussian_mechanism_centred
FROM (SELECT gazepriv.gaussian_mechanism(100, 1, 1, 1e-5) AS v FROM generate_series(1, 20000)) s;
SELECT round(gazepriv.laplace_mechanism(42.125, 1, 1e12)::numeric, 6) AS huge_epsilon,
       round(gazepriv.gaussian_mechanism(42.125, 1, 1e12, 1e-5)::numeric, 3) AS huge_epsilon_gaussian;
-- Vector mechanisms: one calibration for the whole vector, independent noise per element.
SELECT cardinality(v) AS n, abs(avg(e) - 5) < 1.6 AS centred, abs(var_samp(e) / (2 * 10.0 ^ 2) - 1) < 0.1 AS scale_ok
FROM (SELECT gazepriv.laplace_mechanism(array_fill(5.0::float8, ARRAY[2000]), 10, 1) AS v) s, unnest(v) e GROUP BY v;
SELECT abs(var_samp(e) / gazepriv.gaussian_sigma(1, 1, 1e-5) ^ 2 - 1) < 0.1 AS gaussian_scale_ok
FROM unnest(gazepriv.gaussian_mechanism(array_fill(0.0::float8, ARRAY[2000]), 1, 1, 1e-5)) e;
SELECT gazepriv.laplace_mechanism('{}'::float8[], 1, 1) AS empty_in_empty_out;
RESET gazepriv.seed;

-- Bad input: ERROR 22023 naming the parameter, never a crash.
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.laplace_noise(0)$$,
    $$SELECT gazepriv.laplace_noise('NaN')$$,
    $$SELECT gazepriv.laplace_noise('Infinity')$$,
    $$SELECT gazepriv.gaussian_noise(-1)$$,
    $$SELECT gazepriv.discrete_laplace_noise(0)$$,
    $$SELECT gazepriv.discrete_gaussian_noise(1e10)$$,
    $$SELECT gazepriv.laplace_mechanism('NaN', 1, 1)$$,
    $$SELECT gazepriv.laplace_mechanism(1e300, 1e-10, 1)$$,
    $$SELECT gazepriv.laplace_mechanism(1, 0, 1)$$,
    $$SELECT gazepriv.laplace_mechanism(1, 1, 0)$$,
    $$SELECT gazepriv.gaussian_mechanism(1, 1, 1, 0)$$,
    $$SELECT gazepriv.gaussian_mechanism(1, 1, 2, 1e-5, 'dwork_roth')$$,
    $$SELECT gazepriv.gaussian_mechanism('Infinity'::float8, 1, 1, 1e-5)$$,
    $$SELECT gazepriv.laplace_mechanism(ARRAY[1, NULL, 3]::float8[], 1, 1)$$,
    $$SELECT gazepriv.laplace_mechanism(ARRAY[[1, 2], [3, 4]]::float8[], 1, 1)$$,
    $$SELECT gazepriv.laplace_mechanism(ARRAY[1, 'NaN']::float8[], 1, 1)$$,
    $$SELECT gazepriv.gaussian_mechanism(ARRAY[1, 2]::float8[], 1, 1, 1e-5, 'nope')$$]) q;
