"""The deterministic interpreter: cue phrases (lexicon.py) plus the markers around them.

For each cue found in the note (or a tag), the words before it in the same clause decide
what the user wants (README: "The deterministic interpreter"):
- an excess marker ("too", "so many") → less of the cue's pole: "too long" → shorter;
- "not … enough" → more of it; "… is enough" / "isn't enough" → less of it;
- an odd number of negations ("no", "don't", "stop", "without") → less; an even number → more;
  in a question, a lone "no" is a complaint about something missing ("no type hints?");
- a request ("please", "use", "more", "keep") → more;
- nothing → an observation: a like (or a neutral note/tag) wants the pole, a dislike the
  opposite ("verbose" disliked → less verbose).
With no cue in the note or tags, an imperative note becomes an "other" rule, and failing that
the excerpt the signal reacted to is read (bullets, tables, emoji, headings, length) with a
low confidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from profiles.core import lexicon as lx
from profiles.core.dimensions import METRICS, Direction, rule_text
from profiles.core.facts import extract_facts
from profiles.core.interpretation import Interpretation, Reading, normalise_preference, order
from profiles.core.signals import Signal, SignalType

MARKED, OBSERVED, NOTE_OBSERVED = 0.85, 0.7, 0.65
TAG, CONTEXT, OTHER, ADJUSTED = 0.6, 0.35, 0.3, 0.95
NUDGE = 0.1  # a rule on a metric dimension also moves its metric by this much
STEP, SMALL_STEP, LARGE_STEP = 0.3, 0.15, 0.5  # "more formal", "a bit more", "a lot more"
_WINDOW_WORDS = 6  # markers further back than this belong to another thought
_CLAUSE_BREAK = re.compile(r"[.;:!?\n]+|,\s*| but | aber | then ")
# Typographic quotes (U+2019, U+2018, U+201C, U+201D, U+201E) as typed on phones.
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u201e": '"'})


@dataclass(frozen=True)
class Hit:
    start: int
    end: int
    cue: lx.Cue
    aspect: str


@dataclass(frozen=True)
class Polarity:
    sign: int  # +1 wants the cue's pole, -1 the opposite, 0 undecided (an observation)
    marker: str  # the word that decided it ("" when none)


class RuleInterpreter:
    """Keyword and phrase rules; needs no model and never raises on a valid signal."""

    def interpret(self, signal: Signal, hint: str = "") -> Reading:
        # `hint` steers only the LLM; the rules read the signal alone.
        found = read_note(signal.note, signal.type)
        for tag in signal.tags:
            found += read_text(_tag_text(tag), signal.type, confidence=TAG, where="tag")
        found += _quoted_emoji(signal)
        if not found:
            found = _imperative(signal.note) or read_context(signal.context, signal.type)
        ordered = order([_attach(item, signal.id) for item in found])
        return Reading(signal.id, ordered, extract_facts(signal.note, signal.id), "rules")


def _attach(item: Interpretation, signal_id: str) -> Interpretation:
    return replace(item, signal_id=signal_id)


def normalise(text: str) -> str:
    """Lower case, straight quotes, single spaces: the form every pattern is written for."""
    return " ".join(text.translate(_QUOTES).lower().split())


def _tag_text(tag: str) -> str:
    return normalise(tag.lstrip("#").replace("-", " ").replace("_", " "))


def read_note(note: str, signal_type: SignalType) -> list[Interpretation]:
    text = normalise(note)
    if not text:
        return []
    adjustments, spans = _adjustments(text)
    return adjustments + read_text(text, signal_type, confidence=0.0, where="note", taken=spans)


def read_text(
    text: str,
    signal_type: SignalType,
    *,
    confidence: float,
    where: str,
    taken: list[tuple[int, int]] | None = None,
) -> list[Interpretation]:
    """Interpretations of every cue in `text`. `confidence` 0 means "decide per cue"."""
    hits = find_hits(text, tag=where == "tag", taken=taken or [])
    out: list[Interpretation] = []
    previous: tuple[Hit, Polarity] | None = None
    for hit in hits:
        start, end, question = _clause_of(text, hit.start)
        polarity = _polarity_for(text, hit, previous, start, end, question)
        previous = (hit, polarity)
        if _is_condition(text, hit, start):
            continue
        out.append(_interpretation(text, hit, polarity, signal_type, confidence, where))
    return out


def find_hits(text: str, *, tag: bool, taken: list[tuple[int, int]]) -> list[Hit]:
    """Every cue occurrence, the longest winning where two overlap, in text order."""
    found: list[Hit] = []
    for cue in lx.CUES:
        if cue.only_tags and not tag:
            continue
        for match in cue.pattern.finditer(text):
            if match.end() > match.start():
                found.append(Hit(match.start(), match.end(), cue, _aspect(cue, match)))
    found.sort(key=lambda h: (h.start - h.end, h.start))
    kept: list[Hit] = []
    spans = list(taken)
    for hit in found:
        if all(hit.end <= s or hit.start >= e for s, e in spans):
            kept.append(hit)
            spans.append((hit.start, hit.end))
    return sorted(kept, key=lambda h: h.start)


def _aspect(cue: lx.Cue, match: re.Match[str]) -> str:
    groups = {k: v for k, v in match.groupdict().items() if v}
    for name, value in groups.items():
        if name.startswith("thing"):
            return lx.THING_ASPECT.get(value, "answer_first")
        if name.startswith("prog"):
            return lx.PROGRAMMING_CANONICAL.get(value, value)
        if name == "terms":
            return "terms:" + lx.NATURAL_CANONICAL.get(value, value)
        if name.startswith("nat"):
            return lx.NATURAL_CANONICAL.get(value, value)
    return cue.aspect


def _clause_of(text: str, at: int) -> tuple[int, int, bool]:
    """(start, end, ends with "?") of the clause around position `at`."""
    start, end, question = 0, len(text), False
    for brk in _CLAUSE_BREAK.finditer(text):
        if brk.end() <= at:
            start = brk.end()
        elif brk.start() >= at:
            end, question = brk.start(), "?" in brk.group(0)
            break
    return start, end, question


def _polarity_for(
    text: str,
    hit: Hit,
    previous: tuple[Hit, Polarity] | None,
    clause_start: int,
    clause_end: int,
    question: bool,
) -> Polarity:
    left = clause_start
    if previous is not None and previous[0].end > clause_start:
        left = max(left, previous[0].end)
    window = " ".join(text[left : hit.start].split()[-_WINDOW_WORDS:])
    after = text[hit.end : clause_end]
    polarity = decide(window, after, question)
    if polarity.sign == 0 and previous is not None and previous[0].end > clause_start:
        # "no bullets or tables": a marker covers cues joined by "and"/"or".
        gap = text[previous[0].end : hit.start]
        return previous[1] if lx.CONJUNCTION.match(gap) else polarity
    return polarity


def decide(window: str, after: str, question: bool = False) -> Polarity:
    """What the words before (`window`) and after a cue say about it (module docstring)."""
    if found := lx.EXCESS.search(window):
        return Polarity(-1, found.group(0))
    if found := lx.AFTER_LIMIT.match(after):
        return Polarity(-1, found.group(0).strip())
    negations = [m.group(0) for m in lx.NEGATION.finditer(window)]
    if negations and (lx.ENOUGH.search(window) or after.lstrip().startswith("enough")):
        return Polarity(+1, "not … enough")
    if negations:
        if len(negations) % 2 == 0:
            return Polarity(+1, " ".join(negations))
        if question and negations == ["no"]:
            return Polarity(+1, "no …?")
        return Polarity(-1, negations[-1])
    if found := lx.DESIRE.search(window):
        return Polarity(+1, found.group(0))
    if found := lx.AFTER_KEEP.match(after):
        return Polarity(+1, found.group(0).strip())
    return Polarity(0, "")


def _is_condition(text: str, hit: Hit, clause_start: int) -> bool:
    """ "for long answers", "in short": a condition on a metric word, not a preference."""
    if hit.cue.dimension not in METRICS or hit.cue.mode != "observe":
        return False
    return lx.CONDITION.search(text[clause_start : hit.start]) is not None


def _interpretation(
    text: str,
    hit: Hit,
    polarity: Polarity,
    signal_type: SignalType,
    confidence: float,
    where: str,
) -> Interpretation:
    cue = hit.cue
    want, direction = _direction(cue, polarity, signal_type)
    marked = bool(polarity.marker) or cue.mode != "observe"
    if not confidence:
        confidence = MARKED if marked else OBSERVED if signal_type != "note" else NOTE_OBSERVED
    window = text[max(0, hit.start - 40) : hit.start]
    adjust = cue.dimension in METRICS and _is_adjustment(cue, polarity, window)
    delta = None
    if cue.dimension in METRICS:
        delta = round(want * (_step(text) if adjust else NUDGE), 3)
    phrase = text[hit.start : hit.end]
    how = f'"{polarity.marker}"' if polarity.marker else f"an observation on a {signal_type}"
    preference = (
        _adjust_words(cue.dimension, delta or 0.0)
        if adjust
        else rule_text(cue.dimension, hit.aspect, direction)
    )
    return Interpretation(
        dimension=cue.dimension,
        preference=preference,
        direction=direction,
        confidence=round(confidence * cue.weight, 3),
        reasoning=f'{where} says "{phrase}" ({cue.mode}; {how})',
        aspect=hit.aspect,
        delta=delta,
        adjustment=adjust,
    )


def _direction(cue: lx.Cue, polarity: Polarity, signal_type: SignalType) -> tuple[int, Direction]:
    """(+1/-1 for the quality wanted, the direction): an undecided observation follows the
    reaction (a dislike wants the opposite of what it saw); a choice is "set" or "-"."""
    sign = polarity.sign
    if sign == 0:
        sign = -1 if cue.mode == "observe" and signal_type == "dislike" else 1
    want = cue.pole * sign
    if cue.mode == "choose":
        return want, "set" if sign > 0 else "-"
    return want, "+" if want > 0 else "-"


def _is_adjustment(cue: lx.Cue, polarity: Polarity, window: str) -> bool:
    """A comparative ("terser") or "more/less <quality>" asks to move a metric, not for a rule."""
    if cue.mode == "compare":
        return True
    last = window.split()[-1:] if window.split() else []
    return bool(last) and lx.MORE_LESS.fullmatch(last[0]) is not None and polarity.sign != 0


def _step(text: str) -> float:
    if lx.SMALL_STEP.search(text):
        return SMALL_STEP
    if lx.LARGE_STEP.search(text):
        return LARGE_STEP
    return STEP


def _adjust_words(dimension: str, delta: float) -> str:
    verb = "Increase" if delta > 0 else "Decrease"
    return f"{verb} {dimension} by {abs(delta):g}."


def _adjustments(text: str) -> tuple[list[Interpretation], list[tuple[int, int]]]:
    """Explicit metric moves: "decrease directness by 0.5", "set formality to 0.8"."""
    out: list[Interpretation] = []
    spans: list[tuple[int, int]] = []
    for match in lx.ADJUSTMENT.finditer(text):
        spans.append((match.start(), match.end()))
        out.append(_adjustment(match))
    return out, spans


def _adjustment(match: re.Match[str]) -> Interpretation:
    phrase = match.group(0)
    if match.group("metric2"):
        dimension = lx.METRIC_WORDS[match.group("metric2")]
        target = max(-1.0, min(1.0, float(match.group("num2"))))
        return Interpretation(
            dimension=dimension,
            preference=f"Set {dimension} to {target:g}.",
            direction="set",
            confidence=ADJUSTED,
            reasoning=f'note says "{phrase}" (explicit metric target)',
            target=target,
            adjustment=True,
        )
    dimension = lx.METRIC_WORDS[match.group("metric")]
    sign = 1 if match.group("verb") in lx.UP_VERBS else -1
    amount = float(match.group("num")) if match.group("num") else STEP
    if match.group("prep") == "to":
        target = max(-1.0, min(1.0, amount))
        return Interpretation(
            dimension=dimension,
            preference=f"Set {dimension} to {target:g}.",
            direction="set",
            confidence=ADJUSTED,
            reasoning=f'note says "{phrase}" (explicit metric target)',
            target=target,
            adjustment=True,
        )
    delta = round(sign * min(amount, 2.0), 3)
    return Interpretation(
        dimension=dimension,
        preference=_adjust_words(dimension, delta),
        direction="+" if sign > 0 else "-",
        confidence=ADJUSTED,
        reasoning=f'note says "{phrase}" (explicit metric move)',
        delta=delta,
        adjustment=True,
    )


def _quoted_emoji(signal: Signal) -> list[Interpretation]:
    """A note that quotes the answer's emoji ("🚀🚀🚀 really?") is about emoji."""
    used = set(lx.EMOJI_CHAR.findall(signal.note))
    if len(lx.EMOJI_CHAR.findall(signal.note)) < 2 or not used & set(signal.context):
        return []
    direction: Direction = "-" if signal.type == "dislike" else "+"
    return [
        Interpretation(
            dimension="emoji",
            preference=rule_text("emoji", "", direction),
            direction=direction,
            confidence=OBSERVED,
            reasoning=f"the note quotes the answer's emoji on a {signal.type}",
        )
    ]


