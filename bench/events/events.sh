#!/usr/bin/env bash
# Events and features from SQL on the full real recordings ($SHARED_DATA): agreement of our I-VT and
# I-DT with the trackers' own labels (Uniss-FGD: Tobii, Hoppe 2018: SMI), then throughput of
# make_trace, detect_events and feature_windows against a plain scan of the same rows in the same run.
# Writes tables to stdout and a picture of labelled samples to bench/out/events_labels.png.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh
throwaway_cluster
psql() { cluster_psql -P footer=off "$@"; }
mkdir -p bench/out

# The full datasets, in the canonical sample shape.
psql -c "CREATE EXTENSION gazepriv"
load_full_uniss
load_full_hoppe

psql <<'SQL'
VACUUM ANALYZE;
-- Hoppe: gaze far outside the scene frame is invalid (data README); pupil 0 means none.
CREATE VIEW hoppe_clean AS
SELECT participant, t_ms, CASE WHEN x BETWEEN -1 AND 2 AND y BETWEEN -1 AND 2 THEN x END AS x, y,
       (nullif(pupil_left, 0) + nullif(pupil_right, 0)) / 2 AS pupil, event
FROM hoppe_samples;
CREATE TABLE uniss_traces AS
SELECT participant, stimulus, gazepriv.make_trace(t_ms, x, y, (pupil_left + pupil_right) / 2) AS trace
FROM uniss_samples GROUP BY 1, 2;
CREATE TABLE hoppe_traces AS
SELECT participant, gazepriv.make_trace(t_ms, x, y, pupil) AS trace FROM hoppe_clean GROUP BY 1;

-- Sample-level agreement with the tracker's labels: Cohen's kappa over {fixation, saccade, other}
-- and F1 per event type; also kappa over the samples the tracker calls fixation or saccade only.
CREATE FUNCTION agreement(labels regclass, tracker regclass, keys text)
RETURNS TABLE (samples bigint, kappa numeric, f1_fixation numeric, f1_saccade numeric, kappa_fs numeric)
LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY EXECUTE format($q$
        WITH j AS MATERIALIZED (
                SELECT CASE l.label WHEN 'fixation' THEN 'F' WHEN 'saccade' THEN 'S' ELSE 'O' END AS o,
                       CASE s.event WHEN 'F' THEN 'F' WHEN 'S' THEN 'S' ELSE 'O' END AS t
                FROM %s l JOIN %s s USING (%s)),
             c AS (SELECT o, t, count(*)::numeric AS n FROM j GROUP BY 1, 2),
             k AS (SELECT x.k, coalesce(sum(n) FILTER (WHERE o = x.k), 0) AS n_o,
                          coalesce(sum(n) FILTER (WHERE t = x.k), 0) AS n_t,
                          coalesce(sum(n) FILTER (WHERE o = x.k AND t = x.k), 0) AS n_both,
                          coalesce(sum(n) FILTER (WHERE t IN ('F', 'S') AND o = x.k), 0) AS fs_o,
                          coalesce(sum(n) FILTER (WHERE t IN ('F', 'S') AND t = x.k), 0) AS fs_t,
                          coalesce(sum(n) FILTER (WHERE t IN ('F', 'S') AND o = x.k AND t = x.k), 0) AS fs_both
                   FROM unnest('{F,S,O}'::text[]) x(k) CROSS JOIN c GROUP BY x.k),
             n AS (SELECT sum(n_o) AS n, sum(fs_o) AS fs FROM k)
        SELECT n.n::bigint,
               round((sum(n_both) / n.n - sum(n_o * n_t) / n.n ^ 2) / (1 - sum(n_o * n_t) / n.n ^ 2), 3),
               round(2 * sum(n_both) FILTER (WHERE k = 'F') / sum(n_o + n_t) FILTER (WHERE k = 'F'), 3),
               round(2 * sum(n_both) FILTER (WHERE k = 'S') / sum(n_o + n_t) FILTER (WHERE k = 'S'), 3),
               round((sum(fs_both) / n.fs - sum(fs_o * fs_t) / n.fs ^ 2) / (1 - sum(fs_o * fs_t) / n.fs ^ 2), 3)
        FROM k, n GROUP BY n.n, n.fs $q$, labels, tracker, keys);
END $$;

-- Labels every sample of `traces` (whose key columns are `keys`) with detector d, then compares.
CREATE FUNCTION agreement_of(dataset_name text, name text, d gazepriv.event_detector, traces regclass,
                             tracker regclass, keys text)
RETURNS TABLE (dataset text, detector text, samples bigint, kappa numeric, f1_fixation numeric,
               f1_saccade numeric, kappa_fs numeric) LANGUAGE plpgsql AS $$
