#!/usr/bin/env bash
# A8: the k-same-synth analyst release. What defines its guarantee is the owner's policy (k, the grouping, the
# sampling rate): an analyst passing anything else is refused. It does not compose, so it is served once:
# repeats, requests in rolled-back transactions (even the very first one) and another analyst's requests
# return the identical streams, fixation draws included, logged once; only the owner resets it. Analysts
# without a budget, and datasets of another curator, get one answer (PB002).
. "$(dirname "$0")/roles_and_data.bash"
load_uniss curator_b
psql <<'SQL' >/dev/null
CREATE TABLE public.uniss_events AS
SELECT t.participant, 'img_002' AS task, e.*
FROM (SELECT participant, gazepriv.make_trace(t_ms, x, y) AS trace FROM public.uniss_samples GROUP BY 1) t,
     gazepriv.detect_events(t.trace, gazepriv.ivt(30, 0, 20, 75, 75,
                                                  gazepriv.screen_geometry(1280, 1024, 1040, 580, 1370))) e;
ALTER TABLE public.uniss_events OWNER TO curator_b;
CREATE TABLE public.other_events AS TABLE public.uniss_events;
ALTER TABLE public.other_events OWNER TO curator_a;
SQL
as curator_b -c "SELECT gazepriv.register_dataset('synth', 'public.uniss_events', 'participant', task_column => 'task',
                                                   observers => 20)" \
             -c "SELECT gazepriv.grant_budget('synth', 'analyst_a', 0, accounting => 'basic')" \
             -c "SELECT gazepriv.grant_budget('synth', 'analyst_b', 0, accounting => 'basic')" >/dev/null
as curator_a -c "SELECT gazepriv.register_dataset('other', 'public.other_events', 'participant', task_column => 'task',
                                                   observers => 20)" \
             -c "SELECT gazepriv.set_release_policy('other', 'k_same_synth', '{\"k\": 2, \"sampling_rate_hz\": 300}')" \
             >/dev/null 2>&1 || echo "    (setup) the other curator's dataset has no k_same_synth policy"

release() { echo "SELECT md5(string_agg(format('%s %s %s %s %s %s %s %s', participant, task, t_ms, x, y, event_index,
                                                type, group_id), '|' ORDER BY participant, task, t_ms, event_index))
                  FROM gazepriv.release_k_same_synth('synth'${1:-})"; }
check "without a policy the analyst is refused" "$(sqlstate analyst_a "$(release)")" 42501
check "the policy needs a sampling rate" \
    "$(sqlstate curator_b "SELECT gazepriv.set_release_policy('synth', 'k_same_synth', '{\"k\": 4}')")" 22023
check "a policy's rate must be positive" "$(sqlstate curator_b \
    "SELECT gazepriv.set_release_policy('synth', 'k_same_synth', '{\"k\": 4, \"sampling_rate_hz\": -300}')")" 22023
check "a policy's k must be at least 2" "$(sqlstate curator_b \
    "SELECT gazepriv.set_release_policy('synth', 'k_same_synth', '{\"k\": 1, \"sampling_rate_hz\": 300}')")" 22023
check "only the owner sets the policy" "$(sqlstate curator_a \
    "SELECT gazepriv.set_release_policy('synth', 'k_same_synth', '{\"k\": 2, \"sampling_rate_hz\": 300}')")" 42501
try_as curator_b -c "SELECT gazepriv.set_release_policy('synth', 'k_same_synth', '{\"k\": 4, \"sampling_rate_hz\": 300}')"

# The very first request is rolled back: the store forgets it, the next request makes it again from the
# dataset's secret, and it must be the same streams (else rolling back would be a way to fresh noise).
rolled_back=$(as analyst_a -c "BEGIN" -c "$(release)" -c "ROLLBACK" 2>&1)
first=$(as analyst_a -c "$(release)" 2>&1 || true)
check "the first request, rolled back, and the next return the same streams" "$rolled_back" "$first"
check "the release is not empty" "$(as analyst_a -c "SELECT count(DISTINCT participant) FROM gazepriv.release_k_same_synth('synth')" 2>&1)" 20
fingerprints=$(for i in $(seq 5); do as analyst_a -c "$(release)" 2>&1; done | sort -u)
check "repeated requests return one release" "$fingerprints" "$first"
check "a request in a rolled-back transaction returns it too" \
    "$(as analyst_a -c "BEGIN" -c "$(release)" -c "ROLLBACK" 2>&1)" "$first"
