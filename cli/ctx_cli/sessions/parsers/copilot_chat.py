"""GitHub Copilot Chat in VS Code: the session object shared by its three storage generations
(`interactive.sessions` in a workspace `state.vscdb`, `chatSessions/*.json` versions 1-3, and
the `.jsonl` mutation log that replays to the same object)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ctx_cli.sessions.build import Draft, SessionBuild
from ctx_cli.sessions.files import FileProblem, decode_json_bytes
from ctx_cli.sessions.model import Drift
from ctx_cli.sessions.text import as_dict, bound_line, kind_of, parse_time, str_or, tool_summary
from ctx_cli.sessions.whole import Context

SESSION_KEYS = {
    "version", "sessionId", "creationDate", "lastMessageDate", "customTitle", "computedTitle",
    "isImported", "initialLocation", "requesterUsername", "responderUsername",
    "requesterAvatarIconUri", "responderAvatarIconUri", "requests", "hasPendingEdits",
    "inputState", "repoData", "welcomeMessage",
}  # fmt: skip
REQUEST_KEYS = {
    "requestId", "timestamp", "modelId", "message", "variableData", "response", "responseId",
    "result", "followups", "isCanceled", "modelState", "vote", "voteDownReason", "agent",
    "slashCommand", "contentReferences", "codeCitations", "editedFileEvents", "usage",
    "isHidden", "isPaused", "timeSpentWaiting", "shouldBeRemovedOnSend", "confirmation",
    "attempt", "completionTokens",
}  # fmt: skip
PART_SKIPPED = {
    "thinking", "codeblockUri", "undoStop", "prepareToolInvocation", "progressMessage",
    "progressTask", "progressTaskSerialized", "confirmation", "command", "warning",
    "extensions", "pullRequest", "elicitation", "elicitationSerialized", "mcpServersStarting",
    "notebookEditGroup", "multiDiffData", "treeData", "toolInvocation", "references",
    "codeCitation", "clearToPreviousToolInvocation", "questionCarousel",
}  # fmt: skip


def session_builds(
    ctx: Context, data: Any, project: str | None, fallback_key: str
) -> Iterator[SessionBuild]:
    """The builds of one chat session object (any version)."""
    if not isinstance(data, dict) or not isinstance(data.get("requests"), list):
        raise FileProblem(f"{ctx.path} is not a Copilot Chat session (no `requests` list)")
    for key in data:
        if key not in SESSION_KEYS:
            ctx.drift.unknown_field(f"session.{key}", "")
    key = str_or(data.get("sessionId"), fallback_key)
    # No skipping by `lastMessageDate`: an answer can grow without it changing, and a chat
    # file is small enough to compare in full.
    build = ctx.build(key)
    build.project(project)
    build.title(data.get("customTitle") or data.get("computedTitle"))
    build.touch(parse_time(data.get("creationDate")))
    build.touch(parse_time(data.get("lastMessageDate")))
    build.note("version", data.get("version") or 1)
    for i, request in enumerate(data["requests"]):
        if isinstance(request, dict):
            _request(build, request, ctx.drift, f"request {i + 1}: ")
    yield build


def _request(build: SessionBuild, request: dict[str, Any], drift: Drift, where: str) -> None:
    for key in request:
        if key not in REQUEST_KEYS:
            drift.unknown_field(f"request.{key}", where)
    stamp = parse_time(request.get("timestamp"))
    ident = request.get("requestId") if isinstance(request.get("requestId"), str) else None
    message = request.get("message")
    text = message.get("text") if isinstance(message, dict) else message
    if not isinstance(text, str):
        drift.missing_field("request.message.text", where)
        text = ""
    build.add(Draft("user", [text], timestamp=stamp, external_id=ident))
    if isinstance(request.get("modelId"), str):
        build.note("model", request["modelId"])
    answer = Draft("assistant", timestamp=_answer_time(request, stamp))
    answer.external_id = request.get("responseId") or (f"{ident}:response" if ident else None)
    response = request.get("response")
    fragments: list[str] = []  # markdown arrives in pieces of one text, not paragraphs
    for part in response if isinstance(response, list) else []:
        if isinstance(part, dict):
            fragments.append(_part(answer, part, drift, where))
    answer.parts.append("".join(fragments))
    if request.get("isCanceled"):
        answer.flag("canceled")
    build.add(answer)


def _answer_time(request: dict[str, Any], stamp: Any) -> Any:
    result = as_dict(request.get("result"))
    timings = as_dict(result.get("timings"))
    elapsed = timings.get("totalElapsed")
    if stamp is None or not isinstance(elapsed, (int, float)):
        return stamp
    return parse_time(stamp.timestamp() * 1000 + elapsed)


def _part(answer: Draft, part: dict[str, Any], drift: Drift, where: str) -> str:
    """The text a response part adds (tool invocations and edits go to the tool calls)."""
    kind = kind_of(part.get("kind"))
    if kind in ("", "markdownContent", "markdownVuln"):
        return _markdown(part)
    if kind == "inlineReference":
        return f"`{_reference_name(part.get('inlineReference'))}`"
    if kind == "toolInvocationSerialized":
        message = _markdown(
            {"value": part.get("pastTenseMessage") or part.get("invocationMessage")}
        )
        answer.tool_calls.append(bound_line(f"{part.get('toolId') or 'tool'}: {message}", 200))
    elif kind == "textEditGroup":
        answer.tool_calls.append(tool_summary("Edit", _reference_name(part.get("uri"))))
    elif kind not in PART_SKIPPED:
        drift.unknown_type(f"response:{kind}", where)
    return ""


def _markdown(part: dict[str, Any]) -> str:
    value = part.get("value", part.get("content"))
    if isinstance(value, dict):
        value = value.get("value")
    return value if isinstance(value, str) else ""


def _reference_name(ref: Any) -> str:
    if isinstance(ref, dict):
        for key in ("name", "path", "fsPath", "external"):
            if isinstance(ref.get(key), str):
                return ref[key].rsplit("/", 1)[-1]
        for key in ("uri", "location"):
            if key in ref:
                return _reference_name(ref[key])
    return str(ref)[:100] if isinstance(ref, str) else "reference"


# --- the .jsonl mutation log -----------------------------------------------------------------


def replay(path: Path, drift: Drift) -> Any:
    """Rebuild the session object by applying each line's mutation in order."""
    state: Any = None
    try:
        with open(path, "rb") as f:
            for number, raw in enumerate(f, 1):
                if not raw.strip():
                    continue
                where = f"line {number}: "
                try:
                    op = decode_json_bytes(raw.strip(), drift, where)
                except (ValueError, RecursionError):
                    if raw.endswith(b"\n"):
                        drift.unreadable(where, f"invalid JSON ({len(raw)} bytes)")
                    continue  # an incomplete last line is read when complete
                state = _apply(state, op, drift, where)
    except OSError as exc:
        raise FileProblem(f"cannot read {path}: {exc.strerror or exc}") from exc
    return state


