#!/usr/bin/env bash
# Black-box tests of the bsh CLI (SPEC 3): exact bytes on stdout and
# stderr, and exit statuses. Prints TAP. Usage: test_cli.sh PATH/TO/bsh
set -u
BSH=${1:?usage: test_cli.sh PATH/TO/bsh}
. "$(dirname "$0")/tap.sh"

status_line() { # status_line EXIT SIGNAL
    printf '{"stdout":"","stderr":"","exit_code":%s,"signal":%s,"truncated":false}\\n' "$1" "$2"
}

# --- plain mode ---------------------------------------------------------
expect "stdout and stderr apart, exit code passed through" 7 "out" "err" -- \
    run 'printf out; printf err >&2; exit 7'
expect "-- ends the options" 0 "-x\n" "" -- run -- 'echo -x'
expect "options may follow the COMMAND" 124 "" "" -- run 'sleep 5' -t 200
expect "after --, an option-like word is an operand" 125 "" \
    "bsh: run: expected one COMMAND; quote the whole command line as one argument\n" \
    -- run -- true --json
expect "death by signal: 128+N" 137 "" "" -- run 'kill -KILL $$'
expect "SIGTERM death: 143" 143 "" "" -- run 'kill -TERM $$'
expect "exit 137 stays 137" 137 "" "" -- run 'exit 137'
expect "timeout: 124" 124 "a" "" -- run -t 300 'printf a; sleep 10'
expect "--timeout=MS form" 124 "" "" -- run --timeout=0 'echo never'
expect "idle timeout: 124, output before it kept" 124 "a\n" "" -- \
    run --idle-timeout 300 'echo a; sleep 5'
expect "grace: SIGTERM first, the command's last words kept, then 124" 124 \
    "up\nbye\n" "" -- \
    run -t 300 --grace 2000 "trap 'echo bye; exit 0' TERM; echo up; sleep 10 & wait"
expect "bad grace: 125" 125 "" \
    "bsh: invalid grace '-1': expected milliseconds, a whole number from 0\n" \
    -- run --grace -1 true
expect "bad idle timeout: 125" 125 "" \
    "bsh: invalid idle timeout 'x': expected milliseconds, a whole number from 0\n" \
    -- run --idle-timeout x true
expect "output limit: every byte up to it, then 124" 124 "1\n2\n3" "" -- \
    run -l output=5 'seq 1000'
expect "output limit with a suffix, --limit=" 0 "ok\n" "" -- run --limit=output=1K 'echo ok'
expect "cpu limit: the command's own SIGXCPU" 152 "" "" -- \
    run -l cpu=1 'while :; do :; done'
expect "an unknown limit: 125" 125 "" \
    "bsh: invalid limit 'disk=1': expected NAME=VALUE with NAME memory, pids, cpu, fsize or output\n" \
    -- run -l disk=1 true
expect "a bad limit value: 125" 125 "" \
    "bsh: invalid limit 'memory=1T': expected a whole number of bytes, with an optional K, M or G, from 1\n" \
    -- run -l memory=1T true
expect "a zero limit: 125" 125 "" \
    "bsh: invalid limit 'pids=0': expected a whole number of processes from 1\n" \
    -- run -l pids=0 true
# memory and pids: enforced by the kernel where a cgroup (v2, else v1) can
# have them, and then the report names the limit; else a clear refusal.
for limit in memory pids; do
    if [ "$limit" = memory ]; then
        set -- -l memory=32M 'a=$(head -c 200000000 /dev/zero | tr "\0" x); echo survived'
    else
        set -- -l pids=5 'for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.3 & done; wait'
    fi
    "$BSH" run --containment subreaper --report "$@" >"$T/out" 2>"$T/err"
    rc=$?
    if grep -q "^bsh: cannot enforce the $limit limit: the run has no cgroup v2 of its own, and " "$T/err"; then
        [ "$rc" -eq 125 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ]
        ok $? "$limit limit without a cgroup that has it: 125, and why ($(cut -c1-160 "$T/err"))"
    else
        grep -q "^bsh: report: reason limit ($limit), " "$T/err" && ! grep -q survived "$T/out"
        ok $? "$limit limit enforced by the kernel, the report names it (exit $rc)"
    fi
