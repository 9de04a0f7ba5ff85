#!/usr/bin/env bash
# The sandbox against attacks and with real work (SPEC 8).
#
# Each attack runs twice under `bsh run`, with its own fresh target: once
# without the sandbox, where it must succeed (else this machine or user
# cannot try it: "n/a", not counted), and once with --sandbox, where it
# must fail and leave its target untouched. Each workload must succeed
# with --sandbox. The counts come last; any attack not stopped or any
# workload that failed fails the test.
#
# Usage: attacks.sh PATH/TO/bsh
set -uo pipefail
BSH=${1:?usage: attacks.sh PATH/TO/bsh}
unset TMPDIR # the writable places are then the work dir and /tmp only

# Outside /tmp, so that the run's writable places do not cover it.
BASE=$(mktemp -d /var/tmp/bsh-sandbox-XXXXXX)
WORK=$BASE/work     # the run's working directory
OUTSIDE=$BASE/outside
mkdir -p "$WORK" "$OUTSIDE"
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    umount "$WORK/mnt" 2>/dev/null
    python3 -c "import ctypes; ctypes.CDLL('librt.so.1').mq_unlink(b'/bsh-attack-$$')"
    rm -rf "$BASE" "$HOME/.bsh-attack-$$" "/etc/bsh-attack-$$" \
        "/tmp/bsh-attack-$$.sock" "/tmp/bsh-attack-$$.dgram"
}
trap cleanup EXIT

tried=0 stopped=0 na=0 wtried=0 wpassed=0 failures=0

# run_bsh [--sandbox] COMMAND: stdout+stderr in $OUT, status in $RC.
run_bsh() {
    OUT=$(cd "$WORK" && "$BSH" run "$@" 2>&1)
    RC=$?
}

# attack NAME SETUP COMMAND CHECK: SETUP (a function) makes a fresh
# target, COMMAND is the attack, CHECK (a function) succeeds when the
# attack had its effect.
attack() {
    local name=$1 setup=$2 cmd=$3 check=$4
    if ! $setup; then
        echo "attack $name: n/a (it cannot be set up as this user)"
        na=$((na + 1))
        return
    fi
    run_bsh "$cmd"
    if [ $RC -ne 0 ] || ! $check; then
        echo "attack $name: n/a (it does not work here without the sandbox)"
        na=$((na + 1))
        return
    fi
    tried=$((tried + 1))
    $setup
    run_bsh --sandbox "$cmd"
    if ! $check; then
        stopped=$((stopped + 1))
        echo "attack $name: stopped (${OUT//$'\n'/ | })" | cut -c1-160
    else
        failures=$((failures + 1))
        echo "attack $name: NOT STOPPED (exit $RC): $OUT"
    fi
}

# judged NAME STATUS DETAIL: counts a workload checked by hand; DETAIL
# is shown when it failed (STATUS non-zero).
judged() {
    wtried=$((wtried + 1))
    if [ "$2" -eq 0 ]; then
        wpassed=$((wpassed + 1))
        echo "workload $1: passed"
    else
        failures=$((failures + 1))
        echo "workload $1: FAILED: $3"
    fi
}

# workload NAME COMMAND WANT [OPTION...]: WANT is in the output.
workload() {
    local name=$1 cmd=$2 want=$3
    shift 3
    wtried=$((wtried + 1))
    run_bsh --sandbox "$@" "$cmd"
    if [ $RC -eq 0 ] && [[ $OUT == *"$want"* ]]; then
        wpassed=$((wpassed + 1))
        echo "workload $name: passed"
    else
        failures=$((failures + 1))
        echo "workload $name: FAILED (exit $RC): $OUT"
    fi
}

