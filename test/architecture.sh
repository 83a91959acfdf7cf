#!/usr/bin/env bash
# The architecture as a check that can fail (run by test/run.sh; prints each violation, exits 1 on any):
#  1. the core is plain C++: no file under src/core includes a PostgreSQL header;
#  2. a core area includes only common/, noise/ and itself (common/ only itself; noise/ common/ and itself);
#  3. a glue area (src/pg/<area>) includes only the boundary, the budget and itself, and of the core only
#     common/, noise/ and its own area (the boundary: common/ and noise/; the budget: common/);
#  4. the boundary of guard.hpp: SQL-callable functions are declared only through GAZEPRIV_FUNCTION, and
#     PG_TRY (which C++ destructors must not cross) appears only in call_postgres and in the charge worker's
#     main loop, which hold no C++ object.
set -uo pipefail
cd "$(dirname "$0")/.."
PG_CONFIG=${PG_CONFIG:-pg_config}
status=0
fail() {
    echo "architecture: $*"
    status=1
}

includes() { # includes FILE: the quoted and angle-bracket include targets, one per line
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^>"]*\)[>"].*/\1/p' "$1"
}

# PostgreSQL's headers: the top-level names of the server include directory.
server=$("$PG_CONFIG" --includedir-server)
pg_names=$(ls "$server" | sed 's/\.h$//' | sort -u)
is_postgres_header() { # is_postgres_header INCLUDE
    local top=${1%%/*}
    top=${top%.h}
    grep -qxF "$top" <<<"$pg_names"
}

for f in src/core/*/*.cpp src/core/*/*.hpp; do
    area=$(basename "$(dirname "$f")")
    case $area in
    common) allowed="common" ;;
    noise) allowed="common noise" ;;
    *) allowed="common noise $area" ;;
    esac
    while read -r inc; do
        [ -n "$inc" ] || continue
        case $inc in
        core/*/*)
            target=$(cut -d/ -f2 <<<"$inc")
            grep -qw "$target" <<<"$allowed" || fail "$f includes $inc: core area $area may include only $allowed"
            ;;
        *)
            is_postgres_header "$inc" && fail "$f includes the PostgreSQL header $inc: src/core is plain C++"
            ;;
        esac
    done < <(includes "$f")
done

for f in src/pg/*/*.cpp src/pg/*/*.hpp; do
    area=$(basename "$(dirname "$f")")
    case $area in
    boundary) allowed="boundary" core_allowed="common noise" ;;
    budget) allowed="boundary budget" core_allowed="common" ;;
    *) allowed="boundary budget $area" core_allowed="common noise $area" ;;
    esac
    while read -r inc; do
        target=$(cut -d/ -f2 <<<"$inc")
        case $inc in
        pg/*/*)
            grep -qw "$target" <<<"$allowed" || fail "$f includes $inc: glue area $area may include only $allowed"
            ;;
        core/*/*)
            grep -qw "$target" <<<"$core_allowed" ||
                fail "$f includes $inc: glue area $area may include only the core's $core_allowed"
            ;;
        esac
    done < <(includes "$f")
done

# SQL entry points: PG_FUNCTION_INFO_V1 and PG_FUNCTION_ARGS only inside the GAZEPRIV_FUNCTION macro.
for line in $(grep -ln 'PG_FUNCTION_INFO_V1\|PG_FUNCTION_ARGS' src/pg/*.cpp src/pg/*/*.cpp src/pg/*/*.hpp); do
    [ "$line" = src/pg/boundary/guard.hpp ] ||
        fail "$line: declare SQL functions with GAZEPRIV_FUNCTION (src/pg/boundary/guard.hpp)"
done

# PG_TRY: only call_postgres (guard.cpp) and the charge worker's main loop.
for file in $(grep -ln 'PG_TRY' src/pg/*.cpp src/pg/*/*.cpp src/pg/*/*.hpp); do
    case $file in
    src/pg/boundary/guard.[ch]pp | src/pg/budget/budget_worker.cpp) ;;
    *) fail "$file uses PG_TRY: call PostgreSQL through call_postgres (src/pg/boundary/guard.hpp)" ;;
    esac
done

[ $status -eq 0 ] && echo "architecture: layering and boundary hold"
exit $status
