#!/usr/bin/env bash
# Kaleido through SQL on the full real recordings (Hoppe 2018: 843k samples at 60 Hz; Uniss-FGD: 544k
# at 300 Hz), on a throwaway cluster. Every figure comes with a baseline measured in the same run:
#   1. batch throughput of gazepriv.kaleido() against PostgreSQL's own scan of the rows, and the same
#      algorithm as a plain Python loop (the peer a researcher would write; not private);
#   2. live-insert throughput through the kaleido_publish trigger (COPY, 1000-row INSERTs, single-row
#      INSERTs) against the same inserts into a plain table;
#   3. utility across epsilon and r: mean displacement of the released point and how often it stays in
#      the raw sample's coarse area of interest, against a constant release (the image or frame centre).
# Tables go to stdout, the utility table also to bench/out/kaleido_utility.csv and a plot to
# bench/out/kaleido_utility.png.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh
OUT=$REPO/bench/out
mkdir -p "$OUT"
throwaway_cluster >/dev/null
psql_run() { cluster_psql "$@"; }
now() { date +%s.%N; }
# best_of N SQL: the shortest wall time of N runs, in seconds.
best_of() {
    local best=1e9 start end
    for _ in $(seq "$1"); do
        start=$(now)
        psql_run -c "$2" >/dev/null
        end=$(now)
        best=$(awk -v a="$best" -v b="$end" -v c="$start" 'BEGIN { d = b - c; print (d < a ? d : a) }')
    done
    echo "$best"
}
# run_file FILE: wall time of running a SQL file.
run_file() {
    local start end
    start=$(now)
    psql_run -f "$1" >/dev/null
    end=$(now)
    awk -v b="$end" -v c="$start" 'BEGIN { print b - c }'
}
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.2f", n / s / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

echo "loading the real recordings from $SHARED_DATA"
psql_run -c "CREATE EXTENSION gazepriv"
load_full_hoppe
load_full_uniss
psql_run <<SQL
VACUUM ANALYZE hoppe_samples;
VACUUM ANALYZE uniss_samples;
CREATE VIEW hoppe AS SELECT * FROM hoppe_samples;
CREATE VIEW uniss AS SELECT participant, stimulus AS image, t_ms, x, y, pupil_left, pupil_right, event, fixation_index
    FROM uniss_samples;
-- One array per participant, in time order (what kaleido() takes).
CREATE TABLE hoppe_streams AS SELECT participant, array_agg(t_ms ORDER BY t_ms) t, array_agg(x ORDER BY t_ms) x,
    array_agg(y ORDER BY t_ms) y FROM hoppe GROUP BY participant;
CREATE TABLE uniss_streams AS SELECT participant, array_agg(t_ms ORDER BY t_ms) t, array_agg(x ORDER BY t_ms) x,
    array_agg(y ORDER BY t_ms) y FROM uniss GROUP BY participant;
-- The live feed's input: the Hoppe samples as devices would send them, interleaved by time.
COPY (SELECT participant, t_ms, x, y FROM hoppe ORDER BY t_ms, participant) TO '$dir/hoppe_live.csv' WITH (FORMAT csv);
SQL
N_HOPPE=$(psql_run -At -c "SELECT count(*) FROM hoppe")
N_UNISS=$(psql_run -At -c "SELECT count(*) FROM uniss")

