#!/usr/bin/env bash
# Backup and restore into a FRESH cluster, as the README's "Backup and restore" says: roles first
# (pg_dumpall --globals-only), then the database (pg_dump -Fc, pg_restore). Every dataset, budget, ledger row,
# release policy and stored release is back, the ledger keeps counting, analysts still cannot read the raw
# rows and read their stored releases as before; DROP EXTENSION is still refused.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh
bin=$("$PG_CONFIG" --bindir)
psql() { cluster_psql "$@"; }
first=$(scratch_dir)
second=$(scratch_dir)
trap 'stop_cluster; rm -rf "$first" "$second"' EXIT
start_cluster "$first"

psql <<'SQL'
CREATE DATABASE gaze;
\c gaze
CREATE EXTENSION gazepriv;
CREATE ROLE curator LOGIN IN ROLE gazepriv_curator;
CREATE ROLE alice LOGIN IN ROLE gazepriv_analyst;
CREATE ROLE bob LOGIN IN ROLE gazepriv_analyst;
CREATE TABLE public.gaze (participant text, stimulus int, t_ms float8, x float8, y float8);
INSERT INTO public.gaze SELECT 'p' || (i % 15), i % 2, i * 10, (i * 37) % 640, (i * 53) % 480
FROM generate_series(1, 900) i;
ALTER TABLE public.gaze OWNER TO curator;
SET ROLE curator;
SELECT gazepriv.register_dataset('gaze', 'public.gaze', 'participant', stimulus_column => 'stimulus',
                                 time_column => 't_ms', x_column => 'x', y_column => 'y', observers => 15);
SELECT gazepriv.grant_budget('gaze', 'alice', 5, 1e-5);
SELECT gazepriv.grant_budget('gaze', 'bob', 5, 1e-5, accounting => 'basic');
SELECT gazepriv.set_release_policy('gaze', 'heatmap', '{"cap": 2}');
SELECT gazepriv.set_release_freshness('gaze', '1 day');
SET ROLE alice;
SELECT gazepriv.release_count('gaze', 0.5);
SELECT (gazepriv.release_heatmap('gaze', 1, gazepriv.heatmap_spec(640, 480, 1, cell_size => 32))).n;
SET ROLE bob;
SELECT gazepriv.release_count('gaze', 0.25, 1);
SQL
snapshot() {
    psql -d gaze -At -c "SELECT md5(string_agg(t, '|' ORDER BY t)) FROM (
        SELECT format('%s %s %s %s %s', name, relation, participant_column, observers, owner) t FROM gazepriv.datasets
        UNION ALL SELECT format('%s %s %s %s %s %s %s %s %s', dataset, role, kind, epsilon_limit, delta_limit,
                                accounting, spent_epsilon, spent_rho, releases) FROM gazepriv.budgets
        UNION ALL SELECT format('%s %s %s %s %s %s %s %s %s', id, at, role, dataset, mechanism, parameters, epsilon,
                                delta, rho) FROM gazepriv.ledger
        UNION ALL SELECT format('%s %s %s', dataset, mechanism, policy) FROM gazepriv.release_policies
        UNION ALL SELECT format('%s %s', dataset, fresh_for) FROM gazepriv.release_freshness
        UNION ALL SELECT format('%s %s %s %s %s %s %s', ledger_id, role, stored_at, parameters, request, result,
                                heatmap) FROM gazepriv.releases) s"
}
counts() {
    psql -d gaze -At -c "SELECT (SELECT count(*) FROM gazepriv.datasets), (SELECT count(*) FROM gazepriv.budgets),
        (SELECT count(*) FROM gazepriv.ledger), (SELECT count(*) FROM gazepriv.releases)"
}
alices_cells() { "$bin/psql" -X -At -U alice -d gaze -c "SELECT md5(string_agg(format('%s %s %s', x, y, value), '|'
    ORDER BY y, x)) FROM gazepriv.my_heatmap_cells"; }
before=$(snapshot)
before_counts=$(counts)
cells_before=$(alices_cells)
[ ${#cells_before} = 32 ] || { echo "alice cannot read her stored heatmap"; exit 1; }
"$bin/pg_dumpall" --globals-only -f "$first/globals.sql"
"$bin/pg_dump" -Fc -f "$first/gaze.dump" gaze
stop_cluster

# A fresh cluster: roles first, then the database.
start_cluster "$second"
# Without ON_ERROR_STOP: the one error, "role \"postgres\" already exists", must not stop the rest.
"$bin/psql" -X -q -f "$first/globals.sql" >"$second/globals.log" 2>&1
grep -E 'ERROR' "$second/globals.log" | grep -v 'role "postgres" already exists' && { echo "restoring the roles failed"; exit 1; }
psql -c "CREATE DATABASE gaze"
"$bin/pg_restore" --exit-on-error -d gaze "$first/gaze.dump"
after=$(snapshot)
after_counts=$(counts)
echo "before: $before_counts $before"
echo "after:  $after_counts $after"
[ "$before" = "$after" ] && [ "$before_counts" = "$after_counts" ] || { echo "the restore lost catalog rows"; exit 1; }
[ "$before_counts" = "1|2|3|3" ] || { echo "unexpected catalog: $before_counts"; exit 1; }
[ "$cells_before" = "$(alices_cells)" ] || { echo "alice's stored heatmap differs after the restore"; exit 1; }
# Analysts still cannot read the raw rows, and read only their own releases.
out=$("$bin/psql" -X -At -U alice -d gaze -c "SELECT count(*) FROM public.gaze" 2>&1) && { echo "alice read raw rows"; exit 1; }
grep -q "permission denied" <<<"$out" || { echo "unexpected: $out"; exit 1; }
[ "$("$bin/psql" -X -At -U bob -d gaze -c "SELECT count(*) FROM gazepriv.my_releases")" = 1 ] || { echo "bob sees other releases"; exit 1; }
# A repeat within the window is still served from the store, free (the map bit for bit); the ledger keeps
# counting.
"$bin/psql" -X -At -U alice -d gaze -c "SELECT gazepriv.release_count('gaze', 0.5)" >/dev/null
same=$("$bin/psql" -X -At -U alice -d gaze -c "SELECT (SELECT array_agg(float8send(v)) FROM unnest((h).values) v)
    = (SELECT array_agg(float8send(value) ORDER BY y, x) FROM gazepriv.my_heatmap_cells)
    FROM (SELECT gazepriv.release_heatmap('gaze', 1, gazepriv.heatmap_spec(640, 480, 1, cell_size => 32)) h) s")
[ "$same" = t ] || { echo "the repeated heatmap differs from the restored one: $same"; exit 1; }
[ "$(psql -d gaze -At -c "SELECT count(*) FROM gazepriv.ledger")" = 3 ] || { echo "a repeat was charged after the restore"; exit 1; }
"$bin/psql" -X -At -U alice -d gaze -c "SELECT gazepriv.release_count('gaze', 0.75)" >/dev/null
[ "$(psql -d gaze -At -c "SELECT max(id) FROM gazepriv.ledger")" = 4 ] || { echo "ledger sequence reset"; exit 1; }
# The restored extension is still guarded.
out=$(psql -d gaze -c "DROP EXTENSION gazepriv CASCADE" 2>&1) && { echo "DROP EXTENSION was allowed"; exit 1; }
grep -q "cannot drop extension gazepriv" <<<"$out" || { echo "unexpected: $out"; exit 1; }
echo "budget restore into a fresh cluster: ok"
