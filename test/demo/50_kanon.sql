-- k-anonymity: generalised demographics, k-same-select sequences of feature windows, the k-anonymity check
\echo 'Sex and age identify people: among the 42 Hoppe et al. participants the smallest (sex, age) class holds'
SELECT gazepriv.k_anonymity('hoppe_participants', ARRAY['sex', 'age']) AS smallest_class;
\echo 'Generalised so that every (sex, age range) class holds at least 4 people: the most classes, then the'
\echo 'narrowest ranges (gender is merged into "F/M" only when that gives more classes).'
SELECT class_id, gender, age_from, age_to, class_size
FROM gazepriv.generalize_demographics_ranges('hoppe_participants', 4, quasi_identifiers => ARRAY['sex', 'age']);
\echo 'The released rows (a few), and the check on them:'
SELECT participant, gender, age_from, age_to, class_size
FROM gazepriv.generalize_demographics('hoppe_participants', 4, quasi_identifiers => ARRAY['sex', 'age'])
WHERE participant IN ('0', '2', '5', '9') ORDER BY participant::int;
SELECT gazepriv.k_anonymity(
    'SELECT * FROM gazepriv.generalize_demographics(''hoppe_participants'', 4, ARRAY[''sex'', ''age''])',
    ARRAY['gender', 'age_from', 'age_to']) AS smallest_class_after;

-- Feature windows of the first minute of four recordings: 10 s windows, (mean x, mean y, mean pupil mm,
-- share of samples without gaze). TEMPORARY plain-SQL features, until the events issue's feature_windows().
CREATE TABLE kanon_windows AS
SELECT participant, 'way_out' AS task, (floor(t_ms / 10000) + 1)::int AS "window",
       ARRAY[round(avg(x) FILTER (WHERE valid)::numeric, 3), round(avg(y) FILTER (WHERE valid)::numeric, 3),
             round(avg((pupil_left + pupil_right) / 2) FILTER (WHERE pupil_left > 0 AND pupil_right > 0)::numeric, 2),
             round(1 - count(*) FILTER (WHERE valid)::numeric / count(*), 3)]::float8[] AS features
FROM (SELECT *, coalesce(x BETWEEN -1 AND 2 AND y BETWEEN -1 AND 2, false) AS valid FROM hoppe_samples) s
GROUP BY participant, floor(t_ms / 10000);
\echo 'k-same-select sequence with k = 2: random pairs (CSPRNG), the same pair for the whole sequence, and'
\echo 'every member receives the pair''s mean vector at every window. Raw and released, windows 1-2:'
SELECT r.participant, r."window", f.features AS raw,
       (SELECT array_agg(round(v::numeric, 4)) FROM unnest(r.features) v) AS released, r.group_id
FROM gazepriv.k_same_select('kanon_windows', 2) r JOIN kanon_windows f USING (participant, task, "window")
WHERE r."window" <= 2 ORDER BY r.group_id, r."window", r.participant;
\echo 'Every released vector is shared by at least k = 2 participants (raw windows: by one):'
SELECT gazepriv.k_anonymity('SELECT * FROM gazepriv.k_same_select(''kanon_windows'', 2)',
                            ARRAY['task', 'window', 'features']) AS smallest_class_released,
       gazepriv.k_anonymity('kanon_windows', ARRAY['task', 'window', 'features']) AS smallest_class_raw;

\echo 'An analyst releases the registered windows without reading them; the release is logged in the ledger'
\echo '(guarantee k-anonymity, epsilon 0), before anything is read.'
SELECT gazepriv.register_dataset('kanon_windows', 'kanon_windows', 'participant', task_column => 'task',
                                 window_column => 'window', features_column => 'features') \g /dev/null
CREATE ROLE demo_kanon_analyst NOLOGIN IN ROLE gazepriv_analyst;
SELECT gazepriv.grant_budget('kanon_windows', 'demo_kanon_analyst', epsilon => 0, accounting => 'basic') \g /dev/null
SET ROLE demo_kanon_analyst;
SELECT count(*) AS released_rows, count(DISTINCT group_id) AS groups
FROM gazepriv.release_k_same_select('kanon_windows', 2);
RESET ROLE;
SELECT role, dataset, mechanism, parameters, epsilon, guarantee FROM gazepriv.ledger WHERE dataset = 'kanon_windows';
