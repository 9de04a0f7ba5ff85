#!/usr/bin/env python3
"""The cost of reducing a reply (SPEC 10): a bash_run whose command writes
MB megabytes, through `bsh mcp` (reduced) and `bsh mcp --raw-output`, one
after the other, the order swapped every pair; the medians of the call's
wall time and of the per-pair ratios reduced/raw. Two outputs: `yes`, and
a mix of coloured lines and progress frames.
Usage: mcp_reduce_cost.py PATH/TO/bsh [MB] [PAIRS]"""
import json
import statistics
import subprocess
import sys
import time

bsh = sys.argv[1]
mb = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
pairs = int(sys.argv[3]) if len(sys.argv) > 3 else 5

COMMANDS = {
    'yes': f'yes | head -c {mb}M',
    'colour+progress': (
        "awk 'BEGIN { for (i = 0; ; i++) { "
        "if (i % 4 == 0) printf \"\\r\\033[K\\033[36m[%-20s]\\033[0m %3d%%\", "
        "substr(\"####################\", 1, i % 21), i % 100; "
        "else printf \"\\033[1;32m   Compiling\\033[0m crate-%d v0.%d (/src/c%d)\\n\", "
        f"i, i % 10, i }} }}' | head -c {mb}M"),
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
