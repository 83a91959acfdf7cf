#!/usr/bin/env bash
# SQL benchmark of the heatmap aggregates on the 30 Uniss-FGD images replicated to 10.3 M rows (each of the 20
# participants 19 times, replica after replica, as a recording table would hold them). Every release is compared
# with SELECT count(*), sum(x), sum(y) over the same rows in the same run (the goal is at most 1.5x, 2x at
# worst), serial and with 2 parallel workers; times are the best of 7 runs inside the server: wall clock and the
# backend's CPU time (utime + stime, 10 ms resolution), which other work on a shared machine does not inflate
# (with 2 workers, the leader's CPU only: its share of the scan, the merge of the workers' states, the release).
# work_mem is 256MB for every query, so that GROUP BY stimulus can hash 30 groups of heatmap states (with
# the default 4MB PostgreSQL sorts the 10 M rows instead).
# Then on Citus, when it is installed or can be built (test/citus/lib.sh): the same rows distributed by
# participant (32 shards) on a coordinator and two workers of this machine, so the figures show Citus'
# overhead, not scale-out; wall clock and the CPU time of every process of the three nodes.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh

throwaway_cluster >/dev/null
psql_() { cluster_psql -P footer=off "$@"; }

psql_ -c "CREATE EXTENSION gazepriv"
load_full_uniss
psql_ <<'SQL'
CREATE TABLE samples (participant text, stimulus int, t_ms float8, x float8, y float8);
DO $$ BEGIN FOR r IN 0..18 LOOP
    INSERT INTO samples SELECT participant || '_' || r, stimulus, t_ms, x, y FROM uniss_samples;
END LOOP; END $$;
VACUUM ANALYZE samples;
CREATE FUNCTION cpu_ms() RETURNS float8 LANGUAGE sql AS $$
    SELECT (split_part(s, ' ', 14)::float8 + split_part(s, ' ', 15)::float8) * 1000 / 100
    FROM pg_read_file('/proc/self/stat') s $$;
SQL
# best_ms(query): the best of 7 runs' wall clock and CPU time (cpu_ms(), defined per cluster).
best_ms_sql=$(cat <<'SQL'
CREATE FUNCTION best_ms(q text, reps int DEFAULT 7, OUT wall float8, OUT cpu float8) LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; c0 float8; BEGIN
    wall := 'Infinity';
    cpu := 'Infinity';
    FOR i IN 1..reps LOOP
        t0 := clock_timestamp();
        c0 := cpu_ms();
        EXECUTE q;
        cpu := least(cpu, cpu_ms() - c0);
        wall := least(wall, extract(epoch FROM clock_timestamp() - t0) * 1000);
    END LOOP;
END $$;
SQL
)
# The queries, measured in order (6 repeats the baseline: the scan's time is the better of the two).
queries_sql=$(cat <<'SQL'
CREATE TABLE queries (ord, name, sql) AS VALUES
    (1, 'baseline: count(*), sum(x), sum(y)', 'SELECT count(*), sum(x), sum(y) FROM samples'),
    (2, 'dp_heatmap, 1280 x 1024, 1 px cells', 'SELECT gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(1280, 1024, 1)) FROM samples'),
    (3, 'dp_heatmap, 1280 x 1024, 8 px cells', 'SELECT gazepriv.dp_heatmap(participant, x, y, gazepriv.heatmap_spec(1280, 1024, 1, cell_size => 8)) FROM samples'),
    (4, 'gaze_map (exact), 1 px cells, cap 2', 'SELECT gazepriv.gaze_map(participant, x, y, 1280, 1024, 2) FROM samples'),
    (5, 'dp_heatmap per image (GROUP BY stimulus)', 'SELECT stimulus, gazepriv.dp_heatmap(participant, x - 359, y - 131, gazepriv.heatmap_spec(562, 762, 1)) FROM samples GROUP BY stimulus'),
    (6, 'baseline again', 'SELECT count(*), sum(x), sum(y) FROM samples'),
    (7, 'baseline per image: count, sums GROUP BY stimulus', 'SELECT stimulus, count(*), sum(x), sum(y) FROM samples GROUP BY stimulus');
SQL
)
psql_ -c "$best_ms_sql" -c "$queries_sql"
psql_ -At -c "SELECT 'rows: ' || count(*) || ', participants: ' || count(DISTINCT participant) || ', table: ' ||
              pg_size_pretty(pg_total_relation_size('samples')) || ', jit: ' || current_setting('jit') FROM samples"

psql_ <<'SQL'
SET work_mem = '256MB';
CREATE TEMP TABLE results (mode text, query text, wall float8, cpu float8, ord int);
DO $$
DECLARE
    q record;
    mode record;
