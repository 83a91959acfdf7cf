#!/usr/bin/env bash
# Time-series release in SQL: release_series over the Hoppe 2018 feature windows of
# test/demo/hoppe_features.psql (33 features, 30 s windows every 0.5 s, extracted here from the full
# recordings) brought to the paper's scale, 60 recordings x 48 features x 3,600 windows, as
# bench/series/series_features.hpp does in C++ (each recording's windows repeated to 3,600, features 34..48
# repeating 1..15), against baselines measured in the same run:
#   - scan: reading every row and its features array (SELECT count(*), sum(cardinality(features)));
#   - numpy: the same eight variants written as a vectorised numpy pipeline (the peer a researcher
#     would write), on the same data in memory.
# Also draws bench/out/series_utility.png from bench/out/series_utility.csv (bench/series/series_utility.cpp).
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh

out=bench/out
mkdir -p "$out"
# The public clip bounds of the features (printed by bench_series), as a SQL array, from the benchmark
# build bench/run.sh makes (brought up to date here when run alone).
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build build-bench -j"$(nproc)" --target bench_series >/dev/null
bounds=$(build-bench/bench_series --public-bounds)
log "SQL: starting a throwaway cluster, loading the recordings, extracting the features"
throwaway_cluster
psql=(cluster_psql)
"${psql[@]}" -c "CREATE EXTENSION gazepriv"
load_full_hoppe
start=$(date +%s.%N)
"${psql[@]}" -f test/demo/hoppe_features.psql
extract=$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $start}")
"${psql[@]}" <<'SQL'
CREATE TABLE features AS
SELECT c.participant, c.task, w AS "window", f.features || f.features[1:15] AS features
FROM (SELECT participant, task, count(*) AS n FROM hoppe_features GROUP BY 1, 2) c
CROSS JOIN generate_series(1, 3600) w
JOIN hoppe_features f ON (f.participant, f.task, f."window") = (c.participant, c.task, (w - 1) % c.n + 1);
VACUUM ANALYZE features;
SQL
"${psql[@]}" -At -F, -c "SELECT participant, task, array_to_string(features, ',') FROM features
                         ORDER BY task, participant, \"window\"" >"$dir/features.csv"

# k: one eighth of each block's bins, as in bench/series/series.cpp.
variants="lpa:0:0 fpa:451:0 cfpa:5:32 cfpa:9:64 cfpa:17:128 dcfpa:5:32 dcfpa:9:64 dcfpa:17:128"

log "numpy peer (vectorised, same data, same k; empirical Eq. 7 sensitivities)"
"$PYTHON" - "$dir/features.csv" $variants >"$dir/numpy.txt" <<'EOF'
import sys, time
import numpy as np

n = 3600
keys = np.loadtxt(sys.argv[1], delimiter=",", usecols=(1,), dtype=str)
values = np.loadtxt(sys.argv[1], delimiter=",", usecols=range(2, 50))
# One array per task: participants x n x 48 (rows come ordered by task, participant, window).
groups = [values[keys == task].reshape(-1, n, 48) for task in dict.fromkeys(keys)]
rng = np.random.default_rng()

def chunk_sums(values, chunk):  # sum over each chunk along the last axis
    return np.add.reduceat(values, np.arange(0, values.shape[-1], chunk), axis=-1)

def eq7(signals, chunk, norm):  # signals: participants x n; max over pairs per chunk
    p = signals.shape[0]
    i, j = np.triu_indices(p, 1)
    d = signals[i] - signals[j]
    s = chunk_sums(np.abs(d) if norm == 1 else d * d, chunk)
    best = s.max(axis=0)
    return best if norm == 1 else np.sqrt(best)