def _imperative(note: str) -> list[Interpretation]:
    """An instruction about nothing the lexicon knows becomes an "other" rule, verbatim."""
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", note.strip()):
        match = lx.IMPERATIVE.match(normalise(sentence))
        if match:
            negative = match.group("verb") in lx.NEGATIVE_IMPERATIVES
            return [
                Interpretation(
                    dimension="other",
                    preference=normalise_preference(sentence),
                    direction="-" if negative else "+",
                    confidence=OTHER,
                    reasoning=f'an instruction ("{match.group("verb")}") about no known dimension',
                )
            ]
    return []


# --- the excerpt the signal reacted to ------------------------------------------------------

_BULLET_LINE = re.compile(r"^\s*(?:[-*•+]|\d{1,2}[.)])\s+\S")
_TABLE_LINE = re.compile(r"^\s*\|.*\|\s*$")
_HEADING_LINE = re.compile(r"^\s*#{1,6}\s+\S")
LONG_EXCERPT, SHORT_EXCERPT = 1_500, 40  # characters


def context_features(context: str) -> list[tuple[str, str, int, str]]:
    """(dimension, aspect, pole, what was seen) for the excerpt's salient features, the most
    telling first: emoji and tables are rarely incidental, length is the weakest."""
    lines = [line for line in context.splitlines() if line.strip()]
    found: list[tuple[str, str, int, str]] = []
    emoji = len(lx.EMOJI_CHAR.findall(context))
    if emoji >= 3:
        found.append(("emoji", "", +1, f"{emoji} emoji"))
    tables = sum(1 for line in lines if _TABLE_LINE.match(line))
    if tables >= 3:
        found.append(("format", "tables", +1, f"a table of {tables} rows"))
    bullets = sum(1 for line in lines if _BULLET_LINE.match(line))
    if bullets >= 3 and bullets >= 0.3 * len(lines):
        found.append(("format", "bullets", +1, f"{bullets} bullet lines of {len(lines)}"))
    headings = sum(1 for line in lines if _HEADING_LINE.match(line))
    if headings >= 3:
        found.append(("format", "headings", +1, f"{headings} headings"))
    if len(context) >= LONG_EXCERPT:
        found.append(("verbosity", "", +1, f"{len(context)} characters"))
    elif 0 < len(context.strip()) <= SHORT_EXCERPT:
        found.append(("verbosity", "", -1, f"only {len(context.strip())} characters"))
    return found


def read_context(context: str, signal_type: SignalType) -> list[Interpretation]:
    """The most salient feature of the excerpt, liked or disliked, at low confidence."""
    if signal_type not in ("like", "dislike"):
        return []
    features = context_features(context)
    if not features:
        return []
    dimension, aspect, pole, seen = features[0]
    want = pole if signal_type == "like" else -pole
    direction: Direction = "+" if want > 0 else "-"
    return [
        Interpretation(
            dimension=dimension,
            preference=rule_text(dimension, aspect, direction),
            direction=direction,
            confidence=CONTEXT,
            reasoning=f"no note; the {signal_type}d excerpt has {seen}",
            aspect=aspect,
            delta=round(want * NUDGE, 3) if dimension in METRICS else None,
        )
    ]