BEGIN
    DROP TABLE IF EXISTS labels;
    EXECUTE format('CREATE TEMP TABLE labels AS SELECT %s, l.t_ms, l.label FROM %s s, gazepriv.label_samples(s.trace, $1) l',
                   keys, traces) USING d;
    RETURN QUERY SELECT dataset_name, name, a.* FROM agreement('labels', tracker, keys || ', t_ms') a;
END $$;
SQL

echo "## Agreement with the trackers' labels (all samples; kappa_fs: only samples the tracker labels F or S)"
echo
psql -P format=aligned <<'SQL'
SET client_min_messages = warning;
\set screen 'gazepriv.screen_geometry(1280, 1024, 1040, 580, 1370)'
\set camera 'gazepriv.camera_geometry(60, 46)'
\set uniss '\'uniss_traces\', \'uniss_samples\', \'participant, stimulus\''
\set hoppe '\'hoppe_traces\', \'hoppe_samples\', \'participant\''
SELECT * FROM agreement_of('Uniss-FGD (Tobii)', 'ivt(30, velocity_window_ms => 20, gap_fill_ms => 75, geometry => screen)',
                              gazepriv.ivt(30, velocity_window_ms => 20, gap_fill_ms => 75, geometry => :screen), :uniss)
UNION ALL SELECT * FROM agreement_of('Uniss-FGD (Tobii)', 'ivt(30, min_fixation_ms => 60, velocity_window_ms => 20, gap_fill_ms => 75, geometry => screen)',
                              gazepriv.ivt(30, 60, 20, 75, 75, :screen), :uniss)
UNION ALL SELECT * FROM agreement_of('Uniss-FGD (Tobii)', 'ivt(30, geometry => screen)', gazepriv.ivt(30, geometry => :screen), :uniss)
UNION ALL SELECT * FROM agreement_of('Uniss-FGD (Tobii)', 'idt(1, 100, velocity_window_ms => 20, gap_fill_ms => 75, geometry => screen)',
                              gazepriv.idt(1, 100, 20, 75, 75, :screen), :uniss)
UNION ALL SELECT * FROM agreement_of('Uniss-FGD (Tobii)', 'idt(1.5, 60, velocity_window_ms => 20, gap_fill_ms => 75, geometry => screen)',
                              gazepriv.idt(1.5, 60, 20, 75, 75, :screen), :uniss)
UNION ALL SELECT * FROM agreement_of('Hoppe 2018 (SMI)', 'ivt(30, geometry => camera)', gazepriv.ivt(30, geometry => :camera), :hoppe)
UNION ALL SELECT * FROM agreement_of('Hoppe 2018 (SMI)', 'ivt(60, velocity_window_ms => 33.4, gap_fill_ms => 75, geometry => camera)',
                              gazepriv.ivt(60, 0, 33.4, 75, 75, :camera), :hoppe)
UNION ALL SELECT * FROM agreement_of('Hoppe 2018 (SMI)', 'ivt(100, velocity_window_ms => 33.4, gap_fill_ms => 75, geometry => camera)',
                              gazepriv.ivt(100, 0, 33.4, 75, 75, :camera), :hoppe)
UNION ALL SELECT * FROM agreement_of('Hoppe 2018 (SMI)', 'idt(3, 100, gap_fill_ms => 75, geometry => camera)',
                              gazepriv.idt(3, 100, 0, 75, 75, :camera), :hoppe)
UNION ALL SELECT * FROM agreement_of('Hoppe 2018 (SMI)', 'idt(0.05, 80, gap_fill_ms => 75) (normalised units)',
                              gazepriv.idt(0.05, 80, 0, 75, 75), :hoppe);
SQL

# A picture: one Uniss participant's first image, x over time, coloured by Tobii's and by our labels.
psql -c "\\copy (WITH l AS MATERIALIZED (SELECT l.* FROM uniss_traces s, gazepriv.label_samples(s.trace, gazepriv.ivt(30, 0, 20, 75, 75, gazepriv.screen_geometry(1280, 1024, 1040, 580, 1370))) l WHERE s.participant = '03' AND s.stimulus = 2) SELECT u.t_ms, u.x, u.event, l.label FROM l JOIN uniss_samples u USING (t_ms) WHERE u.participant = '03' AND u.stimulus = 2 ORDER BY 1) TO '$dir/labels.csv' WITH (FORMAT csv, HEADER true)"
"$PYTHON" - "$dir/labels.csv" bench/out/events_labels.png <<'PY' || echo "(no picture: matplotlib missing)"
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = list(csv.DictReader(open(sys.argv[1])))
t = [float(r["t_ms"]) - float(rows[0]["t_ms"]) for r in rows]
x = [float(r["x"]) if r["x"] else float("nan") for r in rows]
colour = {"F": "tab:blue", "fixation": "tab:blue", "S": "tab:red", "saccade": "tab:red"}
fig, axes = plt.subplots(2, 1, figsize=(10, 5), sharex=True)
for ax, key, title in ((axes[0], "event", "Tobii fixation filter"), (axes[1], "label", "gazepriv I-VT 30 deg/s, 20 ms window")):
    ax.scatter(t, x, s=2, c=[colour.get(r[key], "0.6") for r in rows])
    ax.set_title(title + " (blue fixation, red saccade, grey other)", fontsize=9)
    ax.set_ylabel("x (px)")
