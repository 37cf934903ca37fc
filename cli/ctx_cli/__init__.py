"""The `ctx` command-line client: speaks to a ctx server over HTTP and imports no server code.

It runs inside agent hooks and the status line on every event, so start-up time matters:
modules import rich, the HTTP client (ctx_cli.wire, on http.client) and httpx lazily, only on
the paths that use them.
"""

from __future__ import annotations

__version__ = "0.1.0"  # the server reports its own (ctx.__version__); they move together

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
SERVER_MAX_BATCH = 500  # POST /api/store/batch takes at most this many blocks


class CliError(Exception):
    """A failure the user can act on; printed as `error: <message> (<code>)` on stderr."""

    def __init__(
        self, message: str, *, code: str | None = None, exit_code: int = EXIT_ERROR
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.exit_code = exit_code

    def __str__(self) -> str:
        return f"{self.message} ({self.code})" if self.code else self.message


class UsageError(CliError):
    """Arguments that parse but make no sense together; exit code 2 like argparse's own."""

    def __init__(self, message: str) -> None:
        super().__init__(message, exit_code=EXIT_USAGE)
