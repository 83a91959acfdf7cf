-- Private parameter selection in release_series: k_share (k by the exponential mechanism) and bounds_share
-- (clipping bounds by DP quantiles inside the public bounds), inside the release's cost.
CREATE TABLE selection_windows AS
SELECT 'p' || p AS participant, 'task' || r AS task, w AS "window",
       ARRAY[3 + (p % 4) + 2 * sin(w / 4.0), 20 + (p * w) % 7]::float8[] AS features
FROM generate_series(1, 12) p, generate_series(1, 2) r, generate_series(1, 48) w;

-- Values under the test seed: the NOTICE reports the chosen bounds and k (a DP output).
SET gazepriv.seed = 42;
SELECT recording, feature, count(*) AS signals, round(min(v)::numeric, 3) AS lowest, round(max(v)::numeric, 3) AS highest
FROM gazepriv.release_series('selection_windows', 'cfpa', 2, chunk => 16, bounds => ARRAY[0, 100], length => 48,
                             k_share => 0.2, bounds_share => 0.3) r, unnest(r.series) v
GROUP BY 1, 2 ORDER BY 1, 2;
SELECT participant, recording, feature, array_length(series, 1) AS n, round(series[1]::numeric, 4) AS first
FROM gazepriv.release_series('selection_windows', 'fpa', 5, bounds => ARRAY[[0, 10], [0, 40]], length => 48,
                             k_share => 0.1, bounds_share => 0.2)
ORDER BY 1, 2, 3 LIMIT 4;
-- Without shares (NULL) the release is the public one: same values as not passing them, under one seed.
SET gazepriv.seed = 43;
CREATE TEMP TABLE plain AS SELECT * FROM gazepriv.release_series('selection_windows', 'fpa', 1, bounds => ARRAY[0, 100],
                                                                 length => 48);
SET gazepriv.seed = 43;
SELECT count(*) AS differing FROM gazepriv.release_series('selection_windows', 'fpa', 1, bounds => ARRAY[0, 100],
    length => 48, k_share => NULL, bounds_share => NULL) r JOIN plain USING (participant, recording, feature)
WHERE r.series IS DISTINCT FROM plain.series;
RESET gazepriv.seed;

