#!/usr/bin/env bash
# schemathesis (PyPI), pinned, in a cached virtualenv, for tests/api_fuzz.rs.
# Prints SCHEMATHESIS=<path of the st command>.
set -euo pipefail
version=4.32.5
venv=$("$(dirname "$0")/pinned-venv.sh" "schemathesis-$version" "schemathesis==$version")
echo "SCHEMATHESIS=$venv/bin/st"
