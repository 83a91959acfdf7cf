-- Foundation: version, calibration formulas, noise primitives for users composing their own mechanisms.

CREATE FUNCTION @extschema@.version() RETURNS text
    AS 'MODULE_PATHNAME', 'gazepriv_version' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.version() IS
    'Version of the loaded gazepriv library. Privacy: releases nothing.';

-- Calibration (pure math: IMMUTABLE) ----------------------------------------------------------------

CREATE FUNCTION @extschema@.gaussian_sigma(l2_sensitivity float8, epsilon float8, delta float8,
                                           method text DEFAULT 'analytic') RETURNS float8
    AS 'MODULE_PATHNAME', 'gazepriv_gaussian_sigma' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.gaussian_sigma(float8, float8, float8, text) IS
    'Standard deviation of Gaussian noise that makes a query of the given L2 sensitivity (epsilon, delta)-DP. '
    'method: analytic (Balle & Wang 2018, exact and smallest; default), dwork_roth (Dwork & Roth 2014 '
    'Thm A.1, only for epsilon < 1), liu2019 (Liu et al. 2019 Thm 3.4, to reproduce the paper). '
    'Privacy: pure calibration, releases nothing.';

CREATE FUNCTION @extschema@.gaussian_epsilon(l2_sensitivity float8, sigma float8, delta float8,
                                             method text DEFAULT 'analytic') RETURNS float8
    AS 'MODULE_PATHNAME', 'gazepriv_gaussian_epsilon' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.gaussian_epsilon(float8, float8, float8, text) IS
    'The epsilon that Gaussian noise of standard deviation sigma gives a query of the given L2 sensitivity '
    'at the given delta, by the same methods as gaussian_sigma. Privacy: pure calibration, releases nothing.';

CREATE FUNCTION @extschema@.gaussian_delta(l2_sensitivity float8, sigma float8, epsilon float8) RETURNS float8
    AS 'MODULE_PATHNAME', 'gazepriv_gaussian_delta' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.gaussian_delta(float8, float8, float8) IS
    'Exact privacy profile of the Gaussian mechanism (Balle & Wang 2018): the smallest delta for which '
    'N(0, sigma^2) noise on a query of the given L2 sensitivity is (epsilon, delta)-DP. '
    'Privacy: pure calibration, releases nothing.';

CREATE FUNCTION @extschema@.laplace_scale(l1_sensitivity float8, epsilon float8) RETURNS float8
    AS 'MODULE_PATHNAME', 'gazepriv_laplace_scale' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.laplace_scale(float8, float8) IS
    'Laplace scale b = l1_sensitivity / epsilon that makes a query epsilon-DP (standard deviation sqrt(2) b). '
    'Privacy: pure calibration, releases nothing.';

CREATE FUNCTION @extschema@.noise_accuracy(mechanism text, scale float8, confidence float8 DEFAULT 0.95)
    RETURNS TABLE (noise_sd float8, half_width float8)
    AS 'MODULE_PATHNAME', 'gazepriv_noise_accuracy' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.noise_accuracy(text, float8, float8) IS
    'The accuracy of one noisy value: the noise''s standard deviation and the smallest half-width a with '
    'P(|noise| <= a) >= confidence, so value +- a is a confidence interval for the exact value. mechanism laplace '
    '(scale b: sd sqrt(2) b, a = b ln(1 / (1 - confidence))), discrete_laplace (release_count: scale 1 / epsilon; a '
    'is an integer) or gaussian (scale sigma: a = sigma Phi^-1((1 + confidence) / 2)). Errors 22023. Privacy: pure '
    'calculation on public parameters; reads no data.';

CREATE FUNCTION @extschema@.epsilon_for_accuracy(mechanism text, sensitivity float8, half_width float8,
                                                 confidence float8 DEFAULT 0.95, delta float8 DEFAULT NULL)
    RETURNS float8 AS 'MODULE_PATHNAME', 'gazepriv_epsilon_for_accuracy' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.epsilon_for_accuracy(text, float8, float8, float8, float8) IS
    'The inverse of noise_accuracy: the smallest epsilon at which a query of this sensitivity, released with '
    'mechanism laplace, discrete_laplace (half_width taken down to an integer) or gaussian (the analytic '
    'calibration at delta, required), stays within +- half_width of the exact value with the given confidence. '
    'Example: epsilon_for_accuracy(''discrete_laplace'', 1, 5) is the epsilon release_count needs for +- 5 '
    'participants 95 % of the time. Errors 22023, 22004 for NULL. Privacy: pure calculation on public '
    'parameters; reads no data, spends nothing.';

CREATE FUNCTION @extschema@.zcdp_rho(l2_sensitivity float8, sigma float8) RETURNS float8
    AS 'MODULE_PATHNAME', 'gazepriv_zcdp_rho' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.zcdp_rho(float8, float8) IS
    'rho = l2_sensitivity^2 / (2 sigma^2): the zero-concentrated DP of Gaussian (or discrete Gaussian) noise; '
    'rho adds up over releases. Privacy: pure accounting, releases nothing.';

CREATE FUNCTION @extschema@.zcdp_epsilon(rho float8, delta float8) RETURNS float8
    AS 'MODULE_PATHNAME', 'gazepriv_zcdp_epsilon' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.zcdp_epsilon(float8, float8) IS
    'The epsilon of (epsilon, delta)-DP implied by rho-zCDP, by the Canonne-Kamath-Steinke 2020 conversion '
    '(never above rho + 2 sqrt(rho ln(1/delta))). Privacy: pure accounting, releases nothing.';

