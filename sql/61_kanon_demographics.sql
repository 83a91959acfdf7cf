-- k-anonymous demographics: gender kept or merged, age ranges with at least k rows per class, chosen for the
-- most classes and then the least information loss; given ranges applied as they are.

-- The population of the TVCG 2023 supplement's Table 1 (ET-DK2 subjects 2-20 without 7, 360_em subjects
-- 2-14; 31 rows although its text says 24 individuals), typed in from the supplement (doc/privacy/kanon.md §3).
-- The OCR'd header reads "Subject ID, Age, Gender" but the columns hold gender, then age.
CREATE TABLE kanon_table1 (participant text, gender text, age int);
INSERT INTO kanon_table1 VALUES
    ('ET-DK2 2', 'M', 43), ('ET-DK2 3', 'F', 27), ('ET-DK2 4', 'M', 29), ('ET-DK2 5', 'M', 32),
    ('ET-DK2 6', 'F', 28), ('ET-DK2 8', 'M', 26), ('ET-DK2 9', 'F', 23), ('ET-DK2 10', 'M', 30),
    ('ET-DK2 11', 'F', 28), ('ET-DK2 12', 'M', 26), ('ET-DK2 13', 'M', 52), ('ET-DK2 14', 'M', 26),
    ('ET-DK2 15', 'M', 35), ('ET-DK2 16', 'M', 50), ('ET-DK2 17', 'M', 33), ('ET-DK2 18', 'M', 31),
    ('ET-DK2 19', 'M', 32), ('ET-DK2 20', 'M', 36),
    ('360_em 2', 'M', 38), ('360_em 3', 'M', 29), ('360_em 4', 'F', 23), ('360_em 5', 'F', 31),
    ('360_em 6', 'M', 27), ('360_em 7', 'M', 31), ('360_em 8', 'F', 23), ('360_em 9', 'M', 24),
    ('360_em 10', 'M', 23), ('360_em 11', 'M', 27), ('360_em 12', 'M', 23), ('360_em 13', 'M', 23),
    ('360_em 14', 'M', 32);
SELECT count(*) AS rows, count(*) FILTER (WHERE gender = 'F') AS women, min(age), max(age) FROM kanon_table1;

-- Table 2 of the supplement, as (k, gender, from, to), and the ranges chosen here, side by side.
CREATE TABLE kanon_table2 (k int, gender text, age_from int, age_to int);
INSERT INTO kanon_table2 VALUES
    (4, 'F', 23, 31), (4, 'M', 23, 27), (4, 'M', 29, 31), (4, 'M', 32, 33), (4, 'M', 35, 52),
    (6, 'F', 23, 31), (6, 'M', 23, 27), (6, 'M', 29, 33), (6, 'M', 35, 52),
    (8, 'M/F', 23, 27), (8, 'M/F', 28, 31), (8, 'M/F', 32, 52),
    (15, 'M/F', 23, 28), (15, 'M/F', 29, 52);
CREATE TABLE kanon_ours AS
SELECT k, r.* FROM unnest(ARRAY[4, 6, 8, 15]) k, gazepriv.generalize_demographics_ranges('kanon_table1', k) r;
SELECT k, string_agg(format('(%s, %s-%s)', gender, age_from, age_to), ', ' ORDER BY class_id) AS ours,
       (SELECT string_agg(format('(%s, %s-%s)', t.gender, t.age_from, t.age_to), ', '
                          ORDER BY t.gender, t.age_from) FROM kanon_table2 t WHERE t.k = o.k) AS table2,
       count(*) AS classes, (SELECT count(*) FROM kanon_table2 t WHERE t.k = o.k) AS table2_classes,
       sum(class_size * (age_to - age_from)) AS loss_row_years
FROM kanon_ours o GROUP BY k ORDER BY k;
-- k = 6 and k = 15 are Table 2 exactly.
SELECT k, count(*) AS rows_differing_from_table2 FROM (
    (SELECT k, gender, age_from, age_to FROM kanon_ours EXCEPT SELECT * FROM kanon_table2)
    UNION ALL (SELECT * FROM kanon_table2 EXCEPT SELECT k, gender, age_from, age_to FROM kanon_ours)) d
GROUP BY k ORDER BY k;
-- Table 2's own ranges applied as given: they are k-anonymous, but at k = 4 one class fewer than possible
-- ((M, 23-27) splits into (M, 23-24) and (M, 26-27)), and at k = 8 as many classes with more loss (276 > 274).
SELECT v.k, count(*) AS classes, min(class_size) AS smallest_class,
       sum(class_size * (age_to - age_from)) AS loss_row_years
FROM unnest(ARRAY[4, 6, 8, 15]) v(k),
     gazepriv.generalize_demographics_ranges('kanon_table1', v.k, ranges =>
        (SELECT array_agg(format('%s:%s-%s', t.gender, t.age_from, t.age_to)) FROM kanon_table2 t WHERE t.k = v.k)) r
GROUP BY v.k ORDER BY v.k;

-- The generalised rows: every row in its class, classes of at least k.
SELECT * FROM gazepriv.generalize_demographics('kanon_table1', 6) WHERE class_id IN (1, 4) ORDER BY class_id, participant;
SELECT k, count(*) AS rows,
       count(*) FILTER (WHERE o.gender <> ALL (string_to_array(g.gender, '/'))
                           OR o.age NOT BETWEEN g.age_from AND g.age_to) AS rows_outside_their_class
