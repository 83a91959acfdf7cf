#!/usr/bin/env bash
# C1: code in a registered view runs with the rights of the curator who wrote it, never with the extension
# owner's. A curator (not a superuser) writes a view whose WHERE calls its own function, which records who
# runs it and tries ALTER ROLE ... SUPERUSER; registers the view; releases from it and lets an analyst
# release. Also: a TEMP view cannot be registered, and an analyst's own operator, first on its search_path,
# is never picked up inside a release.
. "$(dirname "$0")/roles_and_data.bash"
load_uniss curator_a

as curator_a <<'SQL'
CREATE TABLE sandbox_curator_a.seen (who text);
CREATE FUNCTION sandbox_curator_a.escalate() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT FROM sandbox_curator_a.seen WHERE who = current_user) THEN
        INSERT INTO sandbox_curator_a.seen VALUES (current_user);
        BEGIN
            ALTER ROLE curator_a SUPERUSER;
        EXCEPTION WHEN OTHERS THEN NULL;
        END;
    END IF;
    RETURN true;
END $$;
CREATE VIEW sandbox_curator_a.trap AS SELECT * FROM public.uniss_samples WHERE sandbox_curator_a.escalate();
SELECT gazepriv.register_dataset('trap', 'sandbox_curator_a.trap', 'participant', stimulus_column => 'stimulus',
                                 time_column => 't_ms', x_column => 'x', y_column => 'y', observers => 20);
SELECT gazepriv.grant_budget('trap', 'curator_a', 10, 1e-5);
SELECT gazepriv.grant_budget('trap', 'analyst_a', 10, 1e-5);
SQL
try_as curator_a -c "SELECT gazepriv.set_release_policy('trap', 'heatmap', '{\"cap\": 1}')" \
    -c "SELECT gazepriv.set_release_policy('trap', 'kaleido', '{\"w\": 30, \"r\": 50}')" \
    -c "SELECT gazepriv.grant_budget('trap', 'analyst_a', 10, 0, accounting => 'basic', kind => 'w-event')"

check "the curator releases from its own view" \
    "$(sqlstate curator_a "SELECT gazepriv.release_count('trap', 1)")" ok
check "an analyst counts" "$(sqlstate analyst_a "SELECT gazepriv.release_count('trap', 1, stimulus => 2)")" ok
check "an analyst releases a heatmap" "$(sqlstate analyst_a \
    "SELECT gazepriv.release_heatmap('trap', 2, gazepriv.heatmap_spec(1280, 1024, 1, cell_size => 64))")" ok
check "an analyst releases a stream" "$(sqlstate analyst_a \
    "SELECT count(*) FROM gazepriv.release_kaleido('trap', '00', epsilon => 1, stimulus => 2)")" ok
check "the curator is still not a superuser" "$(psql -At -c "SELECT rolsuper FROM pg_roles WHERE rolname = 'curator_a'")" f
check "the view's code ran as its owner only" \
    "$(psql -At -c "SELECT string_agg(DISTINCT who, ',') FROM sandbox_curator_a.seen")" curator_a

# A TEMP view would vanish with its session (and was the issue's vehicle): it cannot be a dataset.
check "a TEMP view cannot be registered" "$(sqlstate curator_a "
    CREATE TEMP VIEW temp_trap AS SELECT * FROM public.uniss_samples WHERE sandbox_curator_a.escalate();
    SELECT gazepriv.register_dataset('temp_trap', 'temp_trap', 'participant')")" 22023

# The analyst's own = (integer, bigint), first on its search_path, must not run inside a release (as the
# dataset's owner, or as the extension's).
as analyst_a <<'SQL'
CREATE TABLE sandbox_analyst_a.seen (who text);
CREATE FUNCTION sandbox_analyst_a.eq(integer, bigint) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO sandbox_analyst_a.seen VALUES (current_user);
    RETURN $1 = $2;
END $$;
CREATE OPERATOR sandbox_analyst_a.= (LEFTARG = integer, RIGHTARG = bigint, FUNCTION = sandbox_analyst_a.eq);
SQL
check "a release with the analyst's search_path" "$(sqlstate analyst_a "
    SET search_path = sandbox_analyst_a, pg_catalog;
    SELECT gazepriv.release_count('trap', 1, stimulus => 2)")" ok
check "the analyst's operator never ran inside a release" \
    "$(psql -At -c "SELECT count(*) FROM sandbox_analyst_a.seen")" 0
finish
