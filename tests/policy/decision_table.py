#!/usr/bin/env python3
"""The policy's decision table (decisions.tsv) under the four sample
policies of this folder, through `bsh policy explain --json` (decision,
exit status, the opaque reason), `bsh check --policy` (exit status) and,
for every row that is not allowed, `bsh run` (exit 126, the exact message,
and nothing started: the run's directory stays empty) and `bsh mcp` (a
tool error with the refusal's text, for a client that cannot elicit).
Prints TAP. Usage: decision_table.py PATH/TO/bsh"""
import json
import os
import select
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
POLICIES = [("dev", "ask"), ("readonly", "deny"), ("ci", "deny"), ("denylist", "allow")]
LETTER = {"A": "allow", "K": "ask", "D": "deny"}
STATUS = {"allow": 0, "deny": 1, "ask": 3}

bsh = os.path.abspath(sys.argv[1])
count = 0
failed = 0


def check(cond, what, detail=""):
    global count, failed
    count += 1
    if cond:
        print(f"ok {count} - {what}")
    else:
        failed += 1
        print(f"not ok {count} - {what}")
        for line in detail.splitlines():
            print(f"#   {line}")


def decode(cmd):
    return cmd.replace("<NL>", "\n").replace("<TAB>", "\t").replace("<CR>", "\r")


def rows():
    with open(os.path.join(HERE, "decisions.tsv"), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            yield decode(cols[0]), cols[1:5], cols[5] if len(cols) > 5 else None


def policy_args(name, default):
    return ["--policy", os.path.join(HERE, name + ".rules"), "--policy-default", default]


def explain(cmd, name, default):
    p = subprocess.run([bsh, "policy", "explain", "--json", *policy_args(name, default), "--", cmd],
                       capture_output=True, text=True, timeout=30)
    return p.returncode, p.stdout, p.stderr


def run_refused(cmd, name, default, want, guard):
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([bsh, "run", "--ask", "refuse", "-C", d, *policy_args(name, default), "--", cmd],
                           capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
        head = ("bsh: " + guard if guard else
                "bsh: policy: denied: " if want == "deny" else "bsh: policy: approval needed: ")
        ok = p.returncode == 126 and p.stderr.startswith(head) \
            and p.stdout == "" and os.listdir(d) == []
        return ok, f"exit {p.returncode}\nstdout {p.stdout!r}\nstderr {p.stderr!r}\nleft {os.listdir(d)}"


class Mcp:
    """One `bsh mcp` per policy, in a scratch directory, as a client that
    cannot elicit."""

    def __init__(self, name, default):
        self.dir = tempfile.mkdtemp(prefix="bsh-table-mcp-")
        self.p = subprocess.Popen([bsh, "mcp", *policy_args(name, default)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                  cwd=self.dir)
        self.id = 0
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "table", "version": "1"}})

    def call(self, method, params):
        self.id += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.id, "method": method,
                                       "params": params}) + "\n")
        self.p.stdin.flush()
        while True:
            r, _, _ = select.select([self.p.stdout], [], [], 30)
            if not r:
                return None
            msg = json.loads(self.p.stdout.readline())
            if msg.get("id") == self.id:
                return msg

    def refuses(self, cmd, want, guard):
        msg = self.call("tools/call", {"name": "bash_run", "arguments": {"command": cmd}})
        res = (msg or {}).get("result", {})
        text = (res.get("content") or [{}])[0].get("text", "")
        head = guard if guard else ("policy: denied: " if want == "deny" else "policy: approval needed: ")
        ok = res.get("isError") is True and text.startswith(head) and os.listdir(self.dir) == []
        return ok, f"reply {json.dumps(msg)[:600]}\nleft {os.listdir(self.dir)}"

    def close(self):
        self.p.stdin.close()
        rc = self.p.wait(timeout=30)
        subprocess.run(["rm", "-rf", self.dir])
        return rc


def main():
    servers = {name: Mcp(name, default) for name, default in POLICIES}
    for cmd, wants, reason in rows():
        for (name, default), letter in zip(POLICIES, wants):
            want = LETTER[letter]
            rc, out, err = explain(cmd, name, default)
            what = f"{name}: {cmd!r} is {want}"
            try:
                v = json.loads(out)
            except ValueError:
                check(False, what, f"exit {rc}\nstdout {out!r}\nstderr {err!r}")
                continue
            got = v["decision"]
            detail = f"got {got} (exit {rc})\n" + "\n".join(
                f"{c['decision']} {c['via']} {c['words']} {c['reason'] or (c['rule'] or {}).get('line')}"
                for c in v["commands"])
            check(got == want and rc == STATUS[want], what, detail)
            if reason is not None and want != "allow":
                reasons = [c["reason"] for c in v["commands"] if c["reason"]]
                check(reason in reasons, f"{name}: {cmd!r}: opaque because {reason}", f"reasons {reasons}")
            if want != "allow" and got != "allow":
                ok, detail = run_refused(cmd, name, default, want, v["guard"])
                check(ok, f"{name}: bsh run refuses {cmd!r}, starts nothing", detail)
                ok, detail = servers[name].refuses(cmd, want, v["guard"])
                check(ok, f"{name}: bsh mcp refuses {cmd!r}, starts nothing", detail)
        # bsh check agrees with explain (one policy is enough per row)
        name, default = POLICIES[0]
        p = subprocess.run([bsh, "check", *policy_args(name, default), "--", cmd],
                           capture_output=True, text=True, timeout=30)
        check(p.returncode == STATUS[LETTER[wants[0]]], f"check: {cmd!r}", f"exit {p.returncode} {p.stdout!r}")
    for name, server in servers.items():
        check(server.close() == 0, f"{name}: bsh mcp ends with 0")
    print(f"1..{count}")
    if failed:
        print(f"# failed {failed} of {count}")
    return 1 if failed else 0


sys.exit(main())