done
expect "a bad containment: 125" 125 "" \
    "bsh: invalid containment 'jail': expected auto, cgroup or subreaper\n" \
    -- run --containment jail true
"$BSH" run --json --report 'printf abc; exit 2' >"$T/out" 2>"$T/err"
rc=$?
tail -n 1 "$T/out" | grep -Eq '^\{"report":\{"reason":"exit","limit":null,"exit_code":2,"signal":null,"wall_ms":[0-9]+,"cpu_user_ms":[0-9]+,"cpu_sys_ms":[0-9]+,"memory_peak_bytes":[0-9]+,"stdout_bytes":3,"stderr_bytes":0,"containment":"(cgroup|subreaper)","killed":[0-9]+,"escaped":(0|null),"diagnosis":\[\],"sandbox":null,"session_state":null\}\}$' &&
    [ "$rc" -eq 2 ] && [ "$(wc -l <"$T/out")" -eq 3 ] && [ ! -s "$T/err" ]
ok $? "--json --report: the report is the last line, after the status"
"$BSH" run --report -t 300 'echo go; sleep 5' >"$T/out" 2>"$T/err"
rc=$?
grep -Eq '^bsh: report: reason timeout, wall [0-9]+ ms, cpu [0-9]+ ms user \+ [0-9]+ ms sys, .*killed 1, .*was running: [0-9]+ sleep \(S in [a-z_]+\)$' "$T/err" &&
    [ "$rc" -eq 124 ] && [ "$(cat "$T/out")" = go ] && [ "$(wc -l <"$T/err")" -eq 1 ]
ok $? "--report: one line on stderr says why, how long, and what was running"
expect "env on top, last wins" 0 "2:x" "" -- \
    run -e A=1 --env A=2 -e B=x 'printf %s "$A:$B"'
expect "env value may hold '='" 0 "a=b" "" -- run -e 'A=a=b' 'printf %s "$A"'
expect "cwd" 0 "/tmp\n" "" -- run -C /tmp pwd
expect "pty: CRLF and a terminal" 0 "24 80\r\n" "" -- run -p 'stty size'
expect "raw bytes pass unchanged" 0 "a\0b\377" "" -- run "printf 'a\\0b\\377'"

# --- guards and bsh's own failures ----------------------------------------
P1='(?i)\\brm\\s+-[a-z]*[rRfF][a-z]*\\s+\\/'
expect "guard rejection: 126, message on stderr" 126 "" \
    "bsh: Pattern match found: $P1\n" -- run 'rm -rf /'
expect "absolute path: 126" 126 "" \
    "bsh: absolute command not allowed, use relative path\n" -- run /bin/ls
expect "bad env name: 125" 125 "" "bsh: invalid env variable name: 1A\n" -- \
    run -e 1A=x true
expect "env without '=': 125" 125 "" \
    "bsh: invalid --env 'NOEQ': expected NAME=VALUE\n" -- run -e NOEQ true
expect "bad timeout: 125" 125 "" \
    "bsh: invalid timeout '-5': expected milliseconds, a whole number from 0\n" \
    -- run -t -5 true
expect "unknown option: 125" 125 "" "bsh: run: unknown option '--nope'\n" -- \
    run --nope true
expect "missing command: 125" 125 "" "bsh: run: missing COMMAND\n" -- run
expect "an unquoted command line: 125" 125 "" \
    "bsh: run: unknown option '-la'; quote the whole command line as one argument\n" \
    -- run ls -la
expect "two commands: 125" 125 "" \
    "bsh: run: expected one COMMAND; quote the whole command line as one argument\n" \
    -- run echo hi
expect "unknown subcommand: 125" 125 "" \
    "bsh: unknown command 'frob'; try 'bsh --help'\n" -- frob
