#!/usr/bin/env bash
# A7: the role whose privileges run a release is charged. Analyst A's SECURITY DEFINER function stores a
# release in A's table; analyst B calls it: A pays (as the ledger says), B's budget is untouched; without a
# budget of its own, A's function releases nothing even when B has one.
. "$(dirname "$0")/roles_and_data.bash"
load_uniss curator_a
as curator_a <<'SQL' >/dev/null
SELECT gazepriv.register_dataset('uniss', 'public.uniss_samples', 'participant', stimulus_column => 'stimulus',
                                 observers => 20);
SELECT gazepriv.grant_budget('uniss', 'analyst_a', 1, 0, accounting => 'basic');
SELECT gazepriv.grant_budget('uniss', 'analyst_b', 1, 0, accounting => 'basic');
SQL
as analyst_a <<'SQL' >/dev/null
CREATE TABLE sandbox_analyst_a.loot (v bigint);
CREATE FUNCTION sandbox_analyst_a.harvest() RETURNS void LANGUAGE sql SECURITY DEFINER
    SET search_path = pg_catalog AS $$ INSERT INTO sandbox_analyst_a.loot SELECT gazepriv.release_count('uniss', 0.25) $$;
GRANT USAGE ON SCHEMA sandbox_analyst_a TO analyst_b;
GRANT EXECUTE ON FUNCTION sandbox_analyst_a.harvest() TO analyst_b;
SQL
check "B calls A's function" "$(sqlstate analyst_b "SELECT sandbox_analyst_a.harvest()")" ok
check "A pays" "$(psql -At -c "SELECT string_agg(format('%s %s', role, epsilon), ';') FROM gazepriv.ledger")" "analyst_a 0.25"
check "the budgets say so" "$(psql -At -c "SELECT string_agg(format('%s %s', role, spent_epsilon), ';' ORDER BY role::text)
    FROM gazepriv.budgets")" "analyst_a 0.25;analyst_b 0"
as curator_a -c "SELECT gazepriv.revoke_budget('uniss', 'analyst_a')" >/dev/null
check "without A's budget, B's call releases nothing" "$(sqlstate analyst_b "SELECT sandbox_analyst_a.harvest()")" PB002
check "and charges nobody" "$(psql -At -c "SELECT count(*) FROM gazepriv.ledger")" 1
# A view is evaluated with its reader's rights: an analyst reading A's view that releases pays itself.
as analyst_a -c "CREATE VIEW sandbox_analyst_a.v AS SELECT gazepriv.release_count('uniss', 0.25) AS v" \
             -c "GRANT SELECT ON sandbox_analyst_a.v TO analyst_b" >/dev/null
check "B reads A's releasing view" "$(sqlstate analyst_b "SELECT * FROM sandbox_analyst_a.v")" ok
check "and B pays for it" "$(psql -At -c "SELECT string_agg(format('%s %s', role, epsilon), ';' ORDER BY id) FROM gazepriv.ledger")" \
    "analyst_a 0.25;analyst_b 0.25"
finish