echo
echo "1. Batch throughput (M samples/s, best of 3)"
scan=$(best_of 3 "SELECT count(*), sum(x), sum(y) FROM hoppe")
unnest=$(best_of 3 "SELECT count(*), sum(u.x) FROM hoppe_streams s, unnest(s.t, s.x, s.y) AS u(t, x, y)")
from_arrays=$(best_of 3 "SELECT count(*), sum(k.x) FROM hoppe_streams s, gazepriv.kaleido(s.t, s.x, s.y, 1, 60, 0.05, max_tests => 20) k")
end_to_end=$(best_of 3 "SELECT count(*), sum(k.x) FROM (SELECT array_agg(t_ms ORDER BY t_ms) t, array_agg(x ORDER BY t_ms) x, array_agg(y ORDER BY t_ms) y FROM hoppe GROUP BY participant) s, gazepriv.kaleido(s.t, s.x, s.y, 1, 60, 0.05, max_tests => 20) k")
uniss_arrays=$(best_of 3 "SELECT count(*), sum(k.x) FROM uniss_streams s, gazepriv.kaleido(s.t, s.x, s.y, 1, 300, 30, max_tests => 20) k")
uniss_scan=$(best_of 3 "SELECT count(*), sum(x), sum(y) FROM uniss")
python=$("$PYTHON" bench/kaleido/kaleido_loop.py "$SHARED_DATA" | awk '{ print $2 }')
printf '%-62s %8s %10s\n' "Hoppe, epsilon 1, w 60, r 0.05 ($N_HOPPE samples)" "M/s" "vs scan"
printf '%-62s %8s %10s\n' "baseline: SELECT count(*), sum(x), sum(y) (PostgreSQL's scan)" "$(rate "$N_HOPPE" "$scan")" "1.00x"
printf '%-62s %8s %10s\n' "baseline: unnest(t, x, y) of the same arrays (a row per sample)" "$(rate "$N_HOPPE" "$unnest")" "$(ratio "$scan" "$unnest")x"
printf '%-62s %8s %10s\n' "peer: the same loop in plain Python (insecure noise)" "$(rate "$N_HOPPE" "$python")" "$(ratio "$scan" "$python")x"
printf '%-62s %8s %10s\n' "kaleido() over per-participant arrays" "$(rate "$N_HOPPE" "$from_arrays")" "$(ratio "$scan" "$from_arrays")x"
printf '%-62s %8s %10s\n' "kaleido() including array_agg(... ORDER BY t_ms)" "$(rate "$N_HOPPE" "$end_to_end")" "$(ratio "$scan" "$end_to_end")x"
printf '%-62s %8s %10s\n' "Uniss, epsilon 1, w 300, r 30 px ($N_UNISS samples): scan" "$(rate "$N_UNISS" "$uniss_scan")" "1.00x"
printf '%-62s %8s %10s\n' "Uniss: kaleido() over per-participant arrays" "$(rate "$N_UNISS" "$uniss_arrays")" "$(ratio "$uniss_scan" "$uniss_arrays")x"

echo
echo "2. Live inserts (k samples/s): a plain table against a table with the kaleido_publish trigger"
psql_run >/dev/null <<'SQL'
CREATE TABLE plain (participant text, t_ms float8, x float8, y float8);
CREATE TABLE fed (participant text, t_ms float8, x float8, y float8);
SELECT gazepriv.kaleido_attach('fed', 'fed_released', 'participant', epsilon => 1, w => 60, r => 0.05);
SQL
# Statement files: 1000-row INSERTs of the first 200k samples, one device-second (60 rows of one
# participant) per INSERT for 50k samples, and 10k single-row INSERTs.
psql_run -At -c "SELECT 'INSERT INTO TARGET VALUES ' || string_agg(format('(%L, %s, %s, %s)', participant, t_ms, coalesce(x::text, 'NULL'), coalesce(y::text, 'NULL')), ', ' ORDER BY t_ms, participant) || ';' FROM (SELECT *, (row_number() OVER (ORDER BY t_ms, participant) - 1) / 1000 AS batch FROM hoppe ORDER BY t_ms, participant LIMIT 200000) s GROUP BY batch ORDER BY batch" >"$dir/multi.sql"
psql_run -At -c "SELECT 'INSERT INTO TARGET VALUES ' || string_agg(format('(%L, %s, %s, %s)', participant, t_ms, coalesce(x::text, 'NULL'), coalesce(y::text, 'NULL')), ', ' ORDER BY t_ms) || ';' FROM (SELECT * FROM hoppe ORDER BY t_ms, participant LIMIT 50000) s GROUP BY participant, floor(t_ms / 1000) ORDER BY floor(t_ms / 1000), participant" >"$dir/second.sql"
psql_run -At -c "SELECT format('INSERT INTO TARGET VALUES (%L, %s, %s, %s);', participant, t_ms, coalesce(x::text, 'NULL'), coalesce(y::text, 'NULL')) FROM hoppe ORDER BY t_ms, participant LIMIT 10000" >"$dir/single.sql"
reset_tables() { psql_run -c "TRUNCATE plain, fed, fed_released" -c "SELECT gazepriv.kaleido_reset('fed')" >/dev/null; }
live() { # live LABEL ROWS PLAIN_SECONDS FED_SECONDS
    printf '%-44s %12s %12s %10s\n' "$1" "$(awk -v n="$2" -v s="$3" 'BEGIN { printf "%.1f", n / s / 1e3 }')" \
        "$(awk -v n="$2" -v s="$4" 'BEGIN { printf "%.1f", n / s / 1e3 }')" "$(ratio "$3" "$4")x"
}
printf '%-44s %12s %12s %10s\n' "" "plain table" "kaleido feed" "ratio"
reset_tables
copy_plain=$(best_of 1 "\\copy plain FROM '$dir/hoppe_live.csv' WITH (FORMAT csv)")
copy_fed=$(best_of 1 "\\copy fed FROM '$dir/hoppe_live.csv' WITH (FORMAT csv)")
live "COPY, $N_HOPPE rows (20 streams)" "$N_HOPPE" "$copy_plain" "$copy_fed"
reset_tables
sed 's/TARGET/plain/' "$dir/multi.sql" >"$dir/multi_plain.sql"
sed 's/TARGET/fed/' "$dir/multi.sql" >"$dir/multi_fed.sql"
live "INSERT of 1000 rows, 200 statements" 200000 "$(run_file "$dir/multi_plain.sql")" "$(run_file "$dir/multi_fed.sql")"
reset_tables
sed 's/TARGET/plain/' "$dir/second.sql" >"$dir/second_plain.sql"
sed 's/TARGET/fed/' "$dir/second.sql" >"$dir/second_fed.sql"
live "INSERT of one device-second (60 rows)" 50000 "$(run_file "$dir/second_plain.sql")" "$(run_file "$dir/second_fed.sql")"
reset_tables
sed 's/TARGET/plain/' "$dir/single.sql" >"$dir/single_plain.sql"
sed 's/TARGET/fed/' "$dir/single.sql" >"$dir/single_fed.sql"
live "single-row INSERT, 10000 statements" 10000 "$(run_file "$dir/single_plain.sql")" "$(run_file "$dir/single_fed.sql")"

