"""Through which interface the current work arrived (http, cli, mcp, admin, web, task).

A block's version history records it beside who made a change. The interfaces set it where a
request enters (the middleware below for every Django request, the MCP tool wrapper, a Celery
signal for tasks); everything else (management commands, shells) is `system`. A context
variable rather than a parameter: the services that write versions sit below six interfaces,
and threading one more argument through every operation would say nothing the entry point
does not already know.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

CHANNELS = ("http", "cli", "mcp", "admin", "web", "task", "system")
CLI_AGENT = "ctx-cli/"  # the CLI's User-Agent prefix (cli/ctx_cli/http.py)

_current: ContextVar[str] = ContextVar("ctx_channel", default="system")


def current() -> str:
    return _current.get()


@contextmanager
def using(name: str) -> Iterator[None]:
    """Run the block under the channel `name` and restore the previous one after."""
    assert name in CHANNELS, name
    token = _current.set(name)
    try:
        yield
    finally:
        _current.reset(token)


def of_request(path: str, user_agent: str) -> str:
    """The channel of a Django request: the API (the CLI when its agent says so), the admin,
    or the web UI."""
    if path.startswith("/api/"):
        return "cli" if user_agent.startswith(CLI_AGENT) else "http"
    if path.startswith("/admin/"):
        return "admin"
    return "web"


class ChannelMiddleware:
    """Marks every Django request with its channel for the duration of the request."""

    def __init__(self, get_response: Callable[[Any], Any]) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        name = of_request(request.path, request.headers.get("User-Agent", ""))
        with using(name):
            return self.get_response(request)


_task_tokens: dict[str, Any] = {}


def task_started(task_id: str | None = None, **_: Any) -> None:
    """Celery's task_prerun: the task's writes are the `task` channel's."""
    _task_tokens[str(task_id)] = _current.set("task")


def task_finished(task_id: str | None = None, **_: Any) -> None:
    """Celery's task_postrun: back to what ran before (an eager task inside a request)."""
    token = _task_tokens.pop(str(task_id), None)
    if token is not None:
        _current.reset(token)
