#!/usr/bin/env bash
# A4: what defines Kaleido's guarantee (w, r, h, max_tests, t_skip) is the curator's, and a w-event release
# is bought only from a w-event budget. The analyst asks for w = 1, r = 1e-6, t_skip = 0.001, max_tests = 1
# on a participant's stream: refused. Under the policy (w = 30, r = 50 px) the median distance of the released
# points from the truth is at least the noise scale r / epsilon; the charge is in the ledger as w-event, on the
# w-event budget; an analyst holding only a participant-level budget is refused.
. "$(dirname "$0")/roles_and_data.bash"
uniss_dataset curator_a
as curator_a <<'SQL' >/dev/null
SELECT gazepriv.grant_budget('uniss', 'analyst_a', 10, 1e-5);
SELECT gazepriv.grant_budget('uniss', 'analyst_b', 10, 1e-5);
SQL
try_as curator_a -c "SELECT gazepriv.set_release_policy('uniss', 'kaleido', '{\"w\": 30, \"r\": 50}')" \
    -c "SELECT gazepriv.grant_budget('uniss', 'analyst_a', 1, 0, accounting => 'basic', kind => 'w-event')"

check "the analyst cannot choose w, r, t_skip and max_tests" "$(sqlstate analyst_a "SELECT count(*) FROM
    gazepriv.release_kaleido('uniss', '00', epsilon => 0.01, w => 1, r => 1e-6, t_skip => 0.001, max_tests => 1,
                             stimulus => 2)")" 42501
as analyst_a -c "CREATE TABLE sandbox_analyst_a.stream AS
    SELECT * FROM gazepriv.release_kaleido('uniss', '00', epsilon => 0.5, stimulus => 2)" 2>&1 || true
check "the stream is released" "$(psql -At -c "SELECT count(*) = (SELECT count(*) FROM uniss_samples WHERE participant = '00')
    FROM sandbox_analyst_a.stream" 2>&1)" t
check "median distance from the truth >= r / epsilon = 100 px" "$(psql -At -c "
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY sqrt((r.x - s.x) ^ 2 + (r.y - s.y) ^ 2)) >= 100
    FROM sandbox_analyst_a.stream r JOIN uniss_samples s ON s.participant = '00' AND s.t_ms = r.t_ms
    WHERE r.x IS NOT NULL" 2>&1)" t
check "charged as w-event to the analyst" "$(psql -At -c "SELECT string_agg(format('%s %s %s %s', role, mechanism,
    guarantee, epsilon), ';') FROM gazepriv.ledger" 2>&1)" "analyst_a kaleido w-event 0.5"
check "on the w-event budget, not the participant-level one" "$(psql -At -c "SELECT string_agg(format('%s %s', kind,
    basic_epsilon_spent), ';' ORDER BY kind) FROM gazepriv.budget_status WHERE role = 'analyst_a'::regrole" 2>&1)" \
    "dp 0;w-event 0.5"
check "a participant-level budget does not buy a w-event release" "$(sqlstate analyst_b "SELECT count(*) FROM
    gazepriv.release_kaleido('uniss', '00', epsilon => 0.5, stimulus => 2)")" PB002
finish
