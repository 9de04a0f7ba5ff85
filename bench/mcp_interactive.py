#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Interactive MCP figures of `bsh mcp`, over raw JSON lines:
- the delay from a prompt appearing (the command writes its clock time
  just before it reads) to the `awaiting_input` reply reaching the client;
- the memory the server holds per run (VmRSS growth over N held runs,
  each a `sleep` that prints nothing);
- the round trip of `bash_run` `echo hi` (median of 200 sequential calls)
  beside the bare spawn of `bash -c 'echo hi'` with its output read
  (subprocess), alternating in blocks of 20, and their difference: the
  server's own cost per call.
Usage: bench/mcp_interactive.py PATH/TO/bsh [SAMPLES] [RUNS]"""
import json, os, statistics, subprocess, sys, tempfile, time

BSH = sys.argv[1]
SAMPLES = int(sys.argv[2]) if len(sys.argv) > 2 else 20
RUNS = int(sys.argv[3]) if len(sys.argv) > 3 else 200


class Server:
    def __init__(self, *args):
        self.p = subprocess.Popen([BSH, "mcp", *args], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.n = 0

    def call(self, name, arguments, meta=None):
        self.n += 1
        msg = {"jsonrpc": "2.0", "id": self.n, "method": "tools/call",
               "params": {"name": name, "arguments": arguments}}
        if meta is not None:
            msg["params"]["_meta"] = meta
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()
        while True:
            reply = json.loads(self.p.stdout.readline())
            if reply.get("id") == self.n:
                return reply["result"], time.time()

    def rss_kib(self):
        with open(f"/proc/{self.p.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def prompt_delay():
    s = Server("-p")
    stamp = os.path.join(tempfile.mkdtemp(), "t")
    delays = []
    for _ in range(SAMPLES):
        r, at = s.call("bash_run", {"command":
            f"sleep 0.1; printf 'Password: '; date +%s.%N > {stamp}; read -s x"})
        assert r["structuredContent"]["state"] == "awaiting_input", r
        delays.append((at - float(open(stamp).read())) * 1000)
        s.call("bash_kill", {"run_id": r["structuredContent"]["run_id"]})
    s.close()
    return delays


def memory_per_run():
    s = Server("--max-runs", str(RUNS + 1), "--containment", "subreaper")
    s.call("bash_run", {"command": "true"})  # warm up the allocator
    before = s.rss_kib()
    for _ in range(RUNS):
        r, _ = s.call("bash_run", {"command": "sleep 600", "yield_ms": 0})
        assert r["structuredContent"]["state"] == "running"
    after = s.rss_kib()
    s.close()
    return (after - before) / RUNS


# A request of the stateless 2026-07-28 era names its version itself.
MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {}}


def round_trip(calls=200, block=20, meta=None):
    s = Server("--containment", "subreaper")
    s.call("bash_run", {"command": "true"})
    rtt, bare = [], []
    for i in range(calls // block):
        for first in ((0, 1) if i % 2 == 0 else (1, 0)):
            for _ in range(block):
                t0 = time.perf_counter()
                if first == 0:
                    r, _ = s.call("bash_run", {"command": "echo hi"}, meta)
                    assert r["content"][0]["text"] == "hi\n"
                    rtt.append((time.perf_counter() - t0) * 1000)
                else:
                    out = subprocess.run(["bash", "-c", "echo hi"], capture_output=True).stdout
                    assert out == b"hi\n"
                    bare.append((time.perf_counter() - t0) * 1000)
    s.close()
    return statistics.median(rtt), statistics.median(bare)


d = prompt_delay()
print(f"| prompt to awaiting_input (PTY, {SAMPLES} samples) | median {statistics.median(d):.0f} ms, "
      f"max {max(d):.0f} ms | < 500 ms |")
print(f"| server memory per held run ({RUNS} silent runs) | {memory_per_run():.1f} KiB | < 64 KiB |")
for era, meta in (("legacy", None), ("2026-07-28", MODERN)):
    rtt, bare = round_trip(meta=meta)
    print(f"| bash_run `echo hi` round trip, {era} era (median of 200) | {rtt:.2f} ms; "
          f"bare spawn {bare:.2f} ms; server's own {rtt - bare:.2f} ms | < 0.5 ms |")
