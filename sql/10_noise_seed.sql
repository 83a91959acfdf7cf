-- gazepriv.seed is a superuser-only test setting. This file starts a fresh session, so the library is
-- not loaded yet: a placeholder set by an unprivileged role must not survive the library's load.
SET ROLE gazepriv_test_user;
SET gazepriv.seed = 5;          -- only a placeholder so far
SELECT gazepriv.version();      -- loads the library: the placeholder is refused (WARNING)
SHOW gazepriv.seed;
SELECT gazepriv_test.error_of('SET gazepriv.seed = 5');
SELECT gazepriv_test.error_of('SET gazepriv.nonexistent = 1');  -- the prefix is reserved
RESET ROLE;

-- As superuser: one setting gives reproducible output, draws within it differ, setting it again restarts.
SET gazepriv.seed = 42;
CREATE TEMP TABLE run1 AS SELECT i, gazepriv.laplace_noise(1) AS v FROM generate_series(1, 5) i;
SELECT count(DISTINCT v) AS distinct_draws FROM run1;
SET gazepriv.seed = 42;
CREATE TEMP TABLE run2 AS SELECT i, gazepriv.laplace_noise(1) AS v FROM generate_series(1, 5) i;
SELECT bool_and(run1.v = run2.v) AS reproduced FROM run1 JOIN run2 USING (i);
SET gazepriv.seed = 43;
SELECT bool_or(gazepriv.laplace_noise(1) <> v) AS other_seed_differs FROM run1;
-- Back to cryptographic randomness: a repeat of the seeded statement no longer reproduces.
RESET gazepriv.seed;
SELECT bool_and(gazepriv.laplace_noise(1) = v) AS still_seeded FROM run1;
-- Noise functions are VOLATILE: evaluated once per row, never folded into a constant.
SELECT count(DISTINCT gazepriv.laplace_noise(1)) AS per_row FROM generate_series(1, 1000);
SELECT count(DISTINCT gazepriv.gaussian_noise(1)) AS per_row FROM generate_series(1, 1000);
