#!/usr/bin/env bash
# The static binaries for other architectures and C libraries (SPEC 11.2):
# builds the presets static-musl, static-aarch64 and static-musl-aarch64
# (scripts/deps.sh test has built their libraries and fetched the VM's
# packages), then
#  - static-musl (x86_64): its C test programs natively, and the CLI and MCP
#    smoke in a root that holds only the binary and a static bash;
#  - each aarch64 build under qemu-user: its C test programs, with the
#    cases qemu-user cannot emulate skipped by name (qemu_user.skip says
#    which and why), and a CLI and MCP smoke;
#  - an arm64 virtual machine (qemu-system-aarch64, TCG): Debian's
#    bookworm-backports cloud kernel runs vm_checks.sh full (every C test,
#    the smoke of both aarch64 binaries as root and as a user, the strict
#    sandbox, a memory limit, MCP, the spawn benchmark), bookworm's 6.1
#    runs vm_checks.sh old (strict refuses with the reason). The console
#    is the result; each VM is killed at its deadline.
# Ends with "test_cross.sh: N failure(s)".
# Usage: tests/cross/test_cross.sh [musl|qemu-user|vm]...   (default: all)
set -uo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
here=$top/tests/cross
. "$top/tests/package/checks.sh"
logs=$top/build/cross-logs
mkdir -p "$logs"
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(musl qemu-user vm)

build() { # PRESET: configured and built, its log kept
    if cmake --preset "$1" >"$logs/$1.log" 2>&1 && cmake --build --preset "$1" >>"$logs/$1.log" 2>&1; then
        pass "cmake --preset $1 builds ($(file -b "build/$1/cli/bsh" | grep -o '^ELF [^,]*, [^,]*\|statically linked' | tr '\n' ' '))"
    else
        fail "cmake --preset $1: $(tail -5 "$logs/$1.log")"
        return 1
    fi
}

