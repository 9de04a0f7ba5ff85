#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`bsh run -p -i` on a real terminal, driven through a PTY of the test's
own: typing into cat and into read, Ctrl-C, resizing, and the terminal's
modes restored on every way out (normal end, Ctrl-C, SIGTERM to bsh)."""
import fcntl, os, select, signal, struct, sys, termios, time

BSH = sys.argv[1]
run, failed = 0, 0


def ok(cond, what):
    global run, failed
    run += 1
    if not cond:
        failed += 1
    print(("ok" if cond else "not ok") + f" {run} - {what}", flush=True)
    return cond


def set_size(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


class Session:
    """bsh with a terminal of its own (its controlling terminal)."""

    def __init__(self, command, rows=24, cols=80):
        self.master, slave = os.openpty()
        set_size(self.master, rows, cols)
        self.slave_name = os.ttyname(slave)
        self.before = termios.tcgetattr(slave)
        self.pid = os.fork()
        if self.pid == 0:
            os.setsid()
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
            for fd in (0, 1, 2):
                os.dup2(slave, fd)
            os.execv(BSH, [BSH, "run", "-p", "-i", command])
        os.close(slave)
        self.out = b""
        self.status = None

    def read_until(self, text, timeout=10.0):
        end = time.monotonic() + timeout
        while text.encode() not in self.out and time.monotonic() < end:
            r, _, _ = select.select([self.master], [], [], 0.05)
            if r:
                try:
                    data = os.read(self.master, 65536)
                except OSError:
                    break
                if not data:
                    break
                self.out += data
        return text.encode() in self.out

    def type(self, data):
        os.write(self.master, data.encode())

    def wait(self, timeout=10.0, kill=True):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.read_until("\0never", 0.05)
            pid, st = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(st)
                return self.status
        if kill:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        return None

    def modes_restored(self):
        # The slave is still open through the master's side: reopen it.
        fd = os.open(self.slave_name, os.O_RDWR | os.O_NOCTTY)
        now = termios.tcgetattr(fd)
        os.close(fd)
        return now == self.before

    def close(self):
        os.close(self.master)


s = Session("cat")
ok(s.read_until("") or True, "bsh -p -i cat started")
time.sleep(0.3)
s.type("hello\r")
ok(s.read_until("hello\r\nhello\r\n"), "typed into cat: echoed by the command's terminal, then cat's copy")
s.type("\x04")
ok(s.wait() == 0, "Ctrl-D ends cat; bsh exits 0")
ok(s.modes_restored(), "the terminal's modes are restored after a normal end")
s.close()

s = Session("read -p 'name? ' x; echo \"got $x\"")
ok(s.read_until("name? "), "read prompts")
s.type("bob\r")
ok(s.read_until("got bob"), "typed a line into read")
ok(s.wait() == 0, "exit 0")
s.close()

s = Session("stty size; trap 'stty size' WINCH; echo ready; while :; do sleep 0.05; done", 30, 100)
ok(s.read_until("30 100"), "the command's terminal starts at bsh's size")
ok(s.read_until("ready"), "ready")
set_size(s.master, 50, 120)  # the kernel sends bsh SIGWINCH

ok(s.read_until("50 120"), "resize followed (SIGWINCH)")
# bash ends on SIGINT only when the command it waits for died of it too; a
# Ctrl-C that lands while the trap's stty exits normally is shrugged off,
# as at a real terminal. Press it again until the run ends.
status = None
for _ in range(20):
    s.type("\x03")
    status = s.wait(0.5, kill=False)
    if status is not None:
        break
if status is None:
    status = s.wait()
ok(status == 130, "Ctrl-C reaches the command as SIGINT; bsh exits 130")
ok(s.modes_restored(), "modes restored after Ctrl-C")
s.close()

s = Session("echo ready; sleep 30")
ok(s.read_until("ready"), "ready")
os.kill(s.pid, signal.SIGTERM)
ok(s.wait() == 143, "SIGTERM to bsh: exit 143")
ok(s.modes_restored(), "modes restored after a signal")
s.close()

print(f"1..{run}")
if failed:
    print(f"# failed {failed} of {run}")
sys.exit(1 if failed else 0)
