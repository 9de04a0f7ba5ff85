#!/usr/bin/env bash
# The static binary alone: `file` says statically linked, `ldd` finds no
# library, and the smoke passes in a root that holds only /bin (Debian's
# bash-static as /bin/bash, and bsh), /tmp and a working directory.
# Usage: tests/package/bare_root.sh BSH_STATIC_BINARY
set -uo pipefail
bin=${1:?usage: bare_root.sh BSH_STATIC_BINARY}
here=$(cd "$(dirname "$0")" && pwd)
static_bash=/bin/bash-static
[ -x "$static_bash" ] || { echo "bare_root.sh: $static_bash missing (Debian's bash-static)" >&2; exit 1; }

case $(file -b "$bin") in
*"statically linked"*) echo "ok: file says statically linked" ;;
*) echo "FAIL: file says: $(file -b "$bin")" >&2; exit 1 ;;
esac
libs=$(ldd "$bin" 2>&1) # whole: grep -q would stop ldd with SIGPIPE
if grep -q '=>\|ld-linux' <<<"$libs"; then
    echo "FAIL: ldd finds libraries: $(ldd "$bin" 2>&1)" >&2
    exit 1
fi
echo "ok: ldd finds no library ($(ldd "$bin" 2>&1 | tr -d '\t'))"

root=$(mktemp -d /tmp/bsh-bare-root.XXXXXX)
trap 'rm -rf "$root"' EXIT
chmod 755 "$root"
mkdir "$root/bin" "$root/tmp" "$root/work"
cp "$static_bash" "$root/bin/bash"
cp "$bin" "$root/bin/bsh"
echo "the root holds: $(cd "$root" && find . -mindepth 1 | sort | tr '\n' ' ')"
bash "$here/smoke_root.sh" "$root" /bin/bsh