def _apply(state: Any, op: Any, drift: Drift, where: str) -> Any:
    if not isinstance(op, dict) or op.get("kind") not in (0, 1, 2, 3):
        drift.unknown_type(f"mutation:{op.get('kind') if isinstance(op, dict) else '?'}", where)
        return state
    kind, path = op["kind"], op.get("k")
    if kind == 0:
        return op.get("v")  # a full snapshot replaces the state
    if not isinstance(path, list) or not path:
        drift.missing_field("mutation.k", where)
        return state
    try:
        parent = _walk(state, path[:-1])
        _mutate(parent, path[-1], kind, op)
    except (KeyError, IndexError, TypeError):
        drift.unreadable(where, "a mutation whose path is not in the session")
    return state


def _walk(state: Any, path: list[Any]) -> Any:
    node = state
    for step in path:
        node = node[step]
    return node


def _mutate(parent: Any, last: Any, kind: int, op: dict[str, Any]) -> None:
    if kind == 1:
        if isinstance(parent, list) and last == len(parent):
            parent.append(op.get("v"))
        else:
            parent[last] = op.get("v")
    elif kind == 2:
        target = parent[last]
        if not isinstance(target, list):
            raise TypeError("append to a non-list")
        if isinstance(op.get("i"), int):
            del target[op["i"] :]
        items = op.get("v")
        target.extend(items if isinstance(items, list) else [items])
    else:
        del parent[last]
