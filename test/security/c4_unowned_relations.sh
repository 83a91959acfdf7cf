#!/usr/bin/env bash
# C4: only a relation's owner (or a superuser) registers it. Curator B, with only INSERT (then SELECT) on
# curator A's table, tries to register it (and would release it with a tiny radius); A registers its own
# table, shared with PUBLIC, and the REVOKE succeeds without a warning; a superuser registering A's table
# makes A the dataset's owner, whose rights read it.
. "$(dirname "$0")/roles_and_data.bash"
load_uniss curator_a
psql -c "GRANT INSERT ON public.uniss_samples TO curator_b"
check "B cannot register A's table with INSERT only" "$(sqlstate curator_b \
    "SELECT gazepriv.register_dataset('b_steals', 'public.uniss_samples', 'participant', time_column => 't_ms', x_column => 'x', y_column => 'y')")" 42501
psql -c "GRANT SELECT ON public.uniss_samples TO curator_b"
check "B cannot register A's table with SELECT either" "$(sqlstate curator_b \
    "SELECT gazepriv.register_dataset('b_steals', 'public.uniss_samples', 'participant', time_column => 't_ms', x_column => 'x', y_column => 'y')")" 42501
check "nothing was registered" "$(psql -At -c "SELECT count(*) FROM gazepriv.datasets")" 0
# The attack that followed: a budget and a stream release at r = 1e-6.
try_as curator_b -c "SELECT gazepriv.grant_budget('b_steals', 'curator_b', 10, 0, accounting => 'basic')"
check "B releases nothing from A's table" "$(sqlstate curator_b \
    "SELECT count(*) FROM gazepriv.release_kaleido('b_steals', '00', 0.01, 1, 1e-6, t_skip => 0.001, max_tests => 1)")" PB002
psql -c "REVOKE ALL ON public.uniss_samples FROM curator_b"

# A registers its own table that PUBLIC may read: the REVOKE takes effect, silently.
psql -c "GRANT SELECT ON public.uniss_samples TO PUBLIC, gazepriv_analyst"
out=$(as curator_a -c "SELECT gazepriv.register_dataset('a_data', 'public.uniss_samples', 'participant', stimulus_column => 'stimulus', time_column => 't_ms', x_column => 'x', y_column => 'y', observers => 20)" 2>&1)
check "registering says nothing (no WARNING)" "$out" ""
check "PUBLIC can no longer read it" "$(psql -At -c "SELECT has_table_privilege('public', 'public.uniss_samples', 'SELECT')")" f
check "analysts can no longer read it" \
    "$(psql -At -c "SELECT has_table_privilege('gazepriv_analyst', 'public.uniss_samples', 'SELECT')")" f

# A superuser registers a table A owns: the dataset belongs to A (A manages it, A's rights read it).
psql -c "CREATE TABLE public.a_second (participant text)" -c "INSERT INTO public.a_second VALUES ('p1'), ('p2')" \
     -c "ALTER TABLE public.a_second OWNER TO curator_a" \
     -c "SELECT gazepriv.register_dataset('a_second', 'public.a_second', 'participant')" >/dev/null
check "a superuser's registration belongs to the table's owner" \
    "$(psql -At -c "SELECT owner FROM gazepriv.datasets WHERE name = 'a_second'" 2>&1)" curator_a
check "the owner manages it" "$(sqlstate curator_a "SELECT gazepriv.grant_budget('a_second', 'analyst_a', 1, 0, accounting => 'basic')")" ok
# Handing the relation over (as PostgreSQL lets an owner do, to a role it belongs to) hands the dataset over.
psql -c "GRANT curator_b TO curator_a" -c "GRANT CREATE ON SCHEMA public TO curator_b" >/dev/null
as curator_a -c "ALTER TABLE public.a_second OWNER TO curator_b"
psql -c "REVOKE curator_b FROM curator_a" >/dev/null
check "the relation's new owner manages it" \
    "$(sqlstate curator_b "SELECT gazepriv.grant_budget('a_second', 'analyst_b', 1, 0, accounting => 'basic')")" ok
check "the former owner no longer does" \
    "$(sqlstate curator_a "SELECT gazepriv.revoke_budget('a_second', 'analyst_b')")" 42501
check "an analyst's release reads it as the new owner" "$(sqlstate analyst_b "SELECT gazepriv.release_count('a_second', 1)")" ok
finish
