"""The tools `ctx mcp-stdio` answers itself: their MCP definitions, argument checks, calls.

`execute`, `execute_file`, `batch_execute` and `fetch_and_index` exist only here. `index`
and `stats` extend the server's tools of the same name (a local file by `path`; this
session's byte figures beside the server's counts) and relay the rest of the call to the
server, so a client sees one tool per name. Indexed output is searched with the server's
`index_search` (and `search`), relayed unchanged.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from ctx_cli import CliError
from ctx_cli.sandbox import runtimes
from ctx_cli.sandbox.core import Sandbox, ToolError, read_document

Relay = Callable[[str, dict[str, Any]], dict[str, Any]]  # (tool, arguments) -> MCP result

LANGUAGES = sorted(runtimes.KNOWN)
_TIMEOUT = {
    "type": "integer",
    "minimum": 1,
    "maximum": 600,
    "default": 30,
    "description": "Seconds before the program and every process it started are killed.",
}
_INTENT = {
    "type": "string",
    "maxLength": 500,
    "description": "What you are looking for in the output. Output over 5 KB is then "
    "indexed in ctx and only the matching lines come back; without it, head and tail.",
}
_LANGUAGE = {"type": "string", "enum": LANGUAGES, "description": "The program's language."}
_CODE = {
    "type": "string",
    "minLength": 1,
    "maxLength": 1048576,
    "description": "The program. Print only what you need: stdout is the answer.",
}
_SCOPE = {
    "type": "string",
    "maxLength": 100,
    "description": "Scope to write; default: the key's home scope.",
}
LOCAL_ANNOTATIONS = {"readOnlyHint": False, "destructiveHint": True, "openWorldHint": False}


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


DEFINITIONS: dict[str, dict[str, Any]] = {
    "execute": {
        "title": "Run code locally",
        "description": (
            "Run a short program (shell, Python, Node, … on this machine) in a sandbox: a time, "
            "memory, process and output limit, no network where the OS allows it, no "
            "credentials in its environment, Claude Code's deny rules applied. Only what it "
            "prints comes back.\nWHEN: counting, filtering or summarising files, logs or command "
            "output that would be large to read.\nWHEN NOT: reading a small file whole.\n"
            "RETURNS: `status` (completed | denied | redirected), `output`, `stderr`, "
            "`exit_code`, `timed_out`, `mode` (full | indexed | head_tail), for indexed output "
            "the `source` label and `terms` to search next with `index_search`, `isolation`."
        ),
        "inputSchema": _schema(
            {"language": _LANGUAGE, "code": _CODE, "timeout": _TIMEOUT, "intent": _INTENT},
            ["language", "code"],
        ),
        "annotations": {**LOCAL_ANNOTATIONS, "openWorldHint": False},
    },
    "execute_file": {
        "title": "Run code over a local file",
        "description": (
            "Run a program over a local file without reading it into the conversation: the "
            "file is the program's stdin and $INPUT_FILE is the path of its copy.\nWHEN: a "
            "large log, CSV or JSON file to analyse.\nRETURNS: as `execute`."
        ),
        "inputSchema": _schema(
            {
                "path": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 4096,
                    "description": "The file (≤ 64 MB).",
                },
                "language": _LANGUAGE,
                "code": _CODE,
                "timeout": _TIMEOUT,
                "intent": _INTENT,
            },
            ["path", "language", "code"],
        ),
        "annotations": LOCAL_ANNOTATIONS,
    },
    "batch_execute": {
        "title": "Run several shell commands",
        "description": (
            "Run up to 20 shell commands in the sandbox, one after another; their outputs are "
            "shrunk together (one indexed source for an intent).\nRETURNS: `commands` (exit "
            "code, timing each), `output`, `mode`, `source`, `terms`."
        ),
        "inputSchema": _schema(
            {
                "commands": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 20,
                    "items": {"type": "string", "minLength": 1, "maxLength": 10000},
                    "description": "Shell commands.",
                },
                "timeout": _TIMEOUT,
                "intent": _INTENT,
            },
            ["commands"],
        ),
        "annotations": LOCAL_ANNOTATIONS,
    },
    "fetch_and_index": {
        "title": "Fetch a URL into the index",
        "description": (
            "Fetch a public URL (≤ 8 MB, 20 s; private, loopback and link-local addresses "
            "refused) and index it by its content type (HTML, Markdown, JSON, text), so "
            "`index_search` answers from it.\nRETURNS: `source` (label, chunks), `terms`, "
            "`titles`."
        ),
        "inputSchema": _schema(
            {
                "url": {"type": "string", "minLength": 1, "maxLength": 2000},
                "source": {
                    "type": "string",
                    "maxLength": 200,
                    "description": "Label to index under; default: the URL.",
                },
                "scope": _SCOPE,
            },
            ["url"],
        ),
        "annotations": {**LOCAL_ANNOTATIONS, "openWorldHint": True},
    },
}
LOCAL = frozenset(DEFINITIONS) | {"index", "stats"}


def _check_type(name: str, value: Any, spec: dict[str, Any]) -> None:
    kind = spec.get("type")
    checks = {
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "boolean": lambda v: isinstance(v, bool),
        "array": lambda v: isinstance(v, list),
    }
    if kind in checks and not checks[kind](value):
        raise ToolError(f"{name}: must be a {kind}", code="bad_request")
    if "enum" in spec and value not in spec["enum"]:
        raise ToolError(f"{name}: must be one of {', '.join(spec['enum'])}", code="bad_request")
    size = len(value) if isinstance(value, (str, list)) else value
    for bound, ok in (
        ("minLength", size >= spec.get("minLength", size)),
        ("maxLength", size <= spec.get("maxLength", size)),
        ("minItems", size >= spec.get("minItems", size)),
        ("maxItems", size <= spec.get("maxItems", size)),
        ("minimum", size >= spec.get("minimum", size)),
        ("maximum", size <= spec.get("maximum", size)),
    ):
        if not ok:
            code = "too_large" if bound.startswith("max") else "bad_request"
            raise ToolError(f"{name}: {bound} is {spec[bound]}", code=code)
    for index, item in enumerate(value if kind == "array" else ()):
        _check_type(f"{name}[{index}]", item, spec.get("items") or {})


def validate(schema: dict[str, Any], arguments: Any) -> dict[str, Any]:
    """The arguments with defaults filled in; ToolError naming the field otherwise."""
    if not isinstance(arguments, dict):
        raise ToolError("arguments: must be an object", code="bad_request")
    properties = schema["properties"]
    for name in arguments:
        if name not in properties:
            raise ToolError(f"{name}: unknown field", code="bad_request")
    for name in schema.get("required", ()):
        if arguments.get(name) is None:
            raise ToolError(f"{name}: required", code="bad_request")
    out = {}
    for name, spec in properties.items():
        value = arguments.get(name, spec.get("default"))
        if value is not None:
            _check_type(name, value, spec)
        out[name] = value
    return out


def _ok(payload: dict[str, Any]) -> dict[str, Any]:
    structured = {"success": True, **payload}
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return {"content": [{"type": "text", "text": text}], "structuredContent": structured}


def _failure(code: str, message: str) -> dict[str, Any]:
    envelope = {"success": False, "error": {"code": code, "message": message}}
    return {
        "content": [{"type": "text", "text": f"Error ({code}): {message}"}],
        "structuredContent": envelope,
        "isError": True,
    }


def _text_bytes(result: dict[str, Any]) -> int:
    return sum(len(str(part.get("text", "")).encode()) for part in result.get("content") or [])


class LocalTools:
    """Definitions for `tools/list` and answers for `tools/call` of the local tools."""

    def __init__(self, sandbox: Sandbox, relay: Relay) -> None:
        self.sandbox, self.relay = sandbox, relay

    def extend(self, server_tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The server's tools with `index` and `stats` extended, then the local ones."""
        out = []
        for tool in server_tools:
            name = tool.get("name")
            out.append(
                _extend_index(tool)
                if name == "index"
                else _extend_stats(tool)
                if name == "stats"
                else tool
            )
        return out + [_local_definition(name, self.languages()) for name in DEFINITIONS]

    def languages(self) -> list[str]:
        """The languages with a runtime here (what the sandbox's PATH finds)."""
        from ctx_cli.sandbox import runner

        path = runner.child_path(self.sandbox.environ)
        return [rt.language for rt in runtimes.available(path)] or LANGUAGES

    def call(self, name: str, arguments: Any) -> dict[str, Any]:
        """The MCP result of a local tool call; refusals are isError results."""
        try:
            result, produced = self._dispatch(name, arguments or {})
        except ToolError as exc:
            result, produced = _failure(exc.code or "bad_request", exc.message), 0
        except CliError as exc:  # the server refused or cannot be reached
            result, produced = _failure(exc.code or "unavailable", exc.message), 0
        if name != "stats":
            self.sandbox.record(name, produced, _text_bytes(result))
        return result

    def _dispatch(self, name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], int]:
        if name == "index":
            return self._index(arguments)
        if name == "stats":
            return self._stats(arguments), 0
        args = validate(DEFINITIONS[name]["inputSchema"], arguments)
        box = self.sandbox
        if name == "execute":
            payload = box.execute(
                args["code"], args["language"], timeout=args["timeout"], intent=args["intent"]
            )
        elif name == "execute_file":
            payload = box.execute_file(
                args["path"],
                args["code"],
                args["language"],
                timeout=args["timeout"],
                intent=args["intent"],
            )
        elif name == "batch_execute":
            payload = box.batch(args["commands"], timeout=args["timeout"], intent=args["intent"])
        else:
            payload = box.fetch_and_index(args["url"], source=args["source"], scope=args["scope"])
            return _ok(payload), payload["fetched_bytes"]
        if payload["status"] == "denied":  # a safety block is an error; a redirect is not
            result = _failure("forbidden", payload["message"])
            result["structuredContent"].update(payload)
            return result, 0
        return _ok(payload), payload.get("output_bytes", 0)

    def _index(self, arguments: dict[str, Any]) -> tuple[dict[str, Any], int]:
        args = dict(arguments)
        path = args.pop("path", None)
        if path is not None:
            if not isinstance(path, str) or not path:
                raise ToolError("path: must be a file path", code="bad_request")
            if args.get("content") is not None:
                raise ToolError("path: give either content or path", code="bad_request")
            args["content"] = read_document(self.sandbox, path)
            args.setdefault("source", path[-200:])
        produced = len(str(args.get("content") or "").encode())
        return self.relay("index", args), produced

    def _stats(self, arguments: dict[str, Any]) -> dict[str, Any]:
        result = self.relay("stats", arguments)
        if result.get("isError"):
            return result
        session = self.sandbox.session_stats()
        structured = dict(result.get("structuredContent") or {})
        structured["session"] = session
        content = list(result.get("content") or [])
        line = json.dumps({"session": session}, ensure_ascii=False, separators=(",", ":"))
        content.append({"type": "text", "text": line})
        return {**result, "content": content, "structuredContent": structured}