check "another analyst gets it too" "$(as analyst_b -c "$(release)" 2>&1)" "$first"
check "the policy's own values are accepted and give the same release" \
    "$(as analyst_a -c "$(release ", 4, true, 300")" 2>&1)" "$first"
check "it is logged once per release made (the rolled-back first and the stored one), as k_same_synth, epsilon 0" \
    "$(psql -At -c "SELECT string_agg(format('%s %s %s %s %s', role, guarantee, epsilon, parameters ->> 'k',
                                             parameters ->> 'sampling_rate_hz'), ';' ORDER BY id)
                    FROM gazepriv.ledger WHERE mechanism = 'k_same_synth'")" \
    "analyst_a k-anonymity 0 4 300;analyst_a k-anonymity 0 4 300"

for other in ", 2" ", 5" ", 20" ", 21" ", 0" ", -1" ", 2147483647" ", k => 4, across_tasks => false" \
             ", sampling_rate_hz => 299" ", sampling_rate_hz => 1e308" ", sampling_rate_hz => 'NaN'" \
             ", sampling_rate_hz => 'Infinity'" ", sampling_rate_hz => 5e-324" ", sampling_rate_hz => -300"; do
    check "the analyst cannot choose $other" "$(sqlstate analyst_a "$(release "$other")")" 42501
done
check "nor can another analyst" "$(sqlstate analyst_b "$(release ", 2")")" 42501

check "the analyst cannot read the events" "$(sqlstate analyst_a "SELECT count(*) FROM public.uniss_events")" 42501
check "nor synthesise from them with the curator function" \
    "$(sqlstate analyst_a "SELECT count(*) FROM gazepriv.k_same_synth('public.uniss_events', 2, 300)")" 42501
nothing=$(message analyst_a "SELECT count(*) FROM gazepriv.release_k_same_synth('nothing')")
check "a dataset of another curator without a budget: one answer (PB002)" \
    "$(sqlstate analyst_a "SELECT count(*) FROM gazepriv.release_k_same_synth('other')")" PB002
check "... the same message as for a dataset that does not exist" \
    "$(message analyst_a "SELECT count(*) FROM gazepriv.release_k_same_synth('other')" | sed 's/"other"/"nothing"/')" \
    "$nothing"
check "the other curator's own curator cannot release it without a budget either" \
    "$(sqlstate curator_b "SELECT count(*) FROM gazepriv.release_k_same_synth('other')")" PB002

check "the policy cannot change while the release is served" "$(sqlstate curator_b \
    "SELECT gazepriv.set_release_policy('synth', 'k_same_synth', '{\"k\": 2, \"sampling_rate_hz\": 300}')")" 55000
check "only the owner resets" "$(sqlstate curator_a "SELECT gazepriv.reset_release('synth', 'k_same_synth')")" 42501
check "analysts cannot reset" "$(sqlstate analyst_a "SELECT gazepriv.reset_release('synth', 'k_same_synth')")" 42501
check "the owner resets" "$(sqlstate curator_b "SELECT gazepriv.reset_release('synth', 'k_same_synth')")" ok
check "the ledger says so" "$(psql -At -c "SELECT string_agg(format('%s %s %s %s', role, mechanism, guarantee,
    parameters ->> 'mechanism'), ';' ORDER BY id) FROM gazepriv.ledger WHERE mechanism = 'reset_release'" 2>&1)" \
    "curator_b reset_release k-anonymity k_same_synth"
second=$(as analyst_a -c "$(release)" 2>&1 || true)
check "the next request is a new release (a new secret)" "$([ "$second" != "$first" ] && echo new || echo same)" new
check "... logged" "$(psql -At -c "SELECT count(*) FROM gazepriv.ledger WHERE mechanism = 'k_same_synth'")" 3

# A release's errors about the data name none of it: the curator's function names the event and its values.
as curator_b -c "UPDATE public.uniss_events SET sigma_x = 'NaN' WHERE participant = '03' AND type = 'fixation'" \
             -c "SELECT gazepriv.reset_release('synth', 'k_same_synth')" >/dev/null
check "unusable events: 22023" "$(sqlstate analyst_a "$(release)")" 22023
refused=$(as analyst_a -c "$(release)" 2>&1 || true)
check "... with a message that names no participant, event or value" \
    "$(grep -cE "NaN|03|event [0-9]|centroid" <<<"$refused" || true)" 0
check "... while the owner's own call names them" \
    "$(message curator_b "SELECT count(*) FROM gazepriv.k_same_synth('public.uniss_events', 4, 300)" | grep -c "participant 03" || true)" 1
finish