def fpa_blocks(blocks, k, lam):  # blocks: ... x m
    m = blocks.shape[-1]
    f = np.fft.rfft(blocks, axis=-1)
    f[..., k:] = 0
    noise = rng.laplace(0, 1, f[..., :k].shape + (2,)) * lam[..., None, None]
    f[..., :k] += noise[..., 0] + 1j * noise[..., 1]
    f[..., 0] = f[..., 0].real
    if m % 2 == 0 and k == m // 2 + 1:
        f[..., m // 2] = f[..., m // 2].real
    return np.fft.irfft(f, n=m, axis=-1)

def release(method, k, chunk, eps=1.0):
    out = []
    for group in groups:
        x = group.transpose(2, 0, 1)  # features x participants x n
        y_all = np.empty_like(x)
        for f in range(48):
            s = x[f]
            if method == "lpa":
                d1 = eq7(s, n, 1)[0]
                y = s + rng.laplace(0, d1 / eps, s.shape)
            elif method == "fpa":
                d2 = eq7(s, n, 2)
                y = fpa_blocks(s, k, np.sqrt(n * k) * d2 / eps)
            else:
                c = chunk
                full = n // c * c
                src = s
                if method == "dcfpa":
                    src = s.copy()
                    src[:, 1:] -= s[:, :-1]
                    src[:, ::c] = s[:, ::c]
                d2 = eq7(src, c, 2)
                y = np.empty_like(s)
                body = src[:, :full].reshape(s.shape[0], -1, c)
                y[:, :full] = fpa_blocks(body, k, np.sqrt(c * k) * d2[: full // c] / eps).reshape(s.shape[0], full)
                if full < n:
                    m = n - full
                    y[:, full:] = fpa_blocks(src[:, full:], min(k, m // 2 + 1), np.sqrt(m * min(k, m // 2 + 1)) * d2[-1:] / eps)
                if method == "dcfpa":
                    y = np.concatenate([np.cumsum(y[:, i:i + c], axis=1) for i in range(0, n, c)], axis=1)
            y_all[f] = y
        out.append(y_all)
    return out

for spec in sys.argv[2:]:
    method, k, chunk = spec.split(":")
    times = []
    for _ in range(2):
        start = time.perf_counter()
        release(method, int(k), int(chunk))
        times.append(time.perf_counter() - start)
    print(f"{method}-{chunk} {min(times):.3f}")
EOF
cat "$dir/numpy.txt"

seconds() { # seconds SQL: best of three runs of the statement
    local best=
    for _ in 1 2 3; do
        local t
        t=$("${psql[@]}" -c '\timing on' -c "$1" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1)
        if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
    done
    awk "BEGIN{printf \"%.3f\", $best / 1000}"
}
rows=$("${psql[@]}" -At -c "SELECT count(*) FROM features")
recordings=$("${psql[@]}" -At -c "SELECT count(*) FROM (SELECT DISTINCT participant, task FROM features) s")
windows=$("${psql[@]}" -At -c "SELECT count(*) FROM hoppe_features")
scan=$(seconds "SELECT count(*), sum(cardinality(features)) FROM features")
echo "hoppe_features.psql on the full recordings: $windows windows of 33 features in $extract s"
echo "features: $rows rows ($recordings recordings x 3600 windows) of 48 features; scan baseline ${scan} s"
echo
echo "epsilon = 1 per feature, length => 3600; seconds (wall) per release_series call; best of three;"
echo "per feature: ms per feature (empirical, default k)"
echo
echo "| variant | default k (public rule: 1), empirical | clipped | vs scan | per feature | k = 1/8 of the bins, empirical | numpy peer (same k) | numpy / SQL |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
total=0
total_clipped=0
total_eighth=0
total_numpy=0
for spec in $variants; do
    IFS=: read -r method k chunk <<<"$spec"
    name=$(tr a-z A-Z <<<"$method")
    karg=$k
    carg=$chunk
    [ "$chunk" != 0 ] && name="$name-$chunk" || carg=64
    [ "$k" = 0 ] && karg=NULL
    call="gazepriv.release_series('features', '$method', 1, chunk => $carg, length => 3600"
    e=$(seconds "SELECT count(*) FROM $call, sensitivity => 'empirical')")
    c=$(seconds "SELECT count(*) FROM $call, bounds => '$bounds')")
    e8=$(seconds "SELECT count(*) FROM $call, k => $karg, sensitivity => 'empirical')")
    np=$(awk -v key="$method-$chunk" '$1 == key {print $2}' "$dir/numpy.txt")
    total=$(awk "BEGIN{print $total + $e}")
    total_clipped=$(awk "BEGIN{print $total_clipped + $c}")
    total_eighth=$(awk "BEGIN{print $total_eighth + $e8}")
    total_numpy=$(awk "BEGIN{print $total_numpy + $np}")
    awk -v n="$name" -v e="$e" -v c="$c" -v s="$scan" -v e8="$e8" -v np="$np" \
        'BEGIN{printf "| %s | %.3f | %.3f | %.1fx | %.1f | %.3f | %.3f | %.1fx |\n", n, e, c, e / s, e / 48 * 1000, e8, np, np / e8}'
done
awk -v t="$total" -v c="$total_clipped" -v s="$scan" -v e8="$total_eighth" -v np="$total_numpy" \
    'BEGIN{printf "| all eight | %.3f | %.3f | %.1fx | %.1f | %.3f | %.3f | %.1fx |\n", t, c, t / s, t / 48 * 1000, e8, np, np / e8}'

if [ -f "$out/series_utility.csv" ]; then
    log "utility plot"
    "$PYTHON" - "$out/series_utility.csv" "$out/series_utility.png" <<'EOF'
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = list(csv.DictReader(open(sys.argv[1])))
fig, axes = plt.subplots(2, 2, figsize=(12, 9), sharex=True)
for col, setting in enumerate(["paper", "strict"]):
    for row, (key, metric) in enumerate([("utility", "1 / mean |NMSE| (the paper's metric)"),
                                          ("median_utility", "1 / median |NMSE|")]):
        ax = axes[row][col]
        for method in dict.fromkeys(r["method"] for r in rows):
            pts = [(float(r["epsilon"]), float(r[key])) for r in rows if r["setting"] == setting and r["method"] == method]
            style = "--" if method.startswith("Exponential") else "-"
            label = method + (" (epsilon per value: not comparable)" if method.startswith("Exponential") else "")
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=label, marker="o", markersize=3)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{setting} setting: {metric}", fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        if row == 1:
            ax.set_xlabel("epsilon per feature")
handles, labels = axes[0][0].get_legend_handles_labels()
fig.legend(handles, labels, loc="lower center", ncol=5, fontsize=8)
fig.suptitle("Hoppe 2018 feature signals (hoppe_features.psql: 33 features, 30 s windows every 0.5 s, 20 participants x 3 tasks)\n"
             "paper: empirical Eq. 7 sensitivity + NMSE-optimal k (non-private); strict: public bounds + public k")
fig.tight_layout(rect=(0, 0.06, 1, 1))
fig.savefig(sys.argv[2], dpi=110)
print("wrote", sys.argv[2])
EOF
fi
