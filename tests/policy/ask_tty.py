#!/usr/bin/env python3
"""bsh run --ask tty: the question on the terminal, y runs the command, n
or end of file refuses it (126, "not approved"). bsh runs with a pty as
its controlling terminal, as a person's shell would give it. Prints TAP.
Usage: ask_tty.py PATH/TO/bsh"""
import os
import pty
import select
import sys
import time

bsh = sys.argv[1]
rules = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dev.rules")
count = failed = 0


def check(cond, what, detail=""):
    global count, failed
    count += 1
    print(("ok" if cond else "not ok") + f" {count} - {what}")
    if not cond:
        failed += 1
        print(f"#   {detail!r}")


def run(answer, command="git push 2>/dev/null; echo ran"):
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(bsh, [bsh, "run", "--policy", rules, "--", command])
    out = b""
    deadline = time.monotonic() + 10
    sent = False
    while time.monotonic() < deadline:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        if not sent and b"[y/N] " in out:
            if answer is None:
                os.write(fd, b"\x04")  # end of file
            else:
                os.write(fd, answer)
            sent = True
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode(errors="replace").replace("\r\n", "\n")


question = f"bsh: approve? git push ({rules}:9: pushing publishes) [y/N] "
rc, out = run(b"y\n")
check(out.startswith(question), "the question on the terminal", out)
check(rc == 0 and out.endswith("ran\n"), "y runs it", (rc, out))
rc, out = run(b"YES\n")
check(rc == 0 and "ran" in out, "YES (any case) runs it", (rc, out))
rc, out = run(b"n\n")
check(rc == 126 and f"bsh: policy: not approved: git push ({rules}:9: pushing publishes)" in out
      and "ran" not in out, "n refuses it: 126, not approved", (rc, out))
rc, out = run(None)
check(rc == 126 and "not approved" in out and "ran" not in out, "end of file refuses it", (rc, out))
rc, out = run(b"y\n", "rm -rf x; echo ran")
check(rc == 126 and "[y/N]" not in out and "policy: denied: rm -rf x" in out,
      "deny is never asked about", (rc, out))
print(f"1..{count}")
sys.exit(1 if failed else 0)
