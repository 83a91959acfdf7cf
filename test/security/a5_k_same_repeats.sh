#!/usr/bin/env bash
# A5: a k-same release does not compose, so it is served once. Ten requests (and requests in transactions
# rolled back, and another analyst's) return the identical first release, logged once; k is the policy's
# (another is refused); the owner resets deliberately and the ledger says so.
. "$(dirname "$0")/roles_and_data.bash"
load_hoppe_features curator_b
as curator_b -c "SELECT gazepriv.register_dataset('hoppe', 'public.hoppe_features', 'participant', task_column => 'task',
    window_column => 'window', features_column => 'features', observers => 4)" >/dev/null
as curator_b -c "SELECT gazepriv.grant_budget('hoppe', 'analyst_a', 0, accounting => 'basic')" \
             -c "SELECT gazepriv.grant_budget('hoppe', 'analyst_b', 0, accounting => 'basic')" >/dev/null
try_as curator_b -c "SELECT gazepriv.set_release_policy('hoppe', 'k_same_select', '{\"k\": 2}')"

release="SELECT md5(string_agg(format('%s %s %s %s %s', participant, task, \"window\", features, group_id), '|'
                                ORDER BY participant, task, \"window\"))
         FROM gazepriv.release_k_same_select('hoppe', 2)"
fingerprints=$(for i in $(seq 10); do as analyst_a -c "$release" 2>&1; done | sort | uniq -c | wc -l)
check "ten requests return one release" "$fingerprints" 1
first=$(as analyst_a -c "$release" 2>&1 || true)
check "a request in a rolled-back transaction returns it too" \
    "$(as analyst_a -c "BEGIN" -c "$release" -c "ROLLBACK" 2>&1)" "$first"
check "another analyst gets it too" "$(as analyst_b -c "$release" 2>&1)" "$first"
check "it is logged once" "$(psql -At -c "SELECT count(*) FROM gazepriv.ledger WHERE mechanism = 'k_same_select'")" 1
check "another k is refused" "$(sqlstate analyst_a "SELECT count(*) FROM gazepriv.release_k_same_select('hoppe', 3)")" 42501
check "only the owner resets" "$(sqlstate curator_a "SELECT gazepriv.reset_release('hoppe', 'k_same_select')")" 42501
check "the owner resets" "$(sqlstate curator_b "SELECT gazepriv.reset_release('hoppe', 'k_same_select')")" ok
check "the ledger says so" "$(psql -At -c "SELECT string_agg(format('%s %s %s', role, mechanism, parameters ->> 'mechanism'),
    ';' ORDER BY id) FROM gazepriv.ledger WHERE mechanism <> 'k_same_select'" 2>&1)" "curator_b reset_release k_same_select"
as analyst_a -c "$release" >/dev/null 2>&1 || true
check "the next request is a new release, logged" \
    "$(psql -At -c "SELECT count(*) FROM gazepriv.ledger WHERE mechanism = 'k_same_select'")" 2
finish