def _local_definition(name: str, languages: list[str]) -> dict[str, Any]:
    """A local tool's definition; `language` lists the runtimes found on this machine."""
    spec = copy.deepcopy(DEFINITIONS[name])
    language = spec["inputSchema"]["properties"].get("language")
    if language is not None:
        language["enum"] = languages
    return {"name": name, **spec}


def _extend_index(tool: dict[str, Any]) -> dict[str, Any]:
    tool = copy.deepcopy(tool)
    schema = tool.setdefault("inputSchema", {"type": "object", "properties": {}})
    schema.setdefault("properties", {})["path"] = {
        "type": "string",
        "maxLength": 4096,
        "description": "A local file to index instead of `content` (read by ctx mcp-stdio).",
    }
    schema["required"] = [r for r in schema.get("required", []) if r != "content"]
    tool["description"] = (
        tool.get("description", "") + "\nLOCAL: `path` indexes a file of this machine."
    )
    return tool


def _extend_stats(tool: dict[str, Any]) -> dict[str, Any]:
    tool = copy.deepcopy(tool)
    out = tool.get("outputSchema")
    if isinstance(out, dict) and isinstance(out.get("properties"), dict):
        out["properties"]["session"] = {"type": "object", "additionalProperties": True}
    tool["description"] = tool.get("description", "") + (
        "\nLOCAL: `session` adds this session's bytes produced by the local tools vs bytes "
        "returned into the context, per tool (savings = 1 - returned / produced)."
    )
    return tool
