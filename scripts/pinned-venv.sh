#!/usr/bin/env bash
# A pinned PyPI tool in its own virtualenv cached outside the clone:
# `pinned-venv.sh NAME SPEC` installs SPEC ("chess==1.11.2") once into
# ${KIBITZ_CACHE:-~/.cache/kibitz}/NAME and prints that virtualenv's path.
set -euo pipefail
name=$1
spec=$2
venv="${KIBITZ_CACHE:-$HOME/.cache/kibitz}/$name"
# The stamp is written last, so a broken half-install is redone.
if [ ! -f "$venv/.complete" ]; then
    echo "$name: installing $spec into $venv" >&2
    rm -rf "$venv"
    python3 -m venv "$venv" || { echo "error: python3 -m venv failed (Debian: apt-get install python3-venv)" >&2; exit 1; }
    "$venv/bin/pip" install --quiet --disable-pip-version-check "$spec" >&2
    touch "$venv/.complete"
fi
echo "$venv"
