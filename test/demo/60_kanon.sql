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

-- hoppe_features (feature windows of test/demo/hoppe_features.psql) was built in 00_load.sql.
\echo 'k-same-select sequence over the Hoppe feature windows (33 features per 30 s window every 0.5 s; here the first'
\echo 'minute of four recordings, one task) with k = 2: random pairs (CSPRNG), one pairing for every window and, by'
\echo 'default, for every task; each member receives the pair''s mean vector. Windows 1 and 2, four of the 33 features'
\echo '(gazepriv.feature_catalog() lists them), raw -> released:'
SELECT r.participant, r."window", r.group_id,
       format('%s -> %s', round(f.features[2]::numeric, 2), round(r.features[2]::numeric, 2)) AS "fixations/s",
       format('%s -> %s', round(f.features[13]::numeric, 1), round(r.features[13]::numeric, 1)) AS "saccade amplitude (deg)",
       format('%s -> %s', round(f.features[26]::numeric, 2), round(r.features[26]::numeric, 2)) AS "pupil (mm)",
       format('%s -> %s', round(f.features[23]::numeric, 2), round(r.features[23]::numeric, 2)) AS "share missing"
FROM gazepriv.k_same_select('hoppe_features', 2) r JOIN hoppe_features f USING (participant, task, "window")
WHERE r."window" <= 2 ORDER BY r.group_id, r."window", r.participant;
\echo 'Every released vector is shared by at least k = 2 participants (raw windows: by one):'
SELECT gazepriv.k_anonymity('SELECT * FROM gazepriv.k_same_select(''hoppe_features'', 2)',
                            ARRAY['task', 'window', 'features']) AS smallest_class_released,
       gazepriv.k_anonymity('hoppe_features', ARRAY['task', 'window', 'features']) AS smallest_class_raw;
\echo 'Participants 0 and 9 have 61 windows, 2 and 5 have 60: a shorter sequence is padded with its last vector, so'
\echo 'the length does not single anyone out. With several tasks the default grouping needs every participant in every'
\echo 'task (across_tasks => false is the paper''s grouping per task, whose kept ids link a person''s groups).'

\echo
\echo 'An analyst releases the registered windows without reading them, with the k the curator''s release policy'
\echo 'fixes; the release is logged in the ledger (guarantee k-anonymity, epsilon 0, the grouping) before anything is'
\echo 'read, and served once: asking again returns the same groups (two groupings could be intersected).'
SELECT gazepriv.register_dataset('kanon_windows', 'hoppe_features', 'participant', task_column => 'task',
                                 window_column => 'window', features_column => 'features') \g /dev/null
SELECT gazepriv.set_release_policy('kanon_windows', 'k_same_select', '{"k": 2}') \g /dev/null
CREATE ROLE demo_kanon_analyst NOLOGIN IN ROLE gazepriv_analyst;
SELECT gazepriv.grant_budget('kanon_windows', 'demo_kanon_analyst', epsilon => 0, accounting => 'basic') \g /dev/null
SET ROLE demo_kanon_analyst;
SELECT count(*) AS released_rows, count(DISTINCT group_id) AS groups
FROM gazepriv.release_k_same_select('kanon_windows');
SELECT (SELECT string_agg(participant || ':' || group_id, ' ' ORDER BY participant)
        FROM (SELECT DISTINCT participant, group_id FROM gazepriv.release_k_same_select('kanon_windows')) a)
     = (SELECT string_agg(participant || ':' || group_id, ' ' ORDER BY participant)
        FROM (SELECT DISTINCT participant, group_id FROM gazepriv.release_k_same_select('kanon_windows')) b)
       AS same_groups_when_asked_again;
RESET ROLE;
SELECT role, dataset, mechanism, parameters, epsilon, guarantee FROM gazepriv.ledger WHERE dataset = 'kanon_windows';
