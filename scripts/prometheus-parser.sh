#!/usr/bin/env bash
# The Prometheus text-format parser the metrics test reads /metrics with:
# the pure-Python wheel of prometheus-client, pinned, downloaded from PyPI
# once into the cache (importable from the .whl itself: nothing installed).
# Prints the wheel's path.
set -euo pipefail
PROMETHEUS_CLIENT_VERSION=0.21.1
cache="${KIBITZ_CACHE:-$HOME/.cache/kibitz}/pypi"
wheel="$cache/prometheus_client-$PROMETHEUS_CLIENT_VERSION-py3-none-any.whl"
if [ ! -f "$wheel" ]; then
    mkdir -p "$cache"
    python3 -m pip download -q --no-deps --only-binary :all: \
        "prometheus-client==$PROMETHEUS_CLIENT_VERSION" -d "$cache" >&2
fi
echo "$wheel"
