"""Where the bsh binary is, and the console scripts that run it."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from ._errors import BinaryNotFound

_BUNDLED = Path(__file__).resolve().parent / "_bin" / "bsh"


def binary() -> str:
    """The bsh binary to run: $BSH_BINARY when set, or the one in this
    package. Raises BinaryNotFound when it is missing or not executable."""
    chosen = os.environ.get("BSH_BINARY")
    path = Path(chosen) if chosen else _BUNDLED
    if not path.is_file():
        where = "$BSH_BINARY" if chosen else "this package"
        raise BinaryNotFound(f"no bsh binary at {path} ({where})")
    if not os.access(path, os.X_OK):
        raise BinaryNotFound(f"the bsh binary at {path} is not executable")
    return str(path)


def _exec(args: list[str]) -> None:
    try:
        path = binary()
    except BinaryNotFound as e:
        print(f"bsh: {e}", file=sys.stderr)
        sys.exit(127)
    os.execv(path, [path, *args])


def main_cli() -> None:
    """`bsh ARGS`: the command line."""
    _exec(sys.argv[1:])


def main_mcp() -> None:
    """`bsh-mcp ARGS`: `bsh mcp ARGS`, the MCP server on stdio."""
    _exec(["mcp", *sys.argv[1:]])
