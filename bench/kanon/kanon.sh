#!/usr/bin/env bash
# k-anonymity benchmark on the Hoppe et al. recordings (20 participants, ../shared/data), on a throwaway
# cluster, over the canonical feature windows of test/demo/hoppe_features.psql (33 features per 30 s window
# every 0.5 s; tasks way_to_shop, shop, way_back). Participants 1 and 13 spent under 30 s in the shop and have
# no shop window, so the default grouping across tasks runs on the 18 participants with all three tasks:
#   1. throughput of k_same_select (across tasks, and the paper's per task) against reading the same rows in
#      the same run, a plain-SQL k-same and numpy;
#   2. a re-identification attack (1-NN and an RBF network trained on the release of the first half of every
#      task, tested on the raw second half) and an activity classifier (way/shop), for k = 2..10, with one
#      grouping across tasks (the default) and one per task (the paper's);
#   3. demographic generalisation of the 42 participants, timed against reading them.
# Output: text tables (also in bench/out/kanon.txt via bench/run.sh) and bench/out/kanon_attack.png.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh

REPS=${KANON_REPS:-20}
out=$REPO/bench/out
mkdir -p "$out"
throwaway_cluster >/dev/null
PSQL=(cluster_psql)

"${PSQL[@]}" -c "CREATE EXTENSION gazepriv"
load_full_hoppe
"${PSQL[@]}" -f test/demo/hoppe_features.psql
"${PSQL[@]}" <<'SQL'
-- The participants with windows in every task (the default grouping across tasks needs them all).
CREATE TABLE hoppe_complete AS
SELECT * FROM hoppe_features
WHERE participant IN (SELECT participant FROM hoppe_features GROUP BY participant
                      HAVING count(DISTINCT task) = (SELECT count(DISTINCT task) FROM hoppe_features));
-- Ten copies of them (180 participants), to see how the release scales.
CREATE TABLE hoppe_complete_x10 AS
SELECT participant || '_' || c AS participant, task, "window", features FROM hoppe_complete, generate_series(1, 10) c;
-- The attack's windows: one every 10 s (every 20th), numbered 1, 2, ... per (participant, task). The first
-- half of every sequence is released; the second half, less the two windows that overlap the last released
-- one (30 s windows, 10 s apart), is the attacker's raw data from another time span.
CREATE TABLE attack_features AS
SELECT participant, task, (row_number() OVER (PARTITION BY participant, task ORDER BY "window"))::int AS "window",
       features
FROM hoppe_complete WHERE ("window" - 1) % 20 = 0;
CREATE TABLE attack_split AS
SELECT participant, task, "window", CASE WHEN "window" <= greatest(1, n / 2) THEN 1 ELSE 2 END AS half, features
FROM (SELECT *, count(*) OVER (PARTITION BY participant, task) AS n FROM attack_features) s
WHERE "window" <= greatest(1, n / 2) OR "window" > greatest(1, n / 2) + 2;
VACUUM ANALYZE;
-- Median wall time of a query, after one warm-up run.
CREATE FUNCTION time_ms(q text, n int DEFAULT 9) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
    ts float8[] := '{}';
BEGIN
    EXECUTE q;
    FOR i IN 1..n LOOP
        t0 := clock_timestamp();
        EXECUTE q;
        ts := ts || extract(epoch FROM clock_timestamp() - t0)::float8 * 1000;
    END LOOP;
    RETURN (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(ts) x);
END $$;
-- k-same-select sequence in plain SQL (insecure random(); what one would write without the extension).
CREATE FUNCTION plain_sql_k_same(source regclass, k int) RETURNS TABLE (participant text, task text, "window" int,
                                                                        features float8[], group_id int)
LANGUAGE plpgsql AS $f$
BEGIN
    RETURN QUERY EXECUTE format($q$
    WITH seq AS (SELECT f.task, f.participant, count(*) AS len FROM %1$s f GROUP BY 1, 2),
    shuffled AS (SELECT s.*, row_number() OVER (PARTITION BY s.task ORDER BY random()) - 1 AS pos,
                        count(*) OVER (PARTITION BY s.task) AS n, max(s.len) OVER (PARTITION BY s.task) AS longest
                 FROM seq s),
    grouped AS (SELECT s.task, s.participant, s.len, s.longest, (s.pos %% (s.n / %2$s))::int AS grp FROM shuffled s),
    numbered AS (SELECT f.task, f.participant, f.features,
                        row_number() OVER (PARTITION BY f.task, f.participant ORDER BY f."window") AS i FROM %1$s f),
    padded AS (SELECT g.task, g.grp, i.i, n.features
               FROM grouped g CROSS JOIN LATERAL generate_series(1, g.longest) i(i)
               JOIN numbered n ON n.task = g.task AND n.participant = g.participant AND n.i = least(i.i, g.len)),
    means AS (SELECT m.task, m.grp, m.i, array_agg(m.v ORDER BY m.d) AS features
              FROM (SELECT p.task, p.grp, p.i, u.d, avg(u.v) AS v
                    FROM padded p, unnest(p.features) WITH ORDINALITY u(v, d) GROUP BY 1, 2, 3, 4) m
              GROUP BY 1, 2, 3)
    SELECT g.participant, g.task, i.i::int, m.features, g.grp + 1
    FROM grouped g CROSS JOIN LATERAL generate_series(1, g.longest) i(i)
    JOIN means m ON m.task = g.task AND m.grp = g.grp AND m.i = i.i$q$, source, k);
