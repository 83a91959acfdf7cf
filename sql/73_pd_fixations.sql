-- pd_synthesize_fixations: event-synth-PD for fixations, the PD event test against other participants, in
-- log space (the densities here are far above 1: negative bands), with bounded attempts.
CREATE TABLE pd_fix (participant text, task text, fixation int, mu_x float8, mu_y float8, sigma_x float8,
                     sigma_y float8, samples int);
-- 5 participants x 24 tight fixations on one image, close to each other, 3 durations (6, 7 or 8 samples).
INSERT INTO pd_fix
SELECT 'p' || (i % 5), 'img', i, 400 + (i * 37 % 50) * 0.01, 300 + (i * 53 % 50) * 0.01, 0.1 + (i % 4) * 0.01,
       0.1 + (i % 3) * 0.01, 6 + i % 3
FROM generate_series(1, 120) i;
SET gazepriv.seed = 63;
CREATE TABLE pd_fix_out AS
SELECT * FROM gazepriv.pd_synthesize_fixations('pd_fix', k => 3, gamma => exp(4.0), max_attempts => 3,
                                                 include_failed => true);
SELECT count(*) AS fixations, count(x) AS released, min(attempts) AS min_attempts, max(attempts) <= 3 AS bounded,
       bool_and(x IS NULL OR cardinality(x) = f.samples AND cardinality(y) = f.samples) AS samples_per_fixation
FROM pd_fix_out o JOIN pd_fix f USING (participant, task, fixation);
-- Recomputed here: the released points' log-density under the seed's fixation and under every other
-- participant's fixation of the same length; at least k - 1 = 2 other participants fall in the seed's band.
CREATE FUNCTION pg_temp.log_density(xs float8[], ys float8[], f pd_fix) RETURNS float8 LANGUAGE sql AS $$
    SELECT sum(-ln(2 * pi() * f.sigma_x * f.sigma_y) - (x - f.mu_x) ^ 2 / (2 * f.sigma_x ^ 2)
               - (y - f.mu_y) ^ 2 / (2 * f.sigma_y ^ 2))
    FROM unnest(xs, ys) u(x, y) $$;
SELECT min(others) >= 2 AS every_release_has_two_other_participants, max(seed_band) < 0 AS negative_bands
FROM (SELECT o.fixation, floor(-pg_temp.log_density(o.x, o.y, s) / 4) AS seed_band,
             (SELECT count(DISTINCT a.participant) FROM pd_fix a
              WHERE a.participant <> s.participant AND a.samples = s.samples AND a.task = s.task
                AND floor(-pg_temp.log_density(o.x, o.y, a) / 4) = floor(-pg_temp.log_density(o.x, o.y, s) / 4)) AS others
      FROM pd_fix_out o JOIN pd_fix s USING (participant, task, fixation) WHERE o.x IS NOT NULL) r;
-- A fixation no other participant could have produced never passes: max_attempts draws, then NULL x, y (or
-- left out without include_failed).
INSERT INTO pd_fix VALUES ('loner', 'img', 999, 900, 900, 0.5, 0.5, 6);
SELECT attempts, x IS NULL AS not_released
FROM gazepriv.pd_synthesize_fixations('pd_fix', 3, exp(4.0), max_attempts => 7, include_failed => true)
WHERE participant = 'loner';
SELECT count(*) AS loner_rows
FROM gazepriv.pd_synthesize_fixations('pd_fix', 3, exp(4.0), max_attempts => 7) WHERE participant = 'loner';
-- k = 1 needs no other participant: every fixation passes with its first draw.
SELECT count(*) AS rows, bool_and(attempts = 1) AS first_draw FROM gazepriv.pd_synthesize_fixations('pd_fix', 1, 2);

-- Unusable rows are dropped; bad parameters are errors.
INSERT INTO pd_fix VALUES ('p0', 'img', 1000, 'NaN', 1, 1, 1, 5), ('p0', 'img', 1001, 1, 1, 0, 1, 5),
                          ('p0', 'img', 1002, 1, 1, 1, 1, 0), ('p0', 'img', 1003, 1, NULL, 1, 1, 5);
SELECT count(*) AS rows FROM gazepriv.pd_synthesize_fixations('pd_fix', 1, 2);
CREATE TABLE pd_fix_empty (LIKE pd_fix);
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT * FROM gazepriv.pd_synthesize_fixations('pd_fix_empty', 2, 2)$$,
    $$SELECT * FROM gazepriv.pd_synthesize_fixations('pd_fix', 0, 2)$$,
    $$SELECT * FROM gazepriv.pd_synthesize_fixations('pd_fix', 2, 0.5)$$,
    $$SELECT * FROM gazepriv.pd_synthesize_fixations('pd_fix', 2, 'Infinity')$$,
    $$SELECT * FROM gazepriv.pd_synthesize_fixations('pd_fix', 2, 2, max_attempts => 0)$$,
    $$SELECT * FROM gazepriv.pd_synthesize_fixations('pd_fix', NULL, 2)$$,
    $$SELECT * FROM gazepriv.pd_synthesize_fixations('pd_windows', 2, 2)$$]) q;
INSERT INTO pd_fix VALUES ('p0', 'img', 1004, 1, 1, 1, 1, 2000000);
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.pd_synthesize_fixations('pd_fix', 2, 2)$$);
RESET gazepriv.seed;
