#!/usr/bin/env python3
"""What the static binary costs against the dynamic one (SPEC 11): the
same workloads through each `bsh`, one after the other, the order swapped
every pair; the medians of the wall times and of the per-pair ratios
static/dynamic.
Workloads: 200 short runs (`bsh run true`, process start, spawn and
containment each time), 100 sandboxed short runs, 256 MiB through a pipe
run, 64 MiB through a PTY run, and 100 bash_run calls to one `bsh mcp`.
Usage: static_cost.py STATIC_BSH DYNAMIC_BSH [PAIRS]"""
import json
import statistics
import subprocess
import sys
import time

static, dynamic = sys.argv[1], sys.argv[2]
pairs = int(sys.argv[3]) if len(sys.argv) > 3 else 11
NULL = subprocess.DEVNULL


def many_runs(bsh, count, *extra):
    for _ in range(count):
        subprocess.run([bsh, 'run', *extra, 'true'], stdout=NULL, check=True, cwd='/tmp')


def pipe_bytes(bsh):
    subprocess.run([bsh, 'run', 'head -c 256M /dev/zero'], stdout=NULL, check=True)


def pty_bytes(bsh):
    subprocess.run([bsh, 'run', '-p', 'head -c 64M /dev/zero | base64'], stdout=NULL,
                   check=True)


def mcp_calls(bsh, count=100):
    lines = [{'jsonrpc': '2.0', 'id': 0, 'method': 'initialize',
              'params': {'protocolVersion': '2025-06-18', 'capabilities': {},
                         'clientInfo': {'name': 'bench', 'version': '1'}}},
             {'jsonrpc': '2.0', 'method': 'notifications/initialized'}]
    server = subprocess.Popen([bsh, 'mcp'], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=NULL)
    for message in lines:
        server.stdin.write((json.dumps(message) + '\n').encode())
    server.stdin.flush()
    server.stdout.readline()
    for i in range(1, count + 1):
        call = {'jsonrpc': '2.0', 'id': i, 'method': 'tools/call',
                'params': {'name': 'bash_run', 'arguments': {'command': f'echo {i}'}}}
        server.stdin.write((json.dumps(call) + '\n').encode())
        server.stdin.flush()
        server.stdout.readline()
    server.stdin.close()
    server.wait()


WORKLOADS = {
    '200 x `bsh run true`': lambda b: many_runs(b, 200),
    '100 x `bsh run --sandbox true`': lambda b: many_runs(b, 100, '--sandbox'),
    '256 MiB through a pipe run': pipe_bytes,
    '64 MiB (base64) through a PTY run': pty_bytes,
    '100 bash_run calls to one bsh mcp': mcp_calls,
}


def timed(fn, bsh):
    t0 = time.perf_counter()
    fn(bsh)
    return (time.perf_counter() - t0) * 1000


print(f'| workload | static ms | dynamic ms | static/dynamic ({pairs} pairs) |')
print('|---|---|---|---|')
for name, fn in WORKLOADS.items():
    s, d, r = [], [], []
    for i in range(pairs):
        if i % 2 == 0:
            a, b = timed(fn, static), timed(fn, dynamic)
        else:
            b, a = timed(fn, dynamic), timed(fn, static)
        s.append(a)
        d.append(b)
        r.append(a / b)
    print(f'| {name} | {statistics.median(s):.0f} | {statistics.median(d):.0f} | '
          f'{statistics.median(r):.3f} |', flush=True)
