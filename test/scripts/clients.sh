#!/usr/bin/env bash
# The README's client examples (test/clients/, shown there verbatim) run against a release store: psycopg2
# with pandas, JDBC (a Java file compiled here), and R with RPostgreSQL, as an analyst over TCP. Each reads
# the heatmap cells and the analyst's budget as plain columns of base types; reading is free. A client whose
# Debian packages could not be installed (test/lib.sh installs them as root) is skipped with a message.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh
CLUSTER_OPTIONS="-c listen_addresses=127.0.0.1"
throwaway_cluster
psql() { cluster_psql "$@"; }

# The examples in test/clients are the README's, character for character.
for f in test/clients/read_release.py test/clients/ReadRelease.java test/clients/read_release.R; do
    "$PYTHON" -c "import sys; sys.exit(open(sys.argv[1]).read() not in open('README.md').read())" "$f" \
        || { echo "$f is not in the README as it is"; exit 1; }
done

psql <<'SQL'
CREATE DATABASE gaze;
\c gaze
CREATE EXTENSION gazepriv;
CREATE ROLE alice LOGIN IN ROLE gazepriv_analyst;
CREATE TABLE gaze (participant text, stimulus int, t_ms float8, x float8, y float8);
INSERT INTO gaze SELECT 'p' || (i % 15), i % 2, i * 10, (i * 37) % 640, (i * 53) % 480 FROM generate_series(1, 900) i;
SELECT gazepriv.register_dataset('gaze', 'gaze', 'participant', stimulus_column => 'stimulus', time_column => 't_ms',
                                 x_column => 'x', y_column => 'y', observers => 15);
SELECT gazepriv.grant_budget('gaze', 'alice', 5, 1e-5);
SELECT gazepriv.set_release_policy('gaze', 'heatmap', '{"cap": 2}');
SELECT gazepriv.set_release_freshness('gaze', '1 hour');
SQL
psql -d gaze -U alice -c "SELECT gazepriv.release_count('gaze', 0.5)" >/dev/null
charges() { psql -h "$socket" -U postgres -d gaze -At -c "SELECT count(*) FROM gazepriv.ledger"; }
socket=$PGHOST
export PGDATABASE=gaze PGUSER=alice PGHOST=127.0.0.1
work=$(scratch_dir)
trap 'stop_cluster; rm -rf "$dir" "$work"' EXIT
failed=0
expect() { # expect WHAT OUTPUT LINE
    if grep -qxF "$3" <<<"$2"; then echo "ok:     $1: $3"; else echo "FAILED: $1: no line '$3' in:"; echo "$2"; failed=1; fi
}

echo "== psycopg2 and pandas"
if "$PYTHON" -c "import psycopg2, pandas" 2>/dev/null; then
    out=$("$PYTHON" test/clients/read_release.py 2>&1)
    expect "pandas reads the cells" "$out" "cells 300 grid (15, 20) value dtype float64"
    expect "and the budget, role as text" "$out" "budget gaze alice dp"
    expect "two charges: the count and the heatmap" "$out" "charges 2"
    out=$("$PYTHON" test/clients/read_release.py 2>&1)
    expect "run again within the window: no new charge" "$out" "charges 2"
else
    echo "skipped: python3-psycopg2 or python3-pandas is not installed"
fi

echo "== JDBC"
jar=/usr/share/java/postgresql.jar
if command -v javac >/dev/null && [ -f "$jar" ]; then
    javac -d "$work" test/clients/ReadRelease.java
    out=$(java -cp "$work:$jar" ReadRelease "jdbc:postgresql://127.0.0.1:$PGPORT/gaze?user=alice" 2>&1)
    expect "JDBC reads the budget as base types" "$out" "budget gaze alice dp 2"
    expect "and the cells" "$out" "cells 300"
    expect "no column of any my_* view is opaque to JDBC" "$out" "opaque columns 0"
else
    echo "skipped: default-jdk-headless or libpostgresql-jdbc-java is not installed"
fi

echo "== R"
if command -v Rscript >/dev/null && Rscript -e 'library(RPostgreSQL)' >/dev/null 2>&1; then
    out=$(Rscript test/clients/read_release.R 2>&1)
    expect "R reads the cells as numbers" "$out" "cells 300 value numeric "
    expect "and the count" "$out" "counts 1 "
    expect "and the budget, role as text" "$out" "budget gaze alice character "
    grep -qi "unrecognized" <<<"$out" && { echo "FAILED: R warned of an unrecognized type"; failed=1; }
else
    echo "skipped: r-base-core or r-cran-rpostgresql is not installed"
fi
[ "$(charges)" = 2 ] || { echo "FAILED: reading was charged: $(charges) ledger rows"; failed=1; }
[ $failed -eq 0 ] && echo "clients: ok"
exit $failed
