"""What the temporal parser's result means for one query: filters, lexical text, explain."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime

from django.db import connection
from django.utils import timezone

from ctx import knobs
from retrieval import temporal_llm
from retrieval.sql import Filters, period_blocks_sql
from retrieval.temporal import TemporalIntent, parse
from retrieval.text import lexical_query

MAX_EXPANDED_DAYS = 7  # longer ranges expand to too many ISO phrases to be useful


def intent_for(query: str, now: datetime) -> TemporalIntent:
    """The rules' intent; when they resolved nothing in a query that sounds temporal and an
    LLM is configured, the LLM's date ranges (dates only, see retrieval.temporal_llm)."""
    local = timezone.localtime(now)
    intent = parse(query, local)
    if not temporal_llm.wanted(query, intent):
        return intent
    if knobs.value("CTX_LLM_PROVIDER") == "none":
        return intent
    endpoint = (
        knobs.value("CTX_LLM_PROVIDER"),
        knobs.value("CTX_LLM_BASE_URL") or "",
        knobs.value("CTX_LLM_MODEL"),
    )
    return temporal_llm.resolve(query, intent, local.date(), endpoint) or intent


def lexical_text(query: str, intent: TemporalIntent) -> str:
    """The query without its temporal words: "Tuesday" or "March" as search terms match every
    note that merely mentions a weekday or month (false positives), so they are cut out."""
    if not intent.spans:
        return lexical_query(query)
    kept, last = [], 0
    for start, end in sorted(intent.spans):
        kept.append(query[last:start])
        last = max(last, end)
    kept.append(query[last:])
    return lexical_query(" ".join(kept))


def iso_dates(intent: TemporalIntent) -> list[str]:
    """ISO dates of short resolved ranges, matched as exact phrases in full text."""
    days: list[date] = []
    for rng in intent.ranges:
        if rng.days <= MAX_EXPANDED_DAYS:
            days.extend(
                rng.start.fromordinal(o)
                for o in range(rng.start.toordinal(), rng.end.toordinal() + 1)
            )
    return [d.isoformat() for d in dict.fromkeys(days)][:MAX_EXPANDED_DAYS]


def period_filter(filters: Filters, intent: TemporalIntent) -> Filters | None:
    """Filters restricted to the query's explicit periods, or None for vague/no intent."""
    if not intent.explicit or not intent.ranges or intent.recurrent:
        return None
    return replace(filters, periods=[(r.start, r.end) for r in intent.ranges])


# Up to this many blocks in a period are passed to the arms by id (exact semantic ranking);
# a larger one is looked for among the unfiltered candidates, then by the filter inside each
# arm (retrieval/query.py).
PERIOD_IDS_UP_TO = 2_000


def period_blocks(narrowed: Filters, cap: int | None = None) -> list[str] | None:
    """The ids of the blocks the period filter admits, through the anchors' date index; None
    when the period has `cap` (PERIOD_IDS_UP_TO) anchor rows or more (a block with several dates in
    the period counts once per date, so a period near the cap may be left to the arms). The
    anchors hold the same dates the filter tests (the meta date in the server's time zone,
    content dates in UTC), so the arms need no date test on these ids."""
    cap = cap or PERIOD_IDS_UP_TO  # read at call time (tests lower it)
    sql, params = period_blocks_sql(narrowed, cap)
    with connection.cursor() as cur:
        cur.execute(sql, params)
        rows = [str(row[0]) for row in cur.fetchall()]
    return list(dict.fromkeys(rows)) if len(rows) < cap else None


def describe(intent: TemporalIntent) -> dict[str, object]:
    return {
        "matchers": list(intent.matchers),
        "ranges": [[r.start.isoformat(), r.end.isoformat()] for r in intent.ranges],
        "direction": intent.direction,
        "explicit": intent.explicit,
        "recurrent": intent.recurrent,
        "weights": {k: v for k, v in intent.weights.items() if v > 0},
        "targets": dict(intent.targets),
    }
