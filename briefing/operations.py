"""The briefing operations: `context` (a token-budgeted block for a system prompt) and
`changes` (what changed since a moment). Each takes the caller's principal and a validated
input and returns its wire payload (briefing/payloads.py); HTTP, MCP and the CLI call them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC
from typing import Annotated, Any

from django.utils import timezone
from pydantic import BeforeValidator, Field

from briefing import changes as ch
from briefing import context as cx
from briefing import payloads as p
from briefing import tokens
from ctx import selectors
from ctx.errors import TooLarge, ValidationFailed
from ctx.ops.inputs import ChoiceParam, Input, ScopeList, Text
from ctx.principal import Principal
from retrieval.temporal.since import since_of

MIN_TOKENS, MAX_TOKENS, DEFAULT_TOKENS = 30, 4000, 500
PAGE, MAX_PAGE = 50, 200


@dataclass(frozen=True)
class Bound:
    """An integer that may arrive as text, at least `low`; above `high` the request is too
    large (413), like a batch of too many blocks."""

    low: int
    high: int

    def __call__(self, raw: Any, name: str) -> int | None:
        if raw is None or raw == "":
            return None
        try:
            value = int(str(raw).strip()) if not isinstance(raw, bool) else None
        except ValueError:
            value = None
        if value is None:
            raise ValidationFailed(f"'{name}' must be an integer.", details={"field": name})
        if value > self.high:
            raise TooLarge(f"'{name}' is more than {self.high}.", details={"field": name})
        if value < self.low:
            raise ValidationFailed(
                f"'{name}' must be at least {self.low}.", details={"field": name}
            )
        return value


def _bounded(low: int, high: int, description: str) -> Any:
    check = Bound(low, high)
    return Annotated[
        int | None,
        Field(ge=low, le=high, description=description),
        BeforeValidator(lambda raw, info: check(raw, str(info.field_name))),
    ]


class ContextInput(Input):
    agent: Annotated[
        str | None, ChoiceParam(cx.AGENTS, description="Who reads it (default general).")
    ] = None
    project: Annotated[
        str | None, Text(200, required=False, description="Rank blocks naming it first.")
    ] = None
    max_tokens: _bounded(  # type: ignore[valid-type]
        MIN_TOKENS, MAX_TOKENS, f"Token budget (default {DEFAULT_TOKENS}, at most {MAX_TOKENS})."
    ) = None
    scopes: ScopeList = []


def context(principal: Principal, data: ContextInput) -> p.ContextPayload:
    req = cx.Request(
        scope_ids=selectors.readable_scope_ids(principal, list(data.scopes)),
        agent=data.agent or "general",
        project=data.project or None,
        max_tokens=data.max_tokens or DEFAULT_TOKENS,
        now=timezone.now(),
        ceiling=principal.read_ceiling,
    )
    built = cx.build(req)
    lines: list[p.ContextLine] = [
        {
            "section": ln.section,
            "id": ln.block.id,
            "text": ln.text,
            "tokens": ln.tokens,
            "score": round(ln.score, 6),
        }
        for ln in built.lines
    ]
    return {
        "agent": req.agent,
        "project": req.project,
        "max_tokens": req.max_tokens,
        "tokens": built.tokens,
        "tokenizer": tokens.NAME,
        "text": built.text,
        "lines": lines,
        "candidates": built.candidates,
    }


def context_text(payload: p.ContextPayload) -> str:
    return payload["text"] + "\n" if payload["text"] else ""


# --- changes ------------------------------------------------------------------------------------


class ChangesInput(Input):
    since: Annotated[
        str, Text(100, description="ISO time, '2 hours ago', 'yesterday', 'last week', …")
    ]
    limit: _bounded(  # type: ignore[valid-type]
        1, MAX_PAGE, f"Changes a page (default {PAGE}, at most {MAX_PAGE})."
    ) = None
    cursor: Annotated[
        str | None, Text(200, required=False, description="next_cursor of the page before.")
    ] = None
    scopes: ScopeList = []


def changes(principal: Principal, data: ChangesInput) -> p.ChangesPayload:
    now = timezone.now()
    window = ch.Window(
        principal=principal,
        scope_ids=selectors.readable_scope_ids(principal, list(data.scopes)),
        since=since_of(data.since, now),
        until=now,
        limit=data.limit or PAGE,
        after=ch.decode_cursor(data.cursor) if data.cursor else None,
    )
    page = ch.merged(window)
    shown = page[: window.limit]
    more = len(page) > window.limit
    return {
        "since": window.since.astimezone(UTC).isoformat(),
        "until": now.astimezone(UTC).isoformat(),
        "count": len(shown),
        "changes": ch.describe(window, shown),  # type: ignore[typeddict-item]
        "summary": ch.summary(window) if data.cursor is None else None,
        "next_cursor": ch.encode_cursor(shown[-1]) if more else None,
    }


def changes_text(payload: p.ChangesPayload) -> str:
    head = f"Changes since {payload['since'][:16].replace('T', ' ')} UTC: {payload['count']}"
    lines = [f"- {c['at'][:16].replace('T', ' ')} {c['sentence']}" for c in payload["changes"]]
    more = ["(more: pass next_cursor)"] if payload["next_cursor"] else []
    return "\n".join([head, *lines, *more]) + "\n"