-- The shares do not change the cost (sequential composition inside every signal's epsilon); with a dataset the
-- ledger records them. 2 features x 2 recordings x ceil(48 / 16) chunks x epsilon 0.5 = 6.
SELECT gazepriv.register_dataset('selection', 'selection_windows', 'participant', task_column => 'task',
                                 window_column => 'window', features_column => 'features',
                                 bounds => '{"features": [[0, 10], [0, 40]], "length": 48}');
SELECT gazepriv.grant_budget('selection', 'postgres', 100, 0, accounting => 'basic');
SELECT total_epsilon FROM gazepriv.release_series_cost('selection_windows', 'cfpa', 0.5, chunk => 16,
                                                       bounds => ARRAY[[0, 10], [0, 40]], length => 48);
SET gazepriv.seed = 44;
SELECT count(*) AS signals FROM gazepriv.release_series('selection_windows', 'cfpa', 0.5, chunk => 16,
    bounds => ARRAY[[0, 10], [0, 40]], length => 48, dataset => 'selection', k_share => 0.25, bounds_share => 0.25);
RESET gazepriv.seed;
SELECT mechanism, epsilon, guarantee, parameters -> 'k_rule' AS k_rule, parameters -> 'k' AS largest_k,
       parameters -> 'private_selection' AS private_selection
FROM gazepriv.ledger WHERE dataset = 'selection' ORDER BY id;

-- Released values stay inside the chosen bounds, which lie inside the public ones.
SET client_min_messages = warning;
SELECT feature, bool_and(v >= 0 AND v <= CASE feature WHEN '1' THEN 10 ELSE 40 END) AS in_public_bounds
FROM gazepriv.release_series('selection_windows', 'fpa', 0.5, bounds => ARRAY[[0, 10], [0, 40]], length => 48,
                             bounds_share => 0.5) r, unnest(r.series) v
GROUP BY 1 ORDER BY 1;
RESET client_min_messages;

-- Bad shares (22023): NaN, +-Infinity, 0, 1, negative, a sum of 1 or more; k_share for lpa and dcfpa; a private
-- choice with the non-private empirical sensitivity or the paper's chunk semantics.
SELECT gazepriv_test.error_of(format(
    'SELECT count(*) FROM gazepriv.release_series(''selection_windows'', %L, 1, bounds => ARRAY[0, 100], length => 48, '
    'sensitivity => %L, chunk_semantics => %L, k_share => %s, bounds_share => %s)', m, s, c, k, b)) AS error
FROM (VALUES ('fpa', 'clipped', 'participant', '''NaN''', 'NULL'), ('fpa', 'clipped', 'participant', '''Infinity''', 'NULL'),
             ('fpa', 'clipped', 'participant', 'NULL', '''-Infinity'''), ('fpa', 'clipped', 'participant', '0', 'NULL'),
             ('fpa', 'clipped', 'participant', 'NULL', '1'), ('fpa', 'clipped', 'participant', '-0.1', 'NULL'),
             ('fpa', 'clipped', 'participant', '0.5', '0.5'), ('lpa', 'clipped', 'participant', '0.1', 'NULL'),
             ('dcfpa', 'clipped', 'participant', '0.1', 'NULL'), ('fpa', 'empirical', 'participant', 'NULL', '0.1'),
             ('cfpa', 'clipped', 'chunk', '0.1', 'NULL')) v(m, s, c, k, b);
-- Extreme values (22023, never XX000): a share so small that its epsilon is below 1e-6, bounds whose squared width
-- overflows the utility of k, bounds of infinite width.
SELECT gazepriv_test.error_of(format(
    'SELECT count(*) FROM gazepriv.release_series(''selection_windows'', ''fpa'', 1, bounds => %s, length => 48, '
    'k_share => %s, bounds_share => %s)', b, k, s)) AS error
FROM (VALUES ('ARRAY[0, 100]', '5e-324', 'NULL'), ('ARRAY[0, 1e300]', '0.1', 'NULL'),
             ('ARRAY[-1e308, 1e308]', 'NULL', '0.1')) v(b, k, s);
-- The k limit is still checked (22023), and without public bounds there is nothing to choose inside.
SELECT gazepriv_test.error_of($$SELECT count(*) FROM gazepriv.release_series('selection_windows', 'fpa', 1, k => 99,
    bounds => ARRAY[0, 100], length => 48, k_share => 0.1)$$);
SELECT gazepriv_test.error_of($$SELECT count(*) FROM gazepriv.release_series('selection_windows', 'fpa', 1,
    length => 48, bounds_share => 0.1)$$);

-- series_accuracy with shares: the noise of the noise share's epsilon (1 - 0.3 here: sd grows by 1 / 0.7), with the
-- public bounds and the largest k an upper bound (exact false); shares are checked as in release_series.
SELECT round(((SELECT noise_sd FROM gazepriv.series_accuracy('fpa', 2, 1, 16, ARRAY[[0, 10]], 48, bounds_share => 0.3))
              / (SELECT noise_sd FROM gazepriv.series_accuracy('fpa', 2, 1, 16, ARRAY[[0, 10]], 48)))::numeric, 6) AS ratio,
       (SELECT exact FROM gazepriv.series_accuracy('fpa', 2, 1, 16, ARRAY[[0, 10]], 48, bounds_share => 0.3)) AS exact,
       (SELECT noise_sd > (SELECT noise_sd FROM gazepriv.series_accuracy('fpa', 2, 1, 16, ARRAY[[0, 10]], 48, k_share => 0.1))
        FROM gazepriv.series_accuracy('fpa', 2, NULL, 16, ARRAY[[0, 10]], 48, k_share => 0.1)) AS largest_k_is_the_bound;
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.series_accuracy('fpa', 2, 1, 16, ARRAY[[0, 10]], 48,
    k_share => 'NaN')$$);

-- Analysts: the series policy fixes the shares (validated, 22023); the analyst's call cannot name them.
SELECT gazepriv_test.error_of(format($$SELECT gazepriv.set_release_policy('selection', 'series', %L)$$, p)) AS error
FROM unnest(ARRAY['{"recordings": ["task1"], "k_share": 0}', '{"recordings": ["task1"], "bounds_share": 1}',
                  '{"recordings": ["task1"], "k_share": 0.5, "bounds_share": 0.5}',
                  '{"recordings": ["task1"], "k_share": "0.1"}']) p;
SELECT gazepriv.set_release_policy('selection', 'series',
    '{"methods": ["fpa", "cfpa"], "recordings": ["task1", "task2"], "k_share": 0.1, "bounds_share": 0.3}');
SELECT policy FROM gazepriv.release_policies WHERE dataset = 'selection';
