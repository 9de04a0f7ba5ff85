#!/usr/bin/env bash
# The wheel as its users take it: pip install into a fresh venv (no index:
# only the wheel), then pytest of the client from outside the source tree,
# a typed program checked with mypy --strict against the installed
# package, and the console scripts.
# Usage: tests/package/test_wheel.sh DIST_DIR
set -uo pipefail
dist=$(cd "${1:?usage: test_wheel.sh DIST_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
tests=$here/../../packaging/python/tests
. "$here/checks.sh"

wheel=$(ls "$dist"/*-manylinux_2_17_"$(uname -m)"*.whl) # this machine's
work=$(mktemp -d /tmp/bsh-wheel-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
# Debian's pytest and mypy come from the system's site-packages; bsh only
# from the wheel.
/usr/bin/python3 -m venv --system-site-packages "$work/venv" || { echo "FAIL: venv" >&2; exit 1; }
py=$work/venv/bin/python
if "$py" -m pip install -q --no-index --no-cache-dir "$wheel" >"$work/pip.log" 2>&1; then
    pass "pip install $(basename "$wheel")"
else
    echo "FAIL: pip install: $(cat "$work/pip.log")" >&2
    exit 1
fi
cp "$tests"/*.py "$work/"
(cd "$work" && env -u BSH_BINARY "$py" -m pytest -q -p no:cacheprovider test_client.py) &&
    pass "pytest of the installed client" || fail "pytest of the installed client"
(cd "$work" && MYPYPATH= "$py" -m mypy --strict --no-incremental --cache-dir=/dev/null typed_usage.py) &&
    pass "mypy --strict of a program against the installed package" || fail "mypy --strict"
(cd "$work" && "$py" -m mypy --strict --no-incremental --cache-dir=/dev/null -p bsh) &&
    pass "mypy --strict of the installed package itself" || fail "mypy --strict -p bsh"
(cd "$work" && env -u BSH_BINARY "$py" typed_usage.py) && pass "the typed program runs" ||
    fail "the typed program"
out=$(cd "$work" && venv/bin/bsh --version)
[ "$out" = "bsh $("$py" -c 'import importlib.metadata as m; print(m.version("bsh-mcp"))')" ] &&
    pass "the wheel's version is bsh --version: $out" || fail "versions: bsh says '$out'"
finish
