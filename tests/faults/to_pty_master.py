#!/usr/bin/env python3
"""Runs bsh with its stdout on the master side of a pseudo-terminal (as a
harness that reads a program through a terminal of its own may hand it),
and prints bsh's exit status and what reached the slave side, so that a
byte sent to a new terminal of its own instead would show as lost.
Usage: to_pty_master.py BSH ARGS..."""
import os
import pty
import select
import subprocess
import sys
import tty

master, slave = pty.openpty()
tty.setraw(slave)
proc = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=master,
                        stderr=subprocess.DEVNULL)
try:
    rc = proc.wait(timeout=10)
except subprocess.TimeoutExpired:
    proc.kill()
    rc = proc.wait()
got = b""
while select.select([slave], [], [], 0.5)[0]:
    got += os.read(slave, 4096)
print(rc, got.decode(errors="replace").strip())
