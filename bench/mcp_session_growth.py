#!/usr/bin/env python3
"""1000 sequential bash_run calls in one session of `bsh mcp`: the server's
RSS and open fds after the first 100 calls and after all of them.
Usage: mcp_session_growth.py PATH/TO/bsh [CALLS]"""
import json
import os
import subprocess
import sys

bsh = sys.argv[1]
calls = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
p = subprocess.Popen([bsh, 'mcp'], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
next_id = 0


def request(method, params):
    global next_id
    next_id += 1
    p.stdin.write(json.dumps({'jsonrpc': '2.0', 'id': next_id,
                              'method': method, 'params': params}) + '\n')
    p.stdin.flush()
    return json.loads(p.stdout.readline())


def footprint():
    with open(f'/proc/{p.pid}/status') as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith('VmRSS'))
    return rss, len(os.listdir(f'/proc/{p.pid}/fd'))


request('initialize', {'protocolVersion': '2025-06-18', 'capabilities': {},
                       'clientInfo': {'name': 'growth', 'version': '1'}})
p.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
seen = {}
for i in range(1, calls + 1):
    r = request('tools/call', {'name': 'bash_run', 'arguments': {
        'command': f'export N{i % 50}={i}; cd /tmp; f{i % 20}() {{ :; }}'}})
    assert r['result']['structuredContent']['session_state'] == 'saved', r
    if i in (100, calls):
        seen[i] = footprint()
p.stdin.close()
p.wait()
(rss1, fd1), (rss2, fd2) = seen[100], seen[calls]
print(f'after 100 calls: rss {rss1} KiB, fds {fd1}; after {calls}: '
      f'rss {rss2} KiB, fds {fd2}')
sys.exit(0 if fd2 <= fd1 and rss2 <= rss1 * 1.1 + 512 else 1)
