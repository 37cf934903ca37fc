"""`ctx search` (lexical, or browsing a category) and `ctx query` (retrieval, synthesised
when the server has an LLM)."""

from __future__ import annotations

import argparse
from typing import Any

from ctx_cli.commands import App, compact, split_list, with_query
from ctx_cli.http import ApiError, Client
from ctx_cli.output import dumps, escape, hits

NO_LLM = (
    "no LLM is configured on the server, so there is no written answer, only the sources; "
    "to get answers, start the server with CTX_LLM_PROVIDER (openai, ollama or anthropic) and "
    "CTX_LLM_MODEL set (docs/settings.md)"
)


def filters(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "limit": args.limit,
        "category": args.category,
        "tags": split_list(args.tag),
        "types": split_list(args.type),
        "scopes": split_list(args.scope),
    }


def _found(item: dict[str, Any]) -> str:
    score = item.get("score")
    parts = [item.get("category"), item.get("scope")]
    return " · ".join(str(p) for p in parts) + (f" · {score:.3f}" if score is not None else "")


def _render_results(console: Any, payload: dict[str, Any]) -> None:
    results = payload.get("results", [])
    if not results:
        console.print("no results")
        return
    hits(console, results, _found)


# --- search -------------------------------------------------------------------------------


def _categories(client: Client) -> set[str]:
    payload = client.post("/api/manage", {"action": "list-categories"})
    return {str(c.get("category")) for c in payload.get("categories", [])}


def split_search(client: Client, words: list[str], category: str | None) -> tuple[str | None, str]:
    """`[CATEGORY] [QUERY…]`: the first word is the category when one of that name exists
    (and --category was not given); the rest is the query, maybe empty (then: browse)."""
    if category is None and words and words[0] in _categories(client):
        return words[0], " ".join(words[1:])
    return category, " ".join(words)


def _browse(client: Client, args: argparse.Namespace, category: str | None) -> dict[str, Any]:
    """No query: the newest blocks (of the category), in the search answer's shape."""
    params = {
        "scope": split_list(args.scope),
        "category": category,
        "tags": split_list(args.tag),
        "type": split_list(args.type),
        "limit": args.limit,
    }
    page = client.get(with_query("/api/blocks", params))
    return {"query": "", "count": page.get("count", 0), "results": page.get("results", [])}


def search(args: argparse.Namespace, app: App) -> int:
    client = app.client()
    category, text = split_search(client, args.words, args.category)
    if not text.strip():
        payload = _browse(client, args, category)
    else:
        body = compact(
            {"query": text, **filters(args), "category": category, "min_score": args.min_score}
        )
        payload = client.post("/api/search", body)
    app.out.emit(payload, _render_results)
    return 0


# --- query --------------------------------------------------------------------------------


def _age(item: dict[str, Any]) -> str:
    days = item.get("age_days")
    age = "" if days is None else ("today" if days < 1 else f"{int(days)} d ago")
    return " · ".join(str(p) for p in (item.get("category"), item.get("scope"), age) if p)


def _render_answer(console: Any, payload: dict[str, Any]) -> None:
    from rich.panel import Panel  # lazy: the CLI starts in every hook; load on use
    from rich.text import Text  # lazy: the CLI starts in every hook; load on use

    confidence = payload.get("confidence", "")
    if payload.get("answer"):
        title = f"answer · {escape(str(confidence))}"
        console.print(Panel(Text(str(payload["answer"])), title=title, title_align="left"))
    else:
        console.print(f"[bold]{escape(str(confidence))}[/] · {payload.get('mode', '')}")
    hits(console, payload.get("sources") or [], _age)
    if payload.get("explain") is not None:
        console.print(Text(dumps(payload["explain"])))
    total = (payload.get("timing_ms") or {}).get("total")
    if total is not None:
        console.print(f"[dim]{total} ms[/]")


def _ask(client: Client, body: dict[str, Any], explicit: bool) -> dict[str, Any]:
    """The answer; synthesis asked for by default falls back to the sources when the LLM may
    not read them (a source above its trust): asked for by the user, that is an error."""
    try:
        return client.post("/api/query", body)
    except ApiError as exc:
        if explicit or not body.get("synthesize") or exc.code != "sensitivity_blocked":
            raise
        return client.post("/api/query", {**body, "synthesize": False})


def query(args: argparse.Namespace, app: App) -> int:
    explicit = args.synthesize is not None
    synthesize = True if args.synthesize is None else args.synthesize
    body = compact(
        {
            "query": " ".join(args.question),
            **filters(args),
            "min_score": args.min_score,
            "synthesize": synthesize,
            "explain": args.explain,
            "now": args.now,
            "since": args.since,
            "until": args.until,
            "as_of": args.as_of,
        }
    )
    payload = _ask(app.client(), body, explicit)
    if args.synthesize and payload.get("mode") == "retrieval":
        app.out.warn(NO_LLM)  # asked for an answer: the server can only retrieve
    app.out.emit(payload, _render_answer)
    return 0
