-- k-same-select sequence: random groups of k to 2k-1, by default one grouping for all tasks (the paper's
-- variant: one per task), one grouping per sequence, padding by the last vector, group means; every released
-- vector shared by at least k participants.
SELECT gazepriv.version() IS NOT NULL AS library_loaded;  -- so that SET gazepriv.seed meets the real setting

-- 11 participants reading (sequences of 3 to 5 windows) and walking (4 windows); feature vector (participant
-- number, window, task code), so every mean can be checked by hand. kanon_uneven: only p01-p06 walk.
CREATE TABLE kanon_features (participant text, task text, "window" int, features float8[]);
INSERT INTO kanon_features
SELECT format('p%s', lpad(p::text, 2, '0')), 'read', w, ARRAY[p, w, 1]
FROM generate_series(1, 11) p, generate_series(1, 3 + p % 3) w;
INSERT INTO kanon_features
SELECT format('p%s', lpad(p::text, 2, '0')), 'walk', w, ARRAY[p, 10 * w, 2]
FROM generate_series(1, 11) p, generate_series(1, 4) w;
CREATE VIEW kanon_uneven AS SELECT * FROM kanon_features WHERE task = 'read' OR participant <= 'p06';

SET gazepriv.seed = 50;
CREATE TABLE kanon_k3 AS SELECT * FROM gazepriv.k_same_select('kanon_features', 3);

-- Every participant of a task is released over the task's longest sequence (5 windows reading, 4 walking).
SELECT task, count(DISTINCT participant) AS participants, count(*) AS rows, min("window"), max("window")
FROM kanon_k3 GROUP BY task ORDER BY task;
-- Groups: floor(N/3) of them, each of 3 to 5 members (11 = 4 + 4 + 3), the same in both tasks.
SELECT task, group_id, count(DISTINCT participant) AS members,
       string_agg(DISTINCT participant, ' ' ORDER BY participant) AS who
FROM kanon_k3 GROUP BY task, group_id ORDER BY task, members DESC, group_id;
SELECT bool_and(members BETWEEN 3 AND 5) AS sizes_between_k_and_2k_minus_1 FROM (
    SELECT count(DISTINCT participant) AS members FROM kanon_k3 GROUP BY task, group_id) g;
-- One grouping for the whole sequence of every task, and by default the same one in all tasks.
SELECT count(*) AS participants_in_two_groups FROM (
    SELECT participant FROM kanon_k3 GROUP BY participant HAVING count(DISTINCT group_id) > 1) s;
-- Every released vector is shared by at least k participants at every window, and by exactly its group.
SELECT gazepriv.k_anonymity('kanon_k3', ARRAY['task', 'window', 'features']) AS k_of_release;
SELECT count(*) AS vectors_not_exactly_their_group FROM (
    SELECT task, "window", features FROM kanon_k3 GROUP BY task, "window", features
    HAVING count(DISTINCT group_id) <> 1) s;
-- Each released vector is the mean of its members' vectors at that position, a shorter sequence contributing
-- its last vector (the padding): recomputed here in plain SQL.
WITH padded AS (
    SELECT r.task, r.group_id, r."window", f.features
    FROM (SELECT DISTINCT task, participant, group_id, "window" FROM kanon_k3) r
    JOIN LATERAL (SELECT f.features FROM kanon_features f
                  WHERE f.task = r.task AND f.participant = r.participant AND f."window" <= r."window"
                  ORDER BY f."window" DESC LIMIT 1) f ON true),
expected AS (
    SELECT task, group_id, "window", ARRAY[avg(features[1]), avg(features[2]), avg(features[3])]::float8[] AS mean
    FROM padded GROUP BY task, group_id, "window")
SELECT count(*) AS released_rows,
       count(*) FILTER (WHERE abs(k.features[1] - e.mean[1]) + abs(k.features[2] - e.mean[2])
                              + abs(k.features[3] - e.mean[3]) > 1e-12) AS wrong_means
FROM kanon_k3 k JOIN expected e USING (task, group_id, "window");
-- The padding on one group: p01 (4 windows) and its partners, windows 3 to 5 of the reading task.
SELECT participant, "window", features FROM kanon_k3
WHERE task = 'read' AND group_id = (SELECT DISTINCT group_id FROM kanon_k3 WHERE task = 'read' AND participant = 'p01')
  AND "window" >= 3 ORDER BY participant, "window";
SELECT participant, count(*) AS windows, max("window") AS last_window FROM kanon_features
WHERE task = 'read' AND participant IN (SELECT participant FROM kanon_k3 WHERE task = 'read' AND group_id =
    (SELECT DISTINCT group_id FROM kanon_k3 WHERE task = 'read' AND participant = 'p01'))
