#!/usr/bin/env bash
# C6: trained saccade models (event-synth-PD's C-VAE) are fitted to raw saccades, so they are catalog rows of
# their dataset: curator A trains one on A's events; curator B can neither read it, use it, overwrite it,
# drop it nor store a model on A's dataset, and direct writes to the table are refused for everyone but the
# extension's functions. Analysts cannot read models or run event_synth_pd on raw events. pg_dump keeps the
# models (an extension configuration table).
. "$(dirname "$0")/roles_and_data.bash"
load_uniss curator_a
load_uniss_events curator_a
as curator_a <<'SQL' >/dev/null
SELECT gazepriv.register_dataset('a_events', 'public.uniss_events', 'participant', task_column => 'task');
SELECT * FROM gazepriv.train_saccade_model('a_model', 'a_events', 'public.uniss_events', epochs => 2);
SQL
psql -c "CREATE TABLE public.b_events AS SELECT * FROM public.uniss_events" -c "ALTER TABLE public.b_events OWNER TO curator_b"
as curator_b -c "SELECT gazepriv.register_dataset('b_events', 'public.b_events', 'participant')" >/dev/null
state() { psql -At -c "SELECT md5(string_agg(format('%s %s %s %s', name, dataset, trained_by, md5(model)), '|' ORDER BY name))
                       FROM gazepriv.saccade_models"; }
before=$(state)
check "curator A sees its model" "$(as curator_a -c "SELECT name FROM gazepriv.saccade_models")" a_model
check "curator B sees no model of A" "$(as curator_b -c "SELECT count(*) FROM gazepriv.saccade_models")" 0
check "curator B cannot use A's model" \
    "$(message curator_b "SELECT count(*) FROM gazepriv.event_synth_pd('public.b_events', 'a_model', 2, 2, 300)")" \
    'unknown saccade model "a_model"'
check "curator B cannot store a model on A's dataset" \
    "$(sqlstate curator_b "SELECT gazepriv.train_saccade_model('b_model', 'a_events', 'public.b_events', epochs => 1)")" 42501
check "curator B cannot drop A's model" "$(sqlstate curator_b "SELECT gazepriv.drop_saccade_model('a_model')")" 42501
check "curator B cannot take A's model name" \
    "$(sqlstate curator_b "SELECT gazepriv.train_saccade_model('a_model', 'b_events', 'public.b_events', epochs => 1)")" 42710
for q in \
    "INSERT INTO gazepriv.saccade_models (name, dataset, trained_by, parameters, validation_loss, model) VALUES ('x', 'a_events', 'curator_b', '{}', 0, '\\x00')" \
    "UPDATE gazepriv.saccade_models SET model = '\\x00'" \
    "DELETE FROM gazepriv.saccade_models"; do
    check "curator B: $(cut -c1-50 <<<"$q")..." "$(sqlstate curator_b "$q")" 42501
    check "curator A: $(cut -c1-50 <<<"$q")..." "$(sqlstate curator_a "$q")" 42501
done
check "analyst cannot read the models" "$(sqlstate analyst_a "SELECT count(*) FROM gazepriv.saccade_models")" 42501
check "analyst cannot synthesise from raw events" \
    "$(sqlstate analyst_a "SELECT count(*) FROM gazepriv.event_synth_pd('public.uniss_events', 'a_model', 2, 2, 300)")" 42501
check "the models are unchanged" "$(state)" "$before"
check "curator A still synthesises with its model" \
    "$(as curator_a -c "SELECT count(*) > 0 FROM gazepriv.event_synth_pd('public.uniss_events', 'a_model', 1, 2, 300)")" t
check "pg_dump keeps the model" \
    "$("$BIN/pg_dump" -U postgres --data-only -t gazepriv.saccade_models 2>/dev/null | grep -c '^a_model' || true)" 1
finish