FROM unnest(ARRAY[4, 8]) k, gazepriv.generalize_demographics('kanon_table1', k) g JOIN kanon_table1 o USING (participant)
GROUP BY k ORDER BY k;
SELECT k, gazepriv.k_anonymity(format('SELECT * FROM gazepriv.generalize_demographics(''kanon_table1'', %s)', k),
                               ARRAY['gender', 'age_from', 'age_to']) AS k_of_release
FROM unnest(ARRAY[2, 4, 6, 8, 15, 31]) k;
-- Before generalisation the table is only 1-anonymous over (gender, age).
SELECT gazepriv.k_anonymity('kanon_table1', ARRAY['gender', 'age']) AS k_of_raw;

-- The Hoppe et al. participants (42: 34 F, 8 M, ages 18-41), quasi-identifiers sex and age.
CREATE TABLE kanon_hoppe_people (participant text PRIMARY KEY, sex text, age int, neuroticism float8,
    extraversion float8, openness float8, agreeableness float8, conscientiousness float8,
    perceptual_curiosity float8, curiosity_exploration float8, shop_enter_s float8, shop_leave_s float8,
    samples_included_here text);
\copy kanon_hoppe_people FROM 'test/data/hoppe2018_everyday/participants.csv' WITH (FORMAT csv, HEADER true)
SELECT k, class_id, gender, genders, age_from, age_to, class_size
FROM unnest(ARRAY[4, 6, 8]) k,
     gazepriv.generalize_demographics_ranges('kanon_hoppe_people', k, quasi_identifiers => ARRAY['sex', 'age']) r
ORDER BY k, class_id;
-- Public age bands with gender merged: not optimised on the data, so no data-dependent choice.
SELECT * FROM gazepriv.generalize_demographics_ranges(
    'SELECT participant, sex, age FROM kanon_hoppe_people', 5, ARRAY['sex', 'age'],
    ranges => ARRAY['F/M:18-19', 'F/M:20-24', 'F/M:25-44', 'F/M:45-64']);
SELECT gazepriv_test.error_of($$SELECT * FROM gazepriv.generalize_demographics_ranges('kanon_hoppe_people', 5,
    ARRAY['sex', 'age'], ranges => ARRAY['F/M:18-19', 'F/M:20-24', 'F/M:25-29', 'F/M:30-44'])$$);

-- Bad input: ERROR 22023 naming the problem.
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT * FROM gazepriv.generalize_demographics('kanon_table1', 1)$$,
    $$SELECT * FROM gazepriv.generalize_demographics('kanon_table1', 32)$$,
    $$SELECT * FROM gazepriv.generalize_demographics('SELECT * FROM kanon_table1 WHERE false', 2)$$,
    $$SELECT * FROM gazepriv.generalize_demographics('kanon_table1', 2, ARRAY['gender'])$$,
    $$SELECT * FROM gazepriv.generalize_demographics('kanon_table1', 2, ARRAY['gender', NULL])$$,
    $$SELECT * FROM gazepriv.generalize_demographics('kanon_table1', 2, ARRAY['gender', 'height'])$$,
    $$SELECT * FROM gazepriv.generalize_demographics('SELECT * FROM kanon_table1 UNION ALL VALUES (NULL, ''F'', 30)', 2)$$,
    $$SELECT * FROM gazepriv.generalize_demographics('SELECT * FROM kanon_table1 UNION ALL VALUES (''x'', NULL, 30)', 2)$$,
    $$SELECT * FROM gazepriv.generalize_demographics('SELECT * FROM kanon_table1 UNION ALL VALUES (''x'', ''F'', NULL::int)', 2)$$,
    $$SELECT * FROM gazepriv.generalize_demographics('SELECT * FROM kanon_table1 UNION ALL VALUES (''ET-DK2 2'', ''F'', 30)', 2)$$,
    $$SELECT * FROM gazepriv.generalize_demographics('SELECT * FROM kanon_table1 UNION ALL VALUES (''x'', ''F'', 2000000)', 2)$$,
    $$SELECT * FROM gazepriv.generalize_demographics('kanon_table1', 4, ranges => ARRAY['M:23-52'])$$,
    $$SELECT * FROM gazepriv.generalize_demographics('kanon_table1', 4, ranges => ARRAY['M:23-40', 'M:35-52', 'F:23-31'])$$,
    $$SELECT * FROM gazepriv.generalize_demographics('kanon_table1', 4, ranges => ARRAY['M/F:23-52', NULL])$$,
    $$SELECT * FROM gazepriv.generalize_demographics('kanon_table1', 4, ranges => ARRAY['M/F 23-52'])$$,
    $$SELECT * FROM gazepriv.generalize_demographics('kanon_table1', 4, ranges => '{}')$$,
    $$SELECT * FROM gazepriv.generalize_demographics_cost(1)$$]) q;

-- The cost: optimised ranges are a data-dependent choice; given ranges are not.
SELECT * FROM gazepriv.generalize_demographics_cost(4, ARRAY['sex', 'age']);
SELECT non_private_choices, parameters FROM gazepriv.generalize_demographics_cost(4, ARRAY['sex', 'age'],
                                                                                  ARRAY['F/M:18-29', 'F/M:30-99']);
