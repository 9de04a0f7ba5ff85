#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What MCP over HTTP (`bsh mcp --listen`) costs, beside stdio:
- the round trip of `bash_run` `echo hi` over HTTP on loopback (one
  keep-alive connection, a legacy MCP session) and over stdio (JSON
  lines), median of SAMPLES each, alternating in blocks of 20, and the
  median of the paired differences;
- CLIENTS clients at once, each making CALLS `echo hi` calls on its own
  connection and MCP session: every answer checked, the p50 and p99
  latency of a call, the wall time, and the server's peak RSS;
- IDLE idle connections held open: the server's RSS growth.
Usage: bench/mcp_http.py PATH/TO/bsh [SAMPLES] [CLIENTS] [CALLS] [IDLE]"""
import http.client, json, resource, socket, statistics, subprocess, sys, threading, time

BSH = sys.argv[1]
SAMPLES = int(sys.argv[2]) if len(sys.argv) > 2 else 200
CLIENTS = int(sys.argv[3]) if len(sys.argv) > 3 else 100
CALLS = int(sys.argv[4]) if len(sys.argv) > 4 else 10
IDLE = int(sys.argv[5]) if len(sys.argv) > 5 else 1000
ECHO = {"name": "bash_run", "arguments": {"command": "echo hi"}}


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])


class Stdio:
    def __init__(self):
        self.p = subprocess.Popen([BSH, "mcp", "--max-runs", "256"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.n = 0

    def call(self, params):
        self.n += 1
        msg = {"jsonrpc": "2.0", "id": self.n, "method": "tools/call", "params": params}
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()
        while True:
            reply = json.loads(self.p.stdout.readline())
            if reply.get("id") == self.n:
                return reply

    def close(self):
        self.p.stdin.close()
        self.p.wait()


class HttpServer:
    def __init__(self, *args):
        self.p = subprocess.Popen([BSH, "mcp", "--listen", "127.0.0.1:0", *args],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        line = self.p.stderr.readline()
        self.port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        threading.Thread(target=self.p.stderr.read, daemon=True).start()

    def close(self):
        self.p.terminate()
        self.p.wait()


class HttpClient:
    """One connection, one legacy MCP session."""
    def __init__(self, port):
        self.c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.headers = {"Content-Type": "application/json",
                        "Accept": "application/json, text/event-stream"}
        self.n = 0
        init = self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"}}})
        self.headers["Mcp-Session-Id"] = init[1]
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def post(self, msg):
        self.c.request("POST", "/mcp", json.dumps(msg), self.headers)
        r = self.c.getresponse()
        body = r.read()
        if r.status == 202:
            return None, None
        assert r.status == 200, (r.status, body)
        text = body.decode()
        if r.getheader("Content-Type") == "text/event-stream":
            text = [l[6:] for l in text.split("\n") if l.startswith("data: ")][-1]
        return json.loads(text), r.getheader("Mcp-Session-Id")

    def call(self, params):
        self.n += 1
        return self.post({"jsonrpc": "2.0", "id": self.n, "method": "tools/call",
                          "params": params})[0]

    def close(self):
        self.c.request("DELETE", "/mcp", headers=self.headers)
        self.c.getresponse().read()
        self.c.close()


def timed(client):
    t = time.perf_counter()
    r = client.call(ECHO)
    ms = (time.perf_counter() - t) * 1000
    assert r["result"]["structuredContent"]["stdout"] == "hi\n", r
    return ms


def paired():
    stdio = Stdio()
    server = HttpServer("--max-runs", "256")
    http_client = HttpClient(server.port)
    for _ in range(10):  # warm up both
        timed(stdio), timed(http_client)
    s, h = [], []
    for block in range(SAMPLES // 20):
        order = (stdio, http_client) if block % 2 == 0 else (http_client, stdio)
        for client in order:
            (s if client is stdio else h).extend(timed(client) for _ in range(20))
    http_client.close()
    server.close()
    stdio.close()
    diffs = [b - a for a, b in zip(s, h)]
    return statistics.median(s), statistics.median(h), statistics.median(diffs)


def many():
    server = HttpServer("--max-runs", "256")
    latencies, errors = [], []
    lock = threading.Lock()
    barrier = threading.Barrier(CLIENTS)

    def client():
        try:
            c = HttpClient(server.port)
            barrier.wait()
            mine = [timed(c) for _ in range(CALLS)]
            c.close()
            with lock:
                latencies.extend(mine)
        except Exception as e:  # every failure is counted, none hidden
            with lock:
                errors.append(repr(e))
            barrier.abort()

    t = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    wall = (time.perf_counter() - t) * 1000
    peak = status_kib(server.p.pid, "VmHWM")
    server.close()
    q = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [0] * 99
    return len(latencies), errors, q[49], q[98], wall, peak


def idle():
    server = HttpServer()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, IDLE + 256)), hard))
    time.sleep(0.2)
    before = status_kib(server.p.pid, "VmRSS")
    socks = []
    for _ in range(IDLE):
        socks.append(socket.create_connection(("127.0.0.1", server.port)))
    # One request on each (then idle, kept alive): every connection is set up.
    probe = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    for s in socks:
        s.sendall(probe)
    for s in socks:
        s.recv(65536)
    time.sleep(0.3)
    after = status_kib(server.p.pid, "VmRSS")
    alive = server.p.poll() is None
    for s in socks:
        s.close()
    server.close()
    return before, after, alive


stdio_ms, http_ms, diff_ms = paired()
print(f"echo_hi stdio_median_ms={stdio_ms:.3f} http_median_ms={http_ms:.3f} "
      f"paired_diff_median_ms={diff_ms:.3f} samples={SAMPLES}")
n, errors, p50, p99, wall, peak = many()
print(f"concurrent clients={CLIENTS} calls_each={CALLS} answered={n} errors={len(errors)} "
      f"p50_ms={p50:.1f} p99_ms={p99:.1f} wall_ms={wall:.0f} server_peak_rss_kib={peak}")
for e in errors[:5]:
    print("  error:", e)
before, after, alive = idle()
print(f"idle connections={IDLE} rss_before_kib={before} rss_after_kib={after} "
      f"growth_kib={after - before} per_connection_kib={(after - before) / IDLE:.1f} "
      f"server_alive={alive}")
sys.exit(1 if errors else 0)
