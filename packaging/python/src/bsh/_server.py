"""Held runs through bsh's MCP server (`bsh mcp`, JSON-RPC on stdio, or
`bsh mcp --listen` over HTTP): a run that goes on after the call that
started it, read, written to and killed by later calls."""
from __future__ import annotations

import asyncio
import http.client
import json
import subprocess
import tempfile
import threading
import urllib.parse
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Dict, List, Mapping, Optional, Type, Union

from ._binary import binary
from ._errors import Error, GuardError, RunError, ServerDied, ToolError

PROTOCOL_VERSION = "2025-06-18"


@dataclass(frozen=True)
class Reply:
    """A tool's answer: the text a model would read, and the structured
    fields (`state`: running, awaiting_input or exited; `exit_code`,
    `signal`, `timed_out`, `run_id`, ...)."""

    text: str
    structured: Dict[str, Any] = field(default_factory=dict)

    @property
    def state(self) -> Optional[str]:
        value = self.structured.get("state")
        return value if isinstance(value, str) else None

    @property
    def exit_code(self) -> Optional[int]:
        value = self.structured.get("exit_code")
        return value if isinstance(value, int) else None

    @property
    def running(self) -> bool:
        """Whether the run goes on (running or waiting for input)."""
        return self.state in ("running", "awaiting_input")


class _StdioLink:
    """`bsh mcp` as a child process: JSON-RPC lines on its stdin/stdout."""

    def __init__(self, args: List[str]) -> None:
        path = binary()
        self._stderr = tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen([path, "mcp", *args], stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=self._stderr)
        except BaseException:
            self._stderr.close()
            raise

    def died(self) -> ServerDied:
        try:  # its output ended: it is exiting, or has
            code: Optional[int] = self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # it talks no more: end it
            self._proc.kill()
            self._proc.wait()
            code = None
        self._stderr.seek(0)
        said = self._stderr.read().decode("utf-8", "replace").strip().splitlines()
        last = said[-1] if said else ""
        how = "is gone" if code is None else f"ended with status {code}"
        return ServerDied(f"the bsh MCP server {how}" + (f": {last}" if last else ""))

    def send(self, message: Mapping[str, Any]) -> None:
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(json.dumps(message).encode() + b"\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, ValueError) as e:
            raise self.died() from e

    def exchange(self, message: Mapping[str, Any]) -> Dict[str, Any]:
        """Sends a request; its answer (notifications are skipped)."""
        self.send(message)
        assert self._proc.stdout is not None
        while True:
            line = self._proc.stdout.readline()
            if not line:
                raise self.died()
            try:
                answer = json.loads(line)
            except ValueError as e:
                raise ServerDied(f"the bsh MCP server wrote a line that is not JSON: "
                                 f"{line[:200]!r}") from e
            if isinstance(answer, dict) and answer.get("id") == message["id"]:
                return answer

    def close(self) -> None:
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            try:
                self._proc.stdin.close()
            except BrokenPipeError:
                pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        if self._proc.stdout is not None:
            self._proc.stdout.close()
        self._stderr.close()


class _HttpLink:
    """A `bsh mcp --listen` server: one keep-alive connection and one MCP
    session (its Mcp-Session-Id), answers as JSON or as an event stream."""

    def __init__(self, url: str, token: Optional[str]) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"url must be http://HOST:PORT/mcp, not {url!r}")
        self._url = url
        self._path = parts.path or "/mcp"
        self._conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=None)
        self._headers = {"Content-Type": "application/json",
                         "Accept": "application/json, text/event-stream"}
        if token is not None:
            self._headers["Authorization"] = f"Bearer {token}"

    def died(self, why: str = "closed the connection") -> ServerDied:
        return ServerDied(f"the bsh MCP server at {self._url} {why}")

    def _post(self, message: Mapping[str, Any]) -> http.client.HTTPResponse:
        try:
            self._conn.request("POST", self._path, json.dumps(message), self._headers)
            response = self._conn.getresponse()
        except (OSError, http.client.HTTPException) as e:
            raise self.died(f"cannot be reached: {e}") from e
        session = response.getheader("Mcp-Session-Id")
        if session:
            self._headers["Mcp-Session-Id"] = session
        return response

    def send(self, message: Mapping[str, Any]) -> None:
        response = self._post(message)
        response.read()
        if response.status != 202:
            raise self.died(f"refused a notification (HTTP {response.status})")

    def exchange(self, message: Mapping[str, Any]) -> Dict[str, Any]:
        response = self._post(message)
        body = response.read().decode("utf-8", "replace")
        if response.getheader("Content-Type", "").startswith("text/event-stream"):
            for line in body.split("\n"):
                if line.startswith("data:"):
                    answer = json.loads(line[5:])
                    if isinstance(answer, dict) and answer.get("id") == message["id"]:
                        return answer
            raise self.died("ended an event stream without the answer")
        try:
            answer = json.loads(body)
        except ValueError:
            raise self.died(f"answered HTTP {response.status}: {body[:200]!r}") from None
        if response.status != 200 and "error" not in answer:
            raise self.died(f"answered HTTP {response.status}: {body[:200]!r}")
        return dict(answer)

    def close(self) -> None:
        try:  # ends the MCP session: its runs are killed
            if "Mcp-Session-Id" in self._headers:
                self._conn.request("DELETE", self._path, headers=self._headers)
                self._conn.getresponse().read()
        except (OSError, http.client.HTTPException):
            pass
        self._conn.close()


