"""The deterministic interpreter's vocabulary: cue phrases per dimension and the markers that
decide a cue's direction (README: "The deterministic interpreter").

A cue names a quality or an element of an answer and its pole: "verbose" is verbosity at +1,
"concise" verbosity at -1, "bullet points" the bullets aspect of format at +1. Whether the user
wants more or less of it is decided by the words around it (`rules.py`), not here.

Modes:
- `observe`: a description of the answer ("verbose", "the table"): without a marker, a like
  wants the pole, a dislike the opposite.
- `desire`: a request whatever the signal type ("walk me through", "get to the point").
- `compare`: a comparative ("shorter", "warmer"): a request that moves a metric, not a rule.
- `choose`: a choice in an exclusive slot (an answer language, what comes first): "set".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Mode = Literal["observe", "desire", "compare", "choose"]


@dataclass(frozen=True)
class Cue:
    pattern: re.Pattern[str]
    dimension: str
    aspect: str
    pole: int  # +1: the named quality/element is present or high; -1: low
    mode: Mode = "observe"
    weight: float = 1.0  # < 1 for weak evidence (a bare "in Python")
    only_tags: bool = False  # a bare word that is a preference only as a tag ("german")


def _cue(
    words: str,
    dimension: str,
    aspect: str,
    pole: int,
    mode: Mode = "observe",
    *,
    weight: float = 1.0,
    only_tags: bool = False,
    bounded: bool = True,
) -> Cue:
    # Word boundaries on both sides; a hyphen counts as inside a word on the left, so that
    # "to-do list" is not the cue "list".
    pattern = re.compile(rf"(?<![\w-])(?:{words})(?!\w)" if bounded else words)
    return Cue(pattern, dimension, aspect, pole, mode, weight, only_tags)


NATURAL = (
    "english|german|deutsch|englisch|french|fran[cç]ais|spanish|espa[nñ]ol|italian|portuguese|"
    "dutch|polish|japanese|chinese|korean|russian|turkish|swedish|danish|norwegian|finnish|"
    "czech|greek|hindi|arabic|ukrainian"
)
NATURAL_CANONICAL = {
    "deutsch": "german",
    "englisch": "english",
    "français": "french",
    "francais": "french",
    "español": "spanish",
    "espanol": "spanish",
}
PROGRAMMING = (
    r"python|typescript|javascript|golang|go|rust|java|kotlin|swift|c#|c\+\+|ruby|php|bash|"
    r"shell|sql|scala|elixir|haskell"
)
PROGRAMMING_CANONICAL = {"golang": "go"}

# What an answer can open with, and the structure aspect each one means.
THINGS = (
    r"command|cmd|answer|solution|fix|result|conclusion|verdict|code|snippet|summary|tl;?dr|"
    r"overview|bottom line"
)
THING_ASPECT = {
    "command": "command_first",
    "cmd": "command_first",
    "code": "code_first",
    "snippet": "code_first",
    "summary": "summary_first",
    "tl;dr": "summary_first",
    "tldr": "summary_first",
    "overview": "summary_first",
}  # everything else (answer, fix, result, bottom line, …) is answer_first
_ART = r"(?:(?:the|a|an|your|actual|real|my) )*"

VERBOSITY = (
    _cue(
        r"long|lengthy|verbose|verbosity|wordy|rambl\w*|long[- ]winded|wall of text|padding|"
        r"pad|padded|fluff\w*|waffl\w*|filler|bloated|detailed|details?|thorough\w*|"
        r"in[- ]depth|comprehensive|elaborate|ausführlich|lang",
        "verbosity",
        "",
        +1,
    ),
    _cue(
        r"short|brief|concise|terse|succinct|compact|one[- ]liners?|kurz|knapp",
        "verbosity",
        "",
        -1,
    ),
    _cue(r"shorter|terser|briefer|kürzer|knapper", "verbosity", "", -1, "compare"),
    _cue(r"(?<!no )(?<!any )longer|ausführlicher", "verbosity", "", +1, "compare"),
    _cue(r"tl;?dr|less text|fewer words", "verbosity", "", -1, "desire"),
)

TONE = (
    _cue(
        r"friendly|warm|warmth|enthusias\w*|cheerful|upbeat|encourag\w*|empath\w*|"
        r"kind(?! of)|patient",
        "tone",
        "",
        +1,
    ),
    _cue(r"hum(?:ou?)?r\w*|jok(?:e|es|ing|y)|funny|fun|playful", "tone", "humour", +1),
    _cue(
        r"sycophan\w*|gush\w*|flatter\w*|prais\w*|over[- ]the[- ]top|cheesy|"
        r"(?:great|good|excellent) question|question is (?:great|good)",
        "tone",
        "flattery",
        +1,
    ),
    _cue(r"apolog\w*|sorry", "tone", "apologies", +1),
    _cue(r"exclamation(?: marks?| points?)?", "tone", "exclamations", +1),
    _cue(r"!{2,}", "tone", "exclamations", +1, bounded=False),
    _cue(r"pleasantries|small talk|chit[- ]chat", "tone", "pleasantries", +1),
    _cue(r"cold|robot\w*|dry|neutral|flat|clinical|matter[- ]of[- ]fact|sober", "tone", "", -1),
    _cue(r"warmer|friendlier|nicer", "tone", "", +1, "compare"),
)

FORMALITY = (
    _cue(
        r"formal|formally|professional\w*|polite\w*|business[- ]?like|stiff|corporate|"
        r"legal\w*|lawyer|legalese|sie|siezen|förmlich",
        "formality",
        "",
        +1,
    ),
    _cue(
        r"casual\w*|informal|relaxed|laid[- ]back|colloquial|conversational|slang|chatty|"
        r"colleague|friends|du|duzen|locker",
        "formality",
        "",
        -1,
    ),
    _cue(r"formeller|förmlicher", "formality", "", +1, "compare"),
    _cue(r"lockerer", "formality", "", -1, "compare"),
)

DIRECTNESS = (
    _cue(
        r"direct|directly|blunt\w*|straight(?:forward)?(?: answers?)?|frank\w*|decisive\w*|"
        r"assertive|opinionated|harsh|rude|candid",
        "directness",
        "",
        +1,
    ),
    _cue(
        r"(?:get|cut|come) to the point|to the point|just tell me|which one to (?:pick|use|choose)|"
        r"pick one|commit to an? (?:answer|recommendation)",
        "directness",
        "",
        +1,
        "desire",
    ),
    _cue(
        r"hedg\w*|caveats?|disclaimers?|wishy[- ]washy|vague\w*|it depends|diplomatic\w*|"
        r"tactful\w*|gentle|gently|noncommittal|on the fence|qualifiers?",
        "directness",
        "",
        -1,
    ),
    _cue(r"soften\w*|sugar[- ]?coat\w*", "directness", "", -1, "desire"),
    _cue(r"direkter|blunter", "directness", "", +1, "compare"),
)

FORMAT = (
    _cue(
        r"bullet(?:s|ed)?(?: points?| lists?)?|listicles?|lists?(?! of)|aufzählung\w*|"
        r"stichpunkt\w*",
        "format",
        "bullets",
        +1,
    ),
    _cue(r"tables?|tabular|tabellen?", "format", "tables", +1),
    _cue(r"prose|paragraphs?|full sentences|flowing text|fließtext", "format", "prose", +1),
    _cue(r"markdown|formatting", "format", "markdown", +1),
    _cue(r"plain text", "format", "markdown", -1, "desire"),
    _cue(r"headings?|headers?|section titles", "format", "headings", +1),
    _cue(r"bold|bolded|bolding", "format", "bold", +1),
)

STRUCTURE = (
    _cue(
        rf"{_ART}(?P<thing>{THINGS}) (?:first|at the top|up ?front|on top)|"
        rf"(?:start|lead|open|begin)(?:s|ing)? with {_ART}(?P<thing2>{THINGS})|"
        rf"put {_ART}(?P<thing3>{THINGS}) (?:first|before|above)(?: (?:the |any |your )?\w+)?|"
        rf"{_ART}(?P<thing4>{THINGS}) (?:came|comes|coming) first",
        "structure",
        "",
        +1,
        "choose",
    ),
    _cue(
        rf"scroll\w* (?:down )?to (?:find|get to|see) {_ART}(?P<thing5>{THINGS})",
        "structure",
        "",
        +1,
        "choose",
    ),
    _cue(r"bottom line up front|bluf", "structure", "answer_first", +1, "choose"),
    _cue(
        r"step[- ]by[- ]step|(?:numbered )?steps|numbered lists?|schritt für schritt",
        "structure",
        "steps",
        +1,
    ),
    _cue(
        r"recap|wrap[- ]up|end with (?:a |an )?(?:short |brief |quick )?(?:summary|recap)|"
        r"summary at the end",
        "structure",
        "recap",
        +1,
    ),
)

CODE = (
    _cue(r"(?:inline )?comment(?:s|ed|ing)?", "code_style", "comments", +1),
    _cue(
        r"type[- ]?hints?|type annotations?|annotations|typing|typed|mypy",
        "code_style",
        "type_hints",
        +1,
    ),
    _cue(r"docstrings?|jsdoc", "code_style", "docstrings", +1),
    _cue(
        r"(?:whole|full|complete|entire) (?:file|code|script|program|module|function)s?",
        "code_style",
        "full_code",
        +1,
    ),
    _cue(r"snippets?|partial code", "code_style", "full_code", -1),
    _cue(r"f[- ]?strings?", "code_style", "f-strings", +1),
    _cue(r"pathlib", "code_style", "pathlib", +1),
    _cue(r"pytest", "code_style", "pytest", +1),
    _cue(r"dataclass(?:es)?", "code_style", "dataclasses", +1),
    _cue(r"list comprehensions?", "code_style", "list_comprehensions", +1),
    _cue(r"early returns?|guard clauses?", "code_style", "early_returns", +1),
    _cue(
        rf"(?:write|code|implement|do|show|give)\w*(?: [\w']+){{0,4}} in (?P<prog>{PROGRAMMING})|"
        rf"(?P<prog2>{PROGRAMMING}),? (?:not|instead of|rather than|over) (?:{PROGRAMMING})",
        "code_style",
        "",
        +1,
        "choose",
    ),
    _cue(rf"in (?P<prog3>{PROGRAMMING})", "code_style", "", +1, "choose", weight=0.6),
    _cue(rf"(?P<prog4>{PROGRAMMING})", "code_style", "", +1, "choose", only_tags=True),
)

LANGUAGE = (
    _cue(
        rf"(?:answer|reply|respond|write|talk|speak|antwort|schreib)\w*(?: [\w']+){{0,3}} "
        rf"in (?P<nat>{NATURAL})|auf (?P<nat2>{NATURAL})|(?P<nat3>{NATURAL}),? please|"
        rf"in (?P<nat4>{NATURAL}),? please",
        "language",
        "",
        +1,
        "choose",
    ),
    _cue(
        rf"(?:terms|jargon|terminology|names)(?: [\w']+){{0,2}} in (?P<terms>{NATURAL})",
        "language",
        "",
        +1,
        "choose",
    ),
    _cue(
        r"(?:the )?same language|my (?:own )?language|the language i (?:use|write|speak)\w*"
        r"(?: in)?|language of the question",
        "language",
        "match",
        +1,
        "choose",
    ),
    _cue(rf"in (?P<nat5>{NATURAL})", "language", "", +1, "choose", weight=0.6),
    _cue(rf"(?P<nat6>{NATURAL})", "language", "", +1, "choose", only_tags=True),
)

EMOJI = (_cue(r"emoji\w*|emoticons?|smiley\w*|smilies", "emoji", "", +1),)

CITATIONS = (
    _cue(
        r"sources?|citations?|cite|citing|references?|links?(?: to)?|linking|footnotes?|"
        r"quellen?",
        "citations",
        "",
        +1,
    ),
    _cue(
        r"where (?:is|was|does|did) (?:this|that|it) (?:come )?from|where did you get",
        "citations",
        "",
        +1,
        "desire",
    ),
)

EXPLANATIONS = (
    _cue(
        r"explain\w*|explanations?|reasoning|rationale|the why|theory|background|basics|"
        r"erklär\w*",
        "explanations",
        "",
        +1,
    ),
    _cue(
        r"walk (?:me )?through|eli5|like i'?m (?:five|5)|why it (?:works|failed|happens)",
        "explanations",
        "",
        +1,
        "desire",
    ),
    _cue(r"just (?:give me )?the (?:code|command|answer)", "explanations", "", -1, "desire"),
)

EXAMPLES = (
    _cue(r"(?<!for )examples?|samples?|beispiele?|concrete", "examples", "", +1),
    _cue(r"abstract", "examples", "", -1),
)

CUES: tuple[Cue, ...] = (
    *VERBOSITY,
    *TONE,
    *FORMALITY,
    *DIRECTNESS,
    *FORMAT,
    *STRUCTURE,
    *CODE,
    *LANGUAGE,
    *EMOJI,
    *CITATIONS,
    *EXPLANATIONS,
    *EXAMPLES,
)

# --- markers: the words before (or after) a cue that decide its direction --------------------

EXCESS = re.compile(
    r"(?<!\w)(?:too|overly|excessive\w*|so many|so much|way more|all these|all those|zu)(?!\w)"
)
NEGATION = re.compile(
    r"(?<!\w)(?:no|not|never|avoid|stop|without|less|fewer|skip|drop|cut|hate|dislike|quit|"
    r"lose|remove|get rid of|instead of|rather than|enough with|ohne|keine?n?|weniger|nicht|"
    r"why (?:did|do|does|is|are|was) (?:you|it|this|that|everything|there))(?!\w)|n't(?!\w)"
)
DESIRE = re.compile(
    r"(?<!\w)(?:more|add|use|using|include|please|prefer|want|need|needs|needed|love|loved|"
    r"keep|be|always|give|show|make|i'?d like|i like|bitte|mehr|sei|missing|lacks?|lacking)(?!\w)"
)
ENOUGH = re.compile(r"(?<!\w)enough(?!\w)")
# After the cue: "... is fine" keeps it, "... is enough" / "isn't enough" asks for less of it.
AFTER_KEEP = re.compile(r"^\W*(?:(?:is|are) (?:fine|ok|okay|welcome)|please|welcome)\b")
AFTER_LIMIT = re.compile(r"^\W*(?:is|are|was|were)(?:n't| not)? enough\b")
MORE_LESS = re.compile(r"(?<!\w)(?:more|less|fewer|mehr|weniger)(?!\w)")
SMALL_STEP = re.compile(r"(?<!\w)(?:a bit|a little|slightly|somewhat|a touch|etwas|bisschen)(?!\w)")
LARGE_STEP = re.compile(r"(?<!\w)(?:a lot|much|way|far|significantly|considerably|viel)(?!\w)")
# "for long answers", "in short questions": a condition, not a preference.
CONDITION = re.compile(r"(?<!\w)(?:for|in|on|with|when|if)(?: (?:the|a|an|very|really))?\s*$")
# Cues joined by "and"/"or" share the first one's markers: "no bullets or tables".
CONJUNCTION = re.compile(r"^\s*(?:and|or|nor|&|/|und|oder)?\s*$")

METRIC_WORDS = {
    "verbosity": "verbosity",
    "length": "verbosity",
    "detail": "verbosity",
    "tone": "tone",
    "warmth": "tone",
    "formality": "formality",
    "directness": "directness",
    "bluntness": "directness",
}
ADJUSTMENT = re.compile(
    r"(?P<verb>increase|raise|decrease|lower|reduce|bump up|turn up|turn down|dial up|dial down)"
    r"\s+(?:the\s+|your\s+)?(?P<metric>" + "|".join(METRIC_WORDS) + r")"
    r"(?:\s+(?P<prep>by|to)\s+(?P<num>\d+(?:\.\d+)?))?"
    r"|set\s+(?:the\s+|your\s+)?(?P<metric2>" + "|".join(METRIC_WORDS) + r")\s+to\s+"
    r"(?P<num2>-?\d+(?:\.\d+)?)"
)
UP_VERBS = frozenset({"increase", "raise", "bump up", "turn up", "dial up"})

# An imperative with no known dimension becomes an "other" rule ("mention trade-offs").
IMPERATIVE = re.compile(
    r"^(?:please |pls |and )?(?P<verb>always|never|don't|do not|avoid|stop|mention|include|"
    r"add|use|show|list|state|say|tell|ask|write|give|prefer|make sure|remember|keep|put)\b"
)
NEGATIVE_IMPERATIVES = frozenset({"never", "don't", "do not", "avoid", "stop"})

EMOJI_CHAR = re.compile(
    "[\U0001f300-\U0001faff\U00002600-\U000027bf\U0001f000-\U0001f2ff\u2b50\u2b06\u2934\u2935]"
)
