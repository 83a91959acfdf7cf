#!/usr/bin/env bash
# A1: no calibration may depend on a float converging. Edge inputs (sensitivity 1e308, epsilon or delta
# 5e-324, NaN, +-Infinity) to every entry that calibrates noise, called by an analyst under
# statement_timeout = 1s, end at once with 22023 (before, the bracketing doubled Infinity forever and only
# SIGKILL, a cluster restart, stopped it).
. "$(dirname "$0")/roles_and_data.bash"
uniss_dataset curator_a
as curator_a <<'SQL' >/dev/null
SELECT gazepriv.grant_budget('uniss', 'analyst_a', 10, 1e-5);
SELECT gazepriv.set_release_policy('uniss', 'heatmap', '{"cap": 1}');
SELECT gazepriv.set_release_policy('uniss', 'kaleido', '{"w": 30, "r": 50}');
SELECT gazepriv.grant_budget('uniss', 'analyst_a', 10, 0, accounting => 'basic', kind => 'w-event');
SQL
# edge SQL: "SQLSTATE seconds" of SQL run by analyst_a under statement_timeout = 1s.
edge() {
    local start end state
    start=$(date +%s.%N)
    state=$(sqlstate analyst_a "SET statement_timeout = '1s'; $1")
    end=$(date +%s.%N)
    echo "$state $(awk -v a="$start" -v b="$end" 'BEGIN { print (b - a < 1.5) ? "fast" : "slow:" b - a }')"
}
calls=()
for v in 1e308 NaN Infinity -Infinity; do
    calls+=("SELECT gazepriv.gaussian_sigma('$v', 1, 1e-5)"
            "SELECT gazepriv.gaussian_mechanism(1, '$v', 1, 1e-5)"
            "SELECT gazepriv.gaussian_mechanism(ARRAY[1, 2]::float8[], '$v', 1, 1e-5)"
            "SELECT gazepriv.laplace_mechanism(1, '$v', 1e-6)"
            "SELECT gazepriv.laplace_scale('$v', 1e-6)")
done
# Epsilon below the floor 1e-6 (5e-324 made every scale overflow) or outside the finite range.
for v in 5e-324 1e-7 NaN Infinity -Infinity 0 -1; do
    calls+=("SELECT gazepriv.gaussian_sigma(1e308, '$v', 1e-5)"
            "SELECT gazepriv.gaussian_sigma(1, '$v', 1e-5)"
            "SELECT gazepriv.gaussian_mechanism(1, 1, '$v', 1e-5)"
            "SELECT gazepriv.laplace_mechanism(1, 1, '$v')"
            "SELECT gazepriv.laplace_scale(1, '$v')"
            "SELECT gazepriv.heatmap_spec(64, 64, '$v')"
            "SELECT gazepriv.release_heatmap('uniss', 2, ROW(64, 64, '$v', 1e-5, 1, 'gaussian', 'analytic', NULL, 1, NULL, NULL)::gazepriv.heatmap_spec)"
            "SELECT gazepriv.release_heatmap('uniss', 2, ROW(64, 64, '$v', NULL, 1, 'laplace', NULL, NULL, 1, NULL, NULL)::gazepriv.heatmap_spec)"
            "SELECT count(*) FROM gazepriv.release_kaleido('uniss', '00', epsilon => '$v', stimulus => 2)")
done
# Delta below the floor 1e-300 (5e-324 left no room for the discreteness reserve), or not below 1.
for v in 5e-324 1e-301 NaN Infinity -Infinity 0 -1 1; do
    calls+=("SELECT gazepriv.gaussian_sigma(1, 1, '$v')"
            "SELECT gazepriv.gaussian_sigma(1, 1, '$v', 'liu2019')"
            "SELECT gazepriv.gaussian_epsilon(1, 1, '$v')"
            "SELECT gazepriv.gaussian_mechanism(1, 1, 1, '$v')"
            "SELECT gazepriv.heatmap_spec(64, 64, 1, '$v')"
            "SELECT gazepriv.release_heatmap('uniss', 2, ROW(64, 64, 1, '$v', 1, 'gaussian', 'analytic', NULL, 1, NULL, NULL)::gazepriv.heatmap_spec)")
done
# Sigma whose epsilon would overflow: the search is bounded.
calls+=("SELECT gazepriv.gaussian_epsilon(1e308, 5e-324, 1e-5)")
for call in "${calls[@]}"; do
    check "$call" "$(edge "$call")" "22023 fast"
done
check "the server is still up and the analyst charged nothing" \
    "$(psql -At -c "SELECT count(*) FROM gazepriv.ledger WHERE role = 'analyst_a'::regrole")" 0
check "the floors hold exactly: epsilon 1e-6 and delta 1e-300 calibrate" \
    "$(as analyst_a -c "SELECT gazepriv.gaussian_sigma(1, 1e-6, 1e-5) > 0, gazepriv.gaussian_sigma(1, 1, 1e-300) > 0")" \
    "$(printf 't\tt')"
finish
