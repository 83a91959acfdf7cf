-- The k-anonymity check: the smallest equivalence class over given columns, and the classes themselves.
SELECT * FROM gazepriv.k_anonymity_classes('kanon_table1', ARRAY['gender']);
SELECT gazepriv.k_anonymity('kanon_table1', ARRAY['gender']) AS k_gender,
       gazepriv.k_anonymity('kanon_table1', ARRAY['age']) AS k_age,
       gazepriv.k_anonymity('public.kanon_table1', ARRAY['gender', 'age']) AS k_gender_age;
-- The smallest classes first; NULLs form a class of their own; values compare as text.
SELECT * FROM gazepriv.k_anonymity_classes(
    $$SELECT * FROM (VALUES ('a', 1.0::float8), ('a', 1), (NULL, 2), (NULL, 2), (NULL, 2), ('b', NULL)) v(x, y)$$,
    ARRAY['x', 'y']);
-- A quoted column name, a trailing semicolon, a WITH query.
SELECT * FROM gazepriv.k_anonymity_classes(
    $$WITH t("Task Name") AS (VALUES ('read'), ('read'), ('walk')) SELECT * FROM t;$$, ARRAY['Task Name']);
-- The release of 60_kanon_k_same: every (task, window, vector) class holds at least k = 3 participants, while the
-- raw features are unique per row.
SELECT gazepriv.k_anonymity('kanon_k3', ARRAY['task', 'window', 'features']) AS k_released,
       gazepriv.k_anonymity('kanon_features', ARRAY['task', 'window', 'features']) AS k_raw;
-- Bad input.
SELECT gazepriv_test.error_of(q) FROM unnest(ARRAY[
    $$SELECT gazepriv.k_anonymity('SELECT * FROM kanon_table1 WHERE false', ARRAY['gender'])$$,
    $$SELECT gazepriv.k_anonymity('kanon_table1', '{}')$$,
    $$SELECT gazepriv.k_anonymity('kanon_table1', ARRAY['gender', NULL])$$,
    $$SELECT gazepriv.k_anonymity('kanon_table1', ARRAY['shoe_size'])$$,
    $$SELECT gazepriv.k_anonymity('kanon_no_table', ARRAY['gender'])$$,
    $$SELECT gazepriv.k_anonymity('', ARRAY['gender'])$$,
    $$SELECT gazepriv.k_anonymity(NULL, ARRAY['gender'])$$]) q;
