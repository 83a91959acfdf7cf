#!/usr/bin/env bash
# A3: what defines plausible deniability (k, gamma, bins, model, omega, test, bounds) is the curator's. The
# analyst asks for k = 1, 256 bins, the seed-based model resampling one feature, over a box around the data:
# refused. Under the curator's policy the release holds no row within 1e-3 of a raw row, and a deterministic
# PD release is served once: every later request, by any analyst, gets the identical rows, with one ledger
# row in all.
. "$(dirname "$0")/roles_and_data.bash"
load_hoppe_features curator_b
as curator_b -c "SELECT gazepriv.register_dataset('hoppe', 'public.hoppe_features', 'participant', task_column => 'task',
    window_column => 'window', features_column => 'features', bounds => $HOPPE_BOUNDS)" >/dev/null
as curator_b -c "SELECT gazepriv.grant_budget('hoppe', 'analyst_a', 1, 1e-5)" \
             -c "SELECT gazepriv.grant_budget('hoppe', 'analyst_b', 1, 1e-5)" >/dev/null
try_as curator_b -c "SELECT gazepriv.set_release_policy('hoppe', 'pd', '{\"k\": 10, \"gamma\": 2, \"bins\": 30, \"model\": \"marginals\"}')"
box=$(psql -At -c "SELECT 'ARRAY[' || string_agg(format('[%s, %s]', lo, hi), ', ' ORDER BY i) || ']'
    FROM (SELECT i, min(f[i]) lo, max(f[i]) hi FROM (SELECT features f FROM hoppe_features) s,
          generate_series(1, 33) i GROUP BY i) b")

near_raw() { # near_raw TABLE: released rows within 1e-3 of a raw row of their task, in every feature
    psql -At -c "SELECT count(*) FROM $1 r JOIN hoppe_features f ON f.task = r.task
                 WHERE r.features IS NOT NULL
                   AND (SELECT max(abs(a - b)) FROM unnest(r.features, f.features) u(a, b)) < 1e-3"
}
attack="gazepriv.pd_release('hoppe', k => 1, gamma => 2, bins => 256, model => 'seed_based', omega => 1,
                            resample => 'last', bounds => $box)"
check "the analyst cannot choose k, bins, model, omega and bounds" "$(sqlstate analyst_a "SELECT count(*) FROM $attack")" 42501
as analyst_a -c "CREATE TABLE sandbox_analyst_a.attack AS SELECT * FROM $attack" >/dev/null 2>&1 || true
[ "$(psql -At -c "SELECT to_regclass('sandbox_analyst_a.attack') IS NOT NULL")" = t ] &&
    check "rows of the attack near raw rows" "$(near_raw sandbox_analyst_a.attack)" 0

as analyst_a -c "CREATE TABLE sandbox_analyst_a.pd1 AS SELECT * FROM gazepriv.pd_release('hoppe')" \
             -c "CREATE TABLE sandbox_analyst_a.pd2 AS SELECT * FROM gazepriv.pd_release('hoppe')" 2>&1 || true
as analyst_b -c "CREATE TABLE sandbox_analyst_b.pd3 AS SELECT * FROM gazepriv.pd_release('hoppe')" 2>&1 || true
fingerprint() { psql -At -c "SELECT count(*) || ' ' || md5(string_agg(format('%s %s %s %s', participant, task, \"window\",
    features), '|' ORDER BY participant, task, \"window\")) FROM $1" 2>&1 || true; }
first=$(fingerprint sandbox_analyst_a.pd1)
check "the policy's release has rows" "$(psql -At -c "SELECT count(*) > 100 FROM sandbox_analyst_a.pd1" 2>&1)" t
check "no released row within 1e-3 of a raw row" "$(near_raw sandbox_analyst_a.pd1 2>&1)" 0
check "a repeated request gets the identical release" "$(fingerprint sandbox_analyst_a.pd2)" "$first"
check "another analyst gets the identical release" "$(fingerprint sandbox_analyst_b.pd3)" "$first"
check "one release in the ledger, charged to the first analyst" "$(psql -At -c "SELECT string_agg(format('%s %s %s', role,
    guarantee, epsilon), ';') FROM gazepriv.ledger WHERE dataset = 'hoppe'")" "analyst_a plausible-deniability 0"
check "other parameters are refused" "$(sqlstate analyst_b "SELECT count(*) FROM gazepriv.pd_release('hoppe', k => 5, gamma => 2)")" 42501
finish
