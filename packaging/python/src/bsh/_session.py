"""Sessions: shell state (working directory, variables, functions,
aliases, options) that persists from one run to the next, kept by bsh in a
session file (`bsh run --session FILE`)."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from types import TracebackType
from typing import AsyncIterator, Iterator, Mapping, Optional, Type

from ._binary import binary
from ._errors import RunError
from ._items import Item, Result, result_of
from ._run import PathLike, astream_argv, bsh_said, command_argv, stream_argv


class Session:
    """A shell whose state carries over: `cd`, `export`, functions and
    aliases of one run hold in the next. With no path, the session lives
    in a private temporary file removed by close(); with a path, it is kept
    there (made when missing) and other programs may use it too. Two runs
    of one session at once: the second is refused (RunError, busy).

        with bsh.Session() as s:
            s.run("cd /tmp && export GREETING=hi")
            print(s.run("echo $GREETING from $PWD").stdout)
    """

    def __init__(self, path: Optional[PathLike] = None) -> None:
        self._own_dir: Optional[str] = None
        if path is None:
            self._own_dir = tempfile.mkdtemp(prefix="bsh-session-")
            path = os.path.join(self._own_dir, "session")
        self.path = os.fspath(path)

    def _argv(self, command: str, timeout_ms: Optional[int], cwd: Optional[PathLike],
              env: Optional[Mapping[str, str]], pty: bool) -> list[str]:
        return command_argv(command, timeout_ms=timeout_ms, cwd=cwd, env=env, pty=pty,
                            session=self.path)

    def stream(self, command: str, *, timeout_ms: Optional[int] = None,
               cwd: Optional[PathLike] = None, env: Optional[Mapping[str, str]] = None,
               pty: bool = False) -> Iterator[Item]:
        """bsh.stream() in this session."""
        return stream_argv(self._argv(command, timeout_ms, cwd, env, pty))

    def run(self, command: str, *, timeout_ms: Optional[int] = None,
            cwd: Optional[PathLike] = None, env: Optional[Mapping[str, str]] = None,
            pty: bool = False) -> Result:
        """bsh.run() in this session."""
        return result_of(list(self.stream(command, timeout_ms=timeout_ms, cwd=cwd, env=env, pty=pty)))

    def astream(self, command: str, *, timeout_ms: Optional[int] = None,
                cwd: Optional[PathLike] = None, env: Optional[Mapping[str, str]] = None,
                pty: bool = False) -> AsyncIterator[Item]:
        """bsh.astream() in this session."""
        return astream_argv(self._argv(command, timeout_ms, cwd, env, pty))

    async def arun(self, command: str, *, timeout_ms: Optional[int] = None,
                   cwd: Optional[PathLike] = None, env: Optional[Mapping[str, str]] = None,
                   pty: bool = False) -> Result:
        """bsh.arun() in this session."""
        items = [i async for i in self.astream(command, timeout_ms=timeout_ms, cwd=cwd,
                                                env=env, pty=pty)]
        return result_of(items)

    def _session_command(self, action: str) -> str:
        done = subprocess.run([binary(), "session", action, self.path], stdin=subprocess.DEVNULL,
                              capture_output=True, check=False)
        if done.returncode != 0:
            raise RunError(bsh_said(done.stderr))
        return done.stdout.decode("utf-8", "replace")

    def show(self) -> str:
        """What the session holds, as `bsh session show` says it: its
        working directory and the names of its variables, functions and
        aliases."""
        return self._session_command("show")

    def reset(self) -> None:
        """Empties the session: the next run starts from a fresh shell."""
        self._session_command("reset")

    def close(self) -> None:
        """Removes the session's file, if this object made it."""
        if self._own_dir is not None:
            shutil.rmtree(self._own_dir, ignore_errors=True)
            self._own_dir = None

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        self.close()
