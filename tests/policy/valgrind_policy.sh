#!/usr/bin/env bash
# The policy under valgrind memcheck: bsh policy explain over the corpus
# and the decision table under the four sample policies, refusals through
# bsh check and bsh run, and an MCP server that denies, asks (approve,
# remember, decline, no answer in time, the 2026-07-28 round trip) and
# explains. Any error or definite leak fails. Usage: valgrind_policy.sh BSH
set -uo pipefail
BSH=${1:?usage: valgrind_policy.sh PATH/TO/bsh}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
VG=(valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect
    --show-leak-kinds=definite,indirect -q)
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi; }

# one command a line: the corpus and the decision table's one-line rows
{ cut -f2 "$HERE/../data/benign.tsv" "$HERE/../data/dangerous.tsv"
  grep -v '^#' "$HERE/decisions.tsv" | cut -f1 | grep -v '<NL>\|<TAB>\|<CR>'; } >"$T/commands"
for p in dev:ask readonly:deny ci:deny denylist:allow; do
    "${VG[@]}" "$BSH" policy explain --json --policy "$HERE/${p%%:*}.rules" --policy-default "${p#*:}" \
        --file "$T/commands" --each-line >/dev/null 2>"$T/err"
    rc=$?
    [ $rc -ne 99 ] && ! grep -q '==[0-9]*==' "$T/err"
    ok $? "explain under ${p%%:*}: no memory error or leak ($(wc -l <"$T/commands") commands)"
done
"${VG[@]}" "$BSH" check --policy "$HERE/dev.rules" 'git status; rm -rf x' >/dev/null 2>"$T/err"
[ $? -eq 1 ] && ! grep -q '==[0-9]*==' "$T/err"
ok $? "check: a denial, clean"
"${VG[@]}" "$BSH" run --policy "$HERE/dev.rules" 'git push' >/dev/null 2>"$T/err"
[ $? -eq 126 ] && ! grep -q '==[0-9]*==' "$T/err"
ok $? "run: an ask refused, clean"
"${VG[@]}" "$BSH" policy check "$HERE"/*.rules >/dev/null 2>"$T/err"
[ $? -eq 0 ] && ! grep -q '==[0-9]*==' "$T/err"
ok $? "policy check: clean"

python3 - "$BSH" "$HERE/dev.rules" "$T" <<'PY' >"$T/mcp.out" 2>&1
import json, select, subprocess, sys
bsh, rules, tmp = sys.argv[1:4]
vg = ["valgrind", "--error-exitcode=99", "--leak-check=full",
      "--errors-for-leak-kinds=definite,indirect", "--show-leak-kinds=definite,indirect",
      "-q", f"--log-file={tmp}/vg.log"]
p = subprocess.Popen(vg + [bsh, "mcp", "--policy", rules, "--ask-timeout", "2000"],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=tmp)
def send(m): p.stdin.write(json.dumps(m) + "\n"); p.stdin.flush()
def recv(t=60):
    r, _, _ = select.select([p.stdout], [], [], t)
    if not r: raise SystemExit("no reply")
    return json.loads(p.stdout.readline())
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
      "capabilities": {"elicitation": {}}, "clientInfo": {"name": "vg", "version": "1"}}}); recv()
def call(i, cmd, **kw):
    send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
          "params": {"name": "bash_run", "arguments": {"command": cmd}, **kw}})
call(2, "rm -rf x"); assert recv()["result"]["isError"]
call(3, "git push 2>/dev/null; true"); q = recv()
send({"jsonrpc": "2.0", "id": q["id"], "result": {"action": "accept", "content": {"approve": True, "remember": True}}})
assert not recv()["result"]["isError"]
call(4, "npm publish"); q = recv()
send({"jsonrpc": "2.0", "id": q["id"], "result": {"action": "decline"}})
assert recv()["result"]["isError"]
call(5, "npm publish"); q = recv()  # no answer: the bound refuses it
m = recv()
while "method" in m: m = recv()
assert m["result"]["isError"]
send({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "bash_policy", "arguments": {"command": "ls; git push"}}})
assert recv()["result"]["structuredContent"]["decision"] == "allow"  # remembered
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
call(7, "npm publish", _meta=meta); st = recv()["result"]["requestState"]
call(8, "npm publish", _meta=meta, requestState=st,
     inputResponses={"approve": {"action": "decline"}}); assert recv()["result"]["isError"]
p.stdin.close(); p.wait(timeout=60)
print("exit", p.returncode)
PY
grep -q '^exit 0$' "$T/mcp.out" && ! grep -q '^==[0-9]*==' "$T/vg.log"
ok $? "bsh mcp: deny, approve and remember, decline, no answer, bash_policy, input_required: clean"
grep '^==[0-9]*==' "$T/vg.log" | sed 's/^/# /' | head -40
grep -v '^exit 0$' "$T/mcp.out" | sed 's/^/# /' | head -20
echo "1..$n"
[ $failed -eq 0 ]
