#!/usr/bin/env bash
# schemathesis (PyPI), pinned, in a virtualenv cached outside the clone, for
# tests/api_fuzz.rs. Prints SCHEMATHESIS=<path of the st command>.
set -euo pipefail
version=4.32.5
venv="${KIBITZ_CACHE:-$HOME/.cache/kibitz}/schemathesis-$version"
# The stamp is written last, so a broken half-install is redone.
if [ ! -f "$venv/.complete" ]; then
    echo "schemathesis: installing $version into $venv" >&2
    rm -rf "$venv"
    python3 -m venv "$venv" || { echo "error: python3 -m venv failed (Debian: apt-get install python3-venv)" >&2; exit 1; }
    "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version" >&2
    touch "$venv/.complete"
fi
echo "SCHEMATHESIS=$venv/bin/st"
