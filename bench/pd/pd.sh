#!/usr/bin/env bash
# Plausible-deniability synthesis on the Hoppe feature windows (all 20 recordings; 33 features per 30 s window
# every 0.5 s: test/demo/hoppe_features.psql) and on a 10x replication:
#   1. the core against the straightforward test (build-bench/bench_pd on the exported features);
#   2. pd_synthesize end to end in SQL, against PostgreSQL's scan of the same rows and a numpy peer;
#   3. pass rates across omega, k and gamma, with bins over the data range and over the public bounds of
#      test/demo/hoppe_feature_bounds.psql (table, and bench/out/pd_pass_rates.png);
#   4. utility (task accuracy) and re-identification (participant accuracy) of a k-NN classifier trained on
#      synthetic data from the first half of every participant's windows and tested on the raw second half
#      (less the windows that overlap the first half).
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh
out=bench/out
mkdir -p "$out"
throwaway_cluster
psql() { cluster_psql "$@"; }
psql -c "CREATE EXTENSION gazepriv"
load_full_hoppe
psql -f test/demo/hoppe_features.psql -f test/demo/hoppe_feature_bounds.psql
psql <<'SQL'
CREATE TABLE hoppe_features_x10 AS
SELECT participant, task, "window" + r * 1000000 AS "window", features
FROM hoppe_features, generate_series(0, 9) r;
-- The utility / re-identification split: the first half of each participant's windows in each task is
-- released (synthesised); the second half, less its first 59 windows (which overlap the last released 30 s
-- window: windows start every 0.5 s), is the raw test set.
CREATE TABLE hoppe_numbered AS
SELECT *, row_number() OVER w AS i, count(*) OVER (PARTITION BY participant, task) AS n
FROM hoppe_features WINDOW w AS (PARTITION BY participant, task ORDER BY "window");
CREATE TABLE hoppe_release AS SELECT participant, task, "window", features FROM hoppe_numbered WHERE i <= n / 2;
CREATE TABLE hoppe_test AS SELECT participant, task, "window", features FROM hoppe_numbered WHERE i > n / 2 + 59;
VACUUM ANALYZE;
SQL
rows=$(psql -At -c "SELECT count(*) FROM hoppe_features")
features=$(psql -At -c "SELECT max(cardinality(features)) FROM hoppe_features")
echo "Hoppe feature windows: $rows windows of $features features, $(psql -At -c \
    "SELECT count(DISTINCT participant) || ' participants, ' || count(DISTINCT task) || ' tasks'
     FROM hoppe_features") (features: test/demo/hoppe_features.psql)"

export_csv() { # export_csv QUERY FILE: participant,task,f1..fm
    { printf 'participant,task'; for j in $(seq 1 "$features"); do printf ',f%s' "$j"; done; echo
      psql -At -F, -c "SELECT participant, task, array_to_string(features, ',') FROM ($1) s"; } >"$2"
}
export_csv "SELECT * FROM hoppe_features ORDER BY participant, task, \"window\"" "$out/pd_hoppe_features.csv"
# The public bounds as the float8[][] of pd_synthesize's bounds argument.
bounds="(SELECT array_agg(ARRAY[lower, upper] ORDER BY feature) FROM hoppe_feature_bounds)"

echo
echo "== 1. the core: ours against the straightforward test, same run"
[ -x build-bench/bench_pd ] || { cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null &&
                                  cmake --build build-bench --target bench_pd -j"$(nproc)" >/dev/null; }
build-bench/bench_pd "$out/pd_hoppe_features.csv"

echo "== 2. SQL end to end (best of 3), the scan of the same rows, and the numpy peer"
best_ms() { # best_ms QUERY: the best of three \timing measurements, in ms
    psql -c '\timing on' -c "$1" -c "$1" -c "$1" | sed -nE 's/^Time: ([0-9.]+) ms.*/\1/p' | sort -g | head -1
}
printf '%-46s %12s %12s\n' "" "the data" "10x"
row() { # row LABEL QUERY-WITH-@
    local one ten
    one=$(best_ms "${2//@/hoppe_features}")
    ten=$(best_ms "${2//@/hoppe_features_x10}")
    printf '%-46s %10.1f ms %10.1f ms\n' "$1" "$one" "$ten"
}
row "scan: count(*), sum(cardinality(features))" "SELECT count(*), sum(cardinality(features)) FROM @"
row "pd_synthesize marginals (paper), k=5" "SELECT count(*) FROM gazepriv.pd_synthesize('@', 5, 2)"
row "pd_synthesize seed-based last omega=2, k=5" \
    "SELECT count(*) FROM gazepriv.pd_synthesize('@', 5, 2, model => 'seed_based', omega => 2, resample => 'last')"
row "pd_synthesize seed-based random omega=2, k=5" \
    "SELECT count(*) FROM gazepriv.pd_synthesize('@', 5, 2, model => 'seed_based', omega => 2, max_attempts => 1)"
row "pd_synthesize seed-based random omega=2, k=50" \
    "SELECT count(*) FROM gazepriv.pd_synthesize('@', 50, 2, model => 'seed_based', omega => 2, max_attempts => 1)"
row "pd_synthesize seed-based random omega=30, k=5" \
    "SELECT count(*) FROM gazepriv.pd_synthesize('@', 5, 2, model => 'seed_based', omega => 30, max_attempts => 1)"
row "pd_synthesize seed-based random omega=30, k=50" \
    "SELECT count(*) FROM gazepriv.pd_synthesize('@', 50, 2, model => 'seed_based', omega => 30, max_attempts => 1)"
