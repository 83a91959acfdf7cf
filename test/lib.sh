# Shared by test/run.sh, test/demo.sh and bench/run.sh: dependencies, build, and throwaway clusters.
# Source it from the repository root.

REPO=$(pwd)
PG_CONFIG=${PG_CONFIG:-pg_config}
PG_PACKAGES="postgresql-15 postgresql-server-dev-15 postgresql-contrib"
BUILD_PACKAGES="build-essential cmake pkg-config libfftw3-dev libeigen3-dev libssl-dev zlib1g-dev libpng-dev libjpeg62-turbo-dev libpq-dev \
libgtest-dev clang-format python3-numpy python3-scipy python3-matplotlib"
# The clients of the README's examples (test/scripts/clients.sh): psycopg2 with pandas, JDBC, R.
BUILD_PACKAGES="$BUILD_PACKAGES python3-psycopg2 python3-pandas default-jdk-headless libpostgresql-jdbc-java \
r-base-core r-cran-rpostgresql"
# Debian's python, which has numpy (a pyenv python earlier on PATH may not).
PYTHON=/usr/bin/python3
# The full real datasets (read by the benchmark); tests and the demo use the frozen slices in test/data.
SHARED_DATA=${GAZEPRIV_DATA:-$REPO/../shared/data}

log() { printf '\n== %s\n' "$*"; }

# Installs what is missing when root; otherwise says what is needed.
ensure_dependencies() {
    local missing=() p
    for p in $PG_PACKAGES $BUILD_PACKAGES; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        echo "missing Debian packages: ${missing[*]}" >&2
        echo "install them as root: apt-get install -y ${missing[*]}" >&2
        exit 2
    fi
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Builds the extension (warnings are errors) and installs it into the server's directories.
# Not root: the server's directories must be writable, or PG_CONFIG must point at a private copy.
build_and_install() {
    log "building and installing the extension"
    make -s -j"$(nproc)" WERROR=1 PG_CONFIG="$PG_CONFIG" >/dev/null
    make -s install PG_CONFIG="$PG_CONFIG" >/dev/null
}

# The user that runs servers: initdb refuses root.
server_user() {
    if [ "$(id -u)" -eq 0 ]; then echo postgres; else id -un; fi
}

as_server_user() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- env PATH="$PATH" "$@"
    else
        "$@"
    fi
}

# A scratch directory the server user owns, removed at exit.
scratch_dir() {
    local d
    d=$(mktemp -d /tmp/gazepriv.XXXXXX)
    chmod 755 "$d"
    [ "$(id -u)" -eq 0 ] && chown "$(server_user)" "$d"
    echo "$d"
}

# Throwaway cluster: start_cluster DIR sets PGHOST/PGPORT/PGDATABASE for psql.
start_cluster() {
    local dir=$1 bindir
    bindir=$("$PG_CONFIG" --bindir)
    as_server_user "$bindir/initdb" -D "$dir/data" -U postgres -A trust --no-sync >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log"; return 1; }
    export PGPORT=${PGPORT_OVERRIDE:-$((20000 + RANDOM % 20000))}
    export PGHOST=$dir PGUSER=postgres PGDATABASE=postgres
    as_server_user "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o \
        "-p $PGPORT -k $dir -c listen_addresses='' -c fsync=off -c max_parallel_workers_per_gather=2 ${CLUSTER_OPTIONS:-}" \
        start >/dev/null || { cat "$dir/server.log"; return 1; }
    CLUSTER_DIR=$dir
}

stop_cluster() {
    [ -n "${CLUSTER_DIR:-}" ] || return 0
    as_server_user "$("$PG_CONFIG" --bindir)/pg_ctl" -D "$CLUSTER_DIR/data" -m immediate stop >/dev/null 2>&1 || true
    CLUSTER_DIR=
}

# For script tests and SQL benchmarks: a throwaway cluster in $dir (a scratch directory the server user can
# read, removed at exit with the cluster), server settings from CLUSTER_OPTIONS.
throwaway_cluster() {
    dir=$(scratch_dir)
    trap 'stop_cluster; rm -rf "$dir"' EXIT
    start_cluster "$dir"
}

# psql on the current cluster, stopping at the first error.
cluster_psql() { "$("$PG_CONFIG" --bindir)/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }

# The full Hoppe 2018 recordings ($SHARED_DATA) into hoppe_samples and hoppe_participants on the current
# cluster (the tables of test/demo/hoppe_tables.psql), for the benchmarks.
load_full_hoppe() {
    local data="$SHARED_DATA/hoppe2018_everyday" f
    cluster_psql -f test/demo/hoppe_tables.psql
    cluster_psql -c "\\copy hoppe_participants FROM '$data/participants.csv' WITH (FORMAT csv, HEADER true)"
    for f in "$data"/samples/participant_*.csv; do
        cluster_psql -c "\\copy hoppe_samples FROM '$f' WITH (FORMAT csv, HEADER true)"
    done
}

# The full Uniss-FGD recordings ($SHARED_DATA) into uniss_samples on the current cluster (the table of
# test/demo/uniss_tables.psql), for the benchmarks.
load_full_uniss() {
    local f
    cluster_psql -f test/demo/uniss_tables.psql
    for f in "$SHARED_DATA"/uniss_fgd/samples/img_*.csv; do
        cluster_psql -c "\\copy uniss_samples FROM '$f' WITH (FORMAT csv, HEADER true)"
    done
}