END $f$;
SQL

"${PSQL[@]}" -c "\\copy (SELECT participant, task, \"window\", features FROM hoppe_complete) TO '$dir/features.csv' WITH (FORMAT csv)"
numpy_ms=$("$PYTHON" bench/kanon/kanon_eval.py numpy-time "$dir/features.csv" 4)

echo "== k_same_select throughput (Hoppe et al., 30 s windows every 0.5 s, 33 features of test/demo/hoppe_features.psql; k = 4)"
"${PSQL[@]}" -P footer=off -v numpy_ms="$numpy_ms" <<'SQL'
-- base: the row whose time is the read baseline of the same table.
WITH r AS (
    SELECT 1 AS o, 1 AS base, '18 participants with all tasks: read the rows (count(*), sum(features[1]))' AS what,
           (SELECT count(*) FROM hoppe_complete) AS rows_in, NULL::bigint AS rows_out,
           time_ms('SELECT count(*), sum(features[1]) FROM hoppe_complete') AS ms
    UNION ALL
    SELECT 2, 1, '  read them in sequence order (ORDER BY task, participant, window)', NULL, NULL,
           time_ms('SELECT count(*) FROM (SELECT * FROM hoppe_complete ORDER BY task, participant, "window") s')
    UNION ALL
    SELECT 3, 1, '  gazepriv.k_same_select (one grouping across tasks, the default)', NULL,
           (SELECT count(*) FROM gazepriv.k_same_select('hoppe_complete', 4)),
           time_ms('SELECT count(*) FROM gazepriv.k_same_select(''hoppe_complete'', 4)')
    UNION ALL
    SELECT 4, 1, '  gazepriv.k_same_select (per task, the paper''s)', NULL,
           (SELECT count(*) FROM gazepriv.k_same_select('hoppe_complete', 4, across_tasks => false)),
           time_ms('SELECT count(*) FROM gazepriv.k_same_select(''hoppe_complete'', 4, across_tasks => false)')
    UNION ALL
    SELECT 5, 1, '  plain SQL k-same per task (window functions, unnest, avg)', NULL, NULL,
           time_ms('SELECT count(*) FROM plain_sql_k_same(''hoppe_complete'', 4)', 3)
    UNION ALL
    SELECT 6, 1, '  numpy per task on padded arrays already in memory (shuffle, group means by a matrix product)',
           NULL, NULL, :numpy_ms
    UNION ALL
    SELECT 7, 7, 'all 20 participants: read the rows', (SELECT count(*) FROM hoppe_features), NULL,
           time_ms('SELECT count(*), sum(features[1]) FROM hoppe_features')
    UNION ALL
    SELECT 8, 7, '  gazepriv.k_same_select (per task, the paper''s; across tasks needs every participant in every task)',
           (SELECT count(*) FROM hoppe_features),
           (SELECT count(*) FROM gazepriv.k_same_select('hoppe_features', 4, across_tasks => false)),
           time_ms('SELECT count(*) FROM gazepriv.k_same_select(''hoppe_features'', 4, across_tasks => false)')
    UNION ALL
    SELECT 9, 9, '10 copies of the 18 (180 participants): read the rows', (SELECT count(*) FROM hoppe_complete_x10),
           NULL, time_ms('SELECT count(*), sum(features[1]) FROM hoppe_complete_x10', 5)
    UNION ALL
    SELECT 10, 9, '  gazepriv.k_same_select (across tasks)', (SELECT count(*) FROM hoppe_complete_x10),
           (SELECT count(*) FROM gazepriv.k_same_select('hoppe_complete_x10', 4)),
           time_ms('SELECT count(*) FROM gazepriv.k_same_select(''hoppe_complete_x10'', 4)', 5))
