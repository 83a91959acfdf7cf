-- Time series on one signal: lpa, fpa, cfpa, dcfpa, nmse, choose_k, public_k (Bozkir et al. 2021).
SET gazepriv.seed = 30;

-- With a huge epsilon and every bin kept (k = floor(n/2) + 1) FPA returns its input, for odd and even n;
-- so do cfpa and dcfpa, including a short last chunk (70 = 2 x 32 + 6, whose k is lowered to 4).
WITH s AS (SELECT ARRAY(SELECT sin(i * 0.3) + i * 0.01 FROM generate_series(1, n) i) AS x, n
           FROM unnest(ARRAY[1, 2, 9, 64, 101]) n)
SELECT n, (SELECT max(abs(a - b)) < 1e-9 FROM unnest(x, gazepriv.fpa(x, n / 2 + 1, 1e12, 1)) u(a, b)) AS fpa_exact
FROM s ORDER BY n;
WITH s AS (SELECT ARRAY(SELECT cos(i * 0.2) * 3 FROM generate_series(1, 70) i) AS x)
SELECT (SELECT max(abs(a - b)) < 1e-8 FROM unnest(x, gazepriv.cfpa(x, 17, 32, 1e12, ARRAY[1.0])) u(a, b)) AS cfpa_exact,
       (SELECT max(abs(a - b)) < 1e-8 FROM unnest(x, gazepriv.dcfpa(x, 17, 32, 1e12, ARRAY[1.0, 2.0, 3.0])) u(a, b)) AS dcfpa_exact
FROM s;

-- Fewer bins keep the full amplitude of what they keep (Hermitian reconstruction): a cosine at bin 3
-- survives k = 4, and k = 3 leaves its mean.
WITH s AS (SELECT ARRAY(SELECT 2 + cos(2 * pi() * 3 * i / 64) FROM generate_series(0, 63) i) AS x)
SELECT (SELECT max(abs(a - b)) < 1e-9 FROM unnest(x, gazepriv.fpa(x, 4, 1e12, 1)) u(a, b)) AS bin_kept,
       (SELECT max(abs(b - 2)) < 1e-9 FROM unnest(x, gazepriv.fpa(x, 3, 1e12, 1)) u(a, b)) AS bin_dropped
FROM s;

-- FPA's per-sample noise variance is 2 lambda^2 (4k - 3) / n^2 with lambda = sqrt(n k) Delta_2 / epsilon
-- (doc/privacy/series.md §3): n = 64, k = 6, Delta_2 = 1, epsilon = 1 gives 3.9375. 5,000 releases of zeros:
-- the mean square has a relative standard error of 1%, so a 4% tolerance holds and a 5% error in lambda
-- (10.25% in variance) fails. (The calls are in the select list: one fresh release per row.)
WITH v AS (SELECT avg(y * y) AS ms, avg(y * y) FILTER (WHERE i = 1) AS first_sample
           FROM (SELECT gazepriv.fpa(array_fill(0::float8, ARRAY[64]), 6, 1, 1) AS r FROM generate_series(1, 5000)) s,
                unnest(s.r) WITH ORDINALITY u(y, i))
SELECT abs(ms / 3.9375 - 1) < 0.04 AS variance_ok, abs(ms / (1.05 ^ 2 * 3.9375) - 1) > 0.04 AS five_percent_detected,
       abs(first_sample / 3.9375 - 1) < 0.1 AS per_sample_ok
FROM v;
-- With the Nyquist bin (n = 16, k = 9), a real coordinate, the variance is 2 lambda^2 (4k - 6) / n^2 = 33.75
-- (4k - 3 would give 37.1).
SELECT abs(avg(y * y) / (2 * 144 * 30 / 256.0) - 1) < 0.04 AS nyquist_variance_ok,
       abs(avg(y * y) / (2 * 144 * 33 / 256.0) - 1) > 0.04 AS not_4k_minus_3
FROM (SELECT gazepriv.fpa(array_fill(0::float8, ARRAY[16]), 9, 1, 1) AS r FROM generate_series(1, 10000)) s, unnest(s.r) y;
-- LPA: variance 2 lambda^2 with lambda = Delta_1 / epsilon = 3 (50,000 samples: 1% standard error).
SELECT abs(var_samp(y) / 18 - 1) < 0.05 AS lpa_variance_ok, abs(var_samp(y) / (1.05 ^ 2 * 18) - 1) > 0.05 AS detected,
       abs(avg(y)) < 0.1 AS centred
