#!/usr/bin/env bash
# The CLI and MCP smoke inside a root directory: a run, a timeout, a PTY
# run (refused while the root has no /dev, then with a devpts mounted for
# it), --sandbox, bsh doctor and an MCP tools/call (stdio and HTTP); as root and as an
# unprivileged user (uid 65534). Needs root, for chroot and mount.
# Usage: tests/package/smoke_root.sh ROOT [BSH_IN_ROOT (default /bin/bsh)]
set -uo pipefail
root=${1:?usage: smoke_root.sh ROOT [BSH_IN_ROOT]}
bsh=${2:-/bin/bsh}
who=
. "$(cd "$(dirname "$0")" && pwd)/checks.sh"

inside() { # inside COMMAND...: runs in the root as $who, with a bare environment
    env -i PATH=/bin:/usr/bin HOME=/work "$chroot" $userspec "$root" "$@"
}

expect() { # expect WHAT WANT_RC WANT_STDOUT CMD...: checks exit status and stdout
    local what=$1 want_rc=$2 want_out=$3 out rc
    shift 3
    out=$(inside "$@" 2>/tmp/smoke-err.$$)
    rc=$?
    if [ "$rc" = "$want_rc" ] && [ "$out" = "$want_out" ]; then
        pass "$what"
    else
        fail "$what: exit $rc (want $want_rc), stdout '$out' (want '$want_out'), stderr '$(cat /tmp/smoke-err.$$)'"
    fi
}

post() { # post URL JSON: the MCP request over HTTP, by curl or (the arm64 VM has
    # none) by hand through bash's /dev/tcp, the answer read to the server's close
    local h=('Content-Type: application/json' 'MCP-Protocol-Version: 2026-07-28'
        'Mcp-Method: tools/call' 'Mcp-Name: bash_run')
    if command -v curl >/dev/null; then
        curl -s -m 10 "$1" "${h[@]/#/-H}" -d "$2"
        return
    fi
    local where=${1#http://} n
    where=${where%%/*}
    n=$(LC_ALL=C && echo ${#2})
    exec 3<>"/dev/tcp/${where%:*}/${where##*:}" || return 1
    printf 'POST /%s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\nContent-Length: %s\r\n' \
        "${1#http://*/}" "$where" "$n" >&3
    printf '%s\r\n' "${h[@]}" >&3
    printf '\r\n%s' "$2" >&3
    timeout 10 cat <&3
    exec 3>&-
}

mcp_call() { # one initialize and one tools/call through `bsh mcp` on stdio
    local line reply=
    coproc MCP { inside "$bsh" mcp 2>/dev/null; }
    printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"smoke","version":"1"}}}' >&"${MCP[1]}"
    read -r -t 20 line <&"${MCP[0]}"
    printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash_run","arguments":{"command":"echo from-mcp $((6*7))"}}}' >&"${MCP[1]}"
    read -r -t 20 reply <&"${MCP[0]}"
    eval "exec ${MCP[1]}>&-"
    wait "$MCP_PID"
    case $reply in
    *'"id":2'*'from-mcp 42'*) pass "MCP tools/call" ;;
    *) fail "MCP tools/call: reply '$reply'" ;;
    esac
}

http_call() { # `bsh mcp --listen` in the root, reached from outside with curl, then drained
    local log=/tmp/smoke-http.$$ url= out rc
    # A simple command, so that $! is bsh itself (env and chroot exec).
    env -i PATH=/bin:/usr/bin HOME=/work "$chroot" $userspec "$root" \
        "$bsh" mcp --listen 127.0.0.1:0 -C /work 2>"$log" &
    local pid=$!
    for _ in $(seq 100); do
        url=$(sed -n 's/.* on \(http:[^ ]*\) .*/\1/p' "$log")
        [ -n "$url" ] && break
        sleep 0.05
    done
    out=$(post "$url" '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash_run","arguments":{"command":"echo from-http $((6*7))"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}')
    kill -TERM "$pid"
    wait "$pid"
    rc=$?
    case $out in
    *'from-http 42'*) [ "$rc" = 0 ] && pass "MCP over HTTP (--listen), drained with exit 0" ||
        fail "MCP over HTTP: the drain ended with $rc" ;;
    *) fail "MCP over HTTP at '$url': reply '$out', log '$(cat "$log")'" ;;
    esac
    rm -f "$log"
}

