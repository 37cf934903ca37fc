"""Matchers for single words and short lists, lowest priority last: keyword lists, weekday
recurrence, keywords (with typo tolerance), month names, quarters, years, bare weekdays and
vague phrases ("recently", "kürzlich")."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Final

from retrieval.temporal.engine import (
    Context,
    Hit,
    Scanner,
    is_dated,
    mask,
    regex_scanner,
    rules,
)
from retrieval.temporal.fuzzy import fuzzy_tokens
from retrieval.temporal.intent import DateRange, Direction
from retrieval.temporal.lexicon import (
    ALL_MONTHS,
    AMBIGUOUS_MONTHS,
    HABITUAL_RX,
    KEYWORD_RX,
    KEYWORDS,
    MONTH_ABBREVIATIONS,
    WEEKDAY_HABITUAL,
    WEEKDAY_RX,
    WEEKDAYS,
    alternation,
    squash,
)
from retrieval.temporal.periods import resolve_weekday, segment_target
from retrieval.temporal.points import (
    KEYWORD_SOURCE,
    MONTH_SOURCE,
    QUARTER_SOURCES,
    WEEKDAY_SOURCE,
    YEAR_RX,
    quarter_of,
    resolve_keyword,
    resolve_month,
    resolve_quarter,
    resolve_weekday_phrase,
    resolve_year,
    segment_of,
)
from retrieval.temporal.weights import weights_for

_LIST_SEPARATOR: Final = (
    r"\s*(?:,|&|\band\b|\bund\b|\bor\b|\boder\b)(?:\s*(?:and|und|or|oder)\b)?\s*"
)
_ITEM: Final = rf"(?:(?:am|on)\s+)?(?:{KEYWORD_RX}|{WEEKDAY_RX})\b"
_ITEM_RE: Final = re.compile(rf"\b(?:(?:am|on)\s+)?(?:(?P<k>{KEYWORD_RX})|(?P<wd>{WEEKDAY_RX}))\b")
# A list after "every"/"jeden" is a recurrence, which a later matcher takes.
_NOT_RECURRING: Final = r"(?<!every\s)(?<!each\s)(?<!jeden\s)(?<!immer\s)(?<!jede\s)(?<!guten\s)"


def _item_range(item: re.Match[str], ctx: Context) -> DateRange:
    if item["k"]:
        return DateRange.day(ctx.today + timedelta(days=KEYWORDS[squash(item["k"])]))
    return DateRange.day(resolve_weekday(ctx.today, WEEKDAYS[item["wd"]], None, ctx.tense))


def _build_keyword_list(match: re.Match[str], ctx: Context) -> Hit:
    items = list(_ITEM_RE.finditer(match.group()))
    ranges = tuple(_item_range(item, ctx) for item in items)
    weekdays = [WEEKDAYS[item["wd"]] for item in items if item["wd"]]
    if not weekdays:
        return Hit("keyword_list", match.span(), weights_for("point"), ranges)
    targets = {"weekday": float(weekdays[0])}
    return Hit("keyword_list", match.span(), weights_for("weekday_point"), ranges, targets)


KEYWORD_LIST: Final[Scanner] = regex_scanner(
    *rules(_build_keyword_list, rf"{_NOT_RECURRING}\b{_ITEM}(?:{_LIST_SEPARATOR}{_ITEM})+")
)


def _build_recurrence(match: re.Match[str], ctx: Context) -> Hit:
    habitual = match.groupdict().get("hab")
    weekday = WEEKDAY_HABITUAL[habitual] if habitual else WEEKDAYS[match["wd"]]
    weights = weights_for("weekday_recurrent")
    targets = {"weekday": float(weekday)}
    return Hit("recurrence", match.span(), weights, (), targets, recurrent=True, hint="none")


RECURRENCE: Final[Scanner] = regex_scanner(
    *rules(
        _build_recurrence,
        r"\b(?:immer|jeden|jede|jedem|every|each)\s+(?:(?:am|on)\s+)?"
        rf"(?P<wd>{WEEKDAY_RX})\b(?:{_LIST_SEPARATOR}(?:(?:am|on)\s+)?(?:{WEEKDAY_RX})\b)*",
        r"\b(?:(?:immer|meistens|jeweils|nur|usually|always)\s+)?(?:(?:am|an|on)\s+)?"
        rf"(?P<hab>{HABITUAL_RX})\b",
    )
)


def _build_keyword(match: re.Match[str], ctx: Context) -> Hit:
    rng = resolve_keyword(match, ctx.today, ctx.tense)
    return Hit("keyword", match.span(), weights_for("point"), (rng,))


_exact_keywords = regex_scanner(*rules(_build_keyword, KEYWORD_SOURCE))


def _scan_keywords(text: str, ctx: Context) -> list[Hit]:
    """Exact keywords first, then typos of the long ones ("gesten", "yesterdy")."""
    hits = _exact_keywords(text, ctx)
    if hits:
        text = mask(text, (hit.span for hit in hits))
    for keyword, span in fuzzy_tokens(text):
        rng = DateRange.day(ctx.today + timedelta(days=KEYWORDS[keyword]))
        hits.append(Hit("keyword", span, weights_for("point"), (rng,)))
    return hits


KEYWORD: Final[Scanner] = _scan_keywords


def _month_allowed(match: re.Match[str]) -> bool:
    """False for a month name that is likely a plain word ("may", "march") or an
    abbreviation without a day or a year next to it."""
    name = match["m"]
    numbers = bool(match["d1"] or match["d2"] or match["y"])
    if name in MONTH_ABBREVIATIONS:
        return numbers
    if name not in AMBIGUOUS_MONTHS:
        return True
    context = numbers or match["prep"] not in (None, "the") or bool(match["seg"])
    return context or (name != "may" and bool(match["q"]))


def _month_profiles(match: re.Match[str], ctx: Context, segment: str | None) -> tuple[str, ...]:
    if match["y"] or match["d1"] or match["d2"]:
        return ("point",)
    if is_dated(ctx, match["q"]):
        return ("month_dated",)
    return ("month_bare", "segment_of_month") if segment else ("month_bare",)


def _build_month(match: re.Match[str], ctx: Context) -> Hit | None:
    if not _month_allowed(match):
        return None
    rng = resolve_month(match, ctx.today, ctx.tense)
    segment = segment_of(match["seg"])
    targets = {"month": float(ALL_MONTHS[match["m"]])}
    if segment:
        targets["monthday"] = segment_target(segment, "monthday")
    weights = weights_for(*_month_profiles(match, ctx, segment))
    return Hit("month_name", match.span(), weights, (rng,), targets)


def _build_quarter(match: re.Match[str], ctx: Context) -> Hit:
    rng = resolve_quarter(match, ctx.today, ctx.tense)
    profile = "quarter_dated" if is_dated(ctx) else "quarter_bare"
    if match["y"]:
        profile = "point"
    targets = {"quarter": float(quarter_of(match))}
    return Hit("quarter", match.span(), weights_for(profile), (rng,), targets)


def _build_year(match: re.Match[str], ctx: Context) -> Hit:
    rng = resolve_year(match, ctx.today, ctx.tense)
    return Hit("year", match.span(), weights_for("point"), (rng,))


MONTH_NAME: Final[Scanner] = regex_scanner(*rules(_build_month, MONTH_SOURCE))
QUARTER: Final[Scanner] = regex_scanner(*rules(_build_quarter, *QUARTER_SOURCES))
YEAR: Final[Scanner] = regex_scanner(
    *rules(
        _build_year,
        r"\b(?:in\s+the\s+year|in\s+year|im\s+jahre?|in|im|during|year|jahr)\s+"
        rf"(?P<y>{YEAR_RX})\b(?![-/.]\d)",
    )
)


def _build_weekday(match: re.Match[str], ctx: Context) -> Hit:
    rng = resolve_weekday_phrase(match, ctx.today, ctx.tense)
    targets = {"weekday": float(WEEKDAYS[match["wd"]])}
    return Hit("weekday", match.span(), weights_for("weekday_point"), (rng,), targets)


WEEKDAY: Final[Scanner] = regex_scanner(
    *rules(_build_weekday, rf"\b(?:(?:am|on|for|für|by|an\s+dem)\s+)?{WEEKDAY_SOURCE}")
)

_VAGUE: Final = {
    "recently": "recent",
    "lately": "recent",
    "of late": "recent",
    "the other day": "recent",
    "not long ago": "recent",
    "kürzlich": "recent",
    "neulich": "recent",
    "vor kurzem": "recent",
    "vor kurzer zeit": "recent",
    "in letzter zeit": "recent",
    "unlängst": "recent",
    "jüngst": "recent",
    "letztens": "recent",
    "a while ago": "while",
    "a while back": "while",
    "some time ago": "while",
    "vor einiger zeit": "while",
    "long ago": "long",
    "a long time ago": "long",
    "vor langer zeit": "long",
    "soon": "soon",
    "bald": "soon",
    "demnächst": "soon",
    "in kürze": "soon",
    "in the near future": "soon",
    "in naher zukunft": "soon",
    "upcoming": "soon",
}
# Days from today covered by each vague phrase: soft windows for the linear prior.
_VAGUE_WINDOWS: Final[dict[str, tuple[int, int, Direction]]] = {
    "recent": (-14, 0, "past"),
    "while": (-180, -21, "past"),
    "long": (-1095, -180, "past"),
    "soon": (0, 14, "future"),
}


def _build_vague(match: re.Match[str], ctx: Context) -> Hit:
    first, last, hint = _VAGUE_WINDOWS[_VAGUE[squash(match.group())]]
    rng = DateRange(ctx.today + timedelta(days=first), ctx.today + timedelta(days=last))
    weights = weights_for("vague")
    return Hit("vague", match.span(), weights, (rng,), explicit=False, hint=hint)


VAGUE: Final[Scanner] = regex_scanner(*rules(_build_vague, rf"\b(?:{alternation(_VAGUE)})\b"))

VAGUE_WORDS: Final[tuple[str, ...]] = tuple(_VAGUE)