expect "bad cwd: 125" 125 "" \
    "bsh: failed to spawn bash process: cannot use working directory '/nonexistent': No such file or directory\n" \
    -- run -C /nonexistent true
expect "bad cwd in a pty: 125" 125 "" \
    "bsh: failed to spawn command in pty: cannot use working directory '/nonexistent': No such file or directory\n" \
    -- run -p -C /nonexistent true

# --- JSON mode --------------------------------------------------------------
expect "json: chunk then status" 0 \
    "{\"stdout\":\"aGk=\",\"stderr\":\"\",\"exit_code\":null,\"signal\":null,\"truncated\":false}\n$(status_line 0 null)" \
    "" -- run --json 'printf hi'
expect "json: stderr chunk, exit code" 3 \
    "{\"stdout\":\"\",\"stderr\":\"AP8=\",\"exit_code\":null,\"signal\":null,\"truncated\":false}\n$(status_line 3 null)" \
    "" -- run --json "printf '\\0\\377' >&2; exit 3"
expect "json: signal" 137 "$(status_line null 9)" "" -- \
    run --json 'kill -KILL $$'
expect "json: timeout" 124 "$(status_line null -1)" "" -- \
    run --json -t 0 'echo never'
expect "json: guard" 126 "{\"error\":\"Pattern match found: (?i)\\\\\\\\brm\\\\\\\\s+-[a-z]*[rRfF][a-z]*\\\\\\\\s+\\\\\\\\/\",\"stage\":\"guard\"}\n" \
    "" -- run --json 'rm -rf /'
expect "json: stream error" 125 \
    "{\"error\":\"invalid env variable name: 1A\",\"stage\":\"stream\"}\n" \
    "" -- run --json -e 1A=x true
"$BSH" run --json -e $'\xff\x01=1' true >"$T/out"
[ "$(cat "$T/out")" = '{"error":"invalid env variable name: \ufffd\u0001","stage":"stream"}' ]
ok $? "json: invalid UTF-8 and control bytes in a message are escaped"
"$BSH" run --json 'head -c 4097 /dev/zero' >"$T/out"
want=$(printf '%s\n' \
    "{\"stdout\":\"$(head -c 4096 /dev/zero | base64 -w0)\",\"stderr\":\"\",\"exit_code\":null,\"signal\":null,\"truncated\":true}" \
    "{\"stdout\":\"AA==\",\"stderr\":\"\",\"exit_code\":null,\"signal\":null,\"truncated\":false}" \
    '{"stdout":"","stderr":"","exit_code":0,"signal":null,"truncated":false}')
[ "$(cat "$T/out")" = "$want" ]
ok $? "json: a full 4096-byte chunk is truncated:true, the rest follows"

# --- check, patterns, version, help ------------------------------------------
expect "check: allowed" 0 "" "" -- check 'ls -la'
expect "check: rejected, message on stdout" 1 \
    "Pattern match found: \\\\bkill\\\\s+-9\\\\s+1\\\\b\n" "" -- check 'kill -9 1'
expect "check --json: allowed" 0 '{"allowed":true}\n' "" -- check --json ls
expect "check --json: rejected" 1 \
    '{"allowed":false,"error":"absolute command not allowed, use relative path"}\n' \
    "" -- check --json /bin/rm
expect "check: usage error" 125 "" "bsh: check: missing COMMAND\n" -- check
"$BSH" patterns >"$T/out"
[ "$(wc -l <"$T/out")" -eq 20 ] &&
    [ "$(head -1 "$T/out")" = "$(printf '1\trecursive destruction\t%s' '(?i)\brm\s+-[a-z]*[rRfF][a-z]*\s+\/')" ] &&
    [ "$(cut -f3 "$T/out")" = "$(cat "$(dirname "$0")/../data/patterns.txt")" ]
