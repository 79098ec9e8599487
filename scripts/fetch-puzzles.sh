#!/usr/bin/env bash
# Fetches 10,000 Lichess puzzles (CC0) for `kibitz bench tools`: they ship in
# the PyPI sdist of atlas-chess (tests/lichess_db_puzzle.csv). Downloading that
# sdist needs maturin in the build environment, so a throwaway venv gets it.
set -euo pipefail
dest="${1:-bench/data}"
csv="$dest/lichess_db_puzzle.csv"
if [ -s "$csv" ]; then
    echo "puzzles: $(wc -l <"$csv") already in $csv"
    exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q maturin
PATH="$work/venv/bin:$PATH:$HOME/.cargo/bin" "$work/venv/bin/pip" download -q --no-deps \
    --no-build-isolation --no-binary :all: "atlas-chess==0.0.10" -d "$work"
tar -xzf "$work"/atlas_chess-*.tar.gz -C "$work" --wildcards '*/tests/lichess_db_puzzle.csv'
mkdir -p "$dest"
mv "$work"/atlas_chess-*/tests/lichess_db_puzzle.csv "$csv"
echo "puzzles: $(wc -l <"$csv") written to $csv"
