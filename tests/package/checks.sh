# Sourced by the package tests: counted checks and the closing line.
# pass WHAT / fail WHAT print one line each (with "($who)" when the caller
# sets who); finish prints "NAME: N failure(s)" and returns 0 only for none.
failures=0
fail() { echo "FAIL${who:+ ($who)}: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok${who:+ ($who)}: $*"; }
finish() {
    echo "$(basename "$0"): $failures failure(s)${1:+ $1}"
    [ $failures = 0 ]
}
# mcp_reply COMMAND...: an initialize, then a tools/call of `echo q-mcp
# $((6*7))` through `COMMAND mcp` on stdio (kept open until the reply
# comes); prints the tools/call's reply line.
mcp_reply() {
    local line reply=
    coproc MCP { "$@" mcp 2>/dev/null; }
    printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"q","version":"1"}}}' >&"${MCP[1]}"
    read -r -t 60 line <&"${MCP[0]}"
    printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash_run","arguments":{"command":"echo q-mcp $((6*7))"}}}' >&"${MCP[1]}"
    while read -r -t 60 reply <&"${MCP[0]}" && [[ $reply != *'"id":2'* ]]; do :; done
    local pid=$MCP_PID i
    eval "exec ${MCP[1]}>&-"
    for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null # a server that ignored the end of its input
    wait "$pid"
    printf '%s\n' "$reply"
}