class Server:
    """A `bsh mcp` process and the calls made to it, one at a time (a lock
    keeps threads apart). Its runs end when it is closed. Given `url`, it
    is a `bsh mcp --listen` server reached over HTTP instead (with `token`
    when it asks for one), and closing ends this client's MCP session.

        with bsh.Server() as server:
            run = server.start("for i in 1 2 3; do echo $i; sleep 1; done")
            while not run.ended:
                print(run.output(wait_ms=1000).text)

        with bsh.Server(url="http://127.0.0.1:8080/mcp", token=t) as server:
            print(server.call("bash_run", {"command": "uname -a"}).text)
    """

    def __init__(self, *args: str, url: Optional[str] = None,
                 token: Optional[str] = None) -> None:
        if url is not None and args:
            raise ValueError("a server reached by url takes no options")
        self._link: Union[_StdioLink, _HttpLink] = (
            _HttpLink(url, token) if url is not None else _StdioLink(list(args)))
        self._next_id = 0
        self._lock = threading.Lock()
        try:
            self._request("initialize", {"protocolVersion": PROTOCOL_VERSION, "capabilities": {},
                                         "clientInfo": {"name": "bsh-python", "version": "1"}})
            self._link.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        except BaseException:
            self.close()
            raise

    def _request(self, method: str, params: Mapping[str, Any]) -> Dict[str, Any]:
        with self._lock:
            self._next_id += 1
            message = self._link.exchange({"jsonrpc": "2.0", "id": self._next_id,
                                           "method": method, "params": params})
        if "error" in message:
            error = message["error"]
            raise ToolError(str(error.get("message", error)) if isinstance(error, dict)
                            else str(error))
        result = message.get("result")
        if not isinstance(result, dict):
            raise ServerDied(f"the bsh MCP server answered without a result: {message!r:.200}")
        return result

    def call(self, tool: str, arguments: Mapping[str, Any]) -> Reply:
        """Calls one tool; a tool error raises ToolError with its text."""
        result = self._request("tools/call", {"name": tool, "arguments": dict(arguments)})
        text = "".join(c.get("text", "") for c in result.get("content", []))
        structured = dict(result.get("structuredContent") or {})
        # A failed command is a reply (isError, with its status); a call
        # the server refused says why in `error`.
        if result.get("isError") and ("error" in structured or not structured):
            raise ToolError(text, structured)
        return Reply(text, structured)

    def start(self, command: str, *, stdin: bool = False, timeout_ms: Optional[int] = None,
              cwd: Optional[str] = None, env: Optional[Mapping[str, str]] = None,
              session: Optional[str] = None, yield_ms: int = 0) -> "HeldRun":
        """Starts a run and returns at once (or after yield_ms): a HeldRun
        to read, write to and kill. stdin=True keeps a pipe-mode run's
        stdin open for write()."""
        if not isinstance(command, str):
            raise TypeError(f"command must be a str, not {type(command).__name__}")
        args: Dict[str, Any] = {"command": command, "yield_ms": yield_ms}
        if env is not None:
            args["env"] = dict(env)
        for name, value in (("timeout_ms", timeout_ms), ("cwd", cwd), ("session", session)):
            if value is not None:
                args[name] = value
        if stdin:
            args["stdin"] = True
        try:
            reply = self.call("bash_run", args)
        except ToolError as e:
            raise self._refusal(command, e) from None
        run_id = reply.structured.get("run_id")
        return HeldRun(self, run_id if isinstance(run_id, str) else None, reply)

    @staticmethod
    def _refusal(command: str, e: ToolError) -> Error:
        """What a refused bash_run is: a guard's (bsh check says so), a run
        that could not start (it has a state), or a refused call."""
        if e.structured.get("state") == "exited":
            return RunError(str(e.structured.get("error", e)))
        checked = subprocess.run([binary(), "check", "--json", "--", command],
                                 stdin=subprocess.DEVNULL, capture_output=True, check=False)
        if checked.returncode == 1:
            return GuardError(str(e.structured.get("error", e)))
        return e

    def runs(self) -> List[Dict[str, Any]]:
        """The runs the server holds (bash_list)."""
        listed = self.call("bash_list", {}).structured.get("runs", [])
        return list(listed) if isinstance(listed, list) else []

    def close(self) -> None:
        """Ends the server (over HTTP: this client's MCP session): its runs
        are killed, their processes reaped."""
        self._link.close()

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        self.close()


