#!/usr/bin/env bash
# C3: nobody writes the catalog but the extension's functions and the charge worker. Curator B tries direct
# INSERT, UPDATE and DELETE on datasets (a dataset over A's table, A's dataset re-pointed), budgets (a row
# with spent_epsilon = -1000000 and a forged granted_by, A's analyst's limit) and the ledger: all refused,
# nothing changed, and no analyst gains a hidden budget. Constraints hold the invariants even for a superuser.
. "$(dirname "$0")/roles_and_data.bash"
load_uniss curator_a
psql -c "CREATE TABLE public.b_table (participant text, stimulus int, t_ms float8, x float8, y float8)" \
     -c "ALTER TABLE public.b_table OWNER TO curator_b"
as curator_a <<'SQL'
SELECT gazepriv.register_dataset('a_data', 'public.uniss_samples', 'participant', stimulus_column => 'stimulus',
                                 time_column => 't_ms', x_column => 'x', y_column => 'y', observers => 20);
SELECT gazepriv.grant_budget('a_data', 'analyst_a', 1, 1e-5);
SQL
as curator_b -c "SELECT gazepriv.register_dataset('b_data', 'public.b_table', 'participant')" >/dev/null
as analyst_a -c "SELECT gazepriv.release_count('a_data', 0.25)" >/dev/null
state() { psql -At -c "SELECT md5(string_agg(t, '|' ORDER BY t)) FROM (
    SELECT format('%s %s %s', name, relation, registered_by) t FROM gazepriv.datasets
    UNION ALL SELECT format('%s %s %s %s %s %s', dataset, role, epsilon_limit, spent_epsilon, revoked, granted_by)
    FROM gazepriv.budgets UNION ALL SELECT format('%s %s %s', id, role, epsilon) FROM gazepriv.ledger) s"; }
before=$(state)

for q in \
    "INSERT INTO gazepriv.datasets (name, relation, participant_column, registered_by) VALUES ('stolen', 'public.uniss_samples', 'participant', 'curator_b')" \
    "UPDATE gazepriv.datasets SET relation = 'public.uniss_samples' WHERE name = 'b_data'" \
    "UPDATE gazepriv.datasets SET relation = 'public.b_table' WHERE name = 'a_data'" \
    "DELETE FROM gazepriv.datasets WHERE name = 'a_data'" \
    "INSERT INTO gazepriv.budgets (dataset, role, epsilon_limit, delta_limit, accounting, spent_epsilon, granted_by) VALUES ('a_data', 'analyst_b', 1, 0, 'basic', -1000000, 'curator_a')" \
    "INSERT INTO gazepriv.budgets (dataset, role, epsilon_limit, delta_limit, accounting, spent_epsilon, granted_by) VALUES ('b_data', 'analyst_b', 1, 0, 'basic', -1000000, 'curator_a')" \
    "UPDATE gazepriv.budgets SET epsilon_limit = 1000, spent_epsilon = 0" \
    "DELETE FROM gazepriv.budgets" \
    "INSERT INTO gazepriv.ledger (role, dataset, mechanism, epsilon, delta, guarantee, non_private, accounting, backend_pid) VALUES ('analyst_a', 'a_data', 'x', 0, 0, 'dp', false, 'basic', 0)" \
    "DELETE FROM gazepriv.ledger"; do
    check "curator B: $(cut -c1-60 <<<"$q")..." "$(sqlstate curator_b "$q")" 42501
done
check "the catalog is unchanged" "$(state)" "$before"
check "analyst B has no budget on A's dataset" "$(sqlstate analyst_b "SELECT gazepriv.release_count('a_data', 1)")" PB002
check "analyst B has no budget on B's dataset" "$(sqlstate analyst_b "SELECT gazepriv.release_count('b_data', 1)")" PB002
# Constraints keep spending non-negative whoever writes.
check "spending stays non-negative (constraint)" \
    "$(sqlstate postgres "UPDATE gazepriv.budgets SET spent_epsilon = -1")" 23514
finish
