#!/usr/bin/env bash
# Runs every test of gazepriv and ends with the line "N passed, N failed":
#   1. formatting of the C++ sources (clang-format) and the architecture (test/architecture.sh),
#   2. the core unit tests (GoogleTest under ctest, no server),
#   3. pg_regress (sql/, expected/) and the isolation specs (test/isolation/) on throwaway clusters
#      started for the run, as an unprivileged user (initdb refuses root),
#   4. the script tests in test/scripts/ (stress, crash and similar multi-process tests) and the security
#      suite in test/security/ (one script per attack class, playing the attacker as a non-superuser),
#   5. the privacy audit's fast form (test/audit/run.sh): every mechanism's loss bounded from below,
#   6. the Citus suite (test/citus/): a coordinator and two workers, when Citus is installed for PG_CONFIG or
#      can be built from ../shared/citus (otherwise one line says how to enable it).
# As root on a fresh Debian bookworm machine it installs its own dependencies first.
set -uo pipefail
cd "$(dirname "$0")/.."
. test/lib.sh

PASSED=0
FAILED=0
record() { # record NAME STATUS
    if [ "$2" -eq 0 ]; then
        PASSED=$((PASSED + 1))
    else
        FAILED=$((FAILED + 1))
        echo "FAILED: $1"
    fi
}
finish() {
    stop_cluster
    echo
    echo "$PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ]
    exit
}

ensure_dependencies
if ! build_and_install; then
    record "build and install" 1
    finish
fi

log "formatting (clang-format)"
make -s format-check >/dev/null 2>/tmp/gazepriv-format.log
status=$?
[ $status -ne 0 ] && head -40 /tmp/gazepriv-format.log
record "clang-format" $status

log "architecture (layering of the areas, the C++/PostgreSQL boundary)"
PG_CONFIG="$PG_CONFIG" ./test/architecture.sh
record "architecture" $?

log "core unit tests (ctest)"
if cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON >/dev/null && cmake --build build -j"$(nproc)" >build/build.log 2>&1; then
    (cd build && ctest --output-on-failure -j"$(nproc)") >build/ctest.log 2>&1
    tail -3 build/ctest.log
    grep -A200 'The following tests FAILED' build/ctest.log
    summary=$(grep -E '[0-9]+ tests? failed out of [0-9]+' build/ctest.log)
    failed=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$summary")
    total=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\2/' <<<"$summary")
    if [ -n "$total" ]; then
        PASSED=$((PASSED + total - failed))
        FAILED=$((FAILED + failed))
    else
        record "ctest" 1
    fi
else
    tail -40 build/build.log
    record "unit test build" 1
fi

# pg_regress and pg_isolation_regress write next to their inputs: run them on a copy the server user owns.
stage=$(scratch_dir)
# GAZEPRIV_KEEP=1 keeps the copy (results/, regression.diffs) for inspection.
[ "${GAZEPRIV_KEEP:-0}" = 1 ] && echo "test outputs kept in $stage" || trap 'rm -rf "$stage"' EXIT
cp -r Makefile extension sql expected test "$stage"/
[ "$(id -u)" -eq 0 ] && chown -R "$(server_user)" "$stage"

run_suite() { # run_suite NAME MAKE-OVERRIDES... ; counts "... ok" / "... FAILED" lines
    local name=$1 log="$stage/$1.log" ok bad
    shift
    as_server_user make -C "$stage" installcheck PG_CONFIG="$PG_CONFIG" "$@" >"$log" 2>&1
    local status=$?
    grep -E '\.\.\. (ok|FAILED|failed)' "$log"
    ok=$(grep -cE '\.\.\. ok' "$log")
    bad=$(grep -cE '\.\.\. (FAILED|failed)' "$log")
    PASSED=$((PASSED + ok))
    FAILED=$((FAILED + bad))
    if [ $status -ne 0 ]; then
        [ "$bad" -eq 0 ] && { record "$name (did not run)" 1; tail -30 "$log"; }
        cat "$stage"/regression.diffs "$stage"/output_iso/regression.diffs 2>/dev/null | head -300
        tail -20 "$stage"/tmp_check/log/postmaster.log "$stage"/tmp_check_iso/log/postmaster.log 2>/dev/null
    fi
}

log "pg_regress on a throwaway cluster (as $(server_user))"
run_suite regress ISOLATION=

if ls test/isolation/specs/*.spec >/dev/null 2>&1; then
    log "isolation specs on a throwaway cluster (as $(server_user))"
    run_suite isolation REGRESS=
fi

run_scripts() { # run_scripts TITLE DIR: every DIR/*.sh, each on its own throwaway cluster (test/lib.sh)
    ls "$2"/*.sh >/dev/null 2>&1 || return 0
    log "$1"
    local t status
    for t in "$2"/*.sh; do
        bash "$t" >"$stage/$(basename "$t").log" 2>&1
        status=$?
        echo "$(basename "$t") ... $([ $status -eq 0 ] && echo ok || echo FAILED)"
        [ $status -ne 0 ] && tail -40 "$stage/$(basename "$t").log"
        record "$t" $status
    done
}
run_scripts "script tests" test/scripts
run_scripts "security suite: each attack class played by a non-superuser (test/security)" test/security

log "privacy audit, fast form (test/audit/run.sh)"
bash test/audit/run.sh >"$stage/audit.log" 2>&1
status=$?
grep -E '^audit .* \.\.\. (ok|FAILED)' "$stage/audit.log"
grep -A1 -E '^audit .* \.\.\. FAILED' "$stage/audit.log" | grep -E '^    ' | head -40
ok=$(grep -cE '^audit .* \.\.\. ok' "$stage/audit.log")
bad=$(grep -cE '^audit .* \.\.\. FAILED' "$stage/audit.log")
PASSED=$((PASSED + ok))
FAILED=$((FAILED + bad))
if [ $status -ne 0 ] && [ "$bad" -eq 0 ]; then
    record "privacy audit (did not run)" 1
    tail -30 "$stage/audit.log"
fi

log "Citus suite: a coordinator and two workers (test/citus)"
bash test/citus/run.sh >"$stage/citus.log" 2>&1
status=$?
if [ $status -eq 3 ]; then
    tail -1 "$stage/citus.log" # the one line saying how to enable it
else
    grep -E '\.\.\. (ok|FAILED|failed)' "$stage/citus.log"
    PASSED=$((PASSED + $(grep -cE '\.\.\. ok' "$stage/citus.log")))
    bad=$(grep -cE '\.\.\. (FAILED|failed)' "$stage/citus.log")
    FAILED=$((FAILED + bad))
    if [ $status -ne 0 ]; then
        [ "$bad" -eq 0 ] && record "Citus suite (did not run)" 1
        grep -vE '\.\.\. (ok|FAILED|failed)' "$stage/citus.log" | head -300
    fi
fi

finish
