-- pd_synthesize over hand-made feature windows: stratified output, values inside their bins, the tests'
-- guarantees recomputed in SQL, failures, statistics, and bad input.
CREATE TABLE pd_windows (participant text, task text, "window" int, features float8[]);
-- 6 participants, 2 tasks, 600 windows; three features in [0, 1) that depend on the participant.
INSERT INTO pd_windows
SELECT 'p' || (i % 6), CASE WHEN i % 4 < 2 THEN 'read' ELSE 'search' END, i,
       ARRAY[((i % 7) + (i % 6)) / 13.0, ((i * 13) % 11) / 11.0, ((i * 7) % 5) / 5.0 + (i % 6) / 40.0]
FROM generate_series(1, 600) i;
SET gazepriv.seed = 61;

-- Marginals (the paper's model) with data-range bins: seedless, so with at least k records per task every
-- candidate passes at once, and the output has the input's rows per participant and task.
CREATE TABLE pd_out AS SELECT * FROM gazepriv.pd_synthesize('pd_windows', k => 5, gamma => 2);
SELECT count(*) AS rows, bool_and(attempts = 1) AS first_candidates_passed,
       bool_and(cardinality(features) = 3) AS three_features FROM pd_out;
SELECT bool_and(i.n = o.n) AS same_rows_per_participant_and_task
FROM (SELECT participant, task, count(*) n FROM pd_windows GROUP BY 1, 2) i
FULL JOIN (SELECT participant, task, count(*) n FROM pd_out GROUP BY 1, 2) o USING (participant, task);
-- Every released row is labelled with an input row (participant, task, window) and each input row once.
SELECT count(*) = 600 AS labels_are_the_inputs
FROM pd_out o JOIN pd_windows i USING (participant, task, "window");
-- Values lie inside each task's data range (the non-private bins).
SELECT bool_and(o.features[j] >= r.lo AND o.features[j] <= r.hi) AS inside_the_data_range
FROM pd_out o, generate_series(1, 3) j,
     LATERAL (SELECT min(w.features[j]) lo, max(w.features[j]) hi FROM pd_windows w WHERE w.task = o.task) r;
-- The marginals are kept: per task and feature, the mean of the synthetic values is near the real one
-- (a bin is 1/30 of the range wide).
SELECT bool_and(abs(s.m - r.m) < 0.05) AS marginal_means_kept
FROM (SELECT task, j, avg(features[j]) m FROM pd_out, generate_series(1, 3) j GROUP BY 1, 2) s
JOIN (SELECT task, j, avg(features[j]) m FROM pd_windows, generate_series(1, 3) j GROUP BY 1, 2) r USING (task, j);

-- Seed-based, the last omega = 1 feature resampled, public bounds [0, 1.2] and 4 bins: a candidate keeps its
-- seed's bins of features 1 and 2, and exactly the records sharing them are plausible seeds. Recomputed here.
CREATE TABLE pd_last AS
SELECT * FROM gazepriv.pd_synthesize('pd_windows', k => 12, gamma => 2, bins => 4, model => 'seed_based',
                                     omega => 1, resample => 'last', bounds => ARRAY[[0, 1.2], [0, 1.2], [0, 1.2]]);
CREATE FUNCTION pg_temp.bin4(v float8) RETURNS int LANGUAGE sql IMMUTABLE AS
    $$ SELECT least(3, greatest(0, floor(v / 0.3)::int)) $$;
SELECT count(*) AS released,
       bool_and(pg_temp.bin4(o.features[1]) = pg_temp.bin4(s.features[1])
                AND pg_temp.bin4(o.features[2]) = pg_temp.bin4(s.features[2])) AS copied_bins_are_the_seeds,
       min(plausible) >= 12 AS every_release_has_k_plausible_seeds
FROM pd_last o
JOIN pd_windows s USING (participant, task, "window")
CROSS JOIN LATERAL (
    SELECT count(*) AS plausible FROM pd_windows d
    WHERE d.task = o.task AND pg_temp.bin4(d.features[1]) = pg_temp.bin4(s.features[1])
      AND pg_temp.bin4(d.features[2]) = pg_temp.bin4(s.features[2])) p;
-- ... and the seeds that were left out are exactly those with fewer than k plausible seeds (the test bites).
SELECT count(*) AS withheld, bool_and(plausible < 12) AS each_had_fewer_than_k
FROM pd_windows s
CROSS JOIN LATERAL (
    SELECT count(*) AS plausible FROM pd_windows d
    WHERE d.task = s.task AND pg_temp.bin4(d.features[1]) = pg_temp.bin4(s.features[1])
      AND pg_temp.bin4(d.features[2]) = pg_temp.bin4(s.features[2])) p
WHERE NOT EXISTS (SELECT FROM pd_last o WHERE (o.participant, o.task, o."window") = (s.participant, s.task, s."window"));

-- Statistics for tuning k and gamma: per task and participant; released + failed = records.
SELECT task, participant, records, released, failed, candidates, round(pass_rate::numeric, 3) AS pass_rate
FROM gazepriv.pd_synthesis_stats('pd_windows', k => 12, gamma => 2, bins => 4, model => 'seed_based', omega => 1,
                                 resample => 'last', bounds => ARRAY[[0, 1.2], [0, 1.2], [0, 1.2]])
ORDER BY task, participant;
-- Seed-based with a random omega-subset per candidate: Pr{y = M(d)} depends on how many and which features a
-- record shares with the candidate, so gamma matters: a wider band admits more plausible seeds.
SELECT g AS gamma, sum(released) AS released, sum(records) AS records, sum(candidates) = 600 AS one_candidate_each
FROM unnest(ARRAY[1, 1.5, 4, 100]::float8[]) g,
     LATERAL gazepriv.pd_synthesis_stats('pd_windows', k => 60, gamma => g, bins => 10, model => 'seed_based',
                                         omega => 2, max_attempts => 1) s
GROUP BY g ORDER BY g;
-- The identity test: k - 1 other participants, one record each; there are 5 others in each task.
SELECT sum(released) > 0 AS some_pass_at_k_6, (SELECT sum(released) FROM gazepriv.pd_synthesis_stats(
           'pd_windows', k => 7, gamma => 100, model => 'seed_based', omega => 2, test => 'identity')) AS released_at_k_7
FROM gazepriv.pd_synthesis_stats('pd_windows', k => 6, gamma => 100, model => 'seed_based', omega => 2,
                                 test => 'identity');

-- A task with fewer than k records releases nothing; include_failed shows its slots with NULL features.
INSERT INTO pd_windows VALUES ('p0', 'tiny', 1, '{0.5, 0.5, 0.5}'), ('p1', 'tiny', 1, '{0.2, 0.1, 0.9}');
SELECT task, count(*) AS rows, count(features) AS released, max(attempts) AS attempts
FROM gazepriv.pd_synthesize('pd_windows', 3, 2, include_failed => true) GROUP BY task ORDER BY task;
-- The randomized test: without dataset => nothing is charged; one attempt per seed by default.
SELECT count(*) <= 602 AS released, bool_and(attempts = 1) AS one_attempt
FROM gazepriv.pd_synthesize('pd_windows', 10, 2, epsilon0 => 1, t => 5, model_epsilon => 1,
                            bounds => ARRAY[[0, 1.2], [0, 1.2], [0, 1.2]]);
-- A split: a random half of each task learns the model and seeds nothing.
SELECT count(*) AS released_of_the_seed_half FROM gazepriv.pd_synthesize('pd_windows', 3, 2, split => 0.5);

-- Unusable rows are dropped (NULL arrays, NULL elements, NaN, infinities); a constant feature stays constant.
CREATE TABLE pd_rough (participant text, task text, "window" int, features float8[]);
INSERT INTO pd_rough SELECT 'q' || (i % 3), 't', i, ARRAY[i / 50.0, 7.25] FROM generate_series(1, 50) i;
INSERT INTO pd_rough VALUES ('q0', 't', 100, NULL), ('q1', 't', 101, '{1, NULL}'), ('q2', 't', 102, '{NaN, 1}'),
                            ('q0', 't', 103, '{Infinity, 1}'), ('q1', 't', NULL, '{0.5, 7.25}');
SELECT count(*) AS rows, count(*) FILTER (WHERE "window" IS NULL) AS null_window_kept,
       bool_and(features[2] = 7.25) AS constant_feature_kept
FROM gazepriv.pd_synthesize('pd_rough', 2, 2);

-- Bad input: 22023 (or 22004 for NULL arguments and participants, 42P01/42703 for missing relations/columns).
CREATE TABLE pd_ragged (participant text, task text, "window" int, features float8[]);
INSERT INTO pd_ragged VALUES ('a', 't', 1, '{1, 2}'), ('b', 't', 2, '{1, 2, 3}');
CREATE TABLE pd_empty (participant text, task text, "window" int, features float8[]);
CREATE TABLE pd_null_participant (participant text, task text, "window" int, features float8[]);
INSERT INTO pd_null_participant VALUES (NULL, 't', 1, '{1}');
CREATE TABLE pd_2d (participant text, task text, "window" int, features float8[]);
INSERT INTO pd_2d VALUES ('a', 't', 1, '{{1, 2}, {3, 4}}');
CREATE TABLE pd_no_window (participant text, task text, features float8[]);
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT * FROM gazepriv.pd_synthesize('pd_ragged', 2, 2)$$,
    $$SELECT * FROM gazepriv.pd_synthesize('pd_empty', 2, 2)$$,
    $$SELECT * FROM gazepriv.pd_synthesize('pd_null_participant', 2, 2)$$,
    $$SELECT * FROM gazepriv.pd_synthesize('pd_2d', 2, 2)$$,
    $$SELECT * FROM gazepriv.pd_synthesize('pd_no_window', 2, 2)$$,
    $$SELECT * FROM gazepriv.pd_synthesize('pd_nothing', 2, 2)$$,
    $$SELECT * FROM gazepriv.pd_synthesize(NULL, 2, 2)$$,
    $$SELECT * FROM gazepriv.pd_synthesize('pd_windows', 0, 2)$$,
    $$SELECT * FROM gazepriv.pd_synthesize('pd_windows', 2, 0.99)$$,
    $$SELECT * FROM gazepriv.pd_synthesize('pd_windows', 2, 'NaN')$$,
    $$SELECT * FROM gazepriv.pd_synthesize('pd_windows', 2, 2, bins => 1)$$,
    $$SELECT * FROM gazepriv.pd_synthesize('pd_windows', 2, 2, model => 'seed_based', omega => 4)$$,
    $$SELECT * FROM gazepriv.pd_synthesize('pd_windows', 2, 2, bounds => ARRAY[[0, 1]])$$,
    $$SELECT * FROM gazepriv.pd_synthesize('pd_windows', 2, 2, include_failed => NULL)$$,
    $$SELECT * FROM gazepriv.pd_synthesize('pd_windows', 2, 2, max_attempts => 2000000)$$]) q;
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.pd_synthesize('pd_windows', 2, 2, dataset => 'nowhere')$$)
    LIKE '22023%' AS unknown_dataset_is_not_charged;
RESET gazepriv.seed;
