#!/usr/bin/env bash
# python-chess (PyPI `chess`), pinned, in a cached virtualenv: tests/review_pgn.rs
# reads the analysed PGN with it, as a reader other than ours.
# Prints PYTHON_CHESS=<path of that virtualenv's python>.
set -euo pipefail
version=1.11.2
venv=$("$(dirname "$0")/pinned-venv.sh" "python-chess-$version" "chess==$version")
echo "PYTHON_CHESS=$venv/bin/python"
