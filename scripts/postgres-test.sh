#!/usr/bin/env bash
# Starts a throwaway PostgreSQL (Debian's postgresql package) on loopback for
# the test suite and prints its admin URL. Idempotent: a cluster already
# running on the port is reused. Each test server makes its own database.
#   KIBITZ_PG_DIR  (default /tmp/kibitz-pg)   KIBITZ_PG_PORT (default 54329)
set -euo pipefail
dir="${KIBITZ_PG_DIR:-/tmp/kibitz-pg}"
port="${KIBITZ_PG_PORT:-54329}"
url="postgres://postgres@127.0.0.1:${port}/postgres"

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    echo "postgres: installing Debian's postgresql" >&2
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends postgresql >&2
fi
bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"

# initdb and postgres refuse to run as root: use the postgres account then.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

if as_owner "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"; then
    # Reused: drop the databases earlier test runs left behind.
    as_owner "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -Atq \
        -c "SELECT datname FROM pg_database WHERE datname LIKE 'kibitz_t_%'" |
        while read -r db; do as_owner "$bin/dropdb" -h 127.0.0.1 -p "$port" -U postgres "$db"; done
    echo "$url"
    exit 0
fi
rm -rf "$dir"
mkdir -p "$dir"
[ "$(id -u)" -ne 0 ] || chown postgres: "$dir"
as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
# Loopback only, no fsync: a test cluster, rebuilt at will.
as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300" >&2 \
    || { cat "$dir/server.log" >&2; exit 1; }
echo "postgres: test cluster on 127.0.0.1:$port (data in $dir/data)" >&2
echo "$url"
