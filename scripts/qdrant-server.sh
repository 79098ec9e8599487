#!/usr/bin/env bash
# Provides a real Qdrant server for the tests of the scale backend. No Qdrant
# binary exists in the registries this project can use, so it is built from
# the v1.14.1 source kept in ../shared/vendor/qdrant (about 30 minutes on 2
# cores; cached outside the clone), then started on loopback with a throwaway
# storage dir. Prints `QDRANT_URL=<grpc url>`; a server already answering on
# the port is reused.
#   KIBITZ_QDRANT_SRC  (default ../shared/vendor/qdrant/qdrant-v1.14.1-src.tar.gz)
#   KIBITZ_QDRANT_PORT (default 16334, gRPC; HTTP is the port before it)
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
src="${KIBITZ_QDRANT_SRC:-$here/../shared/vendor/qdrant/qdrant-v1.14.1-src.tar.gz}"
cache="${KIBITZ_CACHE:-$HOME/.cache/kibitz}/qdrant"
bin="$cache/qdrant-1.14.1"
grpc="${KIBITZ_QDRANT_PORT:-16334}"
http=$((grpc - 1))
run="/tmp/kibitz-qdrant-$grpc"

log() { echo "qdrant: $*" >&2; }

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9

need_packages() {
    # protoc needs the well-known types (libprotobuf-dev) beside it.
    command -v protoc >/dev/null 2>&1 && command -v clang >/dev/null 2>&1 &&
        [ -f /usr/include/google/protobuf/duration.proto ] && return
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    log "installing protobuf-compiler, libprotobuf-dev, clang, libclang-dev (Debian)"
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        protobuf-compiler libprotobuf-dev clang libclang-dev >&2
}

build_server() {
    [ -x "$bin" ] && return
    [ -f "$src" ] || { log "error: no Qdrant source at $src (set KIBITZ_QDRANT_SRC)"; exit 1; }
    need_packages
    local work="$cache/src"
    rm -rf "$work" && mkdir -p "$work"
    tar -xzf "$src" -C "$work"
    log "building Qdrant 1.14.1 from source (about 30 minutes on 2 cores; once)"
    (cd "$work"/qdrant-v1.14.1/qdrant &&
        CARGO_TARGET_DIR="$cache/target" cargo build --release --locked --bin qdrant >&2)
    cp "$cache/target/release/qdrant" "$bin.tmp" && mv "$bin.tmp" "$bin"
    rm -rf "$work" "$cache/target"
    log "built $bin"
}

answering() { curl -fsS "http://127.0.0.1:$http/readyz" >/dev/null 2>&1; }

start_server() {
    if answering; then return; fi
    rm -rf "$run" && mkdir -p "$run" && cd "$run"
    QDRANT__SERVICE__HOST=127.0.0.1 QDRANT__SERVICE__HTTP_PORT=$http \
        QDRANT__SERVICE__GRPC_PORT=$grpc QDRANT__STORAGE__STORAGE_PATH="$run/storage" \
        QDRANT__STORAGE__SNAPSHOTS_PATH="$run/snapshots" QDRANT__TELEMETRY_DISABLED=true \
        setsid "$bin" >"$run/server.log" 2>&1 </dev/null 9>&- &
    for _ in $(seq 1 100); do
        answering && { log "server on 127.0.0.1:$grpc (storage in $run)"; return; }
        sleep 0.2
    done
    cat "$run/server.log" >&2
    log "error: the server did not answer on $http"
    exit 1
}

build_server
[ "${1:-}" = "--build-only" ] && exit 0
start_server
echo "QDRANT_URL=http://127.0.0.1:$grpc"
