#!/usr/bin/env bash
# A6: no free answers. Refusals and costs depend only on parameters and registered public facts: a heatmap of
# a stimulus nobody looked at, a stream of an unknown participant and a count of no rows are charged and
# well-formed; "not registered" and "no budget" are one answer; a randomized PD release refused over budget
# says the same for datasets of different sizes (before, its requested epsilon gave the record count).
. "$(dirname "$0")/roles_and_data.bash"
uniss_dataset curator_a
load_hoppe_features curator_b
as curator_a <<'SQL' >/dev/null
SELECT gazepriv.grant_budget('uniss', 'analyst_a', 10, 1e-5);
SQL
try_as curator_a -c "SELECT gazepriv.set_release_policy('uniss', 'heatmap', '{\"cap\": 1}')" \
    -c "SELECT gazepriv.set_release_policy('uniss', 'kaleido', '{\"w\": 30, \"r\": 50}')" \
    -c "SELECT gazepriv.grant_budget('uniss', 'analyst_a', 10, 0, accounting => 'basic', kind => 'w-event')"
ledger() { psql -At -c "SELECT count(*) FROM gazepriv.ledger WHERE mechanism = '$1' AND role = 'analyst_a'::regrole"; }

check "a heatmap of a stimulus nobody looked at is a whole noisy map of the public n" "$(as analyst_a -c "
    SELECT cardinality((h).values), (h).n, (h).mechanism FROM (SELECT gazepriv.release_heatmap('uniss', 999,
        gazepriv.heatmap_spec(1280, 1024, 1, cell_size => 64)) AS h) s" 2>&1)" "$(printf '320\t20\tgaussian')"
check "and it is charged" "$(ledger dp_heatmap)" 1
check "a stream of an unknown participant is released (empty: timestamps are public)" "$(as analyst_a -c "
    SELECT count(*) FROM gazepriv.release_kaleido('uniss', 'nobody', epsilon => 0.5, stimulus => 2)" 2>&1)" 0
check "and it is charged" "$(ledger kaleido)" 1
check "a count of no rows is released" "$(sqlstate analyst_a "SELECT gazepriv.release_count('uniss', 1, stimulus => 999)")" ok
check "and it is charged" "$(ledger release_count)" 1

# Not registered and no budget: one answer.
unknown=$(message analyst_b "SELECT gazepriv.release_count('no_such_data', 1)")
nobudget=$(message analyst_b "SELECT gazepriv.release_count('uniss', 1)")
check "not registered and no budget: one SQLSTATE" "$(sqlstate analyst_b "SELECT gazepriv.release_count('no_such_data', 1)")" \
    "$(sqlstate analyst_b "SELECT gazepriv.release_count('uniss', 1)")"
check "not registered and no budget: one message" "${unknown//no_such_data/D}" "${nobudget//uniss/D}"
check "a heatmap: one message" "$(message analyst_b "SELECT gazepriv.release_heatmap('no_such_data', 1, gazepriv.heatmap_spec(64, 64, 1))" | sed 's/no_such_data/D/')" \
    "$(message analyst_b "SELECT gazepriv.release_heatmap('uniss', 1, gazepriv.heatmap_spec(64, 64, 1))" | sed 's/uniss/D/')"

# The randomized PD test over budget, on 242 records and on half of them: the same refusal.
psql -c "CREATE VIEW public.hoppe_half AS SELECT * FROM hoppe_features WHERE \"window\" % 2 = 0" \
     -c "ALTER VIEW public.hoppe_half OWNER TO curator_b" >/dev/null
for d in hoppe_features hoppe_half; do
    as curator_b -c "SELECT gazepriv.register_dataset('$d', 'public.$d', 'participant', task_column => 'task',
        window_column => 'window', features_column => 'features', bounds => $HOPPE_BOUNDS)" \
        -c "SELECT gazepriv.grant_budget('$d', 'analyst_a', 1, 1e-5)" >/dev/null
    try_as curator_b -c "SELECT gazepriv.set_release_policy('$d', 'pd', '{\"k\": 50, \"gamma\": 2, \"epsilon0\": 1,
        \"t\": 10, \"model_epsilon\": 1, \"records\": 300}')" \
        -c "SELECT gazepriv.grant_budget('$d', 'analyst_a', 1, 1e-5, accounting => 'basic', kind => 'record-dp')"
done
randomized="gazepriv.pd_release('DATASET', k => 50, gamma => 2, epsilon0 => 1, t => 10, model_epsilon => 1)"
full=$(message analyst_a "SELECT count(*) FROM ${randomized/DATASET/hoppe_features}")
half=$(message analyst_a "SELECT count(*) FROM ${randomized/DATASET/hoppe_half}")
check "over budget on 242 records: refused" "$(sqlstate analyst_a "SELECT count(*) FROM ${randomized/DATASET/hoppe_features}")" PB001
check "over budget says the same for 121 records" "${half//hoppe_half/D}" "${full//hoppe_features/D}"
finish
