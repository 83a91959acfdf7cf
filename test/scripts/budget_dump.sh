#!/usr/bin/env bash
# pg_dump / pg_restore keeps the registered datasets, the budgets with what was spent, the ledger, the release
# policies, and a served-once release with its secret (served identically after the restore).
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
CREATE TABLE dump_windows (participant text, task text, "window" int, features float8[]);
INSERT INTO dump_windows SELECT 'p' || p, 't', w, ARRAY[p + w / 10.0] FROM generate_series(1, 6) p, generate_series(1, 5) w;
SELECT gazepriv.register_dataset('dump_k', 'dump_windows', 'participant', task_column => 'task',
                                 window_column => 'window', features_column => 'features');
SELECT gazepriv.grant_budget('dump_k', 'postgres', 0, accounting => 'basic');
SELECT gazepriv.set_release_policy('dump_k', 'k_same_select', '{"k": 2}');
SELECT count(*) FROM gazepriv.release_k_same_select('dump_k');
SQL
served() {
    psql -d "$1" -At -c "SELECT md5(string_agg(format('%s %s %s', participant, \"window\", features), '|'
                                                ORDER BY participant, \"window\")) FROM gazepriv.release_k_same_select('dump_k')"
}
snapshot() {
    psql -d "$1" -At -c "SELECT md5(string_agg(t, '|' ORDER BY t)) FROM (
        SELECT format('%s %s %s %s %s', name, relation, participant_column, stimulus_column, observers) t FROM gazepriv.datasets
        UNION ALL SELECT format('%s %s %s %s %s %s %s %s', dataset, role, epsilon_limit, delta_limit, accounting,
                                spent_epsilon, spent_rho, releases) FROM gazepriv.budgets
        UNION ALL SELECT format('%s %s %s %s %s %s %s %s', id, role, dataset, mechanism, parameters, epsilon, delta, rho)
        FROM gazepriv.ledger
        UNION ALL SELECT format('%s %s %s', dataset, mechanism, policy) FROM gazepriv.release_policies
        UNION ALL SELECT format('%s %s %s', ledger_id, served_once, result) FROM gazepriv.releases
        UNION ALL SELECT format('%s %s %s', dataset, mechanism, secret) FROM gazepriv.release_secrets) s"
}
"$bin/pg_dump" -Fc -f "$dir/source.dump" source
psql -c "CREATE DATABASE restored"
"$bin/pg_restore" -d restored "$dir/source.dump"
before=$(snapshot source)
after=$(snapshot restored)
rows=$(psql -d restored -At -c "SELECT count(*) FROM gazepriv.ledger")
echo "source $before, restored $after, ledger rows after restore: $rows"
[ "$before" = "$after" ] && [ "$rows" = 4 ] || { echo "the dump lost budget state"; exit 1; }
[ "$(served source)" = "$(served restored)" ] || { echo "the restored served-once release differs"; exit 1; }
# The restored ledger keeps counting from where it was, and stays append-only.
psql -d restored -c "SELECT gazepriv.release_count('dump', 0.25)" >/dev/null
[ "$(psql -d restored -At -c "SELECT max(id) FROM gazepriv.ledger")" = 5 ] || { echo "ledger sequence reset"; exit 1; }
echo "budget dump: ok"