row "  the same with up to 100 attempts per seed" \
    "SELECT count(*) FROM gazepriv.pd_synthesize('@', 50, 2, model => 'seed_based', omega => 30)"
echo
"$PYTHON" bench/pd/pd.py numpy "$out/pd_hoppe_features.csv"

echo
echo "== 3. pass rates (released / candidates, one candidate per seed), seed-based random, 30 bins"
echo "test,bins,omega,k,gamma,pass_rate" >"$out/pd_pass_rates.csv"
rate() { # rate TEST BINS OMEGA K GAMMA: appends one pass rate
    local b=NULL
    [ "$2" = public ] && b=$bounds
    echo "$1,$2,$3,$4,$5,$(psql -At -c "SELECT round(sum(released)::numeric / sum(candidates), 4) FROM
        gazepriv.pd_synthesis_stats('hoppe_features', $4, $5, model => 'seed_based', omega => $3, test => '$1',
                                    bounds => $b, max_attempts => 1)")" >>"$out/pd_pass_rates.csv"
}
for bins in data public; do
    for omega in 2 16 24 28 30 32; do
        for k in 2 5 10 20 50 100; do rate record $bins $omega $k 2; done
    done
done
for k in 2 5 10 20 50 100; do
    for gamma in 1.5 4 10; do rate record data 30 $k $gamma; done
done
for k in 2 5 10 20; do # 20 participants: at most 19 others
    for gamma in 1.5 2 4 10; do rate identity data 30 $k $gamma; done
done
psql <<SQL
CREATE TEMP TABLE rates (test text, bins text, omega int, k int, gamma float8, pass_rate float8);
\copy rates FROM '$out/pd_pass_rates.csv' WITH (FORMAT csv, HEADER true)
\echo 'record test, gamma = 2, by omega (features resampled of 33) and k; bins over the data range / the public bounds:'
SELECT omega, string_agg(format('%s / %s', round(pass_rate::numeric, 2),
                                (SELECT round(p.pass_rate::numeric, 2) FROM rates p WHERE p.bins = 'public'
                                 AND p.omega = r.omega AND p.k = r.k AND p.test = 'record' AND p.gamma = 2)),
                         '  |  ' ORDER BY k) AS "k = 2  |  5  |  10  |  20  |  50  |  100"
FROM rates r WHERE test = 'record' AND bins = 'data' AND gamma = 2 GROUP BY omega ORDER BY omega;
\echo 'omega = 30, data-range bins, by gamma:'
SELECT test, k, max(pass_rate) FILTER (WHERE gamma = 1.5) AS "gamma 1.5", max(pass_rate) FILTER (WHERE gamma = 2) AS "gamma 2",
       max(pass_rate) FILTER (WHERE gamma = 4) AS "gamma 4", max(pass_rate) FILTER (WHERE gamma = 10) AS "gamma 10"
FROM rates WHERE omega = 30 AND bins = 'data' GROUP BY test, k ORDER BY test DESC, k;
SQL
"$PYTHON" bench/pd/pd.py plot "$out/pd_pass_rates.csv" "$out/pd_pass_rates.png"
echo "marginals (the paper's model) pass every candidate whenever a task has k records: it is seedless"

echo
echo "== 4. utility and re-identification (synthesised from the first half, tested on the raw second half less its"
echo "   windows overlapping the first)"
trains=("raw first half (no privacy)=$out/pd_train_raw.csv")
export_csv "SELECT * FROM hoppe_release" "$out/pd_train_raw.csv"
synth() { # synth NAME ARGUMENTS
    local file
    file="$out/pd_train_$(echo "$1" | tr -c 'a-z0-9' '_').csv"
    export_csv "SELECT * FROM gazepriv.pd_synthesize('hoppe_release', $2)" "$file"
    trains+=("$1=$file")
}
synth "marginals k=5 gamma=2 (paper)" "5, 2"
synth "marginals k=5, public bounds" "5, 2, bounds => $bounds"
synth "randomized marginals k=50 (DP), public bounds" \
    "50, 2, epsilon0 => 1, target_delta => 1e-6, model_epsilon => 1, bounds => $bounds"
synth "seed-based random omega=2 k=5" "5, 2, model => 'seed_based', omega => 2"
synth "seed-based random omega=24 k=5" "5, 2, model => 'seed_based', omega => 24"
synth "seed-based random omega=30 k=5" "5, 2, model => 'seed_based', omega => 30"
synth "seed-based random omega=30 k=50" "50, 2, model => 'seed_based', omega => 30"
synth "seed-based random omega=30 identity k=10" "10, 2, model => 'seed_based', omega => 30, test => 'identity'"
synth "seed-based random omega=30 k=5, public bounds" "5, 2, model => 'seed_based', omega => 30, bounds => $bounds"
export_csv "SELECT * FROM hoppe_test" "$out/pd_test_raw.csv"
"$PYTHON" bench/pd/pd.py evaluate "$out/pd_test_raw.csv" "${trains[@]}"
echo
echo "The randomized release above costs (record-level add/remove, largest task of the release half):"
psql -c "SELECT round(epsilon::numeric, 1) AS epsilon, delta, guarantee, non_private, parameters ->> 't' AS t,
                parameters ->> 'candidates' AS candidates
         FROM gazepriv.pd_release_cost(50, 2, features => $features,
             records => (SELECT max(n) FROM (SELECT count(*) n FROM hoppe_release GROUP BY task) s),
             epsilon0 => 1, target_delta => 1e-6, model_epsilon => 1, bounds => $bounds)"
