#!/usr/bin/env bash
# Faults found by the third round of attacks from outside, replayed
# against the CLI (the MCP server's are in tests/mcp/bounds.test.mjs):
# kills of processes bsh never started, waits that a signal or a deadline
# did not bound, zombies charged to a run's pids limit, output lost to a
# pty master, and unclear errors. Each as this user and, where it needs
# another user's pipe or terminal, as nobody under root. Prints TAP.
# Usage: test_round3.sh PATH/TO/bsh
set -u
BSH=${1:?usage: test_round3.sh PATH/TO/bsh}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../cli/tap.sh"
chmod 755 "$T"
is_root() { [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && as_nobody test -x "$BSH"; }

# --- 1. only a run's own processes are ever signalled ------------------------
# A process keeps the children of its earlier image across execve.
for how in auto subreaper; do
    bash -c "sleep 1000.$RANDOM & echo \$! >'$T/pid'; exec '$BSH' run --containment $how 'echo hi; (setsid sleep 998 >/dev/null 2>&1 &)'" >"$T/out" 2>&1
    rc=$?
    kill -0 "$(cat "$T/pid")" 2>/dev/null
    left=$?
    kill -9 "$(cat "$T/pid")" 2>/dev/null
    [ "$rc" -eq 0 ] && [ "$left" -eq 0 ] && [ "$(cat "$T/out")" = hi ] && none_left 'sleep 998'
    ok $? "$how: a child bsh had before the run survives it; the run's daemon does not"
done
# One that leads a process group of its own (set -m), and one in a session
# of its own (setsid), as a wrapper script's `tail -f log &` may.
bash -c "setsid sleep 1000.$RANDOM & echo \$! >'$T/pid2'; set -m; sleep 1000.$RANDOM & echo \$! >'$T/pid'; set +m; exec '$BSH' run 'echo hi'" >/dev/null 2>&1
kill -0 "$(cat "$T/pid")" 2>/dev/null && kill -0 "$(cat "$T/pid2")" 2>/dev/null
ok $? "a group leader and a session leader from before the run both survive it"
kill -9 "$(cat "$T/pid")" "$(cat "$T/pid2")" 2>/dev/null
# The MCP server: the child survives calls and the end of the server.
calls() {
    echo '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash_run","arguments":{"command":"echo one"}}}'
    echo '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash_run","arguments":{"command":"echo two; (setsid sleep 997 >/dev/null 2>&1 &)"}}}'
    sleep 1
}
for how in auto subreaper; do
    calls | bash -c "set -m; sleep 1000.$RANDOM & echo \$! >'$T/pid'; set +m; exec '$BSH' mcp --containment $how" >"$T/out" 2>/dev/null
    kill -0 "$(cat "$T/pid")" 2>/dev/null && grep -q '"id":2' "$T/out" && none_left 'sleep 997'
    ok $? "mcp, $how: a child the server had before it began survives its calls and its end"
    kill -9 "$(cat "$T/pid")" 2>/dev/null
done

# --- 2. a signal or a deadline ends a run whose reader never reads ------------
held_fifo() { # held_fifo ARGS...: bsh's status and ms after SIGTERM at 0.5 s
    rm -f "$T/fifo" && mkfifo "$T/fifo"
    (exec 3<"$T/fifo"; sleep 6) &
    local reader=$!
    "$BSH" "$@" >"$T/fifo" 2>/dev/null &
    local p=$!
    sleep 0.5
    local t0
    t0=$(now_ms)
    kill -TERM $p
    wait $p
    echo "$? $(($(now_ms) - t0))"
    kill $reader 2>/dev/null
    wait $reader 2>/dev/null
}
read -r rc ms < <(held_fifo run 'yes signal-marker-1')
[ "$rc" -eq 143 ] && [ "$ms" -lt 3000 ] && none_left signal-marker-1
ok $? "SIGTERM to bsh with a full output ends the run (exit $rc after $ms ms)"
read -r rc ms < <(held_fifo run --json --grace 300 'yes signal-marker-2')
[ "$rc" -eq 143 ] && [ "$ms" -lt 3000 ] && none_left signal-marker-2
ok $? "--json --grace: the same within the grace (exit $rc after $ms ms)"
rm -f "$T/fifo" && mkfifo "$T/fifo"
(exec 3<"$T/fifo"; sleep 6) &
reader=$!
t0=$(now_ms)
"$BSH" run -t 500 --grace 300 'yes deadline-marker' >"$T/fifo" 2>/dev/null
rc=$? ms=$(($(now_ms) - t0))
kill $reader 2>/dev/null
[ "$rc" -eq 124 ] && [ "$ms" -lt 3000 ] && none_left deadline-marker
ok $? "deadline and grace with a full output: 124 (after $ms ms)"

# --- 3. stdout that belongs to another user -----------------------------------
if is_root; then
    ( t0=$(now_ms); as_nobody "$BSH" run -t 500 'yes other-user-pipe' 2>/dev/null
      echo "$? $(($(now_ms) - t0))" >"$T/r" ) | (sleep 3)
    read -r rc ms <"$T/r"
    [ "$rc" -eq 124 ] && [ "$ms" -lt 2500 ] && none_left other-user-pipe
    ok $? "another user's pipe that is not read: the deadline wins (exit $rc after $ms ms)"
    read -r rc ms < <(python3 "$HERE/stall_tty.py" "${NOBODY[@]}" "$BSH" run -t 500 'yes other-user-tty')
    [ "$rc" -eq 124 ] && [ "$ms" -lt 2500 ] && none_left other-user-tty
    ok $? "another user's terminal that is not read: the deadline wins (exit $rc after $ms ms)"
    # The terminal's flags are as they were: the shell on it does not find
    # O_NONBLOCK left behind.
    out=$(python3 "$HERE/stall_tty.py" "${NOBODY[@]}" "$BSH" run 'echo x')
    [ "${out%% *}" -eq 0 ]
    ok $? "another user's terminal: a plain run ends 0"
    ( as_nobody "$BSH" run 'echo hi'; echo "rc=$?" ) | cat >"$T/out"
    [ "$(cat "$T/out")" = "hi
rc=0" ]
    ok $? "another user's pipe that is read: every byte arrives"
else
    for what in "pipe" "terminal" "terminal end" "pipe read"; do
        skip "another user's $what" "needs root and setpriv"
    done
fi

# --- 4. exited orphans are reaped as they come --------------------------------
ZOMBIES='for i in $(seq 60); do (true &); done; for t in $(seq 50); do z=$(ps -o stat= --ppid $PPID | grep -c Z); [ "$z" = 0 ] && break; sleep 0.1; done; echo zombies=$z'
for how in auto subreaper; do
    out=$("$BSH" run --containment $how "$ZOMBIES" 2>&1)
    [ "$out" = zombies=0 ]
    ok $? "$how: no zombie waits for the end of the run ($out)"
done
if "$BSH" run -l pids=40 true 2>"$T/why"; then
    t0=$(now_ms)
    out=$("$BSH" run -t 8000 -l pids=40 'for i in $(seq 150); do (true &); done; echo done' 2>&1)
    rc=$? ms=$(($(now_ms) - t0))
    [ "$rc" -eq 0 ] && [ "$out" = done ] && [ "$ms" -lt 6000 ]
    ok $? "pids=40: 150 short-lived orphans do not exhaust the limit (exit $rc, $ms ms)"
else
    skip "pids=40 and short-lived orphans" "no pids limit here: $(cat "$T/why")"
fi

# --- 7. stdout on a pty master ------------------------------------------------
out=$(python3 "$HERE/to_pty_master.py" "$BSH" run 'echo pty-master-marker')
[ "$out" = "0 pty-master-marker" ]
ok $? "stdout on a pty master: the bytes reach its terminal ($out)"

# --- 9-11. precise errors -------------------------------------------------------
"$BSH" run 'echo lost' >&- 2>"$T/err"
rc=$?
[ "$rc" -eq 125 ] && [ "$(cat "$T/err")" = "bsh: cannot write to stdout: stdout is closed" ]
ok $? "stdout closed: 125, 'stdout is closed' (exit $rc)"
out=$("$BSH" run 'echo in-$(cat | wc -c)' <&- 2>&-)
[ "$out" = in-0 ]
ok $? "stdin and stderr closed: the run goes on ($out)"
expect "--idle-timeout 0: 125, at least 1 ms, as MCP's idle_timeout_ms" 125 "" \
    "bsh: invalid idle timeout '0': at least 1 ms (leave the option out for no idle timeout)\n" \
    -- run --idle-timeout 0 true
if "$BSH" run -l memory=64M true 2>"$T/why"; then
    expect "memory=1: the error names the limit" 125 "" \
        "bsh: failed to spawn bash process: the memory limit (memory=1 bytes) is too small for bash to start\n" \
        -- run -l memory=1 true
else
    skip "memory=1: the error names the limit" "no memory limit here: $(cat "$T/why")"
fi

tap_end
