#!/usr/bin/env bash
# Faults found by attacking bsh from outside, each replayed against the
# CLI (and, where it needs root to set up, the MCP server): waits that no
# deadline bounded, signals that orphaned the command, output that was
# lost, and errors that were silent. Prints TAP.
# Usage: test_faults.sh PATH/TO/bsh
set -u
BSH=${1:?usage: test_faults.sh PATH/TO/bsh}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../cli/tap.sh"
chmod 755 "$T"

# --- a run whose process became root -----------------------------------------
# As root, the test makes a setuid-root helper (what sudo does) and runs
# bsh as nobody: bsh may then not signal the command at all.
can_become_root() {
    [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && command -v cc >/dev/null &&
        cc -o "$T/become_root" "$HERE/become_root.c" 2>/dev/null &&
        chmod 4755 "$T/become_root" &&
        [ "$(as_nobody "$T/become_root" id -u 2>/dev/null)" = 0 ] &&
        as_nobody test -x "$BSH"
}
if can_become_root; then
    t0=$(now_ms)
    as_nobody "$BSH" run -C "$T" -t 500 "./become_root sleep 107.25" 2>"$T/err"
    rc=$? ms=$(($(now_ms) - t0))
    grep -q '^bsh: failed to kill the run: Operation not permitted; process [0-9]* (which may have changed its user id) was left running$' "$T/err" &&
        [ "$rc" -eq 125 ] && [ "$ms" -lt 3000 ]
    ok $? "unkillable command: the timeout ends bsh with a clear error (exit $rc, $ms ms)"
    pkill -f 'sleep 107.25'

    as_nobody "$BSH" run -C "$T" "./become_root sleep 107.5" 2>/dev/null &
    p=$!
    sleep 0.5
    t0=$(now_ms)
    kill -TERM $p
    wait $p
    rc=$? ms=$(($(now_ms) - t0))
    [ "$rc" -eq 143 ] && [ "$ms" -lt 3000 ]
    ok $? "unkillable command: SIGTERM still ends bsh (exit $rc, $ms ms)"
    pkill -f 'sleep 107.5'

    # The MCP server answers others while a call cannot be killed, and
    # answers that call with the error.
    # --no-sessions: bash execs the command itself, which then becomes
    # root (in a session bash stays its parent, and the kill reaches bash).
    coproc MCP { as_nobody "$BSH" mcp --no-sessions -C "$T" 2>/dev/null; }
    call='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash_run","arguments":{"command":"./become_root sleep 107.75","timeout_ms":500}}}'
    echo "$call" >&"${MCP[1]}"
    sleep 1 # past the call's deadline
    echo '{"jsonrpc":"2.0","id":2,"method":"ping"}' >&"${MCP[1]}"
    read -r -t 5 -u "${MCP[0]}" first
    read -r -t 5 -u "${MCP[0]}" second
    echo '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"bash_run","arguments":{"command":"echo still serving"}}}' >&"${MCP[1]}"
    read -r -t 5 -u "${MCP[0]}" third
    exec {MCP[1]}>&-
    wait "$MCP_PID" 2>/dev/null
    replies="$first
$second"
    grep -qx '{"jsonrpc":"2.0","id":2,"result":{}}' <<<"$replies"
    ok $? "mcp: ping answered after the deadline of a call that cannot be killed"
    grep '"id":1,' <<<"$replies" | grep -q 'failed to kill the run: Operation not permitted' &&
        [[ $third == *'"id":3,'*'still serving'* ]]
    ok $? "mcp: the unkillable call gets the error, the next call runs"
    pkill -f 'sleep 107.75'
else
    for what in "timeout" "SIGTERM" "mcp ping" "mcp error"; do
        skip "unkillable command: $what" "needs root, setpriv, cc and a suid-capable $T"
    done
fi

# --- a reader that does not read -----------------------------------------------
stalled() { # stalled ARGS...: bsh's exit status and time, its stdout unread
    ( t0=$(now_ms); "$BSH" "$@"; echo "$? $(($(now_ms) - t0))" >"$T/stalled" ) |
        (sleep 3; exec 0<&-)
    cat "$T/stalled"
}
read -r rc ms < <(stalled run -t 500 'yes stalled-marker-1')
[ "$rc" -eq 124 ] && [ "$ms" -lt 2500 ] && none_left stalled-marker-1
ok $? "full pipe: the deadline wins (exit $rc after $ms ms), the command is gone"
read -r rc ms < <(stalled run --json -t 500 'yes stalled-marker-2')
[ "$rc" -eq 124 ] && [ "$ms" -lt 2500 ] && none_left stalled-marker-2
ok $? "full pipe, --json: the deadline wins (exit $rc after $ms ms)"
for sig in TERM INT HUP; do
    ( "$BSH" run "yes stalled-marker-$sig" & p=$!; sleep 0.5; kill -$sig $p; wait $p
      echo $? >"$T/rc" ) | (sleep 2; exec 0<&-)
    want=$((128 + $(kill -l $sig)))
    [ "$(cat "$T/rc")" -eq $want ] && none_left "stalled-marker-$sig"
    ok $? "full pipe: SIG$sig is acted on (exit $want), the command is gone"
done
if command -v python3 >/dev/null; then
    read -r rc ms < <(python3 "$HERE/stall_tty.py" "$BSH" run -t 500 'yes stalled-marker-tty')
    [ "$rc" -eq 124 ] && [ "$ms" -lt 3000 ] && none_left stalled-marker-tty
    ok $? "terminal that is not read (as after Ctrl-S): exit $rc after $ms ms"
else
    skip "terminal that is not read" "no python3"
fi

# --- every signal that would end bsh ends the run first ----------------------------
for sig in QUIT USR1 USR2 ALRM TERM VTALRM PROF XCPU PWR RTMIN+1 RTMAX; do
    marker="sleep 12$(kill -l "$sig")7"
    "$BSH" run "$marker" &
    p=$!
    for _ in $(seq 50); do pgrep -f -- "$marker" | grep -vq "^$p\$" && break; sleep 0.05; done
    kill -s "$sig" $p
    wait $p
    rc=$?
    want=$((128 + $(kill -l "$sig")))
    sleep 0.1
    [ "$rc" -eq "$want" ] && none_left "$marker"
    ok $? "SIG$sig to bsh: exit $want, and the command is gone"
done

# --- a session per run, pipe mode too -------------------------------------------
if command -v script >/dev/null; then
    t0=$(now_ms)
    script -qec "$BSH run -t 5000 'cat /dev/tty; echo rc=\$?'" /dev/null </dev/null >"$T/tty" 2>&1
    ms=$(($(now_ms) - t0))
    grep -q 'No such device or address' "$T/tty" && grep -q 'rc=1' "$T/tty" && [ "$ms" -lt 3000 ]
    ok $? "with a terminal of its own, bsh's command cannot open /dev/tty ($ms ms)"
else
    skip "a session per run in pipe mode" "no script(1)"
fi

# --- output and status -----------------------------------------------------------
expect "pty: output after every terminal fd was closed once is kept" 0 \
    "EARLY\r\nLATE\r\n" "" -- \
    run -p 'echo EARLY; exec </dev/null >/dev/null 2>&1; sleep 0.3; echo LATE >/dev/tty'
expect "a huge timeout does not overflow" 0 "ok\n" "" -- \
    run -t 10000000000000 'echo ok'
expect "the largest timeout" 0 "ok\n" "" -- run -t 9223372036854775807 'echo ok'
expect "a timeout past 64 bits: a clear error" 125 "" \
    "bsh: invalid timeout '9223372036854775808': too large (at most 9223372036854775807 ms)\n" \
    -- run -t 9223372036854775808 'echo ok'
env --ignore-signal=CHLD "$BSH" run 'echo hi; exit 3' >"$T/out" 2>&1
rc=$?
[ "$rc" -eq 3 ] && [ "$(cat "$T/out")" = hi ]
ok $? "an inherited ignored SIGCHLD: the exit code is kept ($rc)"
env --ignore-signal=CHLD "$BSH" run -p 'exit 4'
ok $(($? == 4 ? 0 : 1)) "and in a pty"
expect "a COMMAND that starts with '-' is a command" 127 "" \
    "bash: line 1: -x: command not found\n" -- run -- '-x'

# --- errors are never silent ---------------------------------------------------------
mkdir "$T/locked" && chmod 000 "$T/locked"
runner=()
[ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && runner=("${NOBODY[@]}")
if [ "$(id -u)" -ne 0 ] || { [ ${#runner[@]} -gt 0 ] && "${runner[@]}" test -x "$BSH"; }; then
    for mode in "" -p; do
        prefix="failed to spawn bash process"
        [ -n "$mode" ] && prefix="failed to spawn command in pty"
        "${runner[@]}" "$BSH" run $mode -C "$T/locked" true 2>"$T/err"
        rc=$?
        [ "$rc" -eq 125 ] && [ "$(cat "$T/err")" = "bsh: $prefix: cannot use working directory '$T/locked': Permission denied" ]
        ok $? "working directory without search permission${mode:+ ($mode)}: named, with the reason"
    done
else
    skip "working directory without search permission" "cannot drop root here"
    skip "working directory without search permission (-p)" "cannot drop root here"
fi
"$BSH" run 'seq 3' >/dev/full 2>"$T/err"
rc=$?
[ "$rc" -eq 125 ] && [ "$(cat "$T/err")" = "bsh: cannot write to stdout: No space left on device" ]
ok $? "run: ENOSPC on stdout is reported, exit 125"
"$BSH" run --json 'seq 3' >/dev/full 2>"$T/err"
rc=$?
[ "$rc" -eq 125 ] && [ "$(cat "$T/err")" = "bsh: cannot write to stdout: No space left on device" ]
ok $? "run --json: ENOSPC on stdout is reported, exit 125"
"$BSH" check --json ls >/dev/full 2>"$T/err"
rc=$?
[ "$rc" -eq 125 ] && [ "$(cat "$T/err")" = "bsh: cannot write to stdout: No space left on device" ]
ok $? "check --json: ENOSPC is reported, exit 125"
"$BSH" patterns >/dev/full 2>"$T/err"
rc=$?
[ "$rc" -eq 125 ] && [ "$(cat "$T/err")" = "bsh: cannot write to stdout: No space left on device" ]
ok $? "patterns: ENOSPC is reported, exit 125"

tap_end
