#!/usr/bin/env bash
# A bounded fuzz test of every function an analyst, a curator or a live-feed device can execute: for each
# argument, calls with the hostile values of its type (NaN, +-Infinity, 5e-324, 1e308, -1, 0, the extreme
# integers, empty and NULL-holding arrays, NULL, long text, forged heatmap specs), the other arguments at plain
# values, each under statement_timeout = 5s (fuzz_functions.sql writes the calls from pg_proc). It asserts no
# crash (the server stays up and its log shows no backend terminated by a signal), no hang (no statement
# timeout) and only documented SQLSTATEs.
. "$(dirname "$0")/roles_and_data.bash"
uniss_dataset curator_a
psql -c "CREATE ROLE device LOGIN NOSUPERUSER" >/dev/null
as curator_a <<'SQL' >/dev/null
SELECT gazepriv.grant_budget('uniss', 'analyst_a', 1e6, 1e-3);
SELECT gazepriv.set_release_policy('uniss', 'heatmap', '{"cap": 1}');
SELECT gazepriv.set_release_policy('uniss', 'kaleido', '{"w": 30, "r": 50}');
SELECT gazepriv.grant_budget('uniss', 'analyst_a', 1e6, 0, accounting => 'basic', kind => 'w-event');
SQL
# The documented SQLSTATEs (README): bad value, NULL, out of range, limit, privilege, budget, state, lock,
# invalid text or array input, feature not supported, undefined column or table (names a caller gives),
# not-null violation, corrupted state, and the serialization failure of live feeds.
documented='22023 22004 22003 22P02 2202E 22P05 54000 42501 PB001 PB002 PB003 PB004 55000 55P03 0A000 42703 42P01 42704 42710 23502 XX001 40001'
SECONDS=0
calls=0
for role in analyst_a curator_a device; do
    psql -At -v role="$role" -f test/security/fuzz_functions.sql >"$dir/calls_$role.sql"
    calls=$((calls + $(wc -l <"$dir/calls_$role.sql")))
    { echo "SET statement_timeout = '5s';"; cat "$dir/calls_$role.sql"; } |
        "$BIN/psql" -X -q -At -U "$role" -v VERBOSITY=sqlstate -v ECHO=errors >/dev/null 2>"$dir/errors_$role.log" || true
    # Each failed call: its SQLSTATE line, then the statement psql echoes.
    awk -v role="$role" '/^(psql:[^ ]* )?ERROR:/ { state = $NF; next } state != "" { print role "\t" state "\t" $0; state = "" }' \
        "$dir/errors_$role.log" >>"$dir/failures.tsv"
done
echo "fuzzed $calls calls in ${SECONDS}s; SQLSTATEs: $(cut -f2 "$dir/failures.tsv" | sort | uniq -c | sort -rn | awk '{ printf "%s %s, ", $2, $1 }')"
check "the server is up" "$(psql -At -c 'SELECT 1')" 1
check "no backend was terminated by a signal" "$(grep -c 'terminated by signal' "$dir/server.log" || true)" 0
check "no call hung (57014: statement timeout)" "$(awk -F'\t' '$2 == "57014" { print $1 ": " $3 }' "$dir/failures.tsv")" ""
undocumented=$(awk -F'\t' -v ok=" $documented 57014 " 'index(ok, " " $2 " ") == 0 { print $1 ": " $2 ": " $3 }' "$dir/failures.tsv")
check "every error has a documented SQLSTATE" "$undocumented" ""
check "the whole run took under 2 minutes" "$([ "$SECONDS" -lt 120 ] && echo yes || echo "no: ${SECONDS}s")" yes
[ -n "${FUZZ_KEEP:-}" ] && cp "$dir/failures.tsv" "$FUZZ_KEEP"
finish