BEGIN
    FOR mode IN SELECT * FROM (VALUES ('serial', 0), ('2 workers', 2)) m(name, workers) LOOP
        EXECUTE format('SET max_parallel_workers_per_gather = %s', mode.workers);
        FOR q IN SELECT * FROM queries ORDER BY ord LOOP
            INSERT INTO results SELECT mode.name, q.name, b.wall, b.cpu, q.ord FROM best_ms(q.sql) b;
        END LOOP;
    END LOOP;
END $$;
SELECT mode, query, round(wall) AS wall_ms,
       round((wall / min(wall) FILTER (WHERE ord IN (1, 6)) OVER (PARTITION BY mode))::numeric, 2) AS wall_vs_scan,
       round(cpu) AS cpu_ms,
       round((cpu / min(cpu) FILTER (WHERE ord IN (1, 6)) OVER (PARTITION BY mode))::numeric, 2) AS cpu_vs_scan
FROM results WHERE ord <> 6 ORDER BY mode DESC, ord;
SQL

# ---- Citus ------------------------------------------------------------------------------------------------
. test/citus/lib.sh
citus_dir=$dir/citus
mkdir -p "$citus_dir"
[ "$(id -u)" -eq 0 ] && chown "$(server_user)" "$citus_dir"
if ! ensure_citus "$dir/citus-build.log"; then
    echo "Citus case skipped: $CITUS_ENABLE_HINT"
    exit 0
fi
trap 'stop_citus; stop_cluster; rm -rf "$dir"' EXIT
start_citus "$citus_dir" $((PGPORT + 1))
cpsql() { citus_psql "$CITUS_PORT" -P footer=off "$@"; }
cpsql -c "CREATE EXTENSION gazepriv" -c "CREATE TABLE samples (participant text, stimulus int, t_ms float8, x float8, y float8)" \
    -c "SELECT create_distributed_table('samples', 'participant')" >/dev/null
cluster_psql -c "COPY samples TO STDOUT (FORMAT binary)" | cpsql -c "COPY samples FROM STDIN (FORMAT binary)"
cpsql -c "VACUUM ANALYZE samples"
# cpu_ms(): every process of the three nodes (each postmaster and its children; a child that exited counts in
# its postmaster's cutime/cstime), in ms.
cpsql <<SQL
CREATE FUNCTION cpu_ms() RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE total float8 := 0; node text; postmaster text; pid text; f text[];
BEGIN
    FOREACH node IN ARRAY ARRAY['$citus_dir/node0', '$citus_dir/node1', '$citus_dir/node2'] LOOP
        postmaster := split_part(pg_read_file(node || '/postmaster.pid'), E'\\n', 1);
        FOREACH pid IN ARRAY postmaster || string_to_array(trim(pg_read_file('/proc/' || postmaster || '/task/' ||
                                                                          postmaster || '/children')), ' ') LOOP
            BEGIN
                f := string_to_array(substring(pg_read_file('/proc/' || pid || '/stat') FROM '\\) (.*)\$'), ' ');
            EXCEPTION WHEN OTHERS THEN
                CONTINUE; -- exited meanwhile: counted by its postmaster
            END;
            total := total + f[12]::float8 + f[13]::float8 + f[14]::float8 + f[15]::float8;
        END LOOP;
    END LOOP;
    RETURN total * 1000 / 100;
END \$\$;
SQL
cpsql -c "$best_ms_sql" -c "$queries_sql"
cpsql -At -c "SELECT format('%s: %s rows in %s shards on %s workers, distributed by participant', split_part(citus_version(), ' on ', 1),
                     (SELECT count(*) FROM samples), (SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'samples'::regclass),
                     (SELECT count(*) FROM pg_dist_node WHERE groupid > 0))"
cpsql <<'SQL'
SET work_mem = '256MB';
SET citus.coordinator_aggregation_strategy = 'disabled';
CREATE TEMP TABLE results (query text, wall float8, cpu float8, ord int);
DO $$
DECLARE q record;
BEGIN
    FOR q IN SELECT * FROM queries ORDER BY ord LOOP
        INSERT INTO results SELECT q.name, b.wall, b.cpu, q.ord FROM best_ms(q.sql) b;
    END LOOP;
END $$;
SELECT 'Citus' AS mode, query, round(wall) AS wall_ms,
       round((wall / min(wall) FILTER (WHERE ord IN (1, 6)) OVER ())::numeric, 2) AS wall_vs_scan,
       round(cpu) AS cluster_cpu_ms,
       round((cpu / min(cpu) FILTER (WHERE ord IN (1, 6)) OVER ())::numeric, 2) AS cpu_vs_scan
FROM results WHERE ord <> 6 ORDER BY ord;
SQL
