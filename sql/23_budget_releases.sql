-- Every releasing function that takes a dataset charges a budget before it draws noise: analyst releases the
-- role whose privileges run them, with what defines the guarantee from the owner's release policy; releases
-- from raw data (dataset => ...) their caller, on a dataset it owns.
SET gazepriv.seed = 13;
CREATE ROLE release_dana NOLOGIN IN ROLE gazepriv_analyst;
SELECT gazepriv.grant_budget('gaze', 'release_dana', 10, 1e-5, accounting => 'basic');

-- Kaleido: a w-event guarantee (epsilon per window of w samples), logged as such and bought only with a
-- w-event budget; w and r are the policy's.
SELECT gazepriv.set_release_policy('gaze', 'kaleido', '{"w": 30, "r": 20}');
SELECT policy FROM gazepriv.release_policies WHERE dataset = 'gaze' AND mechanism = 'kaleido';
SET ROLE release_dana;
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.release_kaleido('gaze', 'p3', epsilon => 1)$$) AS dp_budget_only;
RESET ROLE;
SELECT gazepriv.grant_budget('gaze', 'release_dana', 10, 0, accounting => 'basic', kind => 'w-event');
SET ROLE release_dana;
SELECT count(*) AS samples, count(*) FILTER (WHERE published) AS releases, max(epsilon_spent) <= 1 AS within_window
FROM gazepriv.release_kaleido('gaze', 'p3', epsilon => 1);
SELECT count(*) AS samples_with_the_policys_values
FROM gazepriv.release_kaleido('gaze', 'p3', epsilon => 1, w => 30, r => 20, t_skip => 50);
-- Attack: the stream's own rate (one sample per 66 ms) would give ceil(30 x 66 / 50) = 30 tests per window; an
-- analyst's release keeps the policy's max_tests (here the 60 Hz rule from its parameters: 10, as charged), so the
-- cap binds: capped samples appear.
SELECT count(*) FILTER (WHERE action = 'capped') > 0 AS capped_by_the_policys_max_tests
FROM gazepriv.release_kaleido('gaze', 'p3', epsilon => 1);
-- Both streams are in the release store, one row per sample.
SELECT count(DISTINCT ledger_id) AS streams, count(*) AS samples, bool_and(participant = 'p3') AS of_p3
FROM gazepriv.my_kaleido_points;
-- Each stored point keeps its accuracy: the first release of a stream (epsilon_pub = (1 - 1/2) / 2 = 0.25, r = 20)
-- has the noise_radius 4.7439 r / 0.25 = 379.5 (95 %; 379.6 with the lattice's deduction from epsilon_pub); repeats
-- carry the radius of the point they repeat.
SELECT round(min(noise_radius) FILTER (WHERE published AND t_ms = first_t)::numeric, 1) AS first_radius,
       bool_and((noise_radius IS NULL) = (x IS NULL)) AS radius_exactly_when_a_point,
       count(*) FILTER (WHERE published AND noise_radius > 0) > 0 AS published_rows_have_one
FROM (SELECT *, min(t_ms) FILTER (WHERE published) OVER (PARTITION BY ledger_id) AS first_t
      FROM gazepriv.my_kaleido_points) p;
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT * FROM gazepriv.release_kaleido('gaze', 'p3', 0)$$,
    $$SELECT * FROM gazepriv.release_kaleido('gaze', 'p3', 1, 1, 20)$$,
    $$SELECT * FROM gazepriv.release_kaleido('gaze', 'p3', 1, 30, 1e-6)$$,
    $$SELECT * FROM gazepriv.release_kaleido('gaze', 'p3', 1, max_tests => 1)$$,
    $$SELECT * FROM gazepriv.release_kaleido('gaze', NULL, 1)$$,
    $$SELECT * FROM gazepriv.release_kaleido('nope', 'p3', 1)$$,
    $$SELECT * FROM gazepriv.kaleido(ARRAY[1, 2], ARRAY[0, 0], ARRAY[0, 0], 1, 30, 20, dataset => 'gaze')$$]) q;