echo
echo "3. Utility on the full recordings (w = 1 s of samples, t_skip = 1000 ms / max_tests, l_thresh = 3 r, h = 2)"
psql_run -A -F, -P footer=off >"$OUT/kaleido_utility.csv" <<'SQL'
-- Coarse areas of interest: Uniss, the face image (x 359..921, y 131..893) in 3 x 4 cells, plus off-image;
-- Hoppe, the scene-camera frame [0,1]^2 in 4 x 4 cells, plus off-frame.
CREATE FUNCTION uniss_aoi(x float8, y float8) RETURNS int IMMUTABLE LANGUAGE sql AS $$
    SELECT CASE WHEN x >= 359 AND x < 921 AND y >= 131 AND y < 893
                THEN floor((x - 359) / (562 / 3.0))::int + 3 * floor((y - 131) / (762 / 4.0))::int ELSE -1 END $$;
CREATE FUNCTION hoppe_aoi(x float8, y float8) RETURNS int IMMUTABLE LANGUAGE sql AS $$
    SELECT CASE WHEN x >= 0 AND x < 1 AND y >= 0 AND y < 1 THEN floor(x * 4)::int + 4 * floor(y * 4)::int ELSE -1 END $$;
WITH params(data, epsilon, r, max_tests) AS (
    SELECT 'uniss', e, r, m FROM unnest(ARRAY[1, 2, 5, 10, 20]::float8[]) e, unnest(ARRAY[20, 40, 80]::float8[]) r,
                                 unnest(ARRAY[2, 20]) m
    UNION ALL
    SELECT 'hoppe', e, r, m FROM unnest(ARRAY[1, 2, 5, 10, 20]::float8[]) e,
                                 unnest(ARRAY[0.02, 0.05, 0.1]::float8[]) r, unnest(ARRAY[2, 20]) m),
released AS (
    SELECT p.data, p.epsilon, p.r, p.max_tests, k.published,
           sqrt((k.x - k.raw_x) ^ 2 + (k.y - k.raw_y) ^ 2) AS displacement,
           CASE p.data WHEN 'uniss' THEN uniss_aoi(k.x, k.y) = uniss_aoi(k.raw_x, k.raw_y)
                       ELSE hoppe_aoi(k.x, k.y) = hoppe_aoi(k.raw_x, k.raw_y) END AS same_aoi
    FROM params p
    JOIN (SELECT 'uniss' AS data, * FROM uniss_streams UNION ALL SELECT 'hoppe', * FROM hoppe_streams) s
      ON s.data = p.data
    -- ROWS FROM zips the release with the raw samples, row by row.
    CROSS JOIN LATERAL ROWS FROM (gazepriv.kaleido(s.t, s.x, s.y, p.epsilon,
                                                   CASE p.data WHEN 'uniss' THEN 300 ELSE 60 END, p.r,
                                                   l_thresh => 3 * p.r, t_skip => 1000.0 / p.max_tests,
                                                   max_tests => p.max_tests),
                                  unnest(s.x), unnest(s.y))
                       AS k(t_ms, x, y, published, action, epsilon_spent, noise_radius, raw_x, raw_y)
    WHERE k.raw_x IS NOT NULL AND k.raw_y IS NOT NULL AND k.x IS NOT NULL)
