-- Plausible deniability: synthetic feature windows and fixations that k records (or k - 1 other people) could have produced
-- hoppe_features (feature windows of test/demo/hoppe_features.psql) was built in 00_load.sql.
\echo 'Feature windows of the Hoppe minute (33 features per 30 s window every 0.5 s, from gazepriv.feature_windows):'
SELECT task, count(*) AS windows, count(DISTINCT participant) AS participants FROM hoppe_features GROUP BY task;

\echo ''
\echo 'The privacy test compares probabilities in bands: band(p) = floor(-ln p / ln gamma); gamma = 2: p = 0.3 -> 1,'
\echo 'p = 0.25 -> 2. The randomized test (threshold k plus Laplace noise of scale 1/epsilon0) is (epsilon, delta)-DP'
\echo 'per candidate; k = 50, gamma = 2, epsilon0 = 0.1, t = 10:'
SELECT gazepriv.pd_band(0.3, 2) AS "band of 0.3", gazepriv.pd_band(0.25, 2) AS "band of 0.25",
       round(epsilon::numeric, 4) AS epsilon, round(delta::numeric, 4) AS delta
FROM gazepriv.pd_randomized_privacy(50, 2, 0.1, 10);

SET gazepriv.seed = 60; -- reproducible demo output (superuser-only; a seeded release is not private)
\echo ''
\echo 'The paper''s task-based marginals (30 bins per feature and task, every feature resampled): seedless, so every'
\echo 'candidate passes and protection comes only from coarseness. The features'' distributions are kept (five of 33) ...'
CREATE TEMP TABLE synth_marginals AS SELECT * FROM gazepriv.pd_synthesize('hoppe_features', k => 5, gamma => 2);
SELECT c.feature AS "#", c.name, c.unit, round(avg(r.features[c.feature])::numeric, 2) AS real_mean,
       round(avg(s.features[c.feature])::numeric, 2) AS synthetic_mean,
       round(stddev(r.features[c.feature])::numeric, 2) AS real_sd, round(stddev(s.features[c.feature])::numeric, 2) AS synthetic_sd
FROM gazepriv.feature_catalog() c, hoppe_features r JOIN synth_marginals s USING (participant, task, "window")
WHERE c.feature IN (2, 3, 13, 23, 26) GROUP BY c.feature, c.name, c.unit ORDER BY c.feature;
\echo '... and so is every participant''s number of windows, but not what tells people apart (their mean pupil,'
\echo 'feature 26 pupil_mean, in mm; SMI reports absolute diameters):'
SELECT participant, count(*) AS windows, round(avg(r.features[26])::numeric, 2) AS real_pupil_mm,
       round(avg(s.features[26])::numeric, 2) AS synthetic_pupil_mm
FROM hoppe_features r JOIN synth_marginals s USING (participant, task, "window") GROUP BY participant ORDER BY participant;

\echo ''
\echo 'Seed-based synthesis copies 33 - omega binned features of a seed window and resamples omega (a random subset per'
\echo 'candidate), so the test decides: it counts the windows that could have produced the candidate as likely as the'
\echo 'seed. With omega = 2 a candidate keeps 31 of the seed''s 33 bins, and almost no other window agrees with it on 31'
\echo '(even the seed''s next window, 0.5 s later, differs in 8 of the 33 bins at the median): the test fails at every k.'
\echo 'Resampling more features makes more windows plausible seeds. Share of candidates passing, one per seed, gamma = 2:'
SELECT omega, 33 - omega AS copied,
       max(rate) FILTER (WHERE k = 2) AS "k 2", max(rate) FILTER (WHERE k = 5) AS "k 5",
       max(rate) FILTER (WHERE k = 10) AS "k 10", max(rate) FILTER (WHERE k = 25) AS "k 25"
FROM (SELECT omega, k, round(sum(released)::numeric / sum(candidates), 2) AS rate
      FROM unnest(ARRAY[2, 16, 24, 28, 30, 32]) omega, unnest(ARRAY[2, 5, 10, 25]) k,
           LATERAL gazepriv.pd_synthesis_stats('hoppe_features', k, 2, model => 'seed_based', omega => omega,
                                               max_attempts => 1) s
      GROUP BY omega, k) r
GROUP BY omega ORDER BY omega;
\echo 'gamma widens the band of likelihoods that count (omega = 30):'
SELECT k, max(rate) FILTER (WHERE gamma = 1.5) AS "gamma 1.5", max(rate) FILTER (WHERE gamma = 2) AS "gamma 2",
       max(rate) FILTER (WHERE gamma = 10) AS "gamma 10"
FROM (SELECT k, gamma, round(sum(released)::numeric / sum(candidates), 2) AS rate
      FROM unnest(ARRAY[2, 5, 10, 25]) k, unnest(ARRAY[1.5, 2, 10]::float8[]) gamma,
           LATERAL gazepriv.pd_synthesis_stats('hoppe_features', k, gamma, model => 'seed_based', omega => 30,
                                               max_attempts => 1) s
      GROUP BY k, gamma) r
