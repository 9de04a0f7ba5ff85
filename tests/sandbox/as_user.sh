#!/usr/bin/env bash
# Runs the attack and workload suites as an unprivileged user (nobody)
# when the tests run as root, since most users of bsh are not root.
# Skipped (77) when not root, or when nobody cannot reach the binary.
set -uo pipefail
BSH=${1:?usage: as_user.sh PATH/TO/bsh}
[ "$(id -u)" -eq 0 ] || { echo "skipped: not root, attacks.sh ran as this user"; exit 77; }
command -v setpriv >/dev/null || { echo "skipped: no setpriv"; exit 77; }
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
if ! as_nobody test -x "$BSH"; then
    echo "skipped: nobody cannot run $BSH (a private build directory)"
    exit 77
fi
HOME_DIR=$(mktemp -d /var/tmp/bsh-nobody-XXXXXX)
chown nobody "$HOME_DIR"
trap 'rm -rf "$HOME_DIR"' EXIT
cd "$HOME_DIR" && as_nobody env HOME="$HOME_DIR" bash "$(dirname "$0")/attacks.sh" "$BSH"
