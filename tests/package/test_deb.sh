#!/usr/bin/env bash
# The .deb as its users take it: dpkg -i, bsh doctor, man bsh, a program
# compiled and linked against libbsh through pkg-config, then dpkg -r,
# after which none of the package's files is left. Needs root.
# Usage: tests/package/test_deb.sh DIST/bsh_VERSION_ARCH.deb
set -uo pipefail
deb=${1:?usage: test_deb.sh BSH.deb}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/checks.sh"

[ "$(id -u)" = 0 ] || { echo "test_deb.sh: needs root (dpkg -i)" >&2; exit 1; }
name=$(dpkg-deb -f "$deb" Package)
if dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q 'install ok installed'; then
    echo "test_deb.sh: $name is installed already; not touching it" >&2
    exit 1
fi
work=$(mktemp -d /tmp/bsh-deb-test.XXXXXX)
trap 'dpkg -r "$name" >/dev/null 2>&1; rm -rf "$work"' EXIT

dpkg -i "$deb" >"$work/dpkg.log" 2>&1 && pass "dpkg -i" || fail "dpkg -i: $(cat "$work/dpkg.log")"
files=$(dpkg -L "$name" | while read -r f; do [ -f "$f" ] || [ -L "$f" ] && echo "$f"; done)
version=$(dpkg-deb -f "$deb" Version)

[ "$(cd / && bsh --version)" = "bsh $version" ] && pass "bsh --version says $version" ||
    fail "bsh --version says '$(bsh --version)', the package $version"
out=$(cd /tmp && bsh doctor 2>&1)
case $out in "bsh $version on Linux"*) pass "bsh doctor" ;; *) fail "bsh doctor: $out" ;; esac
out=$(cd /tmp && bsh run 'echo from-the-deb; exit 7')
[ $? = 7 ] && [ "$out" = from-the-deb ] && pass "bsh run" || fail "bsh run: '$out'"
out=$(MANPAGER=cat MANWIDTH=80 man bsh 2>&1 | head -5)
case $out in *BSH*) pass "man bsh" ;; *) fail "man bsh: $out" ;; esac

# A program against the installed library, found by pkg-config alone.
cp "$here/../../examples/example.c" "$work/"
if (cd "$work" && cc example.c $(pkg-config --cflags --libs bsh) -o example) 2>"$work/cc.log"; then
    out=$("$work/example" 'echo linked' 2>&1)
    case $out in *linked*'[exit code 0]'*) pass "a program built with pkg-config runs" ;;
    *) fail "the program built with pkg-config said: $out" ;; esac
    # ldd's whole output first: grep -q stops reading at its match, and
    # under pipefail ldd's SIGPIPE would fail the pipeline
    libs=$(ldd "$work/example")
    grep -Eq "libbsh.so.0 => (/usr)?/lib/" <<<"$libs" || fail "the program does not use the installed libbsh"
else
    fail "compiling against the package: $(cat "$work/cc.log")"
fi
pkg-config --modversion bsh | grep -qx "$version" && pass "pkg-config says $version" ||
    fail "pkg-config --modversion: $(pkg-config --modversion bsh 2>&1)"

dpkg -r "$name" >"$work/dpkg.log" 2>&1 && pass "dpkg -r" || fail "dpkg -r: $(cat "$work/dpkg.log")"
left=$(for f in $files; do [ -e "$f" ] || [ -L "$f" ] && echo "$f"; done)
[ -z "$left" ] && pass "dpkg -r left none of the package's $(echo "$files" | wc -l) files" ||
    fail "dpkg -r left: $left"
dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q 'install ok installed' &&
    fail "dpkg still lists $name as installed"
command -v bsh >/dev/null && [ "$(command -v bsh)" = /usr/bin/bsh ] && fail "/usr/bin/bsh still there"
finish
