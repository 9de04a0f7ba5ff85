#!/usr/bin/env python3
"""Runs bsh with its stdout on a pseudo-terminal that nobody reads, as a
terminal stopped with Ctrl-S would be, and prints bsh's exit status and
how long it took. Usage: stall_tty.py BSH ARGS..."""
import os
import pty
import subprocess
import sys
import time

master, slave = pty.openpty()
start = time.monotonic()
proc = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=slave,
                        stderr=subprocess.DEVNULL)
os.close(slave)
try:
    rc = proc.wait(timeout=10)
except subprocess.TimeoutExpired:
    proc.kill()
    rc = proc.wait()
print(rc, int((time.monotonic() - start) * 1000))
os.close(master)
