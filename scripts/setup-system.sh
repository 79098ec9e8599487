#!/usr/bin/env bash
# Installs the system packages kibitz needs, only if missing, so a second run
# is instant. Debian/Ubuntu (apt-get); uses sudo when not root.
set -euo pipefail

need=()
[ -x /usr/games/stockfish ] || need+=(stockfish)
command -v c++ >/dev/null 2>&1 || need+=(build-essential)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
python3 -m pip --version >/dev/null 2>&1 || need+=(python3-pip)

if [ ${#need[@]} -eq 0 ]; then
    echo "system: stockfish, C/C++ toolchain and pip present"
    exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "error: need root or sudo to apt-get install ${need[*]}" >&2; exit 1; }
    sudo="sudo"
fi
echo "system: installing ${need[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
