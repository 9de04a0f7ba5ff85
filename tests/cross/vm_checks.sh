#!/bin/bash
# Inside tests/cross/'s arm64 VM (started by vm_init.sh): the checks a real
# arm64 kernel must pass. Mode full (a kernel with Landlock ABI >= 6):
# every C test program, the CLI and MCP smoke of both static binaries in a
# root that holds only the binary and a static bash (as root and as an
# unprivileged user), the strict sandbox refusing a write to /etc and a
# chmod and fchmodat2 of /etc/passwd, a memory limit ending a run, and the
# paired spawn benchmark. Mode old (bookworm's 6.1, Landlock ABI 2): strict
# refuses with the reason, best-effort and plain runs work.
# Ends with "VMTEST: N passed, N failed".
set -u
mode=${1:-full}
cross=/cross
. "$cross/package/checks.sh" # mcp_reply
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "VMTEST: ok - $*"; }
not_ok() { failed=$((failed + 1)); echo "VMTEST: not ok - $*"; }
check() { # check WHAT COMMAND...: passes when COMMAND succeeds
    local what=$1
    shift
    if "$@"; then ok "$what"; else not_ok "$what"; fi
}

c_tests() { # every C test program; the two long ones beside the rest (2 CPUs)
    local t name long=(test_contain test_stress) pids=()
    mkdir -p /tmp/c-tests/work
    cd /tmp/c-tests/work || return # as ctest runs them: not in /, which no sandbox may write
    for name in "${long[@]}"; do
        "$cross/tests/$name" >/tmp/c-tests/$name.out 2>&1 &
        pids+=("$name:$!")
    done
    for t in "$cross"/tests/test_*; do
        name=${t##*/}
        [[ " ${long[*]} " == *" $name "* ]] && continue
        "$t" >/tmp/c-tests/$name.out 2>&1
        c_result "$name" $?
    done
    for t in "${pids[@]}"; do
        wait "${t#*:}"
        c_result "${t%%:*}" $?
    done
    cd /
}

c_result() { # NAME RC: one line for a test program, its failures shown
    local out=/tmp/c-tests/$1.out cases
    cases=$(grep -c '^ok ' "$out")
    if [ "$2" = 0 ]; then
        ok "C test $1: $cases cases, $(grep -c '# SKIP' "$out") skipped"
    else
        not_ok "C test $1 (exit $2, $cases cases passed)"
        sed 's/^/VMTEST:   /' "$out"
    fi
}

bare_root() { # BIN: a root holding only /bin/bash and /bin/bsh, and the smoke in it
    local root
    root=$(mktemp -d /tmp/root.XXXXXX)
    chmod 755 "$root"
    mkdir "$root/bin" "$root/tmp" "$root/work"
    cp /bin/bash "$root/bin/bash"
    cp "$1" "$root/bin/bsh"
    if BSH_SMOKE_CHROOT=$cross/chroot_as bash "$cross/package/smoke_root.sh" "$root" /bin/bsh \
        >/tmp/smoke.out 2>&1; then
        ok "smoke of ${1##*/} in a bare root, as root and as uid 65534 ($(grep -c '^ok' /tmp/smoke.out) checks)"
    else
        not_ok "smoke of ${1##*/} in a bare root"
        grep -v '^ok' /tmp/smoke.out | sed 's/^/VMTEST:   /'
    fi
    rm -rf "$root"
}

as_user() { # COMMAND...: as uid 1000, in the cgroup delegated to it (vm_init.sh)
    sh -c 'echo $$ >/sys/fs/cgroup/user-1000/cgroup.procs && exec su -s /bin/bash user -c "$1"' \
        _ "$(printf '%q ' "$@")"
}

sandbox_checks() { # BIN [user]: strict --sandbox and a memory limit, as root or as uid 1000
    local bsh=$1 who=${2:-root} run=() out
    [ "$who" = user ] && run=(as_user)
    out=$("${run[@]}" env PATH="$cross:/bin" "$bsh" run -C /tmp --sandbox 'echo x > /etc/bsh-planted' 2>&1)
    check "${bsh##*/}, $who: --sandbox refuses a write to /etc ($out)" \
        test ! -e /etc/bsh-planted -a -n "$(grep 'Permission denied' <<<"$out")"
    out=$("${run[@]}" env PATH="$cross:/bin" "$bsh" run -C /tmp --sandbox \
        'chmod 600 /etc/passwd; fchmodat2 /etc/passwd 600' 2>&1)
    check "${bsh##*/}, $who: --sandbox refuses chmod and fchmodat2 of /etc/passwd ($(echo $out))" \
        test "$(stat -c %a /etc/passwd)" = 644 -a "$(grep -c 'Permission denied' <<<"$out")" = 2
    out=$("${run[@]}" env PATH="$cross:/bin" "$bsh" run -C /tmp --sandbox \
        'touch "$TMPDIR/f" && chmod 600 "$TMPDIR/f" && fchmodat2 "$TMPDIR/f" 640 && stat -c %a "$TMPDIR/f"' 2>&1)
    check "${bsh##*/}, $who: --sandbox lets chmod and fchmodat2 work in its own TMPDIR ($(echo $out))" \
        test "$out" = "done
640"
    out=$("${run[@]}" "$bsh" run -C /tmp --report -l memory=32M \
        'a=$(head -c 200000000 /dev/zero | tr "\0" x); echo ${#a}' 2>&1)
    if [ "$who" = root ]; then
        check "${bsh##*/}, $who: -l memory=32M ends the run for its limit ($(echo $out | cut -c1-200))" \
            grep -q 'reason limit (memory)' <<<"$out"
    else # bsh makes a run's cgroup in its own, where a user cannot enable controllers
        check "${bsh##*/}, $who: -l memory=32M refused with the reason ($(echo $out | cut -c1-200))" \
            grep -q 'cannot enforce the memory limit' <<<"$out"
    fi
}

compat32() { # BIN: an arm32 program runs through bsh (AArch32 compat), but not under --sandbox
    local out rc
    if ! "$cross/busybox-armhf" true 2>/dev/null; then # the kernel and CPU themselves
        echo "VMTEST: skip - ${1##*/}: this machine runs no arm32 program"
        return
    fi
    out=$(env PATH="$cross:/bin" "$1" run -C /tmp 'busybox-armhf echo arm32-ran' 2>&1)
    check "${1##*/}: an arm32 program runs ($out)" test "$out" = arm32-ran
    out=$(env PATH="$cross:/bin" "$1" run -C /tmp --sandbox 'busybox-armhf echo arm32-ran' 2>&1)
    rc=$?
    check "${1##*/}: --sandbox kills an arm32 program at its first system call (exit $rc: $(echo $out))" \
        test "$rc" = 159 -a "${out/arm32-ran/}" = "$out"
}

mcp_stdio() { # BIN: an MCP tools/call on stdio
    local out
    out=$(mcp_reply "$1")
    check "${1##*/}: MCP tools/call on stdio ($(echo $out | cut -c1-200))" grep -q '"id":2.*q-mcp 42' <<<"$out"
}

spawn_bench() { # the floor and bsh (cgroup containment) in pairs, order swapped each round
    [ -x "$cross/bsh-bench" ] || return 0
    local i f b ratios=() fs=() bs=()
    mean() { "$@" --repeat 50 true | tr ' ' '\n' | sed -n 's/^mean_ms=//p'; }
    for i in $(seq 11); do
        if [ $((i % 2)) = 1 ]; then
            f=$(mean "$cross/bsh-floor") b=$(mean "$cross/bsh-bench" --containment cgroup)
        else
            b=$(mean "$cross/bsh-bench" --containment cgroup) f=$(mean "$cross/bsh-floor")
        fi
        fs+=("$f") bs+=("$b") ratios+=("$(awk -v a="$b" -v b="$f" 'BEGIN { printf "%.3f", a / b }')")
    done
    med() { printf '%s\n' "$@" | sort -g | sed -n 6p; }
    echo "VMTEST: bench: spawn of true, 11 rounds of 50 (medians): floor $(med "${fs[@]}") ms," \
        "bsh with cgroup containment $(med "${bs[@]}") ms, ratio bsh/floor $(med "${ratios[@]}")"
}

case $mode in
full)
    c_tests
    for bin in "$cross"/bsh-glibc "$cross"/bsh-musl; do
        bare_root "$bin"
        sandbox_checks "$bin"
        sandbox_checks "$bin" user
        compat32 "$bin"
    done
    spawn_bench
    ;;
old)
    for bin in "$cross"/bsh-glibc "$cross"/bsh-musl; do
        out=$("$bin" run -C /tmp --sandbox true 2>&1)
        rc=$?
        check "${bin##*/}: strict --sandbox refuses on $(uname -r) (exit $rc: $out)" \
            test "$rc" = 125 -a -n "$(grep -i landlock <<<"$out")"
        out=$("$bin" run -C /tmp --sandbox=best-effort 'echo best-effort' 2>&1)
        check "${bin##*/}: --sandbox=best-effort runs ($out)" test "$out" = best-effort
        mcp_stdio "$bin"
    done
    ;;
*) not_ok "unknown mode '$mode'" ;;
esac
echo "VMTEST: $passed passed, $failed failed"