SELECT data, epsilon, r, max_tests,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY displacement)::numeric, 3) AS median_displacement,
       round(avg(displacement)::numeric, 3) AS mean_displacement,
       round(avg(same_aoi::int)::numeric, 3) AS same_aoi, round(avg(published::int)::numeric, 3) AS published
FROM released GROUP BY data, epsilon, r, max_tests
UNION ALL
-- Baseline: a constant release at the image (frame) centre.
SELECT 'uniss', 'Infinity', 0, 0,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY sqrt((640 - x) ^ 2 + (512 - y) ^ 2))::numeric, 3),
       round(avg(sqrt((640 - x) ^ 2 + (512 - y) ^ 2))::numeric, 3),
       round(avg((uniss_aoi(640, 512) = uniss_aoi(x, y))::int)::numeric, 3), 0
FROM uniss WHERE x IS NOT NULL AND y IS NOT NULL
UNION ALL
SELECT 'hoppe', 'Infinity', 0, 0,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY sqrt((0.5 - x) ^ 2 + (0.5 - y) ^ 2))::numeric, 3),
       round(avg(sqrt((0.5 - x) ^ 2 + (0.5 - y) ^ 2))::numeric, 3),
       round(avg((hoppe_aoi(0.5, 0.5) = hoppe_aoi(x, y))::int)::numeric, 3), 0
FROM hoppe WHERE x IS NOT NULL AND y IS NOT NULL
ORDER BY 1, 4, 3, 2;
SQL
column -s, -t "$OUT/kaleido_utility.csv" | sed 's/Infinity/const   /'
echo "(epsilon 'const' = the constant-centre baseline; displacement in px for Uniss, frame units for Hoppe)"

"$PYTHON" - "$OUT/kaleido_utility.csv" "$OUT/kaleido_utility.png" <<'PY'
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = list(csv.DictReader(open(sys.argv[1])))
fig, axes = plt.subplots(2, 2, figsize=(11, 8))
for row_index, (data, unit) in enumerate([("uniss", "px"), ("hoppe", "frame units")]):
    mine = [r for r in rows if r["data"] == data and r["epsilon"] != "Infinity"]
    const = [r for r in rows if r["data"] == data and r["epsilon"] == "Infinity"][0]
    for (r_value, tests) in sorted({(float(r["r"]), int(r["max_tests"])) for r in mine}):
        pts = sorted((float(r["epsilon"]), float(r["median_displacement"]), float(r["same_aoi"]))
                     for r in mine if float(r["r"]) == r_value and int(r["max_tests"]) == tests)
        style = "-" if tests <= 2 else ":"
        label = f"r = {r_value:g} {unit}, max_tests = {tests}"
        eps = [p[0] for p in pts]
        axes[row_index][0].plot(eps, [p[1] for p in pts], style, marker="o", label=label)
        axes[row_index][1].plot(eps, [p[2] for p in pts], style, marker="o", label=label)
    axes[row_index][0].axhline(float(const["median_displacement"]), color="grey", linestyle="--",
                               label="constant centre")
    axes[row_index][1].axhline(float(const["same_aoi"]), color="grey", linestyle="--", label="constant centre")
    axes[row_index][0].set(xscale="log", yscale="log", xlabel="epsilon per window (1 s)",
                           ylabel=f"median displacement ({unit})", title=f"{data}: distance to the raw gaze")
    axes[row_index][1].set(xscale="log", ylim=(0, 1), xlabel="epsilon per window (1 s)",
                           ylabel="share in the raw sample's coarse AOI", title=f"{data}: area of interest kept")
    for ax in axes[row_index]:
        ax.legend(fontsize=6)
        ax.grid(alpha=0.3)
fig.suptitle("Kaleido on the real recordings (w = 1 s, t_skip = 1 s / max_tests, l_thresh = 3 r, h = 2)")
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
print("plot:", sys.argv[2])
PY