CREATE FUNCTION @extschema@.zcdp_delta(rho float8, epsilon float8) RETURNS float8
    AS 'MODULE_PATHNAME', 'gazepriv_zcdp_delta' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.zcdp_delta(float8, float8) IS
    'The delta at which rho-zCDP implies epsilon-DP (Canonne-Kamath-Steinke 2020, Cor. 13). '
    'Privacy: pure accounting, releases nothing.';

-- Noise primitives (VOLATILE: every call draws fresh noise) ------------------------------------------

CREATE FUNCTION @extschema@.laplace_noise(scale float8) RETURNS float8
    AS 'MODULE_PATHNAME', 'gazepriv_laplace_noise' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.laplace_noise(float8) IS
    'One draw of Laplace(0, scale) noise from the CSPRNG, realised exactly on the grid 2^(floor(log2 scale) - 40) '
    '(a discrete Laplace in grid units). Adding it to an arbitrary float8 yourself can reopen the floating-point '
    'attack; prefer laplace_mechanism, which rounds the value to the grid first. Privacy: charges no budget.';

CREATE FUNCTION @extschema@.gaussian_noise(sigma float8) RETURNS float8
    AS 'MODULE_PATHNAME', 'gazepriv_gaussian_noise' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.gaussian_noise(float8) IS
    'One draw of N(0, sigma^2) noise from the CSPRNG, realised exactly as a discrete Gaussian on the grid '
    '2^(floor(log2 sigma) - 24). Prefer gaussian_mechanism to add it to a value. Privacy: charges no budget.';

CREATE FUNCTION @extschema@.discrete_laplace_noise(scale float8) RETURNS bigint
    AS 'MODULE_PATHNAME', 'gazepriv_discrete_laplace_noise' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.discrete_laplace_noise(float8) IS
    'One exact draw of discrete Laplace noise, P(x) proportional to exp(-|x|/scale) (Canonne-Kamath-Steinke '
    '2020). Added to an integer count of sensitivity s with scale = s/epsilon it is epsilon-DP. '
    'Privacy: charges no budget.';

CREATE FUNCTION @extschema@.discrete_gaussian_noise(sigma float8) RETURNS bigint
    AS 'MODULE_PATHNAME', 'gazepriv_discrete_gaussian_noise' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.discrete_gaussian_noise(float8) IS
    'One exact draw of discrete Gaussian noise, P(x) proportional to exp(-x^2/(2 sigma^2)) (Canonne-Kamath-Steinke '
    '2020), sigma below 2^27. Added to an integer count of L2 sensitivity s it is rho-zCDP with '
    'rho = s^2/(2 sigma^2). Privacy: charges no budget.';

CREATE FUNCTION @extschema@.laplace_mechanism(value float8, l1_sensitivity float8, epsilon float8) RETURNS float8
    AS 'MODULE_PATHNAME', 'gazepriv_laplace_mechanism' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.laplace_mechanism(float8, float8, float8) IS
    'value + Laplace noise, epsilon-DP for a value of the given L1 sensitivity (add/remove or replace: whatever '
    'relation the sensitivity was computed for). The value is rounded to a power-of-two grid and the noise '
    'drawn in grid units, with the rounding added to the sensitivity, so the floating-point attack does not '
    'apply. Privacy: epsilon-DP per call; charges no budget.';

CREATE FUNCTION @extschema@.gaussian_mechanism(value float8, l2_sensitivity float8, epsilon float8, delta float8,
                                               calibration text DEFAULT 'analytic') RETURNS float8
    AS 'MODULE_PATHNAME', 'gazepriv_gaussian_mechanism' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.gaussian_mechanism(float8, float8, float8, float8, text) IS
    'value + Gaussian noise calibrated by gaussian_sigma(l2_sensitivity, epsilon, delta, calibration), realised '
    'on a power-of-two grid with the rounding added to the sensitivity. Privacy: (epsilon, delta)-DP and '
    'rho = l2^2/(2 sigma^2) zCDP per call; charges no budget.';

CREATE FUNCTION @extschema@.laplace_mechanism(elements float8[], l1_sensitivity float8, epsilon float8) RETURNS float8[]
    AS 'MODULE_PATHNAME', 'gazepriv_laplace_mechanism_array' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.laplace_mechanism(float8[], float8, float8) IS
    'Every element + independent Laplace noise, epsilon-DP for a vector whose L1 sensitivity (summed over all '
    'elements) is l1_sensitivity. Values are rounded to a power-of-two grid and the rounding of every element '
    'is added to the sensitivity. NULL elements are an error. Privacy: epsilon-DP per call; charges no budget.';

CREATE FUNCTION @extschema@.gaussian_mechanism(elements float8[], l2_sensitivity float8, epsilon float8, delta float8,
                                               calibration text DEFAULT 'analytic') RETURNS float8[]
    AS 'MODULE_PATHNAME', 'gazepriv_gaussian_mechanism_array' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.gaussian_mechanism(float8[], float8, float8, float8, text) IS
    'Every element + independent N(0, sigma^2) noise, sigma = gaussian_sigma(l2_sensitivity, epsilon, delta, '
    'calibration) for the L2 sensitivity of the whole vector, on a power-of-two grid with the rounding added to '
    'the sensitivity. Privacy: (epsilon, delta)-DP and rho = l2^2/(2 sigma^2) zCDP per call; charges no budget.';