ctest_in() { # BUILD_DIR [ENV...]: its C test programs; failures shown
    local dir=$1
    shift
    if env "$@" ctest --test-dir "$dir" -j2 --timeout 900 --no-tests=error >"$logs/${dir##*/}-ctest.log" 2>&1; then
        pass "C tests of ${dir##*/}: $(grep 'tests passed' "$logs/${dir##*/}-ctest.log")"
    else
        fail "C tests of ${dir##*/}: $(grep -E 'tests passed|\(Failed|Timeout' "$logs/${dir##*/}-ctest.log" | tr '\n' ' ')"
        grep -A3 '^not ok' "$dir/Testing/Temporary/LastTest.log" | head -40 >&2
    fi
}

qemu_smoke() { # BIN: a run, --json and an MCP tools/call under qemu-user
    local q="timeout 120 qemu-aarch64-static" bin=$1 out rc
    out=$($q "$bin" run 'echo out; uname -m; exit 3' 2>&1)
    rc=$?
    [ "$rc" = 3 ] && [ "$out" = "out
$(uname -m)" ] && pass "qemu-user: a run of ${bin#"$top"/}" || fail "qemu-user: a run: exit $rc, '$out'"
    out=$($q "$bin" run --json 'printf hi' 2>&1)
    [ "$out" = '{"stdout":"aGk=","stderr":"","exit_code":null,"signal":null,"truncated":false}
{"stdout":"","stderr":"","exit_code":0,"signal":null,"truncated":false}' ] &&
        pass "qemu-user: --json" || fail "qemu-user: --json: '$out'"
    out=$(mcp_reply $q "$bin")
    grep -q '"id":2.*q-mcp 42' <<<"$out" && pass "qemu-user: MCP tools/call" ||
        fail "qemu-user: MCP tools/call: '$out'"
}

part_musl() {
    build static-musl || return
    ctest_in build/static-musl
    local bin=build/static-musl/bsh-stripped
    strip --strip-all -o "$bin" build/static-musl/cli/bsh
    if bash tests/package/bare_root.sh "$bin" >"$logs/musl-bare-root.log" 2>&1; then
        pass "static-musl: $(tail -1 "$logs/musl-bare-root.log")"
    else
        fail "static-musl in a bare root: $(grep -E 'FAIL' "$logs/musl-bare-root.log" | head -10)"
    fi
    compat32 "$top/build/static-musl/cli/bsh"
}

compat32() { # BIN: an i386 program runs through bsh, but not under --sandbox
    local bb=$top/build/third_party/arm64-vm/busybox-i386/bin/busybox dir out rc
    [ -x "$bb" ] || { fail "i386 busybox-static missing: run scripts/vm_deps.sh"; return; }
    if ! "$bb" true 2>/dev/null; then # the kernel itself: no IA-32 emulation here
        echo "note: this kernel runs no i386 program: the i386 check is not made"
        return
    fi
    dir=$(mktemp -d /tmp/bsh-i386.XXXXXX)
    cp "$bb" "$dir/busybox-i386"
    out=$(timeout 60 "$1" run -C "$dir" './busybox-i386 echo i386-ran' 2>&1)
    [ "$out" = i386-ran ] && pass "${1#"$top"/}: an i386 program runs" ||
        fail "${1#"$top"/}: an i386 program without a sandbox: '$out'"
    out=$(timeout 60 "$1" run -C "$dir" --sandbox './busybox-i386 echo i386-ran' 2>&1)
    rc=$?
    rm -rf "$dir"
    [ $rc = 159 ] && [ "${out/i386-ran/}" = "$out" ] &&
        pass "${1#"$top"/}: --sandbox kills an i386 program at its first system call" ||
        fail "${1#"$top"/}: an i386 program under --sandbox: exit $rc, '$out'"
}

part_qemu_user() {
    local p
    command -v qemu-aarch64-static >/dev/null || { fail "qemu-user: qemu-aarch64-static missing"; return; }
    for p in static-aarch64 static-musl-aarch64; do
        build "$p" || continue
        ctest_in "build/$p" BSH_TEST_SKIP="$here/qemu_user.skip"
        echo "qemu-user: skipped by name in $p: $(grep -c '# SKIP' "build/$p/Testing/Temporary/LastTest.log") case runs (tests/cross/qemu_user.skip)"
        qemu_smoke "build/$p/cli/bsh"
    done
}

initramfs() { # OUT: the VM's root: busybox, bash, both aarch64 binaries, the C tests
    local r=$top/build/cross-vm/root vm=$top/build/third_party/arm64-vm a=build/static-aarch64
    rm -rf "$r" && mkdir -p "$r"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,var/tmp,root,home/user,cross/tests,cross/package}
    cp "$vm/busybox/bin/busybox" "$r/bin/busybox"
    ln -s busybox "$r/bin/sh"
    cp "$vm/bash/bin/bash-static" "$r/bin/bash"
    install -m 755 "$here/vm_init.sh" "$r/init"
    cp "$here/vm_checks.sh" "$r/cross/"
    cp tests/package/smoke_root.sh tests/package/checks.sh "$r/cross/package/"
    cp "$a/cli/bsh" "$r/cross/bsh-glibc"
    cp build/static-musl-aarch64/cli/bsh "$r/cross/bsh-musl"
    cp "$a/tests/fchmodat2" "$a/tests/chroot_as" "$r/cross/"
    install -m 755 "$here/printenv" "$r/usr/bin/printenv"
    install -m 755 "$vm/busybox-armhf/bin/busybox" "$r/cross/busybox-armhf"
    cp "$a"/tests/test_* "$r/cross/tests/"
    [ -x "$a/bench/bsh-bench" ] && cp "$a/bench/bsh-bench" "$a/bench/bsh-floor" "$r/cross/"
    aarch64-linux-gnu-strip "$r"/cross/bsh-* "$r"/cross/tests/* "$r"/cross/fchmodat2 "$r"/cross/chroot_as
    mkdir -p "$r$top/tests" && cp -a tests/data "$r$top/tests/" # the tests' BSH_TEST_DATA
    printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'user:x:1000:1000:user:/home/user:/bin/sh' \
        'nobody:x:65534:65534:nobody:/nonexistent:/bin/sh' >"$r/etc/passwd"
    printf '%s\n' 'root:x:0:' 'tty:x:5:' 'user:x:1000:' 'nogroup:x:65534:' >"$r/etc/group"
    chmod 644 "$r/etc/passwd" "$r/etc/group"
    chmod 1777 "$r/tmp" "$r/var/tmp" # (cpio -R makes all root's: vm_init.sh gives /home/user away)
    (cd "$r" && find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc -R +0:+0 --reproducible) >"$1"
}

boot() { # KERNEL_DIR MODE DEADLINE_S: boots, the console in $logs/vm-MODE.log
    local kernel mode=$2 log=$logs/vm-$2.log t0=$SECONDS
    kernel=$(ls "$1"/boot/vmlinuz-*)
    timeout -k 5 "$3" qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -smp 2 -m 2048 \
        -accel tcg,thread=multi -nodefaults -no-user-config -display none -monitor none \
        -serial stdio -no-reboot -kernel "$kernel" -initrd "$top/build/cross-vm/initramfs.cpio" \
        -append "console=ttyAMA0 rdinit=/init panic=-1 quiet bsh_vm=$mode" </dev/null >"$log" 2>&1
    local rc=$? summary
    summary=$(grep -a '^VMTEST: [0-9]* passed, [0-9]* failed' "$log" | tr -d '\r')
    echo "vm ($mode, ${kernel##*/vmlinuz-}): $((SECONDS - t0)) s, qemu exit $rc"
    grep -a '^VMTEST:' "$log" | tr -d '\r'
    if [ "$rc" = 0 ] && grep -aq '^VMTEST: END' "$log" && [[ $summary == *" 0 failed" ]] &&
        [[ $summary != "VMTEST: 0 passed"* ]]; then
        pass "arm64 VM, ${kernel##*/vmlinuz-} ($mode): ${summary#VMTEST: }"
    else
        fail "arm64 VM, ${kernel##*/vmlinuz-} ($mode): ${summary:-no summary} (qemu exit $rc; console: $log)"
    fi
}

part_vm() {
    local vm=$top/build/third_party/arm64-vm
    [ -f "$vm/VERSIONS" ] || { fail "the VM's packages are missing: run scripts/vm_deps.sh"; return; }
    build static-aarch64 || return # (incremental: what part_qemu_user built stays)
    build static-musl-aarch64 || return
    mkdir -p build/cross-vm
    initramfs build/cross-vm/initramfs.cpio
    echo "vm: $(tr '\n' ';' <"$vm/VERSIONS"), initramfs $(du -m build/cross-vm/initramfs.cpio | cut -f1) MiB"
    boot "$vm/linux-new" full 900
    boot "$vm/linux-old" old 180
}

for p in "${parts[@]}"; do
    case $p in
    musl) part_musl ;;
    qemu-user) part_qemu_user ;;
    vm) part_vm ;;
    *) fail "unknown part '$p' (musl, qemu-user, vm)" ;;
    esac
done
finish
