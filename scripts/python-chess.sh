#!/usr/bin/env bash
# python-chess (PyPI `chess`), pinned, in a virtualenv cached outside the
# clone: tests/review_pgn.rs reads the analysed PGN with it, as a reader
# other than ours. Prints PYTHON_CHESS=<path of that virtualenv's python>.
set -euo pipefail
version=1.11.2
venv="${KIBITZ_CACHE:-$HOME/.cache/kibitz}/python-chess-$version"
# The stamp is written last, so a broken half-install is redone.
if [ ! -f "$venv/.complete" ]; then
    echo "python-chess: installing $version into $venv" >&2
    rm -rf "$venv"
    python3 -m venv "$venv" || { echo "error: python3 -m venv failed (Debian: apt-get install python3-venv)" >&2; exit 1; }
    "$venv/bin/pip" install --quiet --disable-pip-version-check "chess==$version" >&2
    touch "$venv/.complete"
fi
echo "PYTHON_CHESS=$venv/bin/python"
