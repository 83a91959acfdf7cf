# Shared by the trust-boundary scripts of the security suite (sourced, not run: test/run.sh runs *.sh only).
# A throwaway cluster with the extension, the cast of an attack (two curators and two analysts, none a
# superuser, each with a sandbox schema of their own), the real data slices of test/data owned by a curator,
# and helpers that act as a role and record checks. Every check is reported; the script fails at the end if
# any failed, so that one run shows the whole state of a class.
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh
throwaway_cluster
BIN=$("$PG_CONFIG" --bindir)
psql() { cluster_psql "$@"; }

CHECKS_FAILED=0
# check WHAT ACTUAL EXPECTED: records one check.
check() {
    if [ "$2" = "$3" ]; then
        echo "ok:     $1"
    else
        echo "FAILED: $1: got '$2', expected '$3'"
        CHECKS_FAILED=$((CHECKS_FAILED + 1))
    fi
}
# as ROLE SQL...: the statement's tuples (unaligned, tab-separated), run as ROLE; stops at the first error.
as() {
    local role=$1
    shift
    "$BIN/psql" -X -q -At -F $'\t' -v ON_ERROR_STOP=1 -U "$role" "$@"
}
# error_line ROLE VERBOSITY SQL: the statement's ERROR line as ROLE (without "ERROR:"), or "ok" when it succeeds.
error_line() {
    local out
    if out=$("$BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -v VERBOSITY="$2" -U "$1" -c "$3" 2>&1); then
        echo ok
    else
        sed -n 's/^ERROR:  *//p' <<<"$out" | head -1
    fi
}
# sqlstate ROLE SQL: the SQLSTATE the statement fails with as ROLE, or "ok".
sqlstate() { error_line "$1" sqlstate "$2"; }
# message ROLE SQL: the error message the statement fails with as ROLE, or "ok".
message() { error_line "$1" terse "$2"; }
# Tolerant setup for what the curator configures with functions a given version may lack: the attack that
# follows must still be played (and its checks fail) rather than the script stopping here.
try_as() {
    local role=$1
    shift
    "$BIN/psql" -X -q -At -U "$role" "$@" 2>&1 | sed '/^$/d; s/^/    (setup) /' || true
}
# peak ROLE SQL: "SQLSTATE peak-kB" of SQL as ROLE, the peak resident size of its backend.
peak() {
    "$BIN/psql" -X -q -At -U "$1" -v VERBOSITY=sqlstate <<SQL 2>&1 | sed -n 's/^ERROR:  *//p; s/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' | paste -sd' '
SELECT pg_backend_pid() AS pid \gset
$2;
\setenv GAZEPRIV_BACKEND :pid
\! grep VmHWM /proc/\$GAZEPRIV_BACKEND/status
SQL
}
# ... | under_1gb: "SQLSTATE under 1 GB" when the measured peak stayed under 1 GB.
under_1gb() { awk '{ print $1, ($2 != "" && $2 < 1048576 ? "under 1 GB" : "over 1 GB or unmeasured: " $2 " kB") }'; }

finish() {
    check "no role other than postgres is a superuser" \
        "$(psql -At -c "SELECT string_agg(rolname, ',') FROM pg_roles WHERE rolsuper AND rolname <> 'postgres'")" ""
    if [ "$CHECKS_FAILED" -ne 0 ]; then
        echo "$CHECKS_FAILED check(s) failed"
        exit 1
    fi
    echo "all checks passed"
}

psql <<'SQL'
CREATE EXTENSION gazepriv;
CREATE ROLE curator_a LOGIN NOSUPERUSER IN ROLE gazepriv_curator;
CREATE ROLE curator_b LOGIN NOSUPERUSER IN ROLE gazepriv_curator;
CREATE ROLE analyst_a LOGIN NOSUPERUSER IN ROLE gazepriv_analyst;
CREATE ROLE analyst_b LOGIN NOSUPERUSER IN ROLE gazepriv_analyst;
CREATE SCHEMA sandbox_curator_a AUTHORIZATION curator_a;
CREATE SCHEMA sandbox_curator_b AUTHORIZATION curator_b;
CREATE SCHEMA sandbox_analyst_a AUTHORIZATION analyst_a;
CREATE SCHEMA sandbox_analyst_b AUTHORIZATION analyst_b;
SQL

# load_uniss OWNER: Uniss-FGD face image 2 (20 observers, 300 Hz, screen pixels) as OWNER's uniss_samples.
load_uniss() {
    psql -f test/demo/uniss_tables.psql
    psql <<SQL
\\copy public.uniss_samples FROM 'test/data/uniss_fgd/img_002.csv' WITH (FORMAT csv, HEADER true)
ALTER TABLE public.uniss_samples OWNER TO $1;
SQL
}

# uniss_dataset OWNER: the Uniss slice (load_uniss) registered by OWNER as dataset "uniss" (stimulus, time and
# position columns; 20 public observers), with no budget or policy yet.
uniss_dataset() {
    load_uniss "$1"
    as "$1" >/dev/null <<'SQL'
SELECT gazepriv.register_dataset('uniss', 'public.uniss_samples', 'participant', stimulus_column => 'stimulus',
                                 time_column => 't_ms', x_column => 'x', y_column => 'y', observers => 20);
SQL
}

# load_uniss_events OWNER: the events detect_events finds in the Uniss slice (load_uniss first), one row per
# event with its participant and image as task, as OWNER's public.uniss_events (single-sample events left out:
# they have no duration or spread to synthesise from).
load_uniss_events() {
    psql <<SQL >/dev/null
CREATE TABLE public.uniss_events AS
SELECT s.participant, s.stimulus::text AS task, e.*
FROM (SELECT participant, stimulus, gazepriv.make_trace(t_ms, x, y) AS trace FROM public.uniss_samples GROUP BY 1, 2) s,
     gazepriv.detect_events(s.trace, gazepriv.ivt(30, velocity_window_ms => 20, gap_fill_ms => 75,
         geometry => gazepriv.screen_geometry(1280, 1024, 1040, 580, 1370))) e
WHERE e.duration_ms > 0 AND (e.type = 'saccade' OR (e.sigma_x > 0 AND e.sigma_y > 0));
ALTER TABLE public.uniss_events OWNER TO $1;
SQL
}

# windows_dataset OWNER: a small feature-window table (6 participants, tasks read and walk, 20 windows, 3
# features) as OWNER's public.windows, registered by OWNER as dataset "windows" with public bounds and length.
windows_dataset() {
    psql <<SQL >/dev/null
CREATE TABLE public.windows (participant text, task text, "window" int, features float8[]);
INSERT INTO public.windows
SELECT 'p' || p, t, w, ARRAY[(p * 7 + w) % 10 / 10.0, (p + w) % 5 / 5.0, (p * w) % 11]
FROM generate_series(1, 6) p, unnest(ARRAY['read', 'walk']) t, generate_series(1, 20) w;
ALTER TABLE public.windows OWNER TO $1;
SQL
    as "$1" >/dev/null <<'SQL'
SELECT gazepriv.register_dataset('windows', 'public.windows', 'participant', task_column => 'task',
                                 window_column => 'window', features_column => 'features',
                                 bounds => '{"features": [[0, 1], [0, 1], [0, 10]], "length": 20}');
SQL
}

# load_hoppe_features OWNER: the Hoppe 2018 feature windows (participant, task, window, features float8[33])
# of four participants' first minute, as OWNER's hoppe_features, with their public bounds.
load_hoppe_features() {
    psql -f test/demo/hoppe_tables.psql
    for p in 00 02 05 09; do
        psql -c "\\copy hoppe_samples FROM 'test/data/hoppe2018_everyday/participant_${p}_first_minute.csv' WITH (FORMAT csv, HEADER true)"
    done
    psql -c "\\copy hoppe_participants FROM 'test/data/hoppe2018_everyday/participants.csv' WITH (FORMAT csv, HEADER true)"
    psql -f test/demo/hoppe_features.psql -f test/demo/hoppe_feature_bounds.psql
    psql -c "ALTER TABLE hoppe_features OWNER TO $1" -c "GRANT SELECT ON hoppe_feature_bounds TO PUBLIC"
}

# The public feature bounds of hoppe_feature_bounds.psql as registered dataset bounds.
HOPPE_BOUNDS="(SELECT jsonb_build_object('features', jsonb_agg(jsonb_build_array(lower, upper) ORDER BY feature))
               FROM hoppe_feature_bounds)"