GROUP BY k ORDER BY k;
\echo 'With up to 100 candidates per seed (k = 25, gamma = 2, omega = 30), per participant; seeds that never pass are left out:'
SELECT participant, records, released, failed, candidates, round(pass_rate::numeric, 2) AS pass_rate
FROM gazepriv.pd_synthesis_stats('hoppe_features', 25, 2, model => 'seed_based', omega => 30);
\echo 'The identity test asks for k - 1 other participants instead (4 people here, so k <= 4; omega = 30):'
SELECT k, sum(released) AS released, sum(records) AS records
FROM unnest(ARRAY[2, 3, 4]) k,
     LATERAL gazepriv.pd_synthesis_stats('hoppe_features', k, 2, model => 'seed_based', omega => 30, test => 'identity') s
GROUP BY k ORDER BY k;

\echo ''
\echo 'Bins over the data range are a data-dependent (non-private) choice. Public bounds follow from how each feature is'
\echo 'computed (30 s windows, I-DT at 3 degrees with fixations of at least 100 ms, gaze kept in [-1, 2]^2 of a 60 x 46 degree'
\echo 'camera) or from the eye (velocities, pupil), never from the recordings (test/demo/hoppe_feature_bounds.psql); values'
\echo 'beyond are clamped. bins_used: how many of the 30 equal bins this minute''s windows fall into.'
\ir hoppe_feature_bounds.psql
SELECT c.feature AS "#", c.name, c.unit, b.lower, b.upper,
       count(DISTINCT least(29, floor((greatest(f.features[c.feature], b.lower) - b.lower) / (b.upper - b.lower) * 30))) AS bins_used,
       b.why
FROM gazepriv.feature_catalog() c JOIN hoppe_feature_bounds b USING (feature), hoppe_features f
GROUP BY c.feature, c.name, c.unit, b.lower, b.upper, b.why ORDER BY c.feature;
\echo 'Durations bounded by the window fall into one bin (fixations last 0.1-1 s), and this 60 Hz head-mounted tracker''s'
\echo 'noise puts every window''s highest saccade peak velocity above what the eye can do: those features say little'
\echo 'after binning. Coarser bins make more windows agree, so more candidates pass (seed-based, gamma = 2, one per seed):'
SELECT omega, max(rate) FILTER (WHERE k = 2) AS "k 2", max(rate) FILTER (WHERE k = 5) AS "k 5",
       max(rate) FILTER (WHERE k = 10) AS "k 10", max(rate) FILTER (WHERE k = 25) AS "k 25"
FROM (SELECT omega, k, round(sum(released)::numeric / sum(candidates), 2) AS rate
      FROM unnest(ARRAY[2, 24, 30]) omega, unnest(ARRAY[2, 5, 10, 25]) k,
           LATERAL gazepriv.pd_synthesis_stats('hoppe_features', k, 2, model => 'seed_based', omega => omega,
               max_attempts => 1, bounds => (SELECT array_agg(ARRAY[lower, upper] ORDER BY feature) FROM hoppe_feature_bounds)) s
      GROUP BY omega, k) r
GROUP BY omega ORDER BY omega;

\echo ''
\echo 'What a release costs, computed before any candidate is made: deterministic tests are logged, not spent; the'
\echo 'randomized test composes over candidates (max_attempts x the largest task''s records) and needs a DP model:'
SELECT 'deterministic, data-range bins' AS release, epsilon, delta, guarantee, non_private
FROM gazepriv.pd_release_cost(25, 2, features => 33, records => (SELECT max(n) FROM (SELECT count(*) n FROM hoppe_features GROUP BY task) s),
                              model => 'seed_based', omega => 30)
UNION ALL
SELECT 'randomized, epsilon0 1, target delta 1e-6, public bounds', round(epsilon::numeric, 1), delta, guarantee, non_private
FROM gazepriv.pd_release_cost(50, 2, features => 33, records => (SELECT max(n) FROM (SELECT count(*) n FROM hoppe_features GROUP BY task) s),
                              epsilon0 => 1, target_delta => 1e-6, model_epsilon => 1,
                              bounds => (SELECT array_agg(ARRAY[lower, upper] ORDER BY feature) FROM hoppe_feature_bounds));

\echo ''
\echo 'An analyst who cannot read the windows releases them through a budget. The curator registers the table with'
\echo 'these public bounds, so the bins are not data-dependent, and sets the release policy: k, gamma, the model and'
\echo 'its omega are the curator''s, never the analyst''s. A deterministic test is served once: every later request'
\echo 'gets the same windows (fresh ones, averaged, would reveal the seeds).'
SELECT gazepriv.register_dataset('hoppe_windows', 'hoppe_features', 'participant', task_column => 'task',
                                 window_column => 'window', features_column => 'features',
                                 bounds => jsonb_build_object('features', (SELECT jsonb_agg(jsonb_build_array(lower, upper) ORDER BY feature)
                                                                           FROM hoppe_feature_bounds))) \g /dev/null
