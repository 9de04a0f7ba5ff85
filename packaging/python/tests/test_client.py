"""The client as installed from the wheel (run by tests/package/test_wheel.sh
in a fresh venv): runs, streams, asyncio, sessions, held runs, and the
errors bad input and a dying bsh give."""
from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

import bsh


def test_the_wheel_carries_an_executable_static_binary() -> None:
    path = Path(bsh.binary())
    assert "site-packages" in str(path), path
    assert path.stat().st_mode & stat.S_IXUSR
    with open(path, "rb") as f:
        assert f.read(4) == b"\x7fELF"


def test_run_gives_bytes_and_the_exit_code() -> None:
    r = bsh.run("printf 'out\\0\\377'; echo err >&2; exit 3")
    assert r == bsh.Result(exit_code=3, signal=None, stdout=b"out\0\xff", stderr=b"err\n",
                           timed_out=False)
    assert not r.ok


def test_a_timeout_kills_the_group_and_says_so(tmp_path: Path) -> None:
    t0 = time.monotonic()
    r = bsh.run(f"(sleep 30; touch {tmp_path}/late) & sleep 30", timeout_ms=300)
    assert r.timed_out and r.exit_code is None and r.signal is None
    assert time.monotonic() - t0 < 10
    time.sleep(0.2)
    assert not (tmp_path / "late").exists()


def test_a_signal_is_the_signal() -> None:
    r = bsh.run("kill -KILL $$")
    assert (r.exit_code, r.signal, r.timed_out) == (None, 9, False)


def test_cwd_env_and_pty(tmp_path: Path) -> None:
    r = bsh.run('echo "$PWD $GREETING"', cwd=tmp_path, env={"GREETING": "hi"})
    assert r.stdout == f"{tmp_path} hi\n".encode()
    r = bsh.run("[ -t 1 ] && echo tty", pty=True)
    assert r.stdout.strip() == b"tty" and r.exit_code == 0


def test_stream_yields_chunks_then_one_status() -> None:
    items = list(bsh.stream("echo a; echo b >&2; exit 4"))
    assert items[-1].is_status and items[-1].exit_code == 4
    assert all(not i.is_status for i in items[:-1])
    assert b"".join(i.stdout for i in items) == b"a\n"
    assert b"".join(i.stderr for i in items) == b"b\n"


def test_leaving_a_stream_early_kills_the_run(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    for item in bsh.stream(f"echo $$ > {pidfile}; echo go; sleep 30"):
        assert item.stdout == b"go\n"
        break
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"the run's shell {pid} still lives")


def test_asyncio_forms() -> None:
    async def both() -> tuple[bsh.Result, list[bsh.Item]]:
        r = await bsh.arun("echo async; exit 2")
        items = [i async for i in bsh.astream("echo streamed")]
        return r, items

    r, items = asyncio.run(both())
    assert r.stdout == b"async\n" and r.exit_code == 2
    assert items[0].stdout == b"streamed\n" and items[-1].exit_code == 0


def test_runs_in_parallel_with_asyncio() -> None:
    async def many() -> list[bsh.Result]:
        return list(await asyncio.gather(*(bsh.arun(f"sleep 0.3; echo {i}") for i in range(8))))

    t0 = time.monotonic()
    results = asyncio.run(many())
    assert [r.stdout for r in results] == [f"{i}\n".encode() for i in range(8)]
    assert time.monotonic() - t0 < 2.4  # not one after another


def test_a_session_keeps_the_shell_state(tmp_path: Path) -> None:
    with bsh.Session() as s:
        s.run(f"cd {tmp_path} && export GREETING=hi && shout() {{ echo \"$1!\"; }}")
        r = s.run('echo "$GREETING $PWD"; shout hey')
        assert r.stdout == f"hi {tmp_path}\nhey!\n".encode()
        assert "GREETING" in s.show()
        s.reset()
        assert s.run('echo "[$GREETING]"').stdout == b"[]\n"
        assert asyncio.run(s.arun("echo in-session")).stdout == b"in-session\n"
        path = s.path
    assert not os.path.exists(path)


def test_held_runs_through_the_mcp_server() -> None:
    with bsh.Server() as server:
        run = server.start("read name; echo hello $name", stdin=True)
        assert run.id is not None and run.last.running
        text = run.write("world\n", close_stdin=True).text
        while not run.ended:
            text += run.output(wait_ms=5000).text
        assert "hello world" in text
        assert run.last.state == "exited" and run.last.exit_code == 0
        assert run.output() is run.last
        long = server.start("sleep 600")
        killed = long.kill("TERM")
        while killed.running:
            killed = long.output(wait_ms=5000)
        assert killed.structured.get("signal") == 15
        with pytest.raises(bsh.ToolError, match="no run"):
            server.call("bash_output", {"run_id": "r999"})


