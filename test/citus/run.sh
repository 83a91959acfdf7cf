#!/usr/bin/env bash
# The Citus suite: a coordinator and two workers on this machine (test/citus/lib.sh), gazepriv created on the
# coordinator, then test/citus/sql/*.sql run by pg_regress against the coordinator (expected output in
# test/citus/expected/) and the multi-client scripts test/citus/scripts/*.sh on the same cluster. Prints one
# "test ... ok|FAILED" line per test, and the differences or output of failed ones.
# Exit status: 0 all passed, 1 a failure, 3 Citus is not available here (one line says how to enable it).
# Run by test/run.sh; by hand: PG_CONFIG=... test/citus/run.sh (as root, or as the server user).
set -uo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh
. test/citus/lib.sh

work=$(scratch_dir)
[ "${GAZEPRIV_KEEP:-0}" = 1 ] && echo "Citus suite outputs kept in $work"
cleanup() {
    stop_citus
    [ "${GAZEPRIV_KEEP:-0}" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT

ensure_citus "$work/citus-build.log"
case $? in
0) ;;
1)
    echo "Citus suite skipped: Citus is not installed for $("$PG_CONFIG" --version) ($CITUS_ENABLE_HINT)"
    exit 3
    ;;
*)
    echo "building Citus from $CITUS_KIT failed:"
    tail -30 "$work/citus-build.log"
    exit 1
    ;;
esac

# pg_regress writes next to its inputs, and the tests read test/data: both copied where the server user owns them.
mkdir -p "$work/cluster" "$work/suite/test"
cp -r test/citus/sql test/citus/expected "$work/suite/"
cp -r test/data "$work/suite/test/"
[ "$(id -u)" -eq 0 ] && chown -R "$(server_user)" "$work"
start_citus "$work/cluster" || exit 1

tests=$(cd test/citus/sql && ls *.sql | sed 's/\.sql$//')
regress="$(dirname "$("$PG_CONFIG" --pgxs)")/../test/regress/pg_regress"
as_server_user bash -c "cd '$work/suite' && '$regress' --use-existing --host='$CITUS_DIR' --port=$CITUS_PORT \
    --user=postgres --dbname=postgres --bindir='$("$PG_CONFIG" --bindir)' --inputdir=. --outputdir=. $(echo $tests)" \
    >"$work/regress.log" 2>&1
status=$?
grep -E '\.\.\. (ok|FAILED|failed)' "$work/regress.log"
if [ $status -ne 0 ]; then
    grep -qE '\.\.\. (FAILED|failed)' "$work/regress.log" || tail -30 "$work/regress.log"
    head -300 "$work/suite/regression.diffs" 2>/dev/null
fi

# Multi-client scripts on the same cluster (test/citus/scripts/*.sh).
export CITUS_DIR CITUS_PORT
for t in test/citus/scripts/*.sh; do
    name=$(basename "$t" .sh)
    if bash "$t" >"$work/$name.log" 2>&1; then
        echo "test $name ... ok"
    else
        echo "test $name ... FAILED"
        tail -20 "$work/$name.log"
        status=1
    fi
done
if [ $status -ne 0 ]; then
    for i in 0 1 2; do tail -5 "$work/cluster/node$i.log"; done
    exit 1
fi
