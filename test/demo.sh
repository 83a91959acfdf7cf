#!/usr/bin/env bash
# The demo: builds and installs gazepriv, starts a throwaway PostgreSQL cluster, loads a slice of real
# eye-tracking data (test/data) and runs the queries in test/demo/*.sql in order, printing their
# results. Files it writes (pictures) go to test/demo/out/. The cluster is removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
. test/lib.sh

ensure_dependencies
build_and_install
dir=$(scratch_dir)
trap 'stop_cluster; rm -rf "$dir"' EXIT
log "starting a throwaway cluster in $dir"
start_cluster "$dir"
export DEMO_OUT="$REPO/test/demo/out"
mkdir -p "$DEMO_OUT"

for f in test/demo/*.sql; do
    log "$(sed -n '1s/^-- *//p' "$f")"
    "$("$PG_CONFIG" --bindir)/psql" -X -q -v ON_ERROR_STOP=1 -v demo_out="$DEMO_OUT" -P footer=off -f "$f"
done
log "demo finished; pictures, if any, are in test/demo/out/"
