#!/usr/bin/env python3
"""The cost of reducing a reply (SPEC 10): a bash_run whose command writes
MB megabytes, through `bsh mcp` (reduced) and `bsh mcp --raw-output`, one
after the other, the order swapped every pair; the medians of the call's
wall time and of the per-pair ratios reduced/raw. Two outputs: `yes`, and
a mix of coloured lines and progress frames.
Usage: mcp_reduce_cost.py PATH/TO/bsh [MB] [PAIRS]"""
import json
import os
import statistics
import subprocess
import sys
import time

bsh = sys.argv[1]
mb = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
pairs = int(sys.argv[3]) if len(sys.argv) > 3 else 5

# One MiB of coloured lines and progress frames, written MB times by cat:
# the command costs little, so what differs is the server's work.
MIX = '/tmp/bsh-bench-mix'
with open(MIX, 'wb') as f:
    data, i = bytearray(), 0
    while len(data) < 1 << 20:
        if i % 4 == 0:
            data += (f'\r\x1b[K\x1b[36m[{"#" * (i % 21):<20}]\x1b[0m '
                     f'{i % 100:3d}% fetching package-{i}.tgz').encode()
        else:
            data += (f'\x1b[1;32m   Compiling\x1b[0m crate-{i} v0.{i % 10}.{i % 7} '
                     f'(/src/crate-{i})\n').encode()
        i += 1
    f.write(data[:1 << 20])

COMMANDS = {
    'yes': f'yes | head -c {mb}M',
    'colour+progress': f'for ((i = 0; i < {mb}; i++)); do cat {MIX}; done',
}


def call_ms(args, command):
    p = subprocess.Popen([bsh, 'mcp', '--no-sessions', *args], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    p.stdin.write(json.dumps({'jsonrpc': '2.0', 'id': 1, 'method': 'tools/call',
                              'params': {'name': 'bash_run', 'arguments': {
                                  'command': command, 'timeout_ms': 600000}}}) + '\n')
    p.stdin.flush()
    t0 = time.monotonic()
    reply = json.loads(p.stdout.readline())
    ms = (time.monotonic() - t0) * 1000
    p.stdin.close()
    p.wait()
    assert 'result' in reply, reply
    return ms


for name, command in COMMANDS.items():
    reduced, raw, ratios = [], [], []
    for i in range(pairs):
        order = [('reduced', []), ('raw', ['--raw-output'])]
        if i % 2:
            order.reverse()
        got = {}
        for label, args in order:
            got[label] = call_ms(args, command)
        reduced.append(got['reduced'])
        raw.append(got['raw'])
        ratios.append(got['reduced'] / got['raw'])
    print(f'{name}: {mb} MiB, {pairs} pairs: reduced {statistics.median(reduced):.0f} ms, '
          f'raw {statistics.median(raw):.0f} ms, ratio {statistics.median(ratios):.3f}')
os.unlink(MIX)