pty_run() { # a PTY run needs /dev/ptmx and /dev/pts: a devpts of its own, in a mount namespace
    mkdir -p "$root/dev/pts"
    out=$(unshare -m bash -c '
        mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$1/dev/pts" &&
        ln -sf pts/ptmx "$1/dev/ptmx" &&
        env -i PATH=/bin "$4" $2 "$1" "$3" run -p "[ -t 0 ] && [ -t 1 ] && echo pty-ok"' \
        _ "$root" "$userspec" "$bsh" "$chroot" 2>&1)
    rc=$?
    rm -f "$root/dev/ptmx"
    rmdir "$root/dev/pts" "$root/dev"
    if [ $rc = 0 ] && [ "$(printf %s "$out" | tr -d '\r')" = pty-ok ]; then
        pass "PTY run with a devpts"
    else
        fail "PTY run with a devpts: exit $rc, output '$out'"
    fi
}

smoke() {
    expect "a run" 3 out "$bsh" run 'echo out; echo err >&2; exit 3'
    expect "--json" 0 '{"stdout":"aGk=","stderr":"","exit_code":null,"signal":null,"truncated":false}
{"stdout":"","stderr":"","exit_code":0,"signal":null,"truncated":false}' "$bsh" run --json 'printf hi'
    local t0=$SECONDS
    expect "a timeout" 124 "" "$bsh" run -t 300 'while :; do :; done'
    [ $((SECONDS - t0)) -lt 5 ] || fail "the 300 ms timeout took $((SECONDS - t0)) s"
    expect "stdin is empty, not bsh's" 0 "[]" "$bsh" run 'read -r x; echo "[$x]"' <<<leak
    expect "a PTY run without /dev is refused" 125 "" "$bsh" run -p 'echo x'
    grep -q 'pty' /tmp/smoke-err.$$ || fail "the PTY refusal does not say why: $(cat /tmp/smoke-err.$$)"
    expect "--sandbox writes the working directory" 0 kept \
        "$bsh" run -C /work --sandbox 'echo kept > /work/f-$UID && read -r x < /work/f-$UID && echo $x'
    # A world-writable directory in a system tree: only the sandbox stops it.
    mkdir -p "$root/etc/open" && chmod 1777 "$root/etc/open"
    expect "without --sandbox, /etc/open is writable" 0 "" "$bsh" run -C /work 'echo x > /etc/open/f-$UID'
    expect "--sandbox denies the system" 1 "" \
        "$bsh" run -C /work --sandbox 'echo x > /etc/open/planted'
    [ ! -e "$root/etc/open/planted" ] || fail "--sandbox let a run write /etc/open"
    rm -rf "$root/etc/open"
    # the command policy: tree-sitter compiled into the one binary
    mkdir -p "$root/etc"
    printf 'prefix_rule(pattern = ["echo"], decision = "allow")\nprefix_rule(pattern = ["rm"], decision = "forbidden")\n' \
        >"$root/etc/policy.rules"
    chmod 644 "$root/etc/policy.rules"
    expect "a policy: allowed" 0 ok "$bsh" run --policy /etc/policy.rules 'echo ok'
    expect "a policy: denied inside \$( ), nothing run" 126 "" \
        "$bsh" run --policy /etc/policy.rules 'echo $(rm -rf /work)'
    expect "--sandbox-readonly: the working directory is read-only" 0 ro \
        "$bsh" run -C /work --sandbox-readonly '{ echo x > /work/ro-$UID; } 2>/dev/null || echo ro'
    rm -f "$root/etc/policy.rules"
    rmdir "$root/etc" 2>/dev/null
    out=$(inside "$bsh" doctor)
    case $out in
    "bsh "*" on Linux "*"containment of a run: subreaper"* | "bsh "*" on Linux "*"containment of a run: cgroup"*)
        pass "bsh doctor" ;;
    *) fail "bsh doctor said: $out" ;;
    esac
    mcp_call
    http_call
    pty_run
}

# The arm64 VM of tests/cross/ brings a chroot that takes --userspec.
chroot=${BSH_SMOKE_CHROOT:-$(command -v chroot)} || { echo "smoke_root.sh: no chroot" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "smoke_root.sh: needs root (chroot, mount)" >&2; exit 1; }
[ -x "$root/bin/bash" ] && [ -x "$root$bsh" ] || { echo "smoke_root.sh: $root needs /bin/bash and $bsh" >&2; exit 1; }
mkdir -p "$root/tmp" "$root/work"
chmod 1777 "$root/tmp" "$root/work"
who=root userspec=
smoke
who="uid 65534" userspec=--userspec=65534:65534
smoke
rm -f /tmp/smoke-err.$$ "$root"/work/f-*
finish "in $root"