GROUP BY participant ORDER BY participant;

-- The grouping comes from the CSPRNG: the same when the seed is set again, different under another seed
-- (and for every further draw under one setting).
SET gazepriv.seed = 50;
CREATE TABLE kanon_k3_again AS SELECT * FROM gazepriv.k_same_select('kanon_features', 3);
SELECT count(*) AS differences_under_the_same_seed FROM (
    (SELECT * FROM kanon_k3_again EXCEPT SELECT * FROM kanon_k3)
    UNION ALL (SELECT * FROM kanon_k3 EXCEPT SELECT * FROM kanon_k3_again)) d;
SELECT count(*) > 0 AS next_draw_differs FROM (
    SELECT * FROM gazepriv.k_same_select('kanon_features', 3) EXCEPT SELECT * FROM kanon_k3) d;
SET gazepriv.seed = 51;
SELECT count(*) > 0 AS differs_under_another_seed FROM (
    SELECT * FROM gazepriv.k_same_select('kanon_features', 3) EXCEPT SELECT * FROM kanon_k3) d;
-- and is uniform: p01 and p02 share a group with probability (k - 1)/(N - 1) = 1/5 among 6 participants at
-- k = 2. Over 500 seeds the count is Binomial(500, 0.2): 100 +- 9; the bounds are +-4.5 sigma. A grouping
-- that ignored the generator, or drew pairs of neighbours, would give 0 or 500.
CREATE TABLE kanon_pairs (seed int, together boolean);
DO $$
BEGIN
    FOR s IN 1..500 LOOP
        PERFORM set_config('gazepriv.seed', s::text, false);
        INSERT INTO kanon_pairs
        SELECT s, count(DISTINCT group_id) = 1 FROM gazepriv.k_same_select(
            'SELECT * FROM kanon_features WHERE task = ''walk'' AND "window" = 1 AND participant <= ''p06''', 2)
        WHERE participant IN ('p01', 'p02');
    END LOOP;
END $$;
SELECT count(*) FILTER (WHERE together) BETWEEN 60 AND 140 AS pair_frequency_is_one_in_five FROM kanon_pairs;
RESET gazepriv.seed;

-- A query as source, other column names, and the original k-Same-Select: groups within a utility class.
SET gazepriv.seed = 52;
CREATE TABLE kanon_by_class AS
SELECT * FROM gazepriv.k_same_select(
    $$SELECT participant AS who, task AS doing, "window" AS w, features AS f,
             CASE WHEN participant < 'p06' THEN 'comic' ELSE 'textbook' END AS document
      FROM kanon_features WHERE task = 'read'$$, 2,
    participant_column => 'who', task_column => 'doing', window_column => 'w', features_column => 'f',
    class_column => 'document');
SELECT count(DISTINCT group_id) AS groups, count(DISTINCT participant) AS participants FROM kanon_by_class;
SELECT count(*) AS groups_mixing_classes FROM (
    SELECT group_id FROM kanon_by_class GROUP BY group_id
    HAVING count(DISTINCT participant < 'p06') > 1) s;
RESET gazepriv.seed;

-- The paper's variant (across_tasks => false) draws a grouping per task, so the ids link a participant's
-- sequences from different groups: their whole release (all tasks) can be unique. The default draws one
-- grouping for all tasks. Here 6 participants with both tasks, k = 3: the smallest class of whole releases per
-- participant.
SET gazepriv.seed = 54;
SELECT across, gazepriv.k_anonymity(format($q$
           SELECT participant, array_agg(features ORDER BY task, "window") AS whole_release
           FROM gazepriv.k_same_select('SELECT * FROM kanon_features WHERE participant <= ''p06''', 3,
                                       across_tasks => %L) GROUP BY participant$q$, across),
           ARRAY['whole_release']) AS k_of_whole_releases
FROM unnest(ARRAY[false, true]) across;
-- The paper's variant also releases tasks whose participants differ: each task is grouped over its own
-- participants (11 readers: 4 + 4 + 3; 6 walkers: 3 + 3), and each task's sequences are k-anonymous.
CREATE TABLE kanon_per_task AS SELECT * FROM gazepriv.k_same_select('kanon_uneven', 3, across_tasks => false);
SELECT task, group_id, count(DISTINCT participant) AS members FROM kanon_per_task GROUP BY task, group_id
ORDER BY task, members DESC, group_id;
SELECT gazepriv.k_anonymity('kanon_per_task', ARRAY['task', 'window', 'features']) AS k_of_release;
RESET gazepriv.seed;

