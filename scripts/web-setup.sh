#!/usr/bin/env bash
# The club room's page: npm packages from the lockfile (only when it changed)
# and the build into web/dist. With --browser, also Debian's Chromium for the
# browser tests. A second run is quick.
set -euo pipefail
cd "$(dirname "$0")/../web"
command -v npm >/dev/null 2>&1 || { echo "error: npm is needed to build the web page (Debian: apt-get install nodejs npm)" >&2; exit 1; }
stamp=node_modules/.kibitz-lock
if ! cmp -s package-lock.json "$stamp" 2>/dev/null; then
    echo "web: npm ci"
    npm ci --no-audit --no-fund --loglevel=error
    cp package-lock.json "$stamp"
fi
npm run --silent build
if [ "${1:-}" = "--browser" ] && [ ! -x /usr/bin/chromium ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "web: installing Debian's chromium for the browser tests"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
