# A Citus cluster for the Citus suite and the benchmark: a coordinator and two workers on this machine.
# Source test/lib.sh first (PG_CONFIG, as_server_user, scratch_dir).
#
# Citus 13.2 (the last line for PostgreSQL 15) is used when it is installed for PG_CONFIG; otherwise, as root,
# it is built and installed there from an offline build kit: a source tarball citus-*.tar.gz, an optional
# citus-*.patch and build-citus.sh TARBALL PATCH WORKDIR (CI: ../shared/citus beside the checkout;
# GAZEPRIV_CITUS_KIT names another folder).

CITUS_KIT=${GAZEPRIV_CITUS_KIT:-$REPO/../shared/citus}
CITUS_ENABLE_HINT="install Citus 13 for PostgreSQL 15 (citus.so in \$(pg_config --pkglibdir)), or run as root with an offline build kit in ../shared/citus or GAZEPRIV_CITUS_KIT"

citus_installed() {
    [ -f "$("$PG_CONFIG" --pkglibdir)/citus.so" ] && [ -f "$("$PG_CONFIG" --sharedir)/extension/citus.control" ]
}

# ensure_citus LOG: 0 when Citus is installed for PG_CONFIG (built first from the kit when it can be),
# 1 when it is not available here, 2 when building it failed (details in LOG).
ensure_citus() {
    local log=$1 tarball patch work status pg_config
    citus_installed && return 0
    tarball=$(ls "$CITUS_KIT"/citus-*.tar.gz 2>/dev/null | sort | tail -1)
    [ -n "$tarball" ] && [ -f "$CITUS_KIT/build-citus.sh" ] && [ "$(id -u)" -eq 0 ] || return 1
    patch=$(ls "$CITUS_KIT"/citus-*.patch 2>/dev/null | sort | tail -1)
    pg_config=$(command -v "$PG_CONFIG")
    work=$(mktemp -d /tmp/gazepriv-citus-build.XXXXXX)
    PG_CONFIG=$pg_config bash "$CITUS_KIT/build-citus.sh" "$tarball" "${patch:--}" "$work" >"$log" 2>&1
    status=$?
    rm -rf "$work"
    [ $status -eq 0 ] && citus_installed && return 0
    return 2
}

# start_citus DIR [PORT]: initdb and start a coordinator (PORT) and two workers (PORT + 1, PORT + 2) in DIR (a
# scratch directory the server user owns), create the citus extension on each and register the workers.
# Nodes talk over Unix sockets in DIR (Citus takes a socket directory as host name): nothing listens on
# TCP. PORT defaults to PGPORT_OVERRIDE or a random one. Sets CITUS_DIR, CITUS_PORT (the coordinator's),
# CITUS_WORKER_PORTS; extra postgresql.conf lines come from CITUS_CONF.
start_citus() {
    local dir=$1 bindir node port i
    CITUS_PORT=${2:-${PGPORT_OVERRIDE:-$((20000 + RANDOM % 20000))}}
    CITUS_WORKER_PORTS="$((CITUS_PORT + 1)) $((CITUS_PORT + 2))"
    CITUS_DIR=$dir
    bindir=$("$PG_CONFIG" --bindir)
    for i in 0 1 2; do
        node=$dir/node$i
        port=$((CITUS_PORT + i))
        as_server_user "$bindir/initdb" -D "$node" -U postgres -A trust --no-sync >"$dir/initdb$i.log" 2>&1 \
            || { cat "$dir/initdb$i.log"; return 1; }
        cat >>"$node/postgresql.conf" <<EOF
port = $port
listen_addresses = ''
unix_socket_directories = '$dir'
shared_preload_libraries = 'citus'
citus.local_hostname = '$dir'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 100
max_worker_processes = 32
log_line_prefix = '%m [%p] %q%a '
# Never gather rows to aggregate them on the coordinator: an aggregate Citus cannot push down is an error.
citus.coordinator_aggregation_strategy = 'disabled'
${CITUS_CONF:-}
EOF
        as_server_user "$bindir/pg_ctl" -D "$node" -l "$dir/node$i.log" -w -t 120 start >/dev/null \
            || { cat "$dir/node$i.log"; return 1; }
    done
    for i in 0 1 2; do
        citus_psql "$((CITUS_PORT + i))" -c "CREATE EXTENSION citus" >/dev/null || return 1
    done
    citus_psql "$CITUS_PORT" -c "SELECT citus_set_coordinator_host('$dir', $CITUS_PORT)" \
        -c "SELECT citus_add_node('$dir', $((CITUS_PORT + 1)))" \
        -c "SELECT citus_add_node('$dir', $((CITUS_PORT + 2)))" >/dev/null
}

stop_citus() {
    [ -n "${CITUS_DIR:-}" ] || return 0
    local i
    for i in 0 1 2; do
        as_server_user "$("$PG_CONFIG" --bindir)/pg_ctl" -D "$CITUS_DIR/node$i" -m immediate stop >/dev/null 2>&1
    done
    CITUS_DIR=
}

# citus_psql PORT ARGS...: psql as postgres on one node of the cluster, stopping at the first error.
citus_psql() {
    local port=$1
    shift
    as_server_user "$("$PG_CONFIG" --bindir)/psql" -X -q -v ON_ERROR_STOP=1 -h "$CITUS_DIR" -p "$port" -U postgres \
        -d postgres "$@"
}
