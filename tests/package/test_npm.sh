#!/usr/bin/env bash
# The npm packages: npx of the packed tarballs starts a server that the
# official MCP SDK client lists and calls (tests/mcp/npx_package.mjs); the
# launcher without its platform package says what is missing; `bsh` runs
# the CLI with its exit status. Needs tests/mcp's npm ci (the SDK).
# Usage: tests/package/test_npm.sh DIST_DIR
set -uo pipefail
dist=$(cd "${1:?usage: test_npm.sh DIST_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/checks.sh"

main=$(ls "$dist"/bsh-mcp-[0-9]*.tgz)
platform=$(ls "$dist"/bsh-mcp-linux-x64-[0-9]*.tgz)
(cd "$here/../mcp" && timeout 300 node npx_package.mjs "$main" "$platform") || fail "npx of the tarballs"

work=$(mktemp -d /tmp/bsh-npm-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
tar -xzf "$main" -C "$work"
out=$(cd "$work/package" && node bin/bsh.js --version 2>&1)
rc=$?
case "$rc $out" in
"127 bsh: none of bsh-mcp-linux-"*"is installed"*) pass "the launcher without a platform package says what is missing" ;;
*) fail "the launcher without a platform package: exit $rc, '$out'" ;;
esac
tar -xzf "$platform" -C "$work" --transform 's,^package,platform,'
out=$(cd "$work/package" && BSH_BINARY="$work/platform/bin/bsh" node bin/bsh.js run 'echo via-bsh; exit 5')
rc=$?
[ "$rc $out" = "5 via-bsh" ] && pass "bsh through the launcher keeps the exit status" ||
    fail "bsh through the launcher: exit $rc, '$out'"
# A signal to the launcher reaches bsh, which ends its run; bsh killed
# outright ends the launcher by the same signal.
export BSH_BINARY=$work/platform/bin/bsh
(cd "$work/package" && exec node bin/bsh.js run "echo \$\$ > $work/shell.pid; sleep 30") &
launcher=$!
for _ in $(seq 100); do [ -s "$work/shell.pid" ] && break; sleep 0.05; done
kill -TERM $launcher
wait $launcher
rc=$?
sleep 0.2
if [ $rc = 143 ] && ! kill -0 "$(cat "$work/shell.pid")" 2>/dev/null; then
    pass "SIGTERM to the launcher: bsh ended the run, the launcher exits 143"
else
    fail "SIGTERM to the launcher: exit $rc, the run's shell $(kill -0 "$(cat "$work/shell.pid")" 2>/dev/null && echo lives || echo is gone)"
fi
# A bsh killed outright cannot clean up: no cgroup for it to leave behind,
# and a run that ends by itself.
(cd "$work/package" && exec node bin/bsh.js run --containment subreaper 'sleep 1') &
launcher=$!
for _ in $(seq 100); do bsh_pid=$(pgrep -P $launcher -x bsh) && break; sleep 0.05; done
kill -KILL "$bsh_pid"
wait $launcher
rc=$?
[ $rc = 137 ] && pass "bsh killed by SIGKILL: the launcher dies of SIGKILL too (137)" ||
    fail "bsh killed by SIGKILL: the launcher's status $rc"
unset BSH_BINARY
# Which platform package the launcher takes, with all four installed beside
# it: this machine's (x64, glibc) first, then the musl one, never arm64's.
modules=$work/tree/node_modules
mkdir -p "$modules"
tar -xzf "$main" -C "$work/tree" --transform 's,^package,node_modules/bsh-mcp,'
for tgz in "$dist"/bsh-mcp-linux-*-[0-9]*.tgz; do
    name=$(basename "$tgz" | sed 's/-[0-9][0-9.]*\.tgz$//')
    tar -xzf "$tgz" -C "$modules" --transform "s,^package,$name,"
done
chosen() { node -e 'const p = require(process.argv[1]); const b = p.binaryPath(); console.log(b instanceof Error ? b.message : b)' \
    "$modules/bsh-mcp/lib/platform.js" | sed "s,^$modules/,,"; }
[ "$(chosen)" = bsh-mcp-linux-x64/bin/bsh ] && pass "the launcher takes bsh-mcp-linux-x64 on x64 glibc" ||
    fail "with all four platform packages, the launcher took '$(chosen)'"
rm -rf "$modules/bsh-mcp-linux-x64"
[ "$(chosen)" = bsh-mcp-linux-x64-musl/bin/bsh ] && pass "without it, bsh-mcp-linux-x64-musl (static: it runs on glibc)" ||
    fail "without the glibc package, the launcher took '$(chosen)'"
rm -rf "$modules/bsh-mcp-linux-x64-musl"
[[ $(chosen) == "bsh: none of bsh-mcp-linux-x64, bsh-mcp-linux-x64-musl is installed"* ]] &&
    pass "with only the arm64 packages, none is taken, and it says which it looked for" ||
    fail "with only the arm64 packages: '$(chosen)'"
finish
