#!/usr/bin/env bash
# A9: what defines event-synth-PD's guarantee (k, gamma, the saccade model, the sampling rate, the attempts) is
# the curator's release policy. The analyst asks for k = 1, a huge gamma, another model and another rate:
# refused (42501). Under the policy the release is served once: every later request, by any analyst, gets the
# identical streams, with one ledger row in all. A policy naming a model of another dataset is refused.
. "$(dirname "$0")/roles_and_data.bash"
load_uniss curator_a
load_uniss_events curator_a
psql <<'SQL' >/dev/null
CREATE TABLE public.b_events AS SELECT * FROM public.uniss_events;
ALTER TABLE public.b_events OWNER TO curator_b;
SQL
as curator_a <<'SQL' >/dev/null
SELECT gazepriv.register_dataset('a_events', 'public.uniss_events', 'participant', task_column => 'task');
SELECT * FROM gazepriv.train_saccade_model('a_model', 'a_events', 'public.uniss_events', epochs => 2);
SELECT gazepriv.grant_budget('a_events', 'analyst_a', 1, 1e-5);
SELECT gazepriv.grant_budget('a_events', 'analyst_b', 1, 1e-5);
SQL
as curator_b <<'SQL' >/dev/null
SELECT gazepriv.register_dataset('b_events', 'public.b_events', 'participant', task_column => 'task');
SELECT * FROM gazepriv.train_saccade_model('b_model', 'b_events', 'public.b_events', epochs => 2);
SQL
check "a policy cannot name another dataset's model" \
    "$(sqlstate curator_a "SELECT gazepriv.set_release_policy('a_events', 'event_synth', '{\"k\": 2, \"gamma\": 1e10, \"model\": \"b_model\", \"sampling_rate_hz\": 300}')")" 22023
try_as curator_a -c "SELECT gazepriv.set_release_policy('a_events', 'event_synth', '{\"k\": 2, \"gamma\": 1e300, \"model\": \"a_model\", \"sampling_rate_hz\": 300, \"max_attempts\": 20}')"

for arg in "k => 1" "gamma => 2" "model => 'b_model'" "sampling_rate_hz => 1000" "max_attempts => 1000000"; do
    check "the analyst cannot choose $arg" \
        "$(sqlstate analyst_a "SELECT count(*) FROM gazepriv.event_synth_release('a_events', $arg)")" 42501
done
digest="SELECT md5(string_agg(format('%s %s %s %s %s %s', participant, task, event_index, t_ms, x, y), ','
               ORDER BY participant, task, t_ms, event_index))"
first=$(as analyst_a -c "$digest FROM gazepriv.event_synth_release('a_events')")
check "the release has streams" "$(as analyst_a -c "SELECT count(*) > 0 FROM gazepriv.event_synth_release('a_events')")" t
check "a repeat is identical" "$(as analyst_a -c "$digest FROM gazepriv.event_synth_release('a_events')")" "$first"
check "another analyst gets the identical release" \
    "$(as analyst_b -c "$digest FROM gazepriv.event_synth_release('a_events', k => 2, model => 'a_model')")" "$first"
check "every released event passed, within the policy's attempts" \
    "$(as analyst_b -c "SELECT bool_and(passed AND attempts <= 20 AND t_ms IS NOT NULL) FROM gazepriv.event_synth_release('a_events')")" t
check "one ledger row in all" \
    "$(as curator_a -c "SELECT count(*) || ' ' || min(mechanism) || ' ' || min(guarantee) || ' ' || max(epsilon)
                        FROM gazepriv.ledger WHERE dataset = 'a_events' AND mechanism <> 'reset_release'")" \
    "1 event_synth_pd plausible-deniability 0"
check "an analyst without a budget gets nothing" \
    "$(sqlstate analyst_a "SELECT count(*) FROM gazepriv.event_synth_release('b_events')")" PB002
finish
