"""Agent hooks: project briefings in, `[PERSIST:category:title]` sections out, a status line.

Claude Code runs these on every session, subagent and status-bar refresh, so they are quick and
never stand in an agent's way: hook modes report failures on stderr and exit 0.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import quote, urlencode

from ctx_cli import SERVER_MAX_BATCH, CliError
from ctx_cli.http import Client

MARKER = re.compile(r"\[PERSIST:([^:\]\n]+):([^\]\n]+)\]")
TRANSCRIPT_TAIL_BYTES = 4 * 1024 * 1024  # the last message is at the end; transcripts grow large
MAX_BATCH = SERVER_MAX_BATCH


def read_hook_input() -> dict[str, Any]:
    """The hook's JSON object from stdin; {} on a terminal or empty input."""
    if sys.stdin is None or sys.stdin.isatty():
        return {}
    text = sys.stdin.read()
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise CliError(f"the hook input on stdin is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise CliError("the hook input on stdin is not a JSON object")
    return data


def project_for(explicit: str | None, hook: dict[str, Any]) -> str:
    """--project, else the basename of the hook's cwd, else of this process's."""
    if explicit:
        return explicit
    cwd = hook.get("cwd") if isinstance(hook.get("cwd"), str) else None
    return Path(cwd or os.getcwd()).resolve().name or "default"


def project_tag(project: str) -> str:
    return f"project:{project}".lower()


# --- brief --------------------------------------------------------------------------------


def brief_results(client: Client, project: str, limit: int) -> tuple[list[dict[str, Any]], bool]:
    """The blocks tagged with the project, newest change first, and True; without any, the
    blocks closest in meaning to the project's name, and False. Not a keyword search for the
    name: what `ctx persist` stores is tagged with the project but rarely repeats its name."""
    params = urlencode({"tags": project_tag(project), "limit": limit}, quote_via=quote)
    tagged = client.get(f"/api/blocks?{params}").get("results", [])
    if tagged:
        return tagged, True
    body = {"query": project, "limit": limit, "synthesize": False}
    return client.post("/api/query", body).get("sources", []), False


def _when(block: dict[str, Any]) -> str:
    """`updated 2025-06-01` for a listed block, `3 d ago` for a query's source."""
    if block.get("updated_at"):
        return f"updated {str(block['updated_at'])[:10]}"
    days = block.get("age_days")
    return "" if days is None else ("today" if days < 1 else f"{int(days)} d ago")


def brief_markdown(project: str, results: list[dict[str, Any]], tagged: bool) -> str:
    if not results:
        return f"## ctx briefing: {project}\n\nNo knowledge stored for this project in ctx yet.\n"
    how = (
        f"tagged `{project_tag(project)}`, newest first"
        if tagged
        else f'closest in meaning to "{project}" (none is tagged `{project_tag(project)}`)'
    )
    lines = [
        f"## ctx briefing: {project}",
        "",
        f"{len(results)} block{'' if len(results) == 1 else 's'} in ctx {how}. "
        "Read one in full with `ctx get <id>`.",
    ]
    for r in results:
        lines += [
            "",
            f"### {r.get('title')}",
            f"*{r.get('category')} · {r.get('scope')} · {r.get('type')} · {_when(r)}* "
            f"· id `{r.get('id')}`",
            "",
            str(r.get("preview") or "").strip(),
        ]
    return "\n".join(lines) + "\n"


def hook_output(event: str, markdown: str) -> dict[str, Any]:
    """What SessionStart and SubagentStart hooks print to add context."""
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": markdown}}


# --- persist ------------------------------------------------------------------------------


class Persist(NamedTuple):
    category: str
    title: str
    content: str


def parse_markers(text: str) -> list[Persist]:
    """Every `[PERSIST:category:title]` with the text up to the next marker or the end."""
    matches = list(MARKER.finditer(text))
    found: list[Persist] = []
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        content = text[match.end() : end].strip()
        category, title = match.group(1).strip(), match.group(2).strip()
        if content and category and title:
            found.append(Persist(category, title, content))
    return found


def _text_of(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else message
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return ""


def _tail_lines(path: Path) -> list[str]:
    with path.open("rb") as fh:
        size = fh.seek(0, os.SEEK_END)
        fh.seek(max(0, size - TRANSCRIPT_TAIL_BYTES))
        lines = fh.read().decode("utf-8", errors="replace").splitlines()
    return lines[1:] if size > TRANSCRIPT_TAIL_BYTES else lines  # the first may be cut


def last_assistant_text(path: Path) -> str:
    """The text of the transcript's last assistant message (its entries share a message id)."""
    entries: list[tuple[Any, str]] = []
    for line in _tail_lines(path):
        if '"assistant"' not in line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict):  # a JSON string or list that mentions "assistant"
            continue
        message = entry.get("message")
        if entry.get("type") == "assistant" and isinstance(message, dict):
            text = _text_of(message)
            if text.strip():
                entries.append((message.get("id"), text))
    if not entries:
        return ""
    last_id = entries[-1][0]
    if last_id is None:
        return entries[-1][1]
    return "\n".join(text for mid, text in entries if mid == last_id)


def hook_text(hook: dict[str, Any]) -> str:
    """The text a SubagentStop/Stop hook input points at."""
    if isinstance(hook.get("last_assistant_message"), str):
        return str(hook["last_assistant_message"])
    for name in ("agent_transcript_path", "transcript_path"):
        value = hook.get(name)
        if isinstance(value, str) and value:
            try:
                return last_assistant_text(Path(value).expanduser())
            except OSError as exc:
                raise CliError(f"cannot read the transcript {value}: {exc.strerror}") from None
    return ""


def store_markers(
    client: Client, found: list[Persist], project: str, scope: str | None
) -> list[dict[str, Any]]:
    """Store the sections tagged with the project; what was stored, with ids and actions."""
    stored: list[dict[str, Any]] = []
    for start in range(0, len(found), MAX_BATCH):
        chunk = found[start : start + MAX_BATCH]
        blocks = [
            {
                "category": p.category,
                "title": p.title,
                "content": p.content,
                "tags": [project_tag(project)],
            }
            for p in chunk
        ]
        body: dict[str, Any] = {"blocks": blocks, **({"scope": scope} if scope else {})}
        results = client.post("/api/store/batch", body).get("results", [])
        stored += [
            {"category": p.category, "title": p.title, "id": r.get("id"), "action": r.get("action")}
            for p, r in zip(chunk, results)
        ]
    return stored


# --- status line --------------------------------------------------------------------------


def status_line(client: Client) -> str:
    """`ctx ● 1,234 blocks · acme:main · 58/60 reads`: the last part, the key's rate-limit
    headroom, only when the server limits rates. CliError when the server cannot say."""
    # Counts only: Dream's backlog is a scan of the scope (~135 ms at 92k blocks), past the
    # status line's time budget.
    body = {"action": "stats", "counts_only": True}
    stats = client.post("/api/manage", body).get("stats", {})
    me = client.get("/api/whoami")
    line = f"ctx ● {int(stats.get('blocks', 0)):,} blocks · {me.get('home_scope')}"
    reads = (me.get("rate_limit") or {}).get("read")
    if reads:
        line += f" · {reads['remaining']}/{reads['burst']} reads"
    return line
