"""The items of a run, as `bsh run --json` writes them, and a run's result."""
from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Optional

from ._errors import Error, GuardError, RunError

TIMEOUT_SIGNAL = -1
"""The signal a status item carries when the run's deadline passed."""


@dataclass(frozen=True)
class Item:
    """One item of a run's stream: a chunk of stdout or of stderr, or the
    status that ends it (exactly one of exit_code and signal; signal -1
    for a timeout). `truncated` is True when a chunk filled bsh's 4096-byte
    read: more may follow at once."""

    stdout: bytes
    stderr: bytes
    exit_code: Optional[int]
    signal: Optional[int]
    truncated: bool

    @property
    def is_status(self) -> bool:
        """Whether this is the run's last item, its status."""
        return self.exit_code is not None or self.signal is not None


@dataclass(frozen=True)
class Result:
    """A whole run: its output, and how it ended. `signal` is the signal
    that killed the command (None when it exited or timed out)."""

    exit_code: Optional[int]
    signal: Optional[int]
    stdout: bytes
    stderr: bytes
    timed_out: bool

    @property
    def ok(self) -> bool:
        """Whether the command exited with status 0."""
        return self.exit_code == 0


def parse_line(line: bytes) -> Item:
    """One line of `bsh run --json`; raises GuardError or RunError for the
    error lines."""
    try:
        obj = json.loads(line)
    except ValueError as e:
        raise Error(f"bsh wrote a line that is not JSON: {line[:200]!r}") from e
    if "error" in obj:
        message = str(obj["error"])
        if obj.get("stage") == "guard":
            raise GuardError(message)
        raise RunError(message)
    return Item(
        stdout=base64.b64decode(obj["stdout"]),
        stderr=base64.b64decode(obj["stderr"]),
        exit_code=obj["exit_code"],
        signal=obj["signal"],
        truncated=bool(obj["truncated"]),
    )


def result_of(items: list[Item]) -> Result:
    """The result of a run whose last item is its status."""
    status = items[-1]
    timed_out = status.signal == TIMEOUT_SIGNAL
    return Result(
        exit_code=status.exit_code,
        signal=None if timed_out else status.signal,
        stdout=b"".join(i.stdout for i in items),
        stderr=b"".join(i.stderr for i in items),
        timed_out=timed_out,
    )