ok $? "patterns: 20 lines NUMBER TAB CATEGORY TAB REGEX, exact text"
expect "version" 0 "bsh 0.1.0\n" "" -- --version
"$BSH" --help | grep -q '^  bsh run \[OPTIONS\] \[--\] COMMAND'
ok $? "help shows the usage"

# --- live streaming and signals -----------------------------------------------
"$BSH" run 'echo first; sleep 3; echo second' >"$T/live" &
bsh_pid=$!
sleep 1
[ "$(cat "$T/live")" = "first" ]
ok $? "output is streamed as it is written, not at the end"
kill -TERM $bsh_pid
wait $bsh_pid
ok $(($? == 143 ? 0 : 1)) "SIGTERM to bsh: exit 143"

for sig in INT TERM HUP; do
    rm -f "$T/gc" # else the last round's pid could pass for this one's
    "$BSH" run 'sleep 100 & echo $!; wait' >"$T/gc" &
    bsh_pid=$!
    for _ in $(seq 50); do [ -s "$T/gc" ] && break; sleep 0.1; done
    kill -"$sig" $bsh_pid
    wait $bsh_pid
    rc=$?
    gc=$(cat "$T/gc")
    sleep 0.2
    state=$(awk '{print $3}' "/proc/$gc/stat" 2>/dev/null)
    want=$((128 + $(kill -l "$sig")))
    [ "$rc" -eq "$want" ] && { [ -z "$state" ] || [ "$state" = Z ]; }
    ok $? "SIG$sig to bsh: exit $want and the command's group is gone"
done

# No close loop up to the fd limit: the child drops inherited fds with one
# close_range, whatever RLIMIT_NOFILE is (raised here as far as allowed).
if command -v strace >/dev/null; then
    (ulimit -n "$(ulimit -Hn)" 2>/dev/null
     ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e trace=close,close_range \
         -o "$T/trace" "$BSH" run true) # LSan cannot run under ptrace
    closes=$(grep -c ' close(' "$T/trace")
    grep -Eq 'close_range\(3, 4294967295, (0|CLOSE_RANGE_CLOEXEC)\) *= 0' "$T/trace" && [ "$closes" -lt 100 ]
    ok $? "one close_range(3, ~0) in the child, no close loop ($closes close calls in all)"
else
    n=$((n + 1))
    echo "ok $n - no close loop # SKIP strace not installed"
fi

# A reader that goes away: bsh kills the command and ends.
timeout 10 bash -c "'$BSH' run 'yes' | head -1 >/dev/null; exit \${PIPESTATUS[0]}"
ok $(($? == 141 ? 0 : 1)) "stdout closed by the reader: command killed, exit 141"

# --- stdin (-i) and the non-interactive profile ---------------------------
expect "without -i, stdin is /dev/null" 0 "0\n" "" -- run 'wc -c'
printf 'a\nb\0c' | "$BSH" run -i 'cat; echo " rc=$?"' >"$T/out" 2>&1
printf 'a\nb\0c rc=0\n' | cmp -s - "$T/out"
ok $? "-i: every byte of bsh's stdin, then EOF"
head -c 3000000 /dev/urandom >"$T/big"
[ "$("$BSH" run -i sha256sum <"$T/big")" = "$(sha256sum <"$T/big")" ]
ok $? "-i: 3 MB through sha256sum, exact"
out=$(printf 'typed\n' | "$BSH" run -p -i 'read x; echo "got $x"' | tr -d '\r')
[ "$out" = "$(printf 'typed\ngot typed')" ]
ok $? "-p -i from a pipe: typed into the terminal (echoed), read by the command"
out=$(yes | timeout 10 "$BSH" run -i 'head -c 4; exec 0<&-; sleep 0.2; echo " on"')
[ "$out" = "$(printf 'y\ny\n on')" ]
ok $? "-i: the command closes its stdin; bsh goes on, no SIGPIPE"
expect "--agent-env: pagers and editors that never wait, TERM=dumb on pipes" 0 \
    "cat cat true 0 noninteractive 1 dumb\n" "" -- run --agent-env \
    'echo $PAGER $GIT_PAGER $GIT_EDITOR $GIT_TERMINAL_PROMPT $DEBIAN_FRONTEND $PIP_NO_INPUT $TERM'