FROM unnest(gazepriv.lpa(array_fill(0::float8, ARRAY[50000]), 1, 3)) y;
-- CFPA gives each chunk its own lambda: a tiny sensitivity keeps chunk 1 exact, chunk 2 is noisy.
SELECT (SELECT max(abs(y - 1)) < 1e-6 FROM unnest(r[1:32]) y) AS quiet_chunk,
       (SELECT max(abs(y - 1)) > 1e-3 FROM unnest(r[33:64]) y) AS noisy_chunk
FROM (SELECT gazepriv.cfpa(array_fill(1::float8, ARRAY[64]), 1, 32, 1, ARRAY[1e-9, 100]) AS r) s;
-- Noise is on the power-of-two grid of each mechanism; a release is fresh on every call.
SELECT gazepriv.lpa(ARRAY[1.0, 2.0], 1, 1) <> gazepriv.lpa(ARRAY[1.0, 2.0], 1, 1) AS fresh_noise;

-- NMSE (Eqs. 4-5) and utility 1/|NMSE| (Eq. 6) on a hand example: (1/3) / (2 * 7/3) = 1/14.
SELECT gazepriv.nmse(ARRAY[1, 2, 3]::float8[], ARRAY[1, 2, 4]::float8[]) * 14 AS fourteen_nmse,
       gazepriv.nmse_utility(ARRAY[1, 2, 3]::float8[], ARRAY[1, 2, 4]::float8[]) AS utility,
       gazepriv.nmse(ARRAY[1, 2]::float8[], ARRAY[1, 2]::float8[]) AS identical,
       gazepriv.nmse(ARRAY[-1, 1]::float8[], ARRAY[1, 2]::float8[]) AS zero_mean,
       gazepriv.nmse(ARRAY[1, 2, 3]::float8[], ARRAY[-1, -2, -3]::float8[]) < 0 AS can_be_negative;

-- The public k rule depends on epsilon and the limit only; choose_k sweeps k (non-private).
SELECT gazepriv.public_k('cfpa', 1, 3600) AS k_eps_1, gazepriv.public_k('cfpa', 100, 3600) AS k_eps_100,
       gazepriv.public_k('fpa', 1e6, 7) AS k_at_limit, gazepriv.public_k('dcfpa', 1e6, 3600, 32) AS k_chunk_limit;
SELECT k, chosen FROM gazepriv.choose_k(ARRAY(SELECT 3 + sin(i * 0.05) FROM generate_series(1, 256) i), 0.01,
                                        ARRAY[1.0], candidates => ARRAY[1, 2, 8, 64], runs => 20) ORDER BY k;
SELECT k > 4 AS many_bins_when_noise_is_small
FROM gazepriv.choose_k(ARRAY(SELECT 3 + sin(i * 0.05) FROM generate_series(1, 256) i), 1e6, ARRAY[1.0], runs => 3)
WHERE chosen;
SELECT count(*) AS candidates, max(k) AS limit_k, count(*) FILTER (WHERE chosen) AS chosen
FROM gazepriv.choose_k(ARRAY(SELECT i::float8 FROM generate_series(1, 200) i), 1, ARRAY[1.0, 1, 1, 1], 'dcfpa', 64,
                       runs => 2);
RESET gazepriv.seed;