class HeldRun:
    """A run the server holds. `last` is the latest reply. Once a reply
    says the run exited, the server has let it go: output(), write() and
    kill() then return that last reply."""

    def __init__(self, server: Server, run_id: Optional[str], reply: Reply) -> None:
        self.server = server
        self.id = run_id
        self.last = reply

    @property
    def ended(self) -> bool:
        """Whether the run's end has been read: further calls return it."""
        return self.id is None or not self.last.running

    def _call(self, tool: str, arguments: Dict[str, Any]) -> Reply:
        if self.ended:
            return self.last
        self.last = self.server.call(tool, {"run_id": self.id, **arguments})
        return self.last

    def output(self, wait_ms: int = 0) -> Reply:
        """The output since the last read, after waiting up to wait_ms for
        the run to end or to wait for input."""
        return self._call("bash_output", {"wait_ms": wait_ms})

    def write(self, text: str, *, close_stdin: bool = False) -> Reply:
        """Writes text to the run's stdin (typed, in a PTY run)."""
        return self._call("bash_write", {"input": text, "close_stdin": close_stdin})

    def kill(self, signal: Union[str, int] = "KILL") -> Reply:
        """Sends a signal (a name like "INT", or a number) to the whole run."""
        return self._call("bash_kill", {"signal": signal})


class AsyncHeldRun:
    """HeldRun for asyncio: each call runs in a worker thread."""

    def __init__(self, run: HeldRun) -> None:
        self.run = run

    @property
    def id(self) -> Optional[str]:
        return self.run.id

    @property
    def last(self) -> Reply:
        return self.run.last

    @property
    def ended(self) -> bool:
        return self.run.ended

    async def output(self, wait_ms: int = 0) -> Reply:
        return await asyncio.to_thread(self.run.output, wait_ms)

    async def write(self, text: str, *, close_stdin: bool = False) -> Reply:
        return await asyncio.to_thread(lambda: self.run.write(text, close_stdin=close_stdin))

    async def kill(self, signal: Union[str, int] = "KILL") -> Reply:
        return await asyncio.to_thread(self.run.kill, signal)


class AsyncServer:
    """Server for asyncio: each call runs in a worker thread, so the event
    loop never waits on the server."""

    def __init__(self, server: Server) -> None:
        self.server = server

    @classmethod
    async def open(cls, *args: str, url: Optional[str] = None,
                   token: Optional[str] = None) -> "AsyncServer":
        return cls(await asyncio.to_thread(lambda: Server(*args, url=url, token=token)))

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> Reply:
        return await asyncio.to_thread(self.server.call, tool, arguments)

    async def start(self, command: str, *, stdin: bool = False,
                    timeout_ms: Optional[int] = None, cwd: Optional[str] = None,
                    env: Optional[Mapping[str, str]] = None, session: Optional[str] = None,
                    yield_ms: int = 0) -> AsyncHeldRun:
        run = await asyncio.to_thread(lambda: self.server.start(
            command, stdin=stdin, timeout_ms=timeout_ms, cwd=cwd, env=env, session=session,
            yield_ms=yield_ms))
        return AsyncHeldRun(run)

    async def close(self) -> None:
        await asyncio.to_thread(self.server.close)

    async def __aenter__(self) -> "AsyncServer":
        return self

    async def __aexit__(self, kind: Optional[Type[BaseException]],
                        value: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        await self.close()
