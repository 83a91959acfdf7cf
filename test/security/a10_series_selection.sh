#!/usr/bin/env bash
# A10: the private choice of k and of the clipping bounds (release_series k_share, bounds_share) is the curator's.
# The analyst tries to take more of epsilon for the choice (or none for the noise), to widen k's candidates
# beyond the signal, to choose on the raw table, and to rewrite the policy: refused. What the analyst's
# releases cost is series_public_cost of their parameters (the shares compose inside it), the ledger records
# the policy's shares, and the budget bounds the total.
. "$(dirname "$0")/roles_and_data.bash"
windows_dataset curator_a
as curator_a <<'SQL' >/dev/null
SELECT gazepriv.grant_budget('windows', 'analyst_a', 40, 0, accounting => 'basic');
SELECT gazepriv.set_release_policy('windows', 'series', '{"methods": ["fpa", "cfpa"], "recordings": ["read", "walk"],
                                                         "k_share": 0.1, "bounds_share": 0.3}');
SQL
release="gazepriv.release_feature_series('windows'"
check "the analyst cannot pass k_share" \
    "$(sqlstate analyst_a "SELECT count(*) FROM $release, 'fpa', 1, k_share => 0.99)")" 42883
check "the analyst cannot pass bounds_share" \
    "$(sqlstate analyst_a "SELECT count(*) FROM $release, 'fpa', 1, bounds_share => 0.99)")" 42883
check "the analyst cannot choose on the raw table" \
    "$(sqlstate analyst_a "SELECT count(*) FROM gazepriv.release_series('public.windows', 'fpa', 1, bounds => ARRAY[0, 100],
        length => 20, k_share => 0.5, bounds_share => 0.49)")" 42501
check "the analyst cannot rewrite the policy's shares" \
    "$(sqlstate analyst_a "SELECT gazepriv.set_release_policy('windows', 'series', '{\"recordings\": [\"read\", \"walk\"], \"k_share\": 0.9}')")" 42501
check "k beyond the signal's limit is refused (22023)" \
    "$(sqlstate analyst_a "SELECT count(*) FROM $release, 'fpa', 1, k => 99)")" 22023
check "k = 0 is refused (22023)" "$(sqlstate analyst_a "SELECT count(*) FROM $release, 'fpa', 1, k => 0)")" 22023
check "epsilon NaN is refused (22023)" "$(sqlstate analyst_a "SELECT count(*) FROM $release, 'fpa', 'NaN')")" 22023
check "nothing charged by the refusals" \
    "$(psql -At -c "SELECT count(*) FROM gazepriv.ledger WHERE dataset = 'windows'")" 0

# Releases with every k limit the signal allows, and cfpa: each costs series_public_cost of its parameters.
for args in "'fpa', 1" "'fpa', 1, k => 11" "'fpa', 1, k => 1" "'cfpa', 0.5, chunk => 8" "'cfpa', 0.5, k => 5, chunk => 8"; do
    as analyst_a -c "SELECT count(*) FROM $release, $args)" >/dev/null 2>&1 ||
        echo "    (release $args failed)"
done
check "the ledger: five releases, dp, costs of their public parameters (6 per fpa, 0.5 x 3 x 2 x 3 = 9 per cfpa)" \
    "$(psql -At -c "SELECT string_agg(format('%s %s %s', mechanism, guarantee, epsilon), ';' ORDER BY id)
                    FROM gazepriv.ledger WHERE dataset = 'windows'")" \
    "fpa dp 6;fpa dp 6;fpa dp 6;cfpa dp 9;cfpa dp 9"
check "series_public_cost agrees with the ledger" \
    "$(psql -At -c "SELECT (SELECT epsilon FROM gazepriv.series_public_cost('fpa', 1, 11, 64, ARRAY[[0, 1], [0, 1], [0, 10]], 20, 2))
                        || ' ' || (SELECT epsilon FROM gazepriv.series_public_cost('cfpa', 0.5, NULL, 8, ARRAY[[0, 1], [0, 1], [0, 10]], 20, 2))")" \
    "6 9"
check "every ledger row records the policy's shares and a private k" \
    "$(psql -At -c "SELECT string_agg(DISTINCT format('%s %s %s %s', parameters #>> '{private_selection,k_share}',
                        parameters #>> '{private_selection,bounds_share}', parameters #>> '{private_selection,noise_share}',
                        parameters #>> '{private_selection,k_rule}'), ';') FROM gazepriv.ledger WHERE dataset = 'windows'")" \
    "0.1 0.3 0.6 private"
check "the budget bounds the total: a sixth release (42 > 40) is refused" \
    "$(sqlstate analyst_a "SELECT count(*) FROM $release, 'fpa', 1)")" PB001
check "released values stay inside the public bounds" \
    "$(psql -At -c "SELECT bool_and(value >= 0 AND value <= CASE feature WHEN '3' THEN 10 ELSE 1 END)
                    FROM gazepriv.my_series_points WHERE dataset = 'windows'" 2>&1 | tail -1)" t
# A policy's bad shares are refused (22023) and leave the policy as it was.
check "a curator's shares summing to 1 are refused" \
    "$(sqlstate curator_a "SELECT gazepriv.set_release_policy('windows', 'series', '{\"recordings\": [\"read\", \"walk\"], \"k_share\": 0.5, \"bounds_share\": 0.5}')")" 22023
check "a curator's NaN-like share is refused" \
    "$(sqlstate curator_a "SELECT gazepriv.set_release_policy('windows', 'series', '{\"recordings\": [\"read\", \"walk\"], \"bounds_share\": \"NaN\"}')")" 22023
check "the policy is unchanged" \
    "$(psql -At -c "SELECT policy ->> 'k_share' || ' ' || (policy ->> 'bounds_share') FROM gazepriv.release_policies WHERE dataset = 'windows'")" \
    "0.1 0.3"
finish