RESET ROLE;
-- A curator releasing from raw data charges the dataset named in the call (one it owns).
SELECT gazepriv.grant_budget('gaze', 'postgres', 10, 0, accounting => 'basic', kind => 'w-event');
SELECT count(*) AS samples FROM gazepriv.kaleido(ARRAY[0, 10, 20], ARRAY[0, 1, 2], ARRAY[0, 1, 2], 2, 30, 20,
                                                dataset => 'gaze');
-- Attack (t_skip): a stream's t_skip is derivable too (kaleido() with t_skip NULL: 50 ms in whole samples of its
-- median interval; the curator's stream above, one sample per 10 ms, gets 4.5 intervals = 45 ms and ceil(30 / 5)
-- = 6 tests), but every analyst release ran with the policy's t_skip and max_tests, as charged.
SELECT role, mechanism, epsilon, guarantee, parameters ->> 'w' AS w, parameters ->> 'r' AS r,
       parameters ->> 't_skip_ms' AS t_skip, parameters ->> 'max_tests' AS max_tests
FROM gazepriv.ledger WHERE mechanism = 'kaleido' ORDER BY id;
SELECT role, kind, basic_epsilon_spent, releases FROM gazepriv.budget_status
WHERE role IN ('release_dana'::regrole, 'postgres'::regrole) ORDER BY role::text, kind;
-- A live feed records its standing guarantee once, at attach time.
CREATE TABLE release_live (device text, t_ms float8, x float8, y float8);
SELECT gazepriv.kaleido_attach('release_live', 'release_live_out', 'device', 1, 30, 20, dataset => 'gaze');
INSERT INTO release_live VALUES ('d1', 0, 1, 1), ('d1', 10, 2, 2);
SELECT count(*) AS published_rows FROM release_live_out;
SELECT mechanism, epsilon, guarantee, parameters ->> 'source' AS source FROM gazepriv.ledger
WHERE mechanism = 'kaleido_live';
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.prosecdef
FROM pg_proc p WHERE p.pronamespace = 'gazepriv'::regnamespace AND p.proname IN ('release_kaleido', 'kaleido')
ORDER BY (p.oid::regprocedure)::text;
RESET gazepriv.seed;

-- Heatmaps: dp_heatmap charges spec.dataset once per released group, before the group's noise; analysts use
-- release_heatmap, which forces the dataset, its registered n and the policy's cap.
SET gazepriv.seed = 13;
SELECT gazepriv.set_release_policy('gaze', 'heatmap', '{"cap": 2}');
SELECT gazepriv.grant_budget('gaze', 'postgres', 10, 1e-3, accounting => 'basic');
SELECT stimulus, (h).n, round((h).epsilon::numeric, 2) AS epsilon
FROM (SELECT stimulus, gazepriv.dp_heatmap(participant, x, y,
                                           gazepriv.heatmap_spec(500, 400, 0.5, 1e-6, cell_size => 50,
                                                                 dataset => 'gaze')) AS h
      FROM budget_gaze GROUP BY stimulus) s ORDER BY stimulus;
SELECT count(*) AS heatmap_charges, sum(epsilon) AS epsilon, sum(delta) AS delta, min(rho) > 0 AS rho_recorded
FROM gazepriv.ledger WHERE mechanism = 'dp_heatmap' AND role = 'postgres'::regrole;
SET ROLE release_dana;
SELECT (h).width, (h).cell_size, (h).n AS registered_n, (h).cap AS policy_cap, (h).epsilon, cardinality((h).values) AS cells
FROM (SELECT gazepriv.release_heatmap('gaze', 1, gazepriv.heatmap_spec(500, 400, 1, 1e-6, cap => 50, cell_size => 100,
                                                                       observers => 1000, dataset => 'elsewhere')) AS h) s;
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.release_heatmap('gaze', 1, gazepriv.heatmap_spec(500, 400, 100, 1e-6))$$,
    $$SELECT gazepriv.release_heatmap('gaze', 1, NULL)$$,
    $$SELECT gazepriv.release_heatmap('nope', 1, gazepriv.heatmap_spec(500, 400, 1))$$,
    $$SELECT gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(5, 4, 1)) FROM budget_gaze$$]) q;
