"""The exceptions the client raises: every one is a bsh.Error."""


class Error(Exception):
    """Anything bsh itself reports (not the command's own failure, which
    is its exit code)."""


class BinaryNotFound(Error):
    """No bsh binary to run: not in the wheel, not at $BSH_BINARY."""


class GuardError(Error):
    """A tripwire refused the command before it ran (bsh exit status 126)."""


class RunError(Error):
    """bsh could not run the command, or its output stream failed (a bad
    working directory, a bad environment name, a failed spawn: bsh exit
    status 125)."""


class ToolError(Error):
    """The MCP server answered a tool call with an error (an unknown run
    id, a bad argument); the message is the server's, `structured` its
    structured result."""

    def __init__(self, message: str, structured: "dict[str, object] | None" = None) -> None:
        super().__init__(message)
        self.structured = structured or {}


class ServerDied(Error):
    """The bsh process (the CLI or the MCP server) ended before it said how
    the run ended."""