-- Rows with NULL, NaN or infinite features are dropped, without a word (11 walkers x 4 windows).
SELECT count(*) AS released, count(DISTINCT participant) AS participants
FROM gazepriv.k_same_select($$SELECT * FROM kanon_features WHERE task = 'walk'
                              UNION ALL VALUES ('p01', 'walk', 5, ARRAY['NaN']::float8[]),
                                               ('p02', 'walk', 5, ARRAY[1, 'Infinity', 2]::float8[]),
                                               ('p03', 'walk', 5, ARRAY[1, NULL, 2]::float8[]),
                                               ('p04', 'walk', 5, NULL)$$, 3);

-- Bad input: ERROR 22023 with a message naming the problem.
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT * FROM gazepriv.k_same_select('kanon_features', 1)$$,
    $$SELECT * FROM gazepriv.k_same_select('kanon_features', 12)$$,
    $$SELECT * FROM gazepriv.k_same_select('kanon_uneven', 7, across_tasks => false)$$,
    $$SELECT * FROM gazepriv.k_same_select('kanon_features', NULL)$$,
    $$SELECT * FROM gazepriv.k_same_select('SELECT * FROM kanon_features WHERE false', 2)$$,
    $$SELECT * FROM gazepriv.k_same_select('SELECT participant, task, "window", NULL::float8[] AS features FROM kanon_features', 2)$$,
    $$SELECT * FROM gazepriv.k_same_select(' ', 2)$$,
    $$SELECT * FROM gazepriv.k_same_select('kanon_nonexistent', 2)$$,
    $$SELECT * FROM gazepriv.k_same_select('kanon_features', 2, participant_column => 'nobody')$$,
    $$SELECT * FROM gazepriv.k_same_select('SELECT * FROM kanon_features UNION ALL VALUES (''p01'', ''walk'', 9, ARRAY[1, 2]::float8[])', 2)$$,
    $$SELECT * FROM gazepriv.k_same_select('SELECT * FROM kanon_features UNION ALL VALUES (NULL, ''walk'', 9, ARRAY[1, 2, 3]::float8[])', 2)$$,
    $$SELECT * FROM gazepriv.k_same_select('SELECT * FROM kanon_features UNION ALL VALUES (''p01'', NULL, 9, ARRAY[1, 2, 3]::float8[])', 2)$$,
    $$SELECT * FROM gazepriv.k_same_select('SELECT * FROM kanon_features UNION ALL VALUES (''p01'', ''walk'', NULL::int, ARRAY[1, 2, 3]::float8[])', 2)$$,
    $$SELECT * FROM gazepriv.k_same_select('SELECT * FROM kanon_features UNION ALL VALUES (''p01'', ''walk'', 2, ARRAY[1, 2, 3]::float8[])', 2)$$,
    $$SELECT * FROM gazepriv.k_same_select('SELECT * FROM kanon_features UNION ALL VALUES (''p01'', ''walk'', 9, ''{}''::float8[])', 2)$$,
    $$SELECT * FROM gazepriv.k_same_select('SELECT * FROM kanon_features UNION ALL VALUES (''p01'', ''walk'', 9, ''{{1,2,3}}''::float8[])', 2)$$,
    $$SELECT * FROM gazepriv.k_same_select('SELECT *, participant || task AS c FROM kanon_features', 2, class_column => 'c', across_tasks => false)$$,
    $$SELECT * FROM gazepriv.k_same_select('SELECT *, participant || task AS c FROM kanon_features', 2, class_column => 'c')$$,
    $$SELECT * FROM gazepriv.k_same_select('SELECT *, "window"::text AS c FROM kanon_features', 2, class_column => 'c')$$,
    $$SELECT * FROM gazepriv.k_same_select('SELECT 1; SELECT 2', 2)$$,
    $$SELECT * FROM gazepriv.k_same_select('kanon_uneven', 2)$$,
    $$SELECT * FROM gazepriv.k_same_select('kanon_features', 2, across_tasks => NULL)$$,
    $$SELECT * FROM gazepriv.k_same_select_cost(0)$$]) q;

-- The cost preview is the ledger record: k-anonymity, no epsilon, no data-dependent choice; the grouping is
-- named (the default across tasks, or the paper's per task).
SELECT * FROM gazepriv.k_same_select_cost(4, 'document', source => 'kanon_features');
SELECT parameters ->> 'grouping' AS grouping FROM gazepriv.k_same_select_cost(4, across_tasks => false);

-- Labels, frozen.
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.proisstrict, p.prosecdef
FROM pg_proc p
WHERE p.pronamespace = 'gazepriv'::regnamespace
  AND p.proname IN ('k_same_select', 'k_same_select_cost', 'release_k_same_select', 'generalize_demographics',
                    'generalize_demographics_ranges', 'generalize_demographics_cost', 'k_anonymity',
                    'k_anonymity_classes')
ORDER BY (p.oid::regprocedure)::text;
