# Shared by the shell tests: a temporary directory, TAP lines and a
# comparison of bsh's exact bytes and exit status. Source it after setting
# BSH.
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0 failed=0

# Runs a command as the unprivileged user nobody (from root), for the
# cases that only another user's process shows.
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
as_nobody() { "${NOBODY[@]}" "$@"; }

ok() { # ok COND-STATUS DESCRIPTION
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else
        echo "not ok $n - $2"; failed=$((failed + 1)); fi
}

# expect DESCRIPTION WANT_STATUS WANT_STDOUT WANT_STDERR -- ARGS...
# Runs bsh ARGS and compares the exact bytes (printf %b escapes allowed in
# the wanted texts) and the exit status.
expect() {
    local what=$1 want_rc=$2 want_out=$3 want_err=$4
    shift 5
    "$BSH" "$@" >"$T/out" 2>"$T/err" </dev/null
    local rc=$?
    printf '%b' "$want_out" >"$T/want_out"
    printf '%b' "$want_err" >"$T/want_err"
    local good=0
    [ "$rc" -eq "$want_rc" ] || { good=1; echo "#   status $rc, want $want_rc"; }
    cmp -s "$T/out" "$T/want_out" || { good=1; echo "#   stdout:"; od -c "$T/out" | head -5 | sed 's/^/#   /'; }
    cmp -s "$T/err" "$T/want_err" || { good=1; echo "#   stderr:"; od -c "$T/err" | head -5 | sed 's/^/#   /'; }
    ok $good "$what"
}


skip() { # skip DESCRIPTION REASON
    n=$((n + 1))
    echo "ok $n - $1 # SKIP $2"
}

# Milliseconds on the monotonic clock (as the kernel keeps it for /proc).
now_ms() {
    local up
    read -r up _ </proc/uptime
    echo $((${up%.*} * 1000 + 10#${up#*.} * 10))
}

# True when no process's command line contains MARKER (zombies aside),
# at once or within 2 s (init reaps the killed asynchronously).
none_left() {
    local p tries live
    for tries in $(seq 40); do
        live=0
        for p in $(pgrep -f -- "$1"); do
            [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" = Z ] || live=1
        done
        [ $live -eq 0 ] && return 0
        sleep 0.05
    done
    return 1
}

tap_end() {
    echo "1..$n"
    [ "$failed" -eq 0 ]
}