axes[1].set_xlabel("time on the image (ms)")
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
PY

# Throughput: the Hoppe recordings copied 10 times (200 recordings, 8.4 M rows).
psql <<'SQL'
CREATE TABLE bench_samples AS
SELECT participant || '/' || r AS participant, t_ms, x, y, pupil FROM hoppe_clean, generate_series(1, 10) r;
VACUUM ANALYZE bench_samples;
CREATE FUNCTION best_ms(q text, serial bool) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE best float8 := 'Infinity'; t0 timestamptz; dummy text;
BEGIN
    EXECUTE format('SET LOCAL max_parallel_workers_per_gather = %s', CASE WHEN serial THEN 0 ELSE 2 END);
    SET LOCAL work_mem = '1GB'; -- traces hold 32 bytes per sample while they are built
    FOR i IN 1..3 LOOP
        t0 := clock_timestamp();
        EXECUTE q INTO dummy;
        best := least(best, 1000 * extract(epoch FROM clock_timestamp() - t0));
    END LOOP;
    RETURN best;
END $$;
CREATE TABLE timings (step int, name text, query text);
INSERT INTO timings VALUES
 (1, 'baseline: SELECT count(*), sum(x)', 'SELECT count(*), sum(x) FROM bench_samples'),
 (2, 'baseline: count(*), sum(x) GROUP BY participant',
     'SELECT sum(n) FROM (SELECT participant, count(*) n, sum(x) FROM bench_samples GROUP BY 1) s'),
 (3, 'make_trace(t_ms, x, y, pupil) GROUP BY participant',
     'SELECT sum(pg_column_size(tr)) FROM (SELECT participant, gazepriv.make_trace(t_ms, x, y, pupil) tr FROM bench_samples GROUP BY 1) s'),
 (4, '+ detect_events, I-VT',
     'SELECT count(*) FROM (SELECT participant, gazepriv.make_trace(t_ms, x, y, pupil) tr FROM bench_samples GROUP BY 1) s,
      gazepriv.detect_events(s.tr, gazepriv.ivt(30, geometry => gazepriv.camera_geometry(60, 46))) e'),
 (5, '+ detect_events, I-DT',
     'SELECT count(*) FROM (SELECT participant, gazepriv.make_trace(t_ms, x, y, pupil) tr FROM bench_samples GROUP BY 1) s,
      gazepriv.detect_events(s.tr, gazepriv.idt(3, 100, geometry => gazepriv.camera_geometry(60, 46))) e'),
 (6, '+ feature_windows (I-VT, 30 s / 0.5 s)',
     'SELECT count(*) FROM (SELECT participant, gazepriv.make_trace(t_ms, x, y, pupil) tr FROM bench_samples GROUP BY 1) s,
      gazepriv.feature_windows(s.tr, gazepriv.ivt(30, geometry => gazepriv.camera_geometry(60, 46)), 5) f');
SQL
echo
echo "## Throughput on 8.4 M rows (Hoppe x 10, 200 recordings); best of 3, work_mem 1GB"
echo
psql -P format=aligned <<'SQL'
WITH n AS (SELECT count(*)::float8 AS rows FROM bench_samples),
     t AS (SELECT step, name, best_ms(query, true) AS serial, best_ms(query, false) AS parallel FROM timings),
     base AS (SELECT serial, parallel FROM t WHERE step = 1)
SELECT t.name AS step, round(t.serial::numeric) AS serial_ms, round((t.serial / base.serial)::numeric, 2) AS vs_scan,
       round((n.rows / t.serial / 1000)::numeric, 1) AS m_rows_per_s,
       round(t.parallel::numeric) AS parallel_ms, round((t.parallel / base.parallel)::numeric, 2) AS vs_parallel_scan
FROM t, base, n ORDER BY t.step;
SQL