RESET ROLE;
SELECT role, mechanism, epsilon, dataset, parameters ->> 'cap' AS cap, parameters ->> 'stimulus' AS stimulus
FROM gazepriv.ledger WHERE mechanism = 'dp_heatmap' AND role = 'release_dana'::regrole;
-- The table sampler's statistical distance is charged with it (zCDP budgets count it beside rho).
SELECT (parameters ->> 'sampler_distance')::float8 > 0 AS table_sampled,
       abs((SELECT sampler_distance FROM gazepriv.budgets WHERE dataset = 'gaze' AND role = 'release_dana'::regrole
                                                            AND kind = 'dp')::float8 / (parameters ->> 'sampler_distance')::float8
           - 1) < 1e-12 AS distance_charged
FROM gazepriv.ledger WHERE mechanism = 'dp_heatmap' AND role = 'release_dana'::regrole;
-- privatize charges too.
SELECT (gazepriv.privatize(m, gazepriv.heatmap_spec(500, 400, 0.25, 1e-6, cell_size => 100, dataset => 'gaze'))).n
FROM (SELECT gazepriv.gaze_map(participant, x, y, 500, 400, 1, 100) AS m FROM budget_gaze) s;
SELECT count(*) AS heatmap_charges_now FROM gazepriv.ledger WHERE mechanism = 'dp_heatmap' AND role = 'postgres'::regrole;
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.prosecdef
FROM pg_proc p WHERE p.pronamespace = 'gazepriv'::regnamespace AND p.proname IN ('release_heatmap', 'privatize')
ORDER BY (p.oid::regprocedure)::text;
RESET gazepriv.seed;

-- zCDP holds for the exact sampler only: a table-sampled heatmap also charges its statistical distance from it
-- (cells x 2^-55), which takes (1 + e^epsilon_limit) times itself of the zCDP side's delta.
SELECT gazepriv.register_dataset('gaze_zcdp', 'budget_gaze', 'participant', x_column => 'x', y_column => 'y');
SELECT gazepriv.grant_budget('gaze_zcdp', 'postgres', 1, 1e-5, accounting => 'zcdp');
SELECT (gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(500, 400, 0.5, 1e-6, cell_size => 50,
                                                                    dataset => 'gaze_zcdp'))).n
FROM budget_gaze;
SELECT round(zcdp_sampler_distance * 2::numeric ^ 55, 6) AS cells_sampled_by_table,
       round((1e-5 - delta_remaining) / ((1 + exp(1::numeric)) * zcdp_sampler_distance), 6) AS delta_used_per_distance
FROM gazepriv.budget_status WHERE dataset = 'gaze_zcdp';

-- Time series: release_series and exponential_dp charge a dataset named in the call; analysts use
-- release_feature_series (strict sensitivity from registered bounds, a public length, participant level).
SET gazepriv.seed = 13;
CREATE TABLE release_windows (participant text, task text, "window" int, features float8[]);
INSERT INTO release_windows
SELECT 'p' || p, t, w, ARRAY[(p * 7 + w) % 10 / 10.0, (p + w) % 5 / 5.0, (p * w) % 11]
FROM generate_series(1, 6) p, unnest(ARRAY['read', 'walk']) t, generate_series(1, 20) w;
SELECT gazepriv.register_dataset('windows', 'release_windows', 'participant', task_column => 'task',
                                 window_column => 'window', features_column => 'features',
                                 bounds => '{"features": [[0, 1], [0, 1], [0, 10]], "length": 20}');
SELECT gazepriv.grant_budget('windows', 'postgres', 100, 0, accounting => 'basic');
SELECT gazepriv.grant_budget('windows', 'postgres', 100, 0, accounting => 'basic', kind => 'record-dp');
SELECT gazepriv.grant_budget('windows', 'release_dana', 100, 0, accounting => 'basic');
SELECT gazepriv.set_release_policy('windows', 'series', '{"methods": ["fpa", "cfpa"], "recordings": ["read", "walk"]}');
SELECT policy FROM gazepriv.release_policies WHERE dataset = 'windows';
-- 3 features x 2 recordings x ceil(20 / 8) = 3 chunks: participant-level epsilon = 0.1 x 3 x 6 = 1.8, from the
-- data's shape or from the public one alike.
SELECT total_epsilon, paper_epsilon, guarantee FROM gazepriv.release_series_cost(
    'release_windows', 'cfpa', 0.1, chunk => 8, bounds => ARRAY[[0, 1], [0, 1], [0, 10]], length => 20);
