"""A program that uses the client, checked with mypy --strict against the
installed package (its py.typed): the types a user's checker sees."""
import asyncio

import bsh


def main() -> int:
    r: bsh.Result = bsh.run("echo typed", timeout_ms=1000, env={"A": "b"})
    code: int | None = r.exit_code
    out: bytes = r.stdout
    for item in bsh.stream("echo x"):
        flag: bool = item.is_status
    a: bsh.Result = asyncio.run(bsh.arun("true"))
    with bsh.Session() as s:
        s.run("cd /")
    with bsh.Server() as server:
        held: bsh.HeldRun = server.start("sleep 1")
        reply: bsh.Reply = held.kill()
    return 0 if code == 0 and out and a.ok and not reply.running and flag else 1


if __name__ == "__main__":
    raise SystemExit(main())