SELECT gazepriv.set_release_policy('hoppe_windows', 'pd', '{"k": 10, "gamma": 2, "model": "seed_based", "omega": 30}') \g /dev/null
CREATE ROLE pd_demo_analyst NOLOGIN IN ROLE gazepriv_analyst;
SELECT gazepriv.grant_budget('hoppe_windows', 'pd_demo_analyst', epsilon => 0, accounting => 'basic') \g /dev/null
SELECT gazepriv.grant_budget('hoppe_windows', 'pd_demo_analyst', epsilon => 5000, delta => 1e-5, accounting => 'basic',
                             kind => 'record-dp') \g /dev/null
SET ROLE pd_demo_analyst;
SELECT count(*) AS released_windows, count(DISTINCT participant) AS participants
FROM gazepriv.pd_release('hoppe_windows');
RESET ROLE;
\echo 'The randomized test is DP for one record: bought from a record-dp budget, charged for a public bound on a task''s'
\echo 'records the curator declares (never the data''s count), a new release each time:'
SELECT gazepriv.reset_release('hoppe_windows', 'pd') \g /dev/null
SELECT gazepriv.set_release_policy('hoppe_windows', 'pd', '{"k": 50, "gamma": 2, "epsilon0": 1, "target_delta": 1e-6,
                                                         "model_epsilon": 1, "records": 250}') \g /dev/null
SET ROLE pd_demo_analyst;
SELECT count(*) AS released_windows_randomized FROM gazepriv.pd_release('hoppe_windows');
SELECT kind, releases, round(basic_epsilon_spent::numeric, 1) AS epsilon_spent, basic_delta_spent AS delta_spent
FROM gazepriv.budget_status WHERE dataset = 'hoppe_windows' ORDER BY kind;
RESET ROLE;
\echo 'The ledger (curators): the deterministic release is logged with epsilon 0, then the curator''s reset, then the'
\echo 'randomized release, charged.'
SELECT id, role, guarantee, round(epsilon::numeric, 1) AS epsilon, delta, non_private,
       parameters ->> 'test' AS test, parameters ->> 't' AS t, parameters ->> 'candidates' AS candidates
FROM gazepriv.ledger WHERE dataset = 'hoppe_windows' ORDER BY id;

\echo ''
\echo 'Event-level PD for fixations (Uniss-FGD face image 2): each fixation (mu_x, mu_y, sigma_x, sigma_y, t samples)'
\echo 'is redrawn from its 2-D Normal until k - 1 other participants have a fixation of the same t whose density of'
\echo 'the drawn points is in the seed''s band (log space), at most 20 times:'
CREATE TEMP TABLE uniss_fixations AS
SELECT participant, 'image ' || stimulus AS task, fixation_index AS fixation, avg(x) AS mu_x, avg(y) AS mu_y,
       stddev_pop(x) AS sigma_x, stddev_pop(y) AS sigma_y, count(*)::int AS samples
FROM uniss_samples WHERE event = 'F' AND x IS NOT NULL AND y IS NOT NULL
GROUP BY participant, stimulus, fixation_index HAVING count(*) >= 3;
SELECT k, gamma, count(*) AS fixations, count(x) AS released, round(avg(attempts), 1) AS mean_attempts
FROM (VALUES (1, 2::float8), (2, 2), (2, 1e30)) v(k, gamma),
     LATERAL gazepriv.pd_synthesize_fixations('uniss_fixations', k, gamma, max_attempts => 20, include_failed => true)
GROUP BY k, gamma ORDER BY k, gamma;
\echo 'No real fixation passes at k = 2, even with bands 69 nats wide. Why: only fixations with exactly the same number'
\echo 'of samples can have produced the points, and between those of different people the expected gap in log-density'
\echo '(t times the Kullback-Leibler divergence of the two Normals) is enormous:'
SELECT count(*) AS fixations_with_a_same_t_fixation_of_someone_else,
       round(min(gap)::numeric) AS smallest_gap_nats, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY gap)::numeric) AS median_gap_nats
FROM (SELECT a.participant, a.fixation,
             min(a.samples * (ln(b.sigma_x * b.sigma_y / (a.sigma_x * a.sigma_y))
                              + (a.sigma_x ^ 2 + (a.mu_x - b.mu_x) ^ 2) / (2 * b.sigma_x ^ 2)
                              + (a.sigma_y ^ 2 + (a.mu_y - b.mu_y) ^ 2) / (2 * b.sigma_y ^ 2) - 1)) AS gap
      FROM uniss_fixations a
      JOIN uniss_fixations b ON b.task = a.task AND b.samples = a.samples AND b.participant <> a.participant
      WHERE least(a.sigma_x, a.sigma_y, b.sigma_x, b.sigma_y) > 0
      GROUP BY a.participant, a.fixation) s;
\echo 'k = 1 asks for no one else and releases every fixation at once.'
RESET gazepriv.seed;