SELECT total_epsilon, paper_epsilon, guarantee
FROM gazepriv.series_public_cost('cfpa', 0.1, NULL, 8, ARRAY[[0, 1], [0, 1], [0, 10]], 20, 2);
SELECT count(*) AS signals FROM gazepriv.release_series('release_windows', 'cfpa', 0.1, chunk => 8,
    bounds => ARRAY[[0, 1], [0, 1], [0, 10]], length => 20, dataset => 'windows');
SELECT count(*) AS signals_chunk_semantics FROM gazepriv.release_series('release_windows', 'cfpa', 0.1, chunk => 8,
    bounds => ARRAY[[0, 1], [0, 1], [0, 10]], length => 20, chunk_semantics => 'chunk', dataset => 'windows');
SET ROLE release_dana;
-- Released values are clamped into the public bounds (post-processing, free).
SELECT count(*) AS signals, count(DISTINCT participant) AS participants,
       bool_and((SELECT min(v) >= 0 AND max(v) <= CASE r.feature WHEN '3' THEN 10 ELSE 1 END FROM unnest(r.series) v))
           AS in_bounds
FROM gazepriv.release_feature_series('windows', 'cfpa', 0.1, chunk => 8) r;
-- The release store keeps it: one row per point in my_series_points.
SELECT count(*) AS points, count(DISTINCT (participant, recording, feature)) AS signals, max(t) AS length
FROM gazepriv.my_series_points WHERE dataset = 'windows';
-- Each point carries its feature's accuracy, that of series_accuracy for the call.
SELECT DISTINCT p.feature, round(p.noise_sd::numeric, 6) AS noise_sd, round((p.ci_high - p.value)::numeric, 6) AS half_width,
       round(p.noise_sd::numeric, 6) = round(a.noise_sd::numeric, 6) AS as_series_accuracy
FROM gazepriv.my_series_points p,
     gazepriv.series_accuracy('cfpa', 0.1, NULL, 8, ARRAY[[0, 1], [0, 1], [0, 10]], 20) a
WHERE p.dataset = 'windows' AND a.feature::text = p.feature ORDER BY 1;
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT count(*) FROM gazepriv.release_feature_series('gaze', 'fpa', 0.1)$$,
    $$SELECT count(*) FROM gazepriv.release_feature_series('windows', 'fpa', 0)$$,
    $$SELECT count(*) FROM gazepriv.release_feature_series('windows', 'lpa', 0.1)$$,
    $$SELECT count(*) FROM gazepriv.release_feature_series('windows', 'fpa', 0.1, length => 2)$$,
    $$SELECT count(*) FROM gazepriv.release_series('release_windows', 'fpa', 0.1, bounds => ARRAY[0, 1], length => 20,
                                                   dataset => 'windows')$$]) q;
RESET ROLE;
SELECT gazepriv_test.error_of($$SELECT count(*) FROM gazepriv.exponential_dp('release_windows', 1, 'paper',
    bounds => ARRAY[[0, 1], [0, 1], [0, 10]], length => 20, dataset => 'windows')$$);
SELECT count(*) AS laplace_signals FROM gazepriv.exponential_dp('release_windows', 1, 'laplace',
    bounds => ARRAY[[0, 1], [0, 1], [0, 10]], length => 20, dataset => 'windows');
SELECT role, mechanism, epsilon, guarantee FROM gazepriv.ledger WHERE dataset = 'windows' ORDER BY id;
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.prosecdef
FROM pg_proc p WHERE p.pronamespace = 'gazepriv'::regnamespace
  AND p.proname IN ('release_feature_series', 'release_series', 'exponential_dp')
ORDER BY (p.oid::regprocedure)::text;
RESET gazepriv.seed;
