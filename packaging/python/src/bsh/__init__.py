"""bsh: run shell commands the way an agent or a CI runner must.

bsh runs `bash -c COMMAND` after checking it against tripwires for
destructive commands, streams every byte, enforces a deadline, contains
every process the command starts, and ends every run with one status.
This package carries the static bsh binary and a typed client:

    import bsh

    r = bsh.run("make test", timeout_ms=600_000, cwd="/src")
    print(r.exit_code, r.timed_out, r.stdout.decode())

    for item in bsh.stream("for i in 1 2 3; do echo $i; sleep 1; done"):
        print(item)

    r = await bsh.arun("ls -la")                   # asyncio
    async for item in bsh.astream("ping -c 3 ::1"):
        ...

    with bsh.Session() as s:                       # state that persists
        s.run("cd /tmp && export X=1")
        s.run("echo $X in $PWD")

    with bsh.Server() as server:                   # held runs (bsh mcp)
        run = server.start("sleep 5; echo done")
        print(run.output(wait_ms=10_000).text)

    with bsh.Server(url="http://127.0.0.1:8080/mcp", token=t) as server:
        ...                                        # bsh mcp --listen, over HTTP
"""
from ._binary import binary
from ._errors import BinaryNotFound, Error, GuardError, RunError, ServerDied, ToolError
from ._items import TIMEOUT_SIGNAL, Item, Result
from ._run import arun, astream, run, stream
from ._server import AsyncHeldRun, AsyncServer, HeldRun, Reply, Server
from ._session import Session

__all__ = [
    "AsyncHeldRun", "AsyncServer", "BinaryNotFound", "Error", "GuardError", "HeldRun", "Item", "Reply",
    "Result", "RunError", "ServerDied", "Session", "Server", "TIMEOUT_SIGNAL", "ToolError",
    "arun", "astream", "binary", "run", "stream",
]