SELECT what, coalesce(rows_in, (SELECT count(*) FROM hoppe_complete)) AS rows_in, rows_out,
       round(ms::numeric, 1) AS ms, round((ms / (SELECT ms FROM r b WHERE b.o = r0.base))::numeric, 2) AS vs_read,
       CASE WHEN base = 1 THEN round((ms / (SELECT ms FROM r b WHERE b.o = 2))::numeric, 2) END AS vs_sorted_read
FROM r r0 ORDER BY o;
SQL
echo "(rows_out > rows_in: every participant is released over its task's longest sequence; vs_read is against"
echo " reading the same table)"
echo

echo "== Linked releases: whole per-participant releases (all tasks) of the attack's released span, 200 releases each"
"${PSQL[@]}" -P footer=off <<'SQL'
-- (k + 0 * rep: PostgreSQL re-reads, not re-runs, a LATERAL function whose arguments did not change.)
-- Per participant, the groups of every task; participants with equal combinations are indistinguishable in
-- the whole release. smallest = its k-anonymity; risk = mean over participants of 1/|their class|, the
-- success of an attacker who matches every task to its group.
WITH releases AS (
    SELECT a, k, rep, r.participant, array_agg(r.group_id ORDER BY r.task) AS groups
    FROM (VALUES (false), (true)) v(a), unnest(ARRAY[2, 4, 8]) k, generate_series(1, 200) rep,
         LATERAL (SELECT DISTINCT participant, task, group_id
                  FROM gazepriv.k_same_select('SELECT * FROM attack_split WHERE half = 1', k + 0 * rep,
                                              across_tasks => a)) r
    GROUP BY a, k, rep, r.participant),
classes AS (SELECT a, k, rep, groups, count(*) AS size FROM releases GROUP BY a, k, rep, groups),
per_release AS (SELECT a, k, rep, min(size) AS smallest, count(*)::float8 / sum(size) AS risk
                FROM classes GROUP BY a, k, rep)
SELECT CASE WHEN a THEN 'across tasks' ELSE 'per task (paper)' END AS grouping, k,
       round(avg(smallest), 2) AS mean_smallest_class, min(smallest) AS worst_smallest_class,
       round(100 * avg(risk)::numeric, 1) AS risk_percent, round(100.0 / k, 1) AS one_in_k_percent
FROM per_release GROUP BY a, k ORDER BY a, k;
SQL
echo "(3 tasks, 18 participants; risk 1/N = 5.6 % is chance)"
echo

echo "== Re-identification and activity after k-same-select sequence ($REPS random groupings per k)"
"${PSQL[@]}" <<SQL
\\copy (SELECT participant, task, "window", half, features FROM attack_split) TO '$dir/raw.csv' WITH (FORMAT csv, HEADER true)
\\copy (SELECT 'raw' AS grouping, 1 AS k, 1 AS rep, participant, task, "window", features, 0 AS group_id FROM attack_split WHERE half = 1 UNION ALL SELECT CASE WHEN a THEN 'across' ELSE 'task' END, k, rep, r.* FROM (VALUES (true, 2), (true, 3), (true, 4), (true, 5), (true, 8), (false, 2), (false, 4), (false, 8)) v(a, k), generate_series(1, $REPS) rep, LATERAL gazepriv.k_same_select('SELECT * FROM attack_split WHERE half = 1', k + 0 * rep, across_tasks => a) r) TO '$dir/releases.csv' WITH (FORMAT csv, HEADER true)
SQL
"$PYTHON" bench/kanon/kanon_eval.py attack "$dir/raw.csv" "$dir/releases.csv" "$out/kanon_attack.png"
echo "(plot: bench/out/kanon_attack.png)"
echo

echo "== Demographic generalisation of the 42 participants (sex, age)"
"${PSQL[@]}" -P footer=off <<'SQL'
SELECT k, count(*) AS classes, string_agg(format('(%s, %s-%s: %s)', gender, age_from, age_to, class_size), ' '
                                          ORDER BY class_id) AS ranges
FROM unnest(ARRAY[2, 4, 6, 8, 12]) k,
     gazepriv.generalize_demographics_ranges('hoppe_participants', k, ARRAY['sex', 'age']) GROUP BY k ORDER BY k;
SELECT round(time_ms('SELECT count(*) FROM gazepriv.generalize_demographics(''hoppe_participants'', 4, ARRAY[''sex'', ''age''])')::numeric, 2) AS generalize_ms,
       round(time_ms('SELECT count(*), sum(age) FROM hoppe_participants')::numeric, 2) AS read_ms;
SQL
