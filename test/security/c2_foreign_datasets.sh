#!/usr/bin/env bash
# C2: a curator acts only on datasets it owns. Curator B calls every curator function on curator A's
# dataset (grant, revoke, charge, policies, reset, drop) and reads A's catalog rows: all refused or
# invisible, and A's dataset, budgets and ledger are unchanged.
. "$(dirname "$0")/roles_and_data.bash"
load_uniss curator_a
as curator_a <<'SQL'
SELECT gazepriv.register_dataset('a_data', 'public.uniss_samples', 'participant', stimulus_column => 'stimulus',
                                 time_column => 't_ms', x_column => 'x', y_column => 'y', observers => 20);
SELECT gazepriv.grant_budget('a_data', 'analyst_a', 1, 1e-5);
SELECT gazepriv.grant_budget('a_data', 'curator_a', 1, 1e-5);
SQL
as analyst_a -c "SELECT gazepriv.release_count('a_data', 0.25)" >/dev/null
state() { psql -At -c "SELECT (SELECT count(*) FROM gazepriv.datasets), (SELECT string_agg(format('%s %s %s %s %s', role,
    epsilon_limit, spent_epsilon, revoked, granted_by), ';' ORDER BY role::text) FROM gazepriv.budgets),
    (SELECT count(*) FROM gazepriv.ledger)"; }
before=$(state)

check "B cannot grant itself a budget on A's dataset" \
    "$(sqlstate curator_b "SELECT gazepriv.grant_budget('a_data', 'curator_b', 100, 1e-5)")" 42501
check "B cannot grant an analyst a budget on A's dataset" \
    "$(sqlstate curator_b "SELECT gazepriv.grant_budget('a_data', 'analyst_b', 100, 1e-5)")" 42501
check "B cannot raise A's analyst's limit" \
    "$(sqlstate curator_b "SELECT gazepriv.grant_budget('a_data', 'analyst_a', 100, 1e-5)")" 42501
check "B cannot revoke A's analyst" "$(sqlstate curator_b "SELECT gazepriv.revoke_budget('a_data', 'analyst_a')")" 42501
check "B cannot charge A's dataset" \
    "$(sqlstate curator_b "SELECT gazepriv.charge_budget('a_data', 'test', 0.1)")" 42501
check "B cannot set A's release policies" "$(sqlstate curator_b \
    "SELECT gazepriv.set_release_policy('a_data', 'kaleido', '{\"w\": 1, \"r\": 1e-6}')")" 42501
check "B cannot reset A's releases" \
    "$(sqlstate curator_b "SELECT gazepriv.reset_release('a_data', 'k_same_select')")" 42501
check "B cannot drop A's dataset" "$(sqlstate curator_b "SELECT gazepriv.drop_dataset('a_data')")" 42501
check "B sees none of A's datasets" \
    "$(as curator_b -c "SELECT count(*) FROM gazepriv.datasets WHERE name = 'a_data'" 2>&1)" 0
check "B sees none of A's budgets" \
    "$(as curator_b -c "SELECT count(*) FROM gazepriv.budgets WHERE dataset = 'a_data'" 2>&1)" 0
check "B sees none of A's ledger" \
    "$(as curator_b -c "SELECT count(*) FROM gazepriv.ledger WHERE dataset = 'a_data'" 2>&1)" 0
check "B sees none of A's budget_status" \
    "$(as curator_b -c "SELECT count(*) FROM gazepriv.budget_status WHERE dataset = 'a_data'" 2>&1)" 0
check "A's catalog is unchanged" "$(state)" "$before"
# A itself still manages and sees its own dataset.
check "A sees its ledger" "$(as curator_a -c "SELECT count(*) FROM gazepriv.ledger WHERE dataset = 'a_data'")" 1
check "A sees its budgets" "$(as curator_a -c "SELECT count(*) FROM gazepriv.budget_status WHERE dataset = 'a_data'")" 2
check "A revokes its analyst" "$(sqlstate curator_a "SELECT gazepriv.revoke_budget('a_data', 'analyst_a')")" ok
finish
