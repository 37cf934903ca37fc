"""`ctx mcp-stdio`: an MCP server on stdin/stdout that forwards to the ctx server's `/mcp`.

For MCP clients that only start local processes. The server's `/mcp` is stateless Streamable
HTTP with JSON answers (docs/mcp.md): every JSON-RPC message is one self-contained POST. So
the bridge relays each line read from stdin as one POST, with the configured API key as the
bearer, and writes the answer back as one line. Tool names, schemas, annotations and results
come from the server unchanged: there is no copy here to go stale, and no mcp SDK, Django or
torch import on the way (the bridge starts as fast as any other command). The exception is
the local tools (`ctx_cli.sandbox.local_tools`: execute, execute_file, batch_execute,
fetch_and_index; index and stats extended), which run on this machine and are answered here;
`--no-local` makes the bridge a pure relay.

Failures the server cannot report itself (unreachable, key refused, not JSON) become JSON-RPC
errors for the request that caused them, and a line on stderr for the client's log.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any

from ctx_cli import CliError, __version__
from ctx_cli.commands import NO_KEY, App
from ctx_cli.http import _httpx, _reason

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
BRIDGE_ERROR = -32000  # implementation-defined server error range of JSON-RPC 2.0
READ_TIMEOUT = 300.0  # Claude's own tool-call limit; a query with synthesis may take a while
ACCEPT = "application/json, text/event-stream"
HANDSHAKE_VERSION = "2025-11-25"  # the legacy (initialize) wire the server speaks (docs/mcp.md)


def _error(msg_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}


def _server_message(body: bytes) -> str | None:
    """The message of an error envelope or a JSON-RPC error in `body`, if it is one."""
    try:
        data = json.loads(body)
    except ValueError:
        return None
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict) and error.get("message"):
        return str(error["message"])
    return None


def _sse_messages(body: bytes) -> list[Any]:
    """The JSON payloads of a `text/event-stream` answer (servers may stream instead of JSON)."""
    out = []
    for event in body.decode("utf-8", "replace").split("\n\n"):
        data = "\n".join(
            line[5:].lstrip() for line in event.splitlines() if line.startswith("data:")
        )
        if data.strip():
            out.append(json.loads(data))
    return out


class Bridge:
    def __init__(self, base_url: str, key: str, *, timeout: float = READ_TIMEOUT) -> None:
        httpx = _httpx()
        self.url = base_url.rstrip("/") + "/mcp"
        self._http = httpx.Client(
            headers={"Authorization": f"Bearer {key}", "Accept": ACCEPT},
            timeout=httpx.Timeout(timeout, connect=min(timeout, 5.0)),
            verify=base_url.startswith("https://"),
        )
        self._transport_errors: tuple[type[Exception], ...] = (httpx.TransportError,)
        self._timeouts: tuple[type[Exception], ...] = (httpx.TimeoutException,)
        self.protocol_version: str | None = None  # negotiated by initialize; sent on later POSTs
        self.log_errors = True
        self.local: Any = None  # ctx_cli.sandbox.local_tools.LocalTools, when enabled
        self.local_names: frozenset[str] = frozenset()
        self._relay_ids = 0

    def handle(self, line: bytes) -> list[Any]:
        """The messages to write back for one line read from the client (none for a
        notification the server accepted)."""
        try:
            message = json.loads(line)
        except ValueError:
            return [_error(None, PARSE_ERROR, "Parse error: not JSON")]
        if not isinstance(message, dict):
            return [_error(None, INVALID_REQUEST, "Invalid request: batches are not supported")]
        msg_id = message.get("id") if "method" in message else None
        local = self._local_call(message)
        if local is not None:
            return [{"jsonrpc": "2.0", "id": msg_id, "result": local}]
        answers = self._forward(msg_id, line)
        self._note_version(message, answers)
        if self.local is not None and message.get("method") == "tools/list":
            self._add_local_tools(message, answers)
        return answers

    def _forward(self, msg_id: Any, line: bytes) -> list[Any]:
        try:
            status, ctype, body = self._post(line)
        except CliError as exc:
            return self._fail(msg_id, exc.message)
        return self._answers(msg_id, status, ctype, body)

    def _local_call(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """The result of a `tools/call` of a local tool (ctx_cli.sandbox), else None."""
        if self.local is None or message.get("method") != "tools/call":
            return None
        params = message.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        if not isinstance(params, dict) or name not in self.local_names:
            return None
        result: dict[str, Any] = self.local.call(name, params.get("arguments"))
        return result

    def _add_local_tools(self, message: dict[str, Any], answers: list[Any]) -> None:
        if (message.get("params") or {}).get("cursor"):
            return  # later pages: the local tools came with the first
        for answer in answers:
            result = answer.get("result") if isinstance(answer, dict) else None
            if isinstance(result, dict) and isinstance(result.get("tools"), list):
                result["tools"] = self.local.extend(result["tools"])

    def relay_call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The server's result for a `tools/call` made by a local tool (`index`, `stats`)."""
        self._relay_ids += 1
        msg_id = f"ctx-bridge-{self._relay_ids}"
        call = {"name": name, "arguments": arguments}
        line = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "tools/call", "params": call})
        for answer in self._forward(msg_id, line.encode()):
            if isinstance(answer, dict) and answer.get("id") == msg_id:
                result = answer.get("result")
                if isinstance(result, dict):
                    return result
                raise CliError(str((answer.get("error") or {}).get("message") or "no result"))
        raise CliError(f"no answer from {self.url} for {name}")

    def _post(self, line: bytes) -> tuple[int, str, bytes]:
        headers = {"Content-Type": "application/json"}
        if self.protocol_version:
            headers["MCP-Protocol-Version"] = self.protocol_version
        for attempt in (1, 2):  # one retry on a dropped keep-alive, never after a timeout
            try:
                resp = self._http.post(self.url, content=line, headers=headers)
                return resp.status_code, resp.headers.get("content-type", ""), resp.content
            except self._transport_errors as exc:
                if attempt == 2 or isinstance(exc, self._timeouts):
                    raise CliError(f"cannot reach ctx at {self.url}: {_reason(exc)}") from exc
        raise AssertionError("unreachable")

    def _answers(self, msg_id: Any, status: int, ctype: str, body: bytes) -> list[Any]:
        if status in (401, 403) and not _is_jsonrpc(body):
            detail = _server_message(body) or f"HTTP {status}"
            return self._fail(
                msg_id,
                f"ctx at {self.url} refused the API key ({detail}): check CTX_KEY or run "
                "`ctx init`",
            )
        if not body.strip():
            return []  # 202: a notification or a response the server accepted
        try:
            if ctype.startswith("text/event-stream"):
                return _sse_messages(body)
            return [json.loads(body)]
        except ValueError:
            return self._fail(msg_id, f"unexpected answer from {self.url} (HTTP {status})")

    def _fail(self, msg_id: Any, message: str) -> list[Any]:
        if self.log_errors:
            sys.stderr.write(f"ctx mcp-stdio: error: {message}\n")
            sys.stderr.flush()
        return [] if msg_id is None else [_error(msg_id, BRIDGE_ERROR, message)]

    def _note_version(self, message: dict[str, Any], answers: list[Any]) -> None:
        if message.get("method") != "initialize":
            return
        for answer in answers:
            result = answer.get("result") if isinstance(answer, dict) else None
            if isinstance(result, dict) and result.get("protocolVersion"):
                self.protocol_version = str(result["protocolVersion"])

    def close(self) -> None:
        self._http.close()