expect "--agent-env: a variable set with -e wins" 0 "less\n" "" -- \
    run --agent-env -e PAGER=less 'echo $PAGER'
expect "--agent-env in a PTY keeps TERM" 0 "xterm\r\n" "" -- \
    run -p --agent-env -e TERM=xterm 'echo $TERM'
expect "-i is an option of run" 125 "" \
    "bsh: check: unknown option '-i'\n" -- check -i true
expect "mcp -C to a missing directory fails at start-up" 125 "" \
    "bsh: mcp: cannot use working directory '/nonexistent-bsh': No such file or directory\n" -- \
    mcp -C /nonexistent-bsh
expect "mcp --max-runs needs a number from 1" 125 "" \
    "bsh: invalid max-runs '0': expected a number from 1 to 100000\n" -- \
    mcp --max-runs 0

# --- the sandbox and doctor (SPEC 8) ---------------------------------------
expect "--sandbox: the working directory is writable, /etc is not" 1 "ok\n" \
    "bash: line 1: /etc/bsh-cli-sandbox: Permission denied\n" -- \
    run -C "$T" --sandbox 'echo a > mine && echo ok; echo b > /etc/bsh-cli-sandbox'
expect "--sandbox=best-effort" 0 "ok\n" "" -- run --sandbox=best-effort 'echo ok'
expect "--sandbox: TMPDIR=/ is refused, not made writable" 125 "" \
    "bsh: sandbox: cannot make TMPDIR '/' writable: it is the root directory\n" -- \
    run --sandbox -e TMPDIR=/ 'echo x > /bsh-cli-root'
expect "--sandbox: a TMPDIR outside the temporary places is refused" 125 "" \
    "bsh: sandbox: cannot make TMPDIR '/var/lib/dpkg' writable: it lies outside /tmp, /var/tmp, /dev/shm, the working directory and the directories made writable\n" -- \
    run -C "$T" --sandbox -e TMPDIR=/var/lib/dpkg true
expect "--sandbox: nothing under /run is made writable" 125 "" \
    "bsh: sandbox: cannot make the directory '/run' writable: it is a system directory\n" -- \
    run -C "$T" --sandbox --sandbox-write /run true
expect "--sandbox: a working directory of / is refused" 125 "" \
    "bsh: sandbox: cannot make the working directory '/etc/..' writable: it is the root directory\n" -- \
    run -C /etc/.. --sandbox true
expect "--sandbox-write of a system directory is refused" 125 "" \
    "bsh: sandbox: cannot make the directory '/usr/bin' writable: it is a system directory\n" -- \
    run --sandbox --sandbox-write /usr/bin true
mkdir -p "$T/home/me"
HOME=$T/home/me expect "--sandbox-write above the home directory is refused" 125 "" \
    "bsh: sandbox: cannot make the directory '$T/home' writable: it holds the home directory\n" -- \
    run --sandbox --sandbox-write "$T/home" true
HOME=$T/home/me expect "--sandbox: the home directory itself may be the working directory" 0 "ok\n" "" -- \
    run -C "$T/home/me" --sandbox 'echo ok'
expect "--sandbox=strict" 0 "ok\n" "" -- run --sandbox=strict 'echo ok'
expect "a bad sandbox mode: 125" 125 "" \
    "bsh: invalid sandbox 'loose': expected strict or best-effort\n" -- \
    run --sandbox=loose true
expect "--sandbox-write without --sandbox: 125" 125 "" \
    "bsh: run: --sandbox-write, --sandbox-socket and --sandbox-net go with --sandbox\n" -- \
    run --sandbox-write /tmp true
expect "--sandbox-socket without --sandbox: 125" 125 "" \
    "bsh: run: --sandbox-write, --sandbox-socket and --sandbox-net go with --sandbox\n" -- \
    run --sandbox-socket /tmp/x.sock true
