#!/usr/bin/env bash
# A2: every size derived from an argument is checked against a superuser-set limit before anything is
# allocated, read or charged (54000 naming the limit), and no other role can raise a limit. Before, a padded
# series length of 130150523 took 22.7 GB and the OOM killer restarted the cluster.
. "$(dirname "$0")/roles_and_data.bash"
windows_dataset curator_a
as curator_a <<'SQL' >/dev/null
SELECT gazepriv.grant_budget('windows', 'analyst_a', 100, 0, accounting => 'basic');
SELECT gazepriv.set_release_policy('windows', 'series', '{"methods": ["lpa", "fpa", "cfpa"], "recordings": ["read", "walk"]}');
SQL
check "an analyst's length other than the registered one is refused (the policy fixes it)" \
    "$(sqlstate analyst_a "SELECT count(*) FROM gazepriv.release_feature_series('windows', 'lpa', 1, length => 130150523)")" 42501
# A curator registers the public length 130150523: its series policy is refused before anything is
# allocated (the policy's cost preview is bounded), so no analyst release of that length can exist.
as curator_a -c "SELECT gazepriv.register_dataset('windows_long', 'public.windows', 'participant', task_column => 'task',
                   window_column => 'window', features_column => 'features',
                   bounds => '{\"features\": [[0, 1], [0, 1], [0, 10]], \"length\": 130150523}')" \
    -c "SELECT gazepriv.grant_budget('windows_long', 'analyst_a', 100, 0, accounting => 'basic')" >/dev/null
policy="SELECT gazepriv.set_release_policy('windows_long', 'series', '{\"methods\": [\"lpa\"], \"recordings\": [\"read\", \"walk\"]}')"
check "a series policy of length 130150523: 54000, backend under 1 GB" "$(peak curator_a "$policy" | under_1gb)" "54000 under 1 GB"
check "the refusal names the limit" "$(message curator_a "$policy" | grep -o 'gazepriv.max_series_length')" \
    gazepriv.max_series_length
check "so the analyst's release is refused (no policy)" \
    "$(sqlstate analyst_a "SELECT count(*) FROM gazepriv.release_feature_series('windows_long', 'lpa', 1)")" 42501
check "and nothing was charged" "$(psql -At -c "SELECT count(*) FROM gazepriv.ledger WHERE role = 'analyst_a'::regrole")" 0
check "series_public_cost with length 130150523: 54000" \
    "$(sqlstate analyst_a "SELECT * FROM gazepriv.series_public_cost('lpa', 1, NULL, 0, ARRAY[[0, 1]], 130150523, 1)")" 54000
check "series_public_cost with 2^31-1 recordings: 54000, backend under 1 GB" \
    "$(peak analyst_a "SELECT * FROM gazepriv.series_public_cost('lpa', 1, NULL, 0, ARRAY[[0, 1], [0, 1]], 1000, 2147483647)" | under_1gb)" \
    "54000 under 1 GB"
check "a curator's release_series with length 130150523: 54000" \
    "$(sqlstate curator_a "SELECT count(*) FROM gazepriv.release_series('public.windows', 'lpa', 1, bounds => ARRAY[[0, 1], [0, 1], [0, 10]], length => 130150523)")" 54000
check "a heatmap grid over gazepriv.max_heatmap_cells is refused before any row" \
    "$(sqlstate analyst_a "SELECT gazepriv.heatmap_spec(2147483647, 2147483647, 1)")" 54000
check "a release within the limits still works" \
    "$(as analyst_a -c "SELECT count(*) > 0 FROM gazepriv.release_feature_series('windows', 'fpa', 1, length => 20)")" t
for limit in max_series_length max_series_values max_kaleido_streams_per_statement max_heatmap_cells charge_timeout; do
    for role in analyst_a curator_a; do
        check "$role cannot SET gazepriv.$limit" \
            "$(sqlstate $role "SELECT gazepriv.version(); SET gazepriv.$limit = 1000")" 42501
        check "nor set it before the library is loaded (the value is discarded)" \
            "$(as $role -c "SET gazepriv.$limit = 1000" -c "SELECT gazepriv.version() IS NOT NULL" \
                        -c "SELECT current_setting('gazepriv.$limit') <> '1000'" 2>/dev/null | tail -1)" t
    done
    check "a superuser can" "$(sqlstate postgres "SET gazepriv.$limit = 1000")" ok
done
check "a smaller limit refuses what the default allows" \
    "$(sqlstate postgres "SET gazepriv.max_series_length = 10; SELECT count(*) FROM gazepriv.release_series('public.windows', 'fpa', 1, bounds => ARRAY[[0, 1], [0, 1], [0, 10]], length => 20)")" 54000
finish