def server_info(base_url: str, key: str, *, timeout: float) -> dict[str, Any]:
    """The server's `serverInfo` (name, version) from an MCP handshake; CliError if none."""
    bridge = Bridge(base_url, key, timeout=timeout)
    bridge.log_errors = False
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": HANDSHAKE_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "ctx-cli", "version": __version__},
        },
    }
    try:
        (answer,) = bridge.handle(json.dumps(hello).encode()) or [{}]
    finally:
        bridge.close()
    info = (answer.get("result") or {}).get("serverInfo")
    if not isinstance(info, dict):
        error = answer.get("error") or {}
        raise CliError(str(error.get("message") or "no serverInfo in the MCP handshake"))
    return info


def _is_jsonrpc(body: bytes) -> bool:
    try:
        data = json.loads(body)
    except ValueError:
        return False
    return isinstance(data, dict) and data.get("jsonrpc") == "2.0"


def serve(bridge: Bridge, stdin: IO[bytes], stdout: IO[bytes]) -> None:
    """Relay until the client closes stdin. One message at a time: answers stay in order."""
    for line in iter(stdin.readline, b""):
        if not line.strip():
            continue
        for answer in bridge.handle(line):
            stdout.write(json.dumps(answer, ensure_ascii=False).encode("utf-8") + b"\n")
        stdout.flush()


def mcp_stdio(args: argparse.Namespace, app: App) -> int:
    cfg = app.config
    if not cfg.key:
        raise CliError(NO_KEY)
    bridge = Bridge(cfg.base_url, cfg.key)
    sandbox = None
    if not getattr(args, "no_local", False):
        sandbox = _local_tools(bridge, args, app)
    try:
        serve(bridge, sys.stdin.buffer, sys.stdout.buffer)
    finally:
        bridge.close()
        if sandbox is not None:
            sandbox.close()
    return 0


def _local_tools(bridge: Bridge, args: argparse.Namespace, app: App) -> Any:
    """Answer execute, execute_file, batch_execute, fetch_and_index, index and stats here
    (docs/cli.md, "Local execution"); one bridge process is one stats session."""
    import os
    import time

    from ctx_cli.sandbox import local_tools, stats
    from ctx_cli.sandbox.core import Sandbox

    cfg = app.config
    session = app.environ.get(stats.SESSION_VARIABLE) or f"mcp-{os.getpid()}-{int(time.time())}"
    sandbox = Sandbox(
        base_url=cfg.base_url,
        key=cfg.key,
        session=session,
        environ=app.environ,
        allow_private=bool(getattr(args, "allow_private", False)),
        network=bool(getattr(args, "network", False)),
    )
    bridge.local = local_tools.LocalTools(sandbox, bridge.relay_call)
    bridge.local_names = local_tools.LOCAL
    return sandbox
