#!/usr/bin/env bash
# pg_dump / pg_restore keeps the registered datasets, the budgets with what was spent, and the ledger.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh
throwaway_cluster
bin=$("$PG_CONFIG" --bindir)
psql() { cluster_psql "$@"; }

psql <<'SQL'
CREATE DATABASE source;
\c source
CREATE EXTENSION gazepriv;
CREATE TABLE dump_gaze (participant text, stimulus int);
INSERT INTO dump_gaze SELECT 'p' || i, i % 2 FROM generate_series(1, 10) i;
SELECT gazepriv.register_dataset('dump', 'dump_gaze', 'participant', stimulus_column => 'stimulus', observers => 10);
SELECT gazepriv.grant_budget('dump', 'postgres', 3.0, 1e-5);
SELECT gazepriv.release_count('dump', 0.5);
SELECT gazepriv.release_count('dump', 0.25, stimulus => 1);
SELECT gazepriv.charge_budget('dump', 'gaussian', 1, 1e-6, rho => 0.02);
SQL
snapshot() {
    psql -d "$1" -At -c "SELECT md5(string_agg(t, '|' ORDER BY t)) FROM (
        SELECT format('%s %s %s %s %s', name, relation, participant_column, stimulus_column, observers) t FROM gazepriv.datasets
        UNION ALL SELECT format('%s %s %s %s %s %s %s %s', dataset, role, epsilon_limit, delta_limit, accounting,
                                spent_epsilon, spent_rho, releases) FROM gazepriv.budgets
        UNION ALL SELECT format('%s %s %s %s %s %s %s %s', id, role, dataset, mechanism, parameters, epsilon, delta, rho)
        FROM gazepriv.ledger) s"
}
"$bin/pg_dump" -Fc -f "$dir/source.dump" source
psql -c "CREATE DATABASE restored"
"$bin/pg_restore" -d restored "$dir/source.dump"
before=$(snapshot source)
after=$(snapshot restored)
rows=$(psql -d restored -At -c "SELECT count(*) FROM gazepriv.ledger")
echo "source $before, restored $after, ledger rows after restore: $rows"
[ "$before" = "$after" ] && [ "$rows" = 3 ] || { echo "the dump lost budget state"; exit 1; }
# The restored ledger keeps counting from where it was, and stays append-only.
psql -d restored -c "SELECT gazepriv.release_count('dump', 0.25)" >/dev/null
[ "$(psql -d restored -At -c "SELECT max(id) FROM gazepriv.ledger")" = 4 ] || { echo "ledger sequence reset"; exit 1; }
echo "budget dump: ok"