-- Bad input: ERROR 22023 naming the parameter.
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.lpa('{}'::float8[], 1, 1)$$,
    $$SELECT gazepriv.fpa('{}'::float8[], 1, 1, 1)$$,
    $$SELECT gazepriv.lpa(ARRAY[1, NULL]::float8[], 1, 1)$$,
    $$SELECT gazepriv.fpa(ARRAY[1, 'NaN']::float8[], 1, 1, 1)$$,
    $$SELECT gazepriv.cfpa(ARRAY[1, 'Infinity']::float8[], 1, 2, 1, ARRAY[1.0])$$,
    $$SELECT gazepriv.lpa(ARRAY[[1, 2], [3, 4]]::float8[], 1, 1)$$,
    $$SELECT gazepriv.fpa(ARRAY[1, 2, 3, 4]::float8[], 0, 1, 1)$$,
    $$SELECT gazepriv.fpa(ARRAY[1, 2, 3, 4]::float8[], -1, 1, 1)$$,
    $$SELECT gazepriv.fpa(ARRAY[1, 2, 3, 4]::float8[], 4, 1, 1)$$,
    $$SELECT gazepriv.cfpa(ARRAY[1, 2, 3, 4]::float8[], 3, 2, 1, ARRAY[1.0])$$,
    $$SELECT gazepriv.cfpa(ARRAY[1, 2, 3, 4]::float8[], 1, 1, 1, ARRAY[1.0])$$,
    $$SELECT gazepriv.dcfpa(ARRAY[1, 2, 3, 4]::float8[], 1, 0, 1, ARRAY[1.0])$$,
    $$SELECT gazepriv.lpa(ARRAY[1, 2]::float8[], 1, 0)$$,
    $$SELECT gazepriv.lpa(ARRAY[1, 2]::float8[], 1, -2)$$,
    $$SELECT gazepriv.fpa(ARRAY[1, 2]::float8[], 1, 1, 'NaN')$$,
    $$SELECT gazepriv.fpa(ARRAY[1, 2]::float8[], 1, 0, 1)$$,
    $$SELECT gazepriv.lpa(ARRAY[1, 2]::float8[], 'Infinity', 1)$$,
    $$SELECT gazepriv.cfpa(ARRAY[1, 2, 3, 4]::float8[], 1, 2, 1, ARRAY[1.0, 0])$$,
    $$SELECT gazepriv.dcfpa(ARRAY[1, 2, 3, 4]::float8[], 1, 2, 1, ARRAY[1.0, -1])$$,
    $$SELECT gazepriv.cfpa(ARRAY[1, 2, 3, 4]::float8[], 1, 2, 1, ARRAY[1.0, 1, 1])$$,
    $$SELECT gazepriv.cfpa(ARRAY[1, 2, 3, 4]::float8[], 1, 2, 1, '{}'::float8[])$$,
    $$SELECT gazepriv.cfpa(ARRAY[1, 2, 3, 4]::float8[], 1, 2, 1, ARRAY[NULL]::float8[])$$,
    $$SELECT gazepriv.nmse(ARRAY[1, 2, 3]::float8[], ARRAY[1, 2]::float8[])$$,
    $$SELECT gazepriv.nmse('{}'::float8[], '{}'::float8[])$$,
    $$SELECT gazepriv.nmse_utility(ARRAY[1, 'NaN']::float8[], ARRAY[1, 2]::float8[])$$,
    $$SELECT gazepriv.public_k('lpa', 1, 100)$$,
    $$SELECT gazepriv.public_k('fpa', 0, 100)$$,
    $$SELECT gazepriv.public_k('fpa', 1, 0)$$,
    $$SELECT gazepriv.public_k('cfpa', 1, 100, 1)$$,
    $$SELECT gazepriv.public_k('fft', 1, 100)$$,
    $$SELECT * FROM gazepriv.choose_k(ARRAY[1, 2, 3, 4]::float8[], 1, ARRAY[1.0], 'lpa')$$,
    $$SELECT * FROM gazepriv.choose_k(ARRAY[1, 2, 3, 4]::float8[], 1, ARRAY[1.0], candidates => ARRAY[9])$$,
    $$SELECT * FROM gazepriv.choose_k(ARRAY[1, 2, 3, 4]::float8[], 1, ARRAY[1.0], candidates => ARRAY[0])$$,
    $$SELECT * FROM gazepriv.choose_k(ARRAY[1, 2, 3, 4]::float8[], 1, ARRAY[1.0], candidates => '{}')$$,
    $$SELECT * FROM gazepriv.choose_k(ARRAY[1, 2, 3, 4]::float8[], 1, ARRAY[1.0], runs => 0)$$,
    $$SELECT * FROM gazepriv.choose_k(ARRAY[1, 2, 3, 4]::float8[], 1, ARRAY[1.0, 2.0])$$,
    $$SELECT * FROM gazepriv.choose_k(ARRAY[1, 2, 3, 4]::float8[], NULL, ARRAY[1.0])$$,
    $$SELECT * FROM gazepriv.choose_k(ARRAY[1, 2, 3, 4]::float8[], 1, ARRAY[1.0], 'cfpa', 2, runs => NULL)$$]) q;

-- Labels of the one-signal functions, frozen.
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.proisstrict, p.prosecdef
FROM pg_proc p
WHERE p.pronamespace = 'gazepriv'::regnamespace
  AND p.proname IN ('lpa', 'fpa', 'cfpa', 'dcfpa', 'nmse', 'nmse_utility', 'public_k', 'choose_k')
ORDER BY 1::text;