expect "a --sandbox-socket that is not a socket: 125" 125 "" \
    "bsh: sandbox: socket '/etc/hostname': not a socket\n" -- \
    run --sandbox --sandbox-socket /etc/hostname 'echo never'
expect "a --sandbox-socket that does not exist: 125" 125 "" \
    "bsh: sandbox: socket '/nonexistent-bsh.sock': No such file or directory\n" -- \
    run --sandbox --sandbox-socket /nonexistent-bsh.sock 'echo never'
expect "a TMPDIR that does not exist: the run's private one goes in /tmp" 0 "private\n" "" -- \
    run --sandbox -e TMPDIR=/nonexistent-bsh 'case $TMPDIR in /tmp/bsh-run-*) echo private;; esac'
expect "--limit pids=none and memory=none are taken" 0 "ran\n" "" -- \
    run -l pids=none -l memory=none 'echo ran'
expect "--limit cpu=none is refused: 125" 125 "" \
    "bsh: invalid limit 'cpu=none': expected a whole number of seconds from 1\n" -- \
    run -l cpu=none true
expect "a --sandbox-write directory that cannot be opened: 125" 125 "" \
    "bsh: sandbox: cannot open '/nonexistent-bsh': No such file or directory\n" -- \
    run --sandbox --sandbox-write /nonexistent-bsh 'echo never'
mkdir -p "$T/granted"
expect "--sandbox-write DIR is writable" 0 "x\n" "" -- \
    run -C "$T" --sandbox --sandbox-write "$T/granted" "echo x > $T/granted/f && cat $T/granted/f"
"$BSH" run --sandbox --report --json 'true' >"$T/report" 2>&1
grep -q '"sandbox":{"mode":"strict","landlock_abi":[0-9]*,"layers":{"no_new_privs":"applied",' "$T/report"
ok $? "--report --json: the sandbox key with each layer"
"$BSH" run --report --json 'true' | grep -q '"sandbox":null'
ok $? "--report --json without a sandbox: null"
"$BSH" doctor >"$T/doctor"
grep -q '^landlock: ABI [0-9]' "$T/doctor" && grep -q '^containment of a run: ' "$T/doctor" &&
    grep -q '^sandbox layers of a run: no_new_privs ' "$T/doctor"
ok $? "doctor: the Landlock ABI, the containment, the sandbox layers"
yes_no() { if "$BSH" run "$@" true >/dev/null 2>&1; then echo yes; else echo no; fi; }
grep -qx "limits of a run: memory $(yes_no -l memory=1G), pids $(yes_no -l pids=4096) (cpu, fsize, output: yes)" "$T/doctor"
ok $? "doctor: the memory and pids limits as runs with them fare"
(cd / && "$BSH" doctor) | grep -q '^containment of a run: \(cgroup\|subreaper\)$'
ok $? "doctor started in / still runs its probe (in the temporary directory)"
"$BSH" doctor --json | python3 -c 'import json, sys
d = json.load(sys.stdin)
assert set(d["sandbox"]["layers"]) == {"no_new_privs", "landlock_fs", "landlock_net", "landlock_scope", "seccomp", "capabilities"}
assert isinstance(d["landlock_abi"], int) and d["containment"] in ("cgroup", "subreaper")
assert set(d["limits"]) == {"memory", "pids"} and all(isinstance(v, bool) for v in d["limits"].values())
sb = d["sandbox"]
assert sb["sysv_ipc"] == "denied" and sb["keyrings"] == "denied" and isinstance(sb["own_sockets"], bool)
assert sb["default_limits"]["pids"] == (4096 if d["limits"]["pids"] else 0)
assert (sb["default_limits"]["memory"] > 0) == d["limits"]["memory"]'
ok $? "doctor --json: one object with the same facts"
grep -q '^sandbox IPC: SysV IPC and keyrings denied' "$T/doctor" &&
    grep -q '^sandbox defaults of a run: pids ' "$T/doctor"