# ---- targets -----------------------------------------------------------------
T=$OUTSIDE/target
fresh_target() {
    rm -rf "$OUTSIDE"/* "$WORK"/*
    echo original >"$T"
    chmod 644 "$T"
}
ROOT=false
[ "$(id -u)" -eq 0 ] && ROOT=true
# Giving a file away takes root; as a user the attack cannot be tried.
owned_target() { $ROOT && fresh_target; }
target_changed() { [ "$(cat "$T" 2>/dev/null)" != original ]; }
target_gone() { [ ! -e "$T" ]; }
no_setup() { :; }
home_file() { rm -f "$HOME/.bsh-attack-$$"; }
home_written() { [ -e "$HOME/.bsh-attack-$$" ]; }
etc_file() { rm -f "/etc/bsh-attack-$$"; }
etc_written() { [ -e "/etc/bsh-attack-$$" ]; }
symlink_in() { fresh_target; ln -s "$T" "$WORK/link"; }
target_owner_changed() { [ "$(stat -c %U "$T")" = nobody ]; }
setid_target() { fresh_target; cp "$T" "$WORK/own"; }
setid_set() { [ -u "$WORK/own" ]; }
mode_changed() { [ "$(stat -c %a "$T")" != 644 ]; }
times_changed() { [ "$(stat -c %Y "$T")" -lt 1000000000 ]; }
xattr_set() { python3 -c "import os, sys; sys.exit(0 if 'user.bsh' in os.listxattr('$T') else 1)"; }
hardlink_made() { [ -e "$WORK/hl" ]; }
renamed() { [ -e "$WORK/stolen" ]; }

# A setuid binary owned by nobody: running it gains uid 65534.
setuid_binary() {
    $ROOT || return 1
    fresh_target
    cp /usr/bin/id "$WORK/id-nobody" && chown nobody "$WORK/id-nobody" &&
        chmod u+s "$WORK/id-nobody"
}
gained_uid() { [[ $OUT == 65534* ]]; }

# A listener outside the run, on 127.0.0.1.
PORT=$((20000 + $$ % 20000))
python3 -c "
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $PORT)); s.listen(16)
while True:
    c, _ = s.accept(); c.close()" &
PIDS+=($!)
for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break; sleep 0.1; done
succeeded() { [ "$RC" -eq 0 ]; }

# serve_socket PATH LOG: a listener outside the run that answers each
# connection; serve_datagrams PATH LOG: a datagram receiver. Each line of
# LOG is what it got.
serve_socket() {
    python3 -c "
import socket
s = socket.socket(socket.AF_UNIX); s.bind('$1'); s.listen(16)
while True:
    c, _ = s.accept(); open('$2', 'a').write('accepted\n'); c.sendall(b'answered\n'); c.close()" &
    PIDS+=($!)
    for _ in $(seq 50); do [ -S "$1" ] && break; sleep 0.1; done
}

# A Unix socket server outside the writable places.
SOCK=$BASE/daemon.sock
SOCK_LOG=$BASE/daemon.log # a line for each connection it accepted
serve_socket "$SOCK" "$SOCK_LOG"
chmod 777 "$BASE" && chmod 666 "$SOCK" # reachable by any user without the sandbox
socket_answered() { [[ $OUT == *answered* ]]; }
serve_datagrams() {
    python3 -c "
import socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind('$1')
while True:
    got = s.recv(100); open('$2', 'a').write(got.decode() + '\n')" &
    PIDS+=($!)
    for _ in $(seq 50); do [ -S "$1" ] && break; sleep 0.1; done
}
# In /tmp, a writable place, as the user's tmux server socket is.
TMP_SOCK=/tmp/bsh-attack-$$.sock
TMP_DGRAM=/tmp/bsh-attack-$$.dgram
serve_socket "$TMP_SOCK" "$BASE/tmp-sock.log"
serve_datagrams "$TMP_DGRAM" "$BASE/dgram.log"
no_link() { rm -f "$WORK/hl.sock"; }
no_datagram() { rm -f "$BASE/dgram.log"; }
datagram_received() { sleep 0.3; grep -q DGRAM "$BASE/dgram.log" 2>/dev/null; }
connect_to() { # a python line that connects to $1 and prints the answer
    echo "python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect(\"$1\"); print(s.recv(9).decode())'"
}

# A process outside the run (the caller's side), new for each attempt.
victim() {
    sleep 600 &
    VICTIM=$!
    PIDS+=("$VICTIM")
}
straced() { [[ $OUT == *"attached"* ]]; }
gdb_attached() { [[ $OUT == *"process $VICTIM"* ]]; }

# A terminal outside the run: a PTY whose master the test holds.
TTY_FILE=$BASE/tty
python3 -c "
import os, pty, sys, time
m, s = os.openpty()
open('$TTY_FILE.name', 'w').write(os.ttyname(s))
while True:
    try:
        data = os.read(m, 100)
    except OSError:
        break
    open('$TTY_FILE', 'ab').write(data)" &
PIDS+=($!)
for _ in $(seq 50); do [ -s "$TTY_FILE.name" ] && break; sleep 0.1; done
SLAVE=$(cat "$TTY_FILE.name")
no_injection() { rm -f "$TTY_FILE"; }
injected() { sleep 0.2; grep -q INJECTED "$TTY_FILE" 2>/dev/null; }

mount_point() { fresh_target; mkdir -p "$WORK/mnt"; }

BPF_LOAD='import ctypes, struct
libc = ctypes.CDLL(None, use_errno=True)
insns = struct.pack("<BBhi", 0xb7, 0, 0, 0) + struct.pack("<BBhi", 0x95, 0, 0, 0)
buf = ctypes.create_string_buffer(insns)
lic = ctypes.create_string_buffer(b"GPL")
attr = struct.pack("<IIQQIIQI", 1, 2, ctypes.addressof(buf), ctypes.addressof(lic), 0, 0, 0, 0)
a = ctypes.create_string_buffer(attr, 128)
fd = libc.syscall(321, 5, a, 128)
raise SystemExit(0 if fd >= 0 else 1)'

# ---- the attacks -------------------------------------------------------------
attack "write in home" home_file "echo x > \$HOME/.bsh-attack-$$" home_written
attack "write in /etc" etc_file "echo x > /etc/bsh-attack-$$" etc_written
attack "write outside via .." fresh_target "echo x > ../outside/target" target_changed
attack "write through a symlink" symlink_in "echo x > link" target_changed
attack "hard link to a file outside" fresh_target "ln $T hl" hardlink_made
attack "rename a file from outside" fresh_target "mv $T stolen" renamed
attack "remove a file outside" fresh_target "rm -f ../outside/target" target_gone
attack "truncate a file outside" fresh_target "truncate -s 0 $T" target_changed
attack "chown a file outside" owned_target "chown nobody $T" target_owner_changed
attack "chmod setuid" setid_target "chmod u+s own" setid_set
attack "chmod a file outside" fresh_target "chmod 600 $T" mode_changed
attack "fchmod a file outside through a read-only fd" fresh_target \
    "python3 -c 'import os; os.fchmod(os.open(\"$T\", os.O_RDONLY), 0o600)'" mode_changed
attack "change the times of a file outside" fresh_target "touch -d 2001-01-01 $T" times_changed
attack "set an extended attribute outside" fresh_target \
    "python3 -c 'import os; os.setxattr(\"$T\", \"user.bsh\", b\"x\")'" xattr_set
attack "gain a uid with a setuid binary" setuid_binary "./id-nobody -u" gained_uid
# The *at forms of the extended attribute calls (Linux 6.13): an ACL is one.
SETXATTRAT="python3 -c 'import ctypes, struct
libc = ctypes.CDLL(None, use_errno=True)
v = ctypes.create_string_buffer(b\"x\")
args = ctypes.create_string_buffer(struct.pack(\"QII\", ctypes.addressof(v), 1, 0))
L = ctypes.c_long
rc = libc.syscall(L(463), L(-100), b\"$T\", L(0), b\"user.bsh\", args, L(16))
raise SystemExit(0 if rc == 0 else 1)'"
attack "set an extended attribute outside with setxattrat" fresh_target "$SETXATTRAT" xattr_set
# A setuid or setgid file made at its creation (the mode of open, openat2).
no_setid_file() { rm -f "$WORK/made-setid"; }
setid_made() { [ -u "$WORK/made-setid" ] || [ -g "$WORK/made-setid" ]; }
attack "make a setuid file with open(O_CREAT, 04755)" no_setid_file \
    "python3 -c 'import os; os.open(\"made-setid\", os.O_CREAT | os.O_WRONLY, 0o4755)'" setid_made
attack "make a setgid file with open(O_CREAT, 02755)" no_setid_file \
    "python3 -c 'import os; os.open(\"made-setid\", os.O_CREAT | os.O_WRONLY, 0o2755)'" setid_made
attack "make a setuid file with openat2 (its mode in memory)" no_setid_file \
    "python3 -c 'import ctypes, os, struct
libc = ctypes.CDLL(None, use_errno=True)
how = ctypes.create_string_buffer(struct.pack(\"QQQ\", os.O_CREAT | os.O_WRONLY, 0o4755, 0))
L = ctypes.c_long
raise SystemExit(0 if libc.syscall(L(437), L(-100), b\"made-setid\", how, L(24)) >= 0 else 1)'" setid_made
attack "make a setuid file with mknod(S_IFREG | 04755)" no_setid_file \
    "python3 -c 'import os, stat; os.mknod(\"made-setid\", stat.S_IFREG | 0o4755)'" setid_made
# A POSIX message queue of a process outside, removed.
MQ=/bsh-attack-$$
mq() { # mq FLAGS: mq_open of the queue outside the run; its status
    python3 -c "import ctypes, os
rt = ctypes.CDLL('librt.so.1', use_errno=True)
raise SystemExit(0 if rt.mq_open(b'$MQ', $1, 0o600, None) >= 0 else 1)"
}
outside_queue() { mq "os.O_CREAT | os.O_RDWR"; }
queue_gone() { ! mq os.O_RDONLY; }
attack "remove a POSIX message queue of a process outside" outside_queue \
    "python3 -c 'import ctypes; rt = ctypes.CDLL(\"librt.so.1\"); raise SystemExit(rt.mq_unlink(b\"$MQ\"))'" queue_gone
attack "connect to a Unix socket outside (as to docker.sock)" no_setup \
    "python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect(\"$SOCK\"); print(s.recv(9).decode())'" \
    socket_answered
attack "connect to a socket in /tmp whose listener is outside (as tmux's)" \
    no_setup "$(connect_to "$TMP_SOCK")" socket_answered
attack "hard-link a socket from outside into the project and connect" \
    no_link "ln $TMP_SOCK hl.sock && $(connect_to hl.sock)" socket_answered
attack "a datagram to a socket outside" no_datagram \
    "python3 -c 'import socket; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b\"DGRAM\", \"$TMP_DGRAM\")'" \
    datagram_received
attack "a datagram through a SOCK_RAW Unix socket (a datagram one to the kernel)" no_datagram \
    "python3 -c 'import socket; socket.socket(socket.AF_UNIX, socket.SOCK_RAW).sendto(b\"DGRAM\", \"$TMP_DGRAM\")'" \
    datagram_received
attack "a datagram from a SOCK_RAW socket pair to a socket outside" no_datagram \
    "python3 -c 'import socket; socket.socketpair(socket.AF_UNIX, socket.SOCK_RAW)[0].sendto(b\"DGRAM\", \"$TMP_DGRAM\")'" \
    datagram_received
attack "a datagram from a socket pair to a socket outside" no_datagram \
    "python3 -c 'import socket; socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)[0].sendto(b\"DGRAM\", \"$TMP_DGRAM\")'" \
    datagram_received
# The connect() race: one thread connects a netlink socket's fd number to
# the daemon's path while another swaps a Unix socket onto that number;
# a supervisor that checked the fd and let the kernel go on loses it.
RACE="python3 -c 'import ctypes, os, socket, struct, threading
libc = ctypes.CDLL(None, use_errno=True)
path = b\"$SOCK\"
addr = struct.pack(\"H\", socket.AF_UNIX) + path + bytes(108 - len(path))
fd = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0).detach()
stop = False
def swap():
    while not stop:
        for family, kind in ((socket.AF_UNIX, socket.SOCK_STREAM), (socket.AF_NETLINK, socket.SOCK_RAW)):
            s = socket.socket(family, kind, 0); os.dup2(s.fileno(), fd); s.close()
threading.Thread(target=swap, daemon=True).start()
for i in range(3000):
    if libc.connect(fd, addr, len(addr)) == 0:
        break
stop = True'"
race_setup() { : >"$SOCK_LOG"; }
daemon_reached() { sleep 0.2; [ -s "$SOCK_LOG" ]; }
attack "connect() race: a Unix socket swapped onto a checked fd" race_setup "$RACE" daemon_reached
attack "TCP connect to 127.0.0.1" no_setup "exec 3<>/dev/tcp/127.0.0.1/$PORT" succeeded
attack "TCP listen" no_setup "python3 -c 'import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen()'" succeeded
attack "UDP socket" no_setup "python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b\"x\", (\"127.0.0.1\", $PORT))'" succeeded
attack "raw socket" no_setup "python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)'" succeeded
attack "packet socket" no_setup "python3 -c 'import socket; socket.socket(socket.AF_PACKET, socket.SOCK_RAW)'" succeeded
attack "IPv6 socket" no_setup "python3 -c 'import socket; socket.socket(socket.AF_INET6)'" succeeded
victim
attack "ptrace the caller (strace -p)" no_setup "timeout -s INT 1 strace -p $VICTIM -e trace=none 2>&1; true" straced
victim
attack "ptrace the caller (gdb -p)" no_setup "gdb -p $VICTIM -batch -ex 'info proc' 2>&1" gdb_attached
victim
attack "signal the caller" no_setup "kill -CONT $VICTIM" succeeded
attack "TIOCSTI into the caller's terminal" no_injection "python3 -c 'import fcntl, os, termios
fd = os.open(\"$SLAVE\", os.O_RDONLY | os.O_NOCTTY)
for c in b\"INJECTED\": fcntl.ioctl(fd, termios.TIOCSTI, bytes([c]))'" injected
# Device ioctls on another terminal of the user (opened read-only).
tty_reset() { stty -F "$SLAVE" rows 24 cols 80 echo intr '^C' 2>/dev/null; }
tty_resized() { [ "$(stty -F "$SLAVE" size)" = "24 33" ]; }
tty_silenced() { stty -F "$SLAVE" -a | grep -q -- ' -echo '; }
tty_intr_changed() { stty -F "$SLAVE" -a | grep -q 'intr = ^X'; }
attack "resize another terminal (SIGWINCH outside)" tty_reset "stty -F $SLAVE cols 33" tty_resized
attack "turn another terminal's echo off" tty_reset "stty -F $SLAVE -echo" tty_silenced
attack "change another terminal's interrupt key" tty_reset "stty -F $SLAVE intr ^X" tty_intr_changed
# A run that leaves its session takes a terminal without one (this test's
# pty, a console, a serial line) as its controlling terminal by opening it
# read-only; /dev/tty then leads to it.
CTTY="python3 -c 'import fcntl, os, struct, termios
if os.fork() == 0:
    os.setsid(); os.open(\"$SLAVE\", os.O_RDONLY); t = os.open(\"/dev/tty\", os.O_RDWR)
    os.write(t, b\"INJECTED\"); fcntl.ioctl(t, termios.TIOCSWINSZ, struct.pack(\"HHHH\", 24, 33, 0, 0)); os._exit(0)
_, st = os.wait(); raise SystemExit(os.waitstatus_to_exitcode(st))'"
tty_reset_clean() { tty_reset && no_injection; }
tty_taken() { tty_resized || injected; }
attack "take a terminal without a session and reach it through /dev/tty" tty_reset_clean "$CTTY" tty_taken
attack "mount" mount_point "mount -t tmpfs none mnt && umount mnt" succeeded
attack "unshare -r" no_setup "unshare -r true" succeeded
attack "new namespaces (unshare -n)" no_setup "unshare -n true" succeeded
attack "load a BPF program" no_setup "python3 -c '$BPF_LOAD'" succeeded

# Round 2 (device nodes, other processes' limits, socket families, inode
# flags, keyrings and SysV IPC, the clock and the host name).
node_made() { [ -b "$WORK/blk" ] || [ -c "$WORK/chr" ]; }
attack "make a block device (mknod b)" fresh_target "mknod blk b 7 0" node_made
attack "make a char device (mknod c)" fresh_target "mknod chr c 1 3" node_made
# Each attack on another process gets a fresh one (its pid in a file,
# read by the command when it runs), so the run without the sandbox
# leaves nothing the sandboxed run could be credited with.
VICTIM_FILE=$BASE/victim.pid
new_victim() { victim; echo "$VICTIM" >"$VICTIM_FILE"; }
V="\$(cat $VICTIM_FILE)"
limits_of_victim() { grep -q '^Max open files  *77  *77 ' "/proc/$VICTIM/limits"; }
attack "prlimit --pid on the caller's process" new_victim "prlimit --pid $V --nofile=77:77" limits_of_victim
fsize_of_victim() { grep -q '^Max file size  *0  *' "/proc/$VICTIM/limits"; }
attack "prlimit --fsize=0 on the caller's process" new_victim "prlimit --pid $V --fsize=0" fsize_of_victim
niced() { [ "$(ps -o ni= -p "$VICTIM" | tr -d ' ')" = 7 ]; }
attack "renice the caller's process" new_victim "renice -n 7 -p $V" niced
pinned() { [[ $(taskset -p "$VICTIM") == *": 1" ]] && [ "$(nproc --all)" -gt 1 ]; }
attack "taskset -p on the caller's process" new_victim "taskset -p 1 $V" pinned
batched() { [[ $(chrt -p "$VICTIM") == *SCHED_BATCH* ]]; }
attack "chrt -p on the caller's process" new_victim "chrt -b -p 0 $V" batched
idled() { [[ $(ionice -p "$VICTIM") == idle* ]]; }
attack "ionice -p on the caller's process" new_victim "ionice -c 3 -p $V" idled
socket_of() { # socket_of FAMILY TYPE PROTO: a python line that makes one
    echo "python3 -c 'import socket; socket.socket($1, $2, $3)'"
}
attack "AF_VSOCK socket (a path to the host of a VM)" no_setup "$(socket_of 40 1 0)" succeeded
attack "AF_XDP socket" no_setup "$(socket_of 44 3 0)" succeeded
attack "netlink socket other than routes (uevent)" no_setup "$(socket_of 16 3 15)" succeeded
attack "netlink socket other than routes (netfilter)" no_setup "$(socket_of 16 3 12)" succeeded
attack "AF_ALG socket" no_setup "$(socket_of 38 5 0)" succeeded
attack "AF_PACKET socket (datagram)" no_setup "$(socket_of 17 2 0)" succeeded
flagged() { lsattr -d "$T" 2>/dev/null | grep -q '^[^ ]*d'; }
attack "chattr +d on a file outside through a read-only fd" fresh_target "chattr +d $T" flagged
attack "add a key to the user's keyring" no_setup \
    "python3 -c 'import ctypes; libc = ctypes.CDLL(None)
n = libc.syscall(248, b\"user\", b\"bsh-attack\", b\"x\", 1, -4)
raise SystemExit(0 if n > 0 else 1)'" succeeded
attack "SysV shared memory (ipcmk -M)" no_setup "id=\$(ipcmk -M 4096 | grep -o '[0-9]*\$') && ipcrm -m \$id" succeeded
cap_in_force() { # cap_in_force N: python that exits 0 when capability N is effective
    echo "python3 -c 'cap = int(open(\"/proc/self/status\").read().split(\"CapEff:\")[1].split()[0], 16)
raise SystemExit(0 if cap >> $1 & 1 else 1)'"
}
attack "keep CAP_SYS_ADMIN" no_setup "$(cap_in_force 21)" succeeded
attack "keep CAP_NET_ADMIN" no_setup "$(cap_in_force 12)" succeeded
attack "keep CAP_SYS_TIME" no_setup "$(cap_in_force 25)" succeeded
attack "keep CAP_SYS_PTRACE" no_setup "$(cap_in_force 19)" succeeded
attack "keep CAP_MKNOD" no_setup "$(cap_in_force 27)" succeeded
bounding_kept() { [[ $OUT == *"CapBnd:"* ]] && [ "$(printf '%d' "0x$(awk '/CapBnd/ {print $2}' <<<"$OUT")")" -gt $((0x5ff)) ] && [ "$(id -u)" -eq 0 ]; }
attack "a root run keeps a bounding set to regain at exec" no_setup "grep CapBnd /proc/self/status" bounding_kept
attack "set the host name" no_setup "hostname \$(hostname)" succeeded
attack "watch every CPU (perf_event_open)" no_setup "python3 -c 'import ctypes, struct
attr = struct.pack(\"<IIQQQQQ\", 1, 112, 0, 0, 0, 0, 0) + bytes(64)
buf = ctypes.create_string_buffer(attr, 112)
fd = ctypes.CDLL(None).syscall(298, buf, -1, 0, -1, 0)
raise SystemExit(0 if fd >= 0 else 1)'" succeeded

# ---- the workloads -----------------------------------------------------------
fresh_target
workload "cc and make in the working directory" \
    "printf 'int main(void) { return 0; }\n' > hello.c &&
     printf 'hello: hello.c\n\tcc -o hello hello.c\n' > Makefile &&
     make -s && ./hello && echo built" built
workload "git init and commit" \
    "git init -q repo && cd repo && echo hi > f && git add f &&
     git -c user.email=t@example.com -c user.name=t commit -qm first &&
     git log --oneline | wc -l" 1
mkdir -p "$BASE/tmpdir"
workload "python3 writes to \$TMPDIR" \
    "python3 -c 'import tempfile
with tempfile.NamedTemporaryFile(delete=False) as f: f.write(b\"x\"); print(f.name)'" \
    "$BASE/tmpdir/" -e "TMPDIR=$BASE/tmpdir"
workload "npm-style writes under the working directory" \
    "mkdir -p node_modules/pkg node_modules/.bin &&
     printf '#!/bin/sh\necho from-pkg\n' > node_modules/pkg/cli.js &&
     chmod +x node_modules/pkg/cli.js &&
     ln -s ../pkg/cli.js node_modules/.bin/pkg && node_modules/.bin/pkg &&
     rm -rf node_modules/pkg && mkdir node_modules/pkg && mv node_modules/.bin node_modules/bin" from-pkg
workload "writes to /tmp and /dev/null" \
    "f=\$(mktemp) && echo x > \$f && rm \$f && echo y > /dev/null && echo ok" ok
workload "read anywhere readable" \
    "cat /etc/os-release > /dev/null && ls / /usr/lib > /dev/null &&
     head -c 4 /usr/bin/bash | od -c | head -1 && echo read" read
workload "chmod and touch in the working directory" \
    "printf 'echo script-ran' > s.sh && chmod 755 s.sh && ./s.sh && touch -d 2001-01-01 s.sh &&
     stat -c %a s.sh" 755
workload "a Unix socket in the working directory" \
    "python3 -c 'import os, socket, threading
s = socket.socket(socket.AF_UNIX); s.bind(\"local.sock\"); s.listen(1)
threading.Thread(target=lambda: s.accept()[0].sendall(b\"local-ok\"), daemon=True).start()
c = socket.socket(socket.AF_UNIX); c.connect(\"local.sock\"); print(c.recv(8).decode())'" local-ok
workload "chattr +d and -d in the working directory (the supervisor)" \
    "touch flagged && chattr +d flagged && lsattr flagged | cut -c1-8 && chattr -d flagged" "------d-"
workload "a pipeline and a subshell" "seq 1000 | sort -n | tail -1 | (read n; echo \$((n + 1)))" 1001
workload "name resolution, nice, ulimit, a FIFO, a socketpair" \
    "getent ahosts localhost > /dev/null && nice -n 3 true && ulimit -n 100 &&
     mkfifo ff && rm ff && python3 -c 'import socket; socket.socketpair()' &&
     python3 -c 'import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)' &&
     echo ok-names" ok-names
workload "a socket from outside named with --sandbox-socket" \
    "$(connect_to "$TMP_SOCK")" answered --sandbox-socket "$TMP_SOCK"
# Each run has a private TMPDIR of its own (0700), removed after it with
# whatever the run left there, whatever modes it left.
PRIV='echo "dir=$TMPDIR" && stat -c %a "$TMPDIR" && mkdir -p "$TMPDIR/a/b" &&
touch "$TMPDIR/a/b/f" && ln -s / "$TMPDIR/root" && chmod 000 "$TMPDIR/a"'
OUT=$(cd "$WORK" && "$BSH" run --sandbox "$PRIV" 2>&1)
RC=$?
DIR1=$(sed -n 's/^dir=//p' <<<"$OUT")
OUT2=$(cd "$WORK" && "$BSH" run --sandbox 'echo "dir=$TMPDIR"' 2>&1)
DIR2=$(sed -n 's/^dir=//p' <<<"$OUT2")
[ $RC -eq 0 ] && [[ $DIR1 == /tmp/bsh-run-* ]] && [[ $OUT == *$'\n'700* ]] &&
    [ ! -e "$DIR1" ] && [[ $DIR2 == /tmp/bsh-run-* ]] && [ "$DIR1" != "$DIR2" ] &&
    [ ! -e "$DIR2" ] && [ -d / ]
judged "a private TMPDIR for each run, removed after it" $? "$OUT / $OUT2"
workload "a thread other than the main one connects to the run's own socket" \
    "python3 -c 'import socket, threading
s = socket.socket(socket.AF_UNIX); s.bind(\"thr.sock\"); s.listen(1)
got = []
def client():
    c = socket.socket(socket.AF_UNIX); c.connect(\"thr.sock\"); got.append(c.recv(6).decode())
t = threading.Thread(target=client); t.start()
s.accept()[0].sendall(b\"thr-ok\"); t.join(); print(got[0])'; rm -f thr.sock" thr-ok
workload "the run's own socket through /proc/self/fd (the run's self, not bsh's)" \
    "python3 -c 'import os, socket, threading
s = socket.socket(socket.AF_UNIX); s.bind(\"self.sock\"); s.listen(1)
threading.Thread(target=lambda: s.accept()[0].sendall(b\"self-ok\")).start()
fd = os.open(\"self.sock\", os.O_PATH)
c = socket.socket(socket.AF_UNIX); c.connect(\"/proc/self/fd/%d\" % fd); print(c.recv(7).decode())'; rm -f self.sock" self-ok
workload "a Unix socket the run binds in its TMPDIR" \
    "python3 -c 'import os, socket, threading
p = os.path.join(os.environ[\"TMPDIR\"], \"own.sock\")
s = socket.socket(socket.AF_UNIX); s.bind(p); s.listen(1)
threading.Thread(target=lambda: s.accept()[0].sendall(b\"tmp-ok\")).start()
c = socket.socket(socket.AF_UNIX); c.connect(p); print(c.recv(6).decode())'" tmp-ok
# Default pids and memory limits, where this machine has the cgroup v1
# controllers for this user (cgroup v2 ones are checked the same way by
# the library); -l NAME=none drops them, -l NAME=N replaces them.
if [ -w /sys/fs/cgroup/pids ] && [ -w /sys/fs/cgroup/memory ]; then
    LIMITS='p=$(sed -n "s/^[0-9]*:pids:\(.*\)/\1/p" /proc/self/cgroup)
m=$(sed -n "s/^[0-9]*:memory:\(.*\)/\1/p" /proc/self/cgroup)
echo "pids=$(cat /sys/fs/cgroup/pids$p/pids.max 2>/dev/null || echo max) memory=$(cat /sys/fs/cgroup/memory$m/memory.limit_in_bytes)"'
    HALF=$(($(getconf _PHYS_PAGES) * $(getconf PAGESIZE) / 100 * 50))
    D=$(cd "$WORK" && "$BSH" run --sandbox "$LIMITS" 2>&1)
    N=$(cd "$WORK" && "$BSH" run --sandbox -l pids=none -l memory=none "$LIMITS" 2>&1)
    S=$(cd "$WORK" && "$BSH" run --sandbox -l pids=64 -l memory=256M "$LIMITS" 2>&1)
    P=$(cd "$WORK" && "$BSH" run "$LIMITS" 2>&1)
    # Page-rounded by the kernel: compare the memory limit in MiB.
    [[ $D == "pids=4096 memory="* ]] && [ $((${D#*memory=} >> 20)) -eq $((HALF >> 20)) ] &&
        [[ $N == "pids=max memory="* ]] && [ "${N#*memory=}" -gt "$HALF" ] &&
        [ "$S" = "pids=64 memory=268435456" ] && [[ $P == "pids=max memory="* ]]
    judged "default limits: pids 4096 and half the memory, -l replaces, none drops" $? \
        "default: $D | none: $N | set: $S | plain: $P"
else
    echo "workload default limits: n/a (no writable cgroup v1 pids and memory here)"
fi
OUT=$(cd "$WORK" && "$BSH" run -p --sandbox 'echo on-tty > $(tty) && tty' 2>&1)
[[ $OUT == *on-tty*/dev/pts/* ]]
judged "write to the run's own terminal (PTY)" $? "$OUT"

# The supervisor cannot be frozen: connects to a listener whose backlog is
# full and that never accepts wait in the run, not in bsh; the deadline
# and a signal to bsh still end the run.
rm -f "$WORK/full.sock"
python3 -c "import socket, time
s = socket.socket(socket.AF_UNIX); s.bind('$WORK/full.sock'); s.listen(0)
time.sleep(60)" &
PIDS+=($!)
for _ in $(seq 50); do [ -S "$WORK/full.sock" ] && break; sleep 0.1; done
FILL="python3 -c 'import socket
for i in range(20):
    socket.socket(socket.AF_UNIX).connect(\"full.sock\"); print(\"connected\", i, flush=True)'"
t0=$SECONDS
OUT=$(cd "$WORK" && "$BSH" run --sandbox --sandbox-socket full.sock -t 2000 "$FILL" 2>&1)
RC=$?
[ $RC -eq 124 ] && [ $((SECONDS - t0)) -lt 6 ]
judged "a full backlog: the deadline ends the run (exit 124)" $? \
    "exit $RC after $((SECONDS - t0)) s: $OUT"
(cd "$WORK" && exec "$BSH" run --sandbox --sandbox-socket full.sock "$FILL") >/dev/null 2>&1 &
p=$!
sleep 1.5
t0=$SECONDS
kill -TERM $p
wait $p
RC=$?
[ $RC -eq 143 ] && [ $((SECONDS - t0)) -lt 4 ]
judged "a full backlog: SIGTERM to bsh ends the run (exit 143)" $? "exit $RC"

# The run's own listener, backlog full, in the run's temporary directory.
FULL_OWN="python3 -c 'import socket, time
s = socket.socket(socket.AF_UNIX); s.bind(\"own-full.sock\"); s.listen(0); time.sleep(60)' &
sleep 1; ${FILL//full.sock/own-full.sock}"
t0=$SECONDS
OUT=$(cd "$WORK" && "$BSH" run --sandbox -t 3000 "$FULL_OWN" 2>&1)
RC=$?
rm -f "$WORK/own-full.sock"
[ $RC -eq 124 ] && [ $((SECONDS - t0)) -lt 7 ] && [[ $OUT == *"connected 0"* ]]
judged "the run's own full listener: its connects wait, the deadline ends it" $? \
    "exit $RC after $((SECONDS - t0)) s: $OUT"
echo "attacks: $tried tried, $stopped stopped ($na not possible here without the sandbox)"
echo "workloads: $wtried tried, $wpassed passed"
[ $failures -eq 0 ] && [ $tried -gt 0 ]
