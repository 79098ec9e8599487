#!/usr/bin/env bash
# The load balancer of the cluster tests: Debian's nginx-light, installed if
# missing (the tests start their own instance from deploy/nginx.conf; the
# system service is left alone). Prints `NGINX=<path>`.
set -euo pipefail

bin=/usr/sbin/nginx
if [ ! -x "$bin" ]; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || { echo "error: need root or sudo to apt-get install nginx-light" >&2; exit 1; }
        sudo="sudo"
    fi
    echo "nginx: installing nginx-light" >&2
    $sudo apt-get update -qq >&2
    # policy-rc.d: the package must not start a system-wide nginx on port 80
    # (a policy already in place, as in containers, is left as it is).
    ours=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        echo 'exit 101' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
        $sudo chmod +x /usr/sbin/policy-rc.d
        ours=1
    fi
    status=0
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends nginx-light >&2 || status=$?
    [ -z "$ours" ] || $sudo rm -f /usr/sbin/policy-rc.d
    [ "$status" -eq 0 ] || exit "$status"
fi
"$bin" -v >&2
echo "NGINX=$bin"