ok $? "doctor: the sandbox's IPC, sockets and default limits"
expect "doctor takes --json only" 125 "" "bsh: doctor: unknown option '-p'\n" -- doctor -p

# ---- sessions (SPEC 9) ------------------------------------------------------
S="$T/session"
expect "--session: the first run's state is saved" 0 "" "" -- \
    run -C "$T" --session "$S" 'mkdir -p sub && cd sub && export SV="a b" && f() { echo "fn $1"; } && alias al="echo aliased"'
expect "--session: the next run starts from it" 0 "$T/sub\na b\nfn x\naliased y\n" "" -- \
    run --session "$S" 'pwd; echo "$SV"; f x; al y'
[ "$(stat -c %a "$S")" = 600 ]
ok $? "--session: the file has mode 0600"
expect "--session: exec keeps the earlier state" 0 "" \
    "bsh: session state not saved: bash was replaced by exec; the session keeps the state it had before this run\n" -- \
    run --session "$S" 'cd /; exec true'
expect "--session: -C applies to that run alone" 0 "/\n" "" -- \
    run --session "$S" -C / 'pwd'
expect "--session: and the next starts in the session's directory" 0 "$T/sub\n" "" -- \
    run --session "$S" 'pwd'
"$BSH" run --session "$S" 'sleep 1' & sleep 0.3
expect "--session: a second run at once is busy" 125 "" \
    "bsh: session file $S: the session is busy: another bsh run is using it\n" -- \
    run --session "$S" true
wait
"$BSH" run --session "$S" --report --json 'true' | tail -1 | grep -q '"session_state":"saved"}}$'
ok $? "--report --json carries session_state"
"$BSH" run --report --json 'true' | tail -1 | grep -q '"session_state":null}}$'
ok $? "--report --json outside a session: session_state null"
chmod 664 "$S"
expect "--session: a file others could write is refused" 125 "" \
    "bsh: session file $S: refused: group or others can write it (a session file is code that bsh runs; chmod 600 it)\n" -- \
    run --session "$S" true
chmod 600 "$S"
printf 'not a session\n' >"$T/foreign"; chmod 600 "$T/foreign"
expect "--session: a file that is not a session is refused" 125 "" \
    "bsh: session file $T/foreign: refused: it is not a bsh session: it does not start with a bsh session header\n" -- \
    run --session "$T/foreign" true
[ "$(cat "$T/foreign")" = "not a session" ]
ok $? "--session: a refused file is left as it was"
"$BSH" session show "$S" >"$T/show"
grep -qx "directory: $T/sub" "$T/show" && grep -qx 'functions (1): f' "$T/show" &&
    grep -qx 'aliases (1): al' "$T/show" && grep -q '^variables ([0-9]*):.* SV' "$T/show"
ok $? "session show: the directory and the names"
expect "session reset empties it" 0 "" "" -- session reset "$S"
expect "after a reset the run starts in the base directory" 0 "$T\n\n" "" -- \
    run --session "$S" 'pwd; echo "${SV-}"'
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    U="$T/as-user"; mkdir -p "$U" && chown nobody "$U" && chmod o+x "$T"
    as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$BSH" "$@"; }
    as_nobody run --session "$U/s" -C "$U" 'export NB=1; g() { echo fn; }' &&
        [ "$(as_nobody run --sandbox=best-effort --session "$U/s" 'echo $NB; g')" = "1
fn" ] && [ "$(as_nobody run -p --session "$U/s" 'echo $NB')" = "$(printf '1\r')" ]
    ok $? "--session as an unprivileged user, sandboxed and in a PTY"
    "$BSH" run --session "$U/s" true 2>"$T/foreign-owner"
    [ $? = 125 ] && grep -q 'refused: it is owned by another user' "$T/foreign-owner"
    ok $? "--session: a file another user owns is refused"
fi
expect "session needs show or reset" 125 "" \
    "bsh: session: expected 'show FILE' or 'reset FILE'\n" -- session list "$S"

tap_end
