#!/usr/bin/env bash
# The escape suite: each technique a command uses to outlive its run,
# against each way a CLI run ends, with each containment bsh offers.
# A cell passes when the run ends as it should and no process of the run
# is left: survivors are counted by a marker unique to the cell (the
# sleep's duration, found in any command line). Prints TAP: one line per
# technique and containment, with the time of its slowest cell.
# Usage: test_escape.sh PATH/TO/bsh
set -u
BSH=${1:?usage: test_escape.sh PATH/TO/bsh}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../cli/tap.sh"

# The techniques, shared with the library's and the MCP server's suites;
# @M@ stands for the cell's marker.
techniques=() names=()
while IFS=$'\t' read -r name cmd; do
    case $name in '#'* | '') continue ;; esac
    names+=("$name")
    techniques+=("$cmd")
done <"$HERE/../data/escape_techniques.tsv"
ends=(end timeout idle TERM INT HUP)
want_rc=(0 124 124 143 130 129)

# Waits for PID at most SECONDS; its exit status, or 255 if it was still
# running (then it is killed).
wait_bounded() {
    local pid=$1 until=$(($(now_ms) + $2 * 1000))
    while kill -0 "$pid" 2>/dev/null && [ "$(now_ms)" -lt "$until" ]; do sleep 0.05; done
    if kill -0 "$pid" 2>/dev/null; then
        kill -9 "$pid"
        wait "$pid"
        return 255
    fi
    wait "$pid"
}

# cell TECHNIQUE END CONTAINMENT-ARGS...: runs one cell and writes
# "STATUS MS" to $T/res.TECHNIQUE.END. The marker file proves that the
# technique ran (a syntax error would pass vacuously).
cell() {
    local t=$1 e=$2
    shift 2
    local M="97$suite_no$(printf %02d "$t")$e.5"
    local cmd=${techniques[$t]//@M@/$M}
    local ran="echo ran >$T/ran.$t.$e" end=${ends[$e]} t0 rc args=()
    local script="$cmd
$ran
sleep 30"
    case $end in
    end) # the escapee must be off the output pipes for the run to end
        script="{
$cmd
} >/dev/null 2>&1
$ran
sleep 0.3" ;;
    timeout) args=(-t 800) ;;
    idle) args=(--idle-timeout 600) ;;
    esac
    t0=$(now_ms)
    "$BSH" run "$@" "${args[@]}" "$script" >/dev/null 2>&1 </dev/null &
    local p=$!
    case $end in TERM | INT | HUP)
        sleep 0.8
        kill -"$end" $p
        ;;
    esac
    wait_bounded $p 15
    rc=$?
    echo "$rc $(($(now_ms) - t0)) $M" >"$T/res.$t.$e"
}

# suite LABEL CONTAINMENT-ARGS...
suite() {
    local label=$1
    shift
    local t e
    suite_no=$((suite_no + 1))
    for t in "${!techniques[@]}"; do
        rm -f "$T"/ran.* "$T"/res.*
        for e in "${!ends[@]}"; do cell "$t" "$e" "$@" & done
        wait
        local bad=0 slowest=0 rc ms M
        for e in "${!ends[@]}"; do
            read -r rc ms M <"$T/res.$t.$e"
            [ "$ms" -gt "$slowest" ] && slowest=$ms
            if [ "$rc" -ne "${want_rc[$e]}" ]; then
                echo "#   ${ends[$e]}: bsh exited $rc, want ${want_rc[$e]}"
                bad=1
            fi
            if [ ! -f "$T/ran.$t.$e" ]; then
                echo "#   ${ends[$e]}: the technique did not run"
                bad=1
            fi
            if ! none_left "$M"; then
                echo "#   ${ends[$e]}: escaped ($(pgrep -f -- "$M" | wc -l) left)"
                bad=1
                while pkill -9 -f -- "$M"; do sleep 0.05; done
            fi
        done
        ok $bad "$label: ${names[$t]}: nothing left after end, timeout, idle timeout, SIGTERM, SIGINT, SIGHUP (slowest $slowest ms)"
    done
}

suite_no=0
suite "subreaper" --containment subreaper
if "$BSH" run --containment cgroup true 2>"$T/why"; then
    suite "cgroup" --containment cgroup
else
    skip "cgroup: the escape suite" "no cgroup here: $(cat "$T/why")"
fi
# --- a user, not root -------------------------------------------------------
# Without a cgroup of its own to write to, a user gets the subreaper (auto)
# or a clear error (cgroup). In a subtree delegated to it (as systemd's
# Delegate=yes does), the user gets a cgroup per run. Set up as root.
mnt=$(findmnt -n -t cgroup2 -o TARGET 2>/dev/null | head -n 1)
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && as_nobody test -x "$BSH" && [ -n "$mnt" ] &&
    mkdir "$mnt/bsh-test-user-$$" 2>/dev/null; then
    home=$mnt/bsh-test-user-$$
    own=$home/own
    mkdir "$own" "$home/deleg"
    chown -R 65534:65534 "$home/deleg"
    # As nobody in a cgroup it may not write to: no cgroup for the run.
    sh -c "echo \$\$ >$own/cgroup.procs; exec setpriv --reuid=65534 --regid=65534 --clear-groups -- \"$BSH\" run --containment cgroup true" 2>"$T/err"
    rc=$?
    grep -q '^bsh: cannot contain the run in a cgroup: cannot make a cgroup for the run: Permission denied$' "$T/err" && [ "$rc" -eq 125 ]
    ok $? "a user without a cgroup of its own: --containment cgroup is a clear error (exit $rc)"
    M=973.25
    sh -c "echo \$\$ >$own/cgroup.procs; exec setpriv --reuid=65534 --regid=65534 --clear-groups -- \"$BSH\" run --json --report -t 500 'setsid sleep $M & sleep 5'" >"$T/out" 2>&1
    rc=$?
    grep -q '"containment":"subreaper"' "$T/out" && none_left "$M" && [ "$rc" -eq 124 ]
    ok $? "a user without a cgroup of its own: auto falls back to the subreaper, nothing left"
    M=973.5
    sh -c "echo \$\$ >$home/deleg/cgroup.procs; exec setpriv --reuid=65534 --regid=65534 --clear-groups -- \"$BSH\" run --json --report --containment cgroup -t 500 'grep 0:: /proc/self/cgroup; setsid sleep $M & sleep 5'" >"$T/out" 2>&1
    rc=$?
    head -n 1 "$T/out" | grep -q "\"stdout\":\"$(printf '0::/%s/deleg/bsh-' "${home#"$mnt"/}" | base64 | cut -c1-20)" &&
        grep -q '"containment":"cgroup","killed":[1-9][0-9]*,"escaped":0' "$T/out" && none_left "$M" && [ "$rc" -eq 124 ]
    ok $? "a user in a delegated subtree: a cgroup per run, under its own, nothing left"
    [ -z "$(find "$home/deleg" -mindepth 1 -type d)" ]
    ok $? "a user in a delegated subtree: the run's cgroup is removed"
    rmdir "$own" "$home/deleg" "$home"
else
    for what in "a user without a cgroup: a clear error" "a user without a cgroup: the subreaper" \
        "a user in a delegated subtree: a cgroup per run" "a user in a delegated subtree: removed"; do
        skip "$what" "needs root to set up a delegated cgroup v2 subtree"
    done
fi
tap_end