def test_async_server_never_holds_up_the_event_loop() -> None:
    async def go() -> tuple[bsh.Reply, int]:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.05)
                ticks += 1

        task = asyncio.ensure_future(ticker())
        async with await bsh.AsyncServer.open() as server:
            run = await server.start("sleep 1; echo from-async")
            reply = await run.output(wait_ms=5000)
            while not run.ended:
                reply = await run.output(wait_ms=5000)
        task.cancel()
        return reply, ticks

    reply, ticks = asyncio.run(go())
    assert "from-async" in reply.text and reply.exit_code == 0
    assert ticks >= 10, f"the loop ticked {ticks} times in a 1 s wait"


def test_the_server_types_its_refusals_as_run_does(tmp_path: Path) -> None:
    with bsh.Server() as server:
        with pytest.raises(bsh.GuardError, match="Pattern match"):
            server.start("rm -rf /")
        with pytest.raises(bsh.RunError, match="working directory"):
            server.start("true", cwd=str(tmp_path / "none"))
        with pytest.raises(bsh.ToolError, match="env"):
            server.start("true", env={"1X": "y"})


def test_a_command_that_is_not_a_string_is_a_type_error() -> None:
    for bad in (b"echo", None, 42, ["echo", "x"]):
        with pytest.raises(TypeError, match="command must be a str"):
            bsh.run(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        bsh.stream(b"echo")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        bsh.run("true", timeout_ms="10")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        bsh.run("echo \0")


def test_a_guard_refusal_is_a_guard_error(tmp_path: Path) -> None:
    with pytest.raises(bsh.GuardError, match="Pattern match"):
        bsh.run("rm -rf /")
    assert isinstance(bsh.GuardError("x"), bsh.Error)


def test_a_bad_working_directory_is_a_run_error() -> None:
    with pytest.raises(bsh.RunError, match="working directory"):
        bsh.run("true", cwd="/no/such/dir")
    with pytest.raises(bsh.RunError, match="env"):
        bsh.run("true", env={"1BAD": "x"})


def test_a_missing_binary_is_binary_not_found(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BSH_BINARY", str(tmp_path / "nothing"))
    with pytest.raises(bsh.BinaryNotFound, match="no bsh binary"):
        bsh.run("true")
    with pytest.raises(bsh.BinaryNotFound):
        bsh.Server()


def fake_bsh(tmp_path: Path, body: str) -> str:
    script = tmp_path / "fake-bsh"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)
    return str(script)


def test_a_bsh_that_dies_mid_run_is_server_died(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    chunk = '{"stdout":"aGk=","stderr":"","exit_code":null,"signal":null,"truncated":false}'
    monkeypatch.setenv("BSH_BINARY", fake_bsh(tmp_path, f"echo '{chunk}'; kill -9 $$"))
    with pytest.raises(bsh.ServerDied, match="signal 9"):
        bsh.run("echo hi")
    items = []
    with pytest.raises(bsh.ServerDied):
        for item in bsh.stream("echo hi"):
            items.append(item)
    assert items[0].stdout == b"hi"


def test_an_mcp_server_that_dies_is_server_died(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    monkeypatch.setenv("BSH_BINARY", fake_bsh(tmp_path, "echo 'bsh mcp: cannot start' >&2; exit 125"))
    with pytest.raises(bsh.ServerDied, match="status 125: bsh mcp: cannot start"):
        bsh.Server()


def test_a_server_killed_under_a_call_is_server_died() -> None:
    with bsh.Server() as server:
        server._link._proc.kill()  # type: ignore[union-attr]  # as an OOM killer would
        with pytest.raises(bsh.ServerDied):
            server.start("echo never")


def test_console_scripts(tmp_path: Path) -> None:
    bindir = Path(sys.executable).parent
    assert os.system(f"{bindir}/bsh run 'exit 6' >/dev/null 2>&1") >> 8 == 6
    assert os.system(f"{bindir}/bsh-mcp --bad-option >/dev/null 2>&1") >> 8 == 125


def listening_server(*args: str) -> "tuple[subprocess.Popen[str], str]":
    """`bsh mcp --listen 127.0.0.1:0` and its /mcp URL."""
    proc = subprocess.Popen([bsh.binary(), "mcp", "--listen", "127.0.0.1:0", *args],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    line = proc.stderr.readline()
    url = line.split(" on ")[1].split(" ")[0]
    return proc, url


def test_a_server_over_http(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens"
    tokens.write_text("secret-1\n")
    tokens.chmod(0o600)
    proc, url = listening_server("--token-file", str(tokens), "--instance", "py")
    try:
        with bsh.Server(url=url, token="secret-1") as server:
            assert server.call("bash_run", {"command": "echo over-http"}).text == "over-http\n"
            run = server.start("sleep 0.3; echo held")
            assert run.id is not None and run.id.endswith("@py")
            assert run.output(wait_ms=5000).structured["stdout"] == "held\n"
            with pytest.raises(bsh.ToolError, match="instance 'other'"):
                server.call("bash_output", {"run_id": "r1@other"})
        with pytest.raises(bsh.ServerDied, match="HTTP 401"):
            bsh.Server(url=url, token="wrong")
    finally:
        proc.terminate()
        assert proc.wait(timeout=15) == 0
