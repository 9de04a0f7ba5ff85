"""Runs through `bsh run --json`: run() and stream(), and their asyncio
forms arun() and astream()."""
from __future__ import annotations

import asyncio
import os
import subprocess
import tempfile
from typing import AsyncIterator, Iterator, Mapping, Optional, Union

from ._binary import binary
from ._errors import GuardError, RunError, ServerDied
from ._items import Item, Result, parse_line, result_of

PathLike = Union[str, "os.PathLike[str]"]


def command_argv(
    command: str,
    *,
    timeout_ms: Optional[int] = None,
    cwd: Optional[PathLike] = None,
    env: Optional[Mapping[str, str]] = None,
    pty: bool = False,
    session: Optional[PathLike] = None,
) -> list[str]:
    """The bsh command line for one run; raises TypeError or ValueError for
    arguments bsh could not take."""
    if not isinstance(command, str):
        raise TypeError(f"command must be a str, not {type(command).__name__}")
    if "\0" in command:
        raise ValueError("command holds a NUL character, which no command line can carry")
    argv = [binary(), "run", "--json"]
    if timeout_ms is not None:
        if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int):
            raise TypeError(f"timeout_ms must be an int, not {type(timeout_ms).__name__}")
        if timeout_ms < 0:
            raise ValueError(f"timeout_ms must be 0 or more, not {timeout_ms}")
        argv += ["-t", str(timeout_ms)]
    if cwd is not None:
        argv += ["-C", os.fspath(cwd)]
    for name, value in (env or {}).items():
        if not isinstance(name, str) or not isinstance(value, str):
            raise TypeError("env must map str names to str values")
        argv += ["-e", f"{name}={value}"]
    if pty:
        argv.append("-p")
    if session is not None:
        argv += ["--session", os.fspath(session)]
    return argv + ["--", command]


def bsh_said(stderr: bytes) -> str:
    """What bsh wrote on stderr, without its "bsh: " prefix."""
    message = stderr.decode("utf-8", "replace").strip()
    return message[5:] if message.startswith("bsh: ") else message


def _ended_without_status(returncode: int, stderr: bytes) -> Exception:
    """Why a bsh process ended before its status item."""
    message = bsh_said(stderr)
    if returncode == 125:
        return RunError(message or "bsh could not run the command (exit status 125)")
    if returncode == 126:
        return GuardError(message or "a guard refused the command")
    how = f"signal {-returncode}" if returncode < 0 else f"exit status {returncode}"
    return ServerDied(f"bsh ended ({how}) before the run's status" + (f": {message}" if message else ""))


def stream_argv(argv: list[str]) -> Iterator[Item]:
    """The items of the run that bsh command line `argv` makes."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err)
        assert proc.stdout is not None
        ended = False
        try:
            for line in proc.stdout:
                item = parse_line(line)
                ended = item.is_status
                yield item
            returncode = proc.wait()
            if not ended:
                err.seek(0)
                raise _ended_without_status(returncode, err.read())
        finally:
            if proc.poll() is None:
                proc.terminate()  # bsh kills the command's whole group
                proc.wait()
            proc.stdout.close()


def stream(
    command: str,
    *,
    timeout_ms: Optional[int] = None,
    cwd: Optional[PathLike] = None,
    env: Optional[Mapping[str, str]] = None,
    pty: bool = False,
) -> Iterator[Item]:
    """The run's items as bsh reads them: chunks of stdout and stderr, then
    one status item. Options and errors as run(). Leaving the loop early
    kills the run (the whole process group)."""
    argv = command_argv(command, timeout_ms=timeout_ms, cwd=cwd, env=env, pty=pty)
    return stream_argv(argv)


def run(
    command: str,
    *,
    timeout_ms: Optional[int] = None,
    cwd: Optional[PathLike] = None,
    env: Optional[Mapping[str, str]] = None,
    pty: bool = False,
) -> Result:
    """Runs `bash -c command` through bsh and returns its result.

    timeout_ms: a deadline (the whole process group is killed when it
    passes; the result says timed_out). cwd: the working directory. env:
    variables added to the inherited environment. pty: run in a 24x80
    pseudo-terminal (stdout then holds everything; stderr is empty).

    Raises TypeError for a command that is not a str, GuardError when a
    tripwire refuses the command, RunError when bsh cannot run it,
    BinaryNotFound and ServerDied."""
    return result_of(list(stream(command, timeout_ms=timeout_ms, cwd=cwd, env=env, pty=pty)))


async def astream_argv(argv: list[str]) -> AsyncIterator[Item]:
    """stream_argv() for asyncio."""
    proc = await asyncio.create_subprocess_exec(
        *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, limit=1 << 20)
    assert proc.stdout is not None and proc.stderr is not None
    errors = asyncio.ensure_future(proc.stderr.read())
    ended = False
    try:
        async for line in proc.stdout:
            item = parse_line(line)
            ended = item.is_status
            yield item
        returncode = await proc.wait()
        if not ended:
            raise _ended_without_status(returncode, await errors)
    finally:
        if proc.returncode is None:
            proc.terminate()
            await proc.wait()
        if not errors.done():
            errors.cancel()


def astream(
    command: str,
    *,
    timeout_ms: Optional[int] = None,
    cwd: Optional[PathLike] = None,
    env: Optional[Mapping[str, str]] = None,
    pty: bool = False,
) -> AsyncIterator[Item]:
    """stream() for asyncio: `async for item in bsh.astream(...)`."""
    argv = command_argv(command, timeout_ms=timeout_ms, cwd=cwd, env=env, pty=pty)
    return astream_argv(argv)


async def arun(
    command: str,
    *,
    timeout_ms: Optional[int] = None,
    cwd: Optional[PathLike] = None,
    env: Optional[Mapping[str, str]] = None,
    pty: bool = False,
) -> Result:
    """run() for asyncio."""
    return result_of([i async for i in astream(command, timeout_ms=timeout_ms, cwd=cwd, env=env, pty=pty)])
