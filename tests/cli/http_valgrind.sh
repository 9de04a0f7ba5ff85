#!/usr/bin/env bash
# `bsh mcp --listen` under valgrind memcheck: a session of requests of every
# kind (probes, both eras, a held run, an event stream with progress, bad
# input, a request over the body bound, a slow client, DELETE), then SIGTERM:
# the drain must end with exit 0 and no error or leak.
# Usage: http_valgrind.sh PATH/TO/bsh
set -uo pipefail
bsh=${1:?usage: http_valgrind.sh PATH/TO/bsh}
. "$(dirname "$0")/tap.sh"
work=$T
trap 'rm -rf "$T"; [ -n "${pid:-}" ] && kill -9 "$pid" 2>/dev/null' EXIT
check() { # check DESCRIPTION COMMAND...: ok when the command succeeds
    local what=$1
    shift
    "$@" >/dev/null 2>&1
    ok $? "$what"
}

valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
    --show-leak-kinds=definite,indirect -q --log-file="$work/vg.log" \
    "$bsh" mcp --listen 127.0.0.1:0 --max-body 64K --client-timeout 3000 -C "$work" \
    2>"$work/err" &
pid=$!
url=
for _ in $(seq 600); do
    url=$(sed -n 's/.* on \(http:[^ ]*\) .*/\1/p' "$work/err")
    [ -n "$url" ] && break
    sleep 0.1
done
[ -n "$url" ] || { echo "not ok - the server did not start: $(cat "$work/err")"; exit 1; }
base=${url%/mcp}
J=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream')
post() { curl -s -m 30 "${J[@]}" "$@" "$url"; }

out=$(curl -s -m 30 "$base/readyz")
check "readyz answers" grep -q '"status":"ok"' <<<"$out"
sid=$(curl -si -m 30 "${J[@]}" -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"vg","version":"1"}}}' "$url" |
    tr -d '\r' | sed -n 's/^Mcp-Session-Id: //p')
check "initialize gives a session" test -n "$sid"
S=(-H "Mcp-Session-Id: $sid")
post "${S[@]}" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' >/dev/null
out=$(post "${S[@]}" -d '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash_run","arguments":{"command":"echo vg-hi"}}}')
check "a call is answered" grep -q 'vg-hi' <<<"$out"
out=$(post "${S[@]}" -d '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"bash_run","arguments":{"command":"sleep 1; echo streamed"},"_meta":{"progressToken":"p"}}}')
check "an event stream: progress, then the answer, each event with an id" \
    bash -c '[ "$(grep -c "^id: [0-9]*-[0-9]*$" <<<"$1")" -ge 2 ] && grep -q "^data: .*streamed" <<<"$1"' _ "$out"
out=$(post "${S[@]}" -d '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"bash_run","arguments":{"command":"sleep 30","yield_ms":100}}}')
run=$(grep -o '"run_id":"[^"]*"' <<<"$out" | head -1 | cut -d'"' -f4)
check "a held run" test -n "$run"
out=$(post -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: bash_run' \
    -d '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"bash_run","arguments":{"command":"echo modern"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}')
check "a modern call" grep -q 'modern' <<<"$out"
code=$(curl -s -o /dev/null -w '%{http_code}' -m 30 "${J[@]}" -d '{oops' "$url")
check "bad JSON is 400" test "$code" = 400
code=$(head -c 70000 /dev/zero | tr '\0' x | curl -s -o /dev/null -w '%{http_code}' -m 30 "${J[@]}" --data-binary @- "$url")
check "a body over the bound is 413" test "$code" = 413
exec 3<>/dev/tcp/127.0.0.1/"${base##*:}"
printf 'POST /mcp HTTP/1.1\r\nHost: x\r\n' >&3 # never finished: dropped at its deadline
code=$(curl -s -o /dev/null -w '%{http_code}' -m 30 -X DELETE "${S[@]}" "$url")
check "DELETE ends the session (and its held run)" test "$code" = 200
sleep 3.5
exec 3>&-
kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
check "SIGTERM drains to exit 0 under valgrind (99: an error or a leak)" test "$rc" = 0
[ "$rc" = 0 ] || sed 's/^/# /' "$work/vg.log"
tap_end
