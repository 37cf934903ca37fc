"""Sensitivity levels and the write-time detector (pure: no Django, no I/O).

Levels, lowest first: public < internal < personal < credentials. The detector looks for
credentials (cloud and SaaS key formats, PEM private keys, JWTs, password assignments,
high-entropy tokens) and personal data (e-mail addresses, phone numbers, IBANs with a valid
checksum, card numbers passing Luhn). It only ever RAISES a level; it reports detector
NAMES, never the matched text, so its findings are safe to return and to log.

Every pattern is linear: bounded repetitions, anchored starts (a look-behind that only
admits token starts), no nested quantifiers, so 50 KB of adversarial text costs
milliseconds (docs/security.md has the measured worst case).

Decisions (docs/security.md, "What the detector flags"):
- Pure hex tokens (commit hashes, SHA digests, UUIDs with or without dashes) are NOT
  high-entropy credentials: in notes they are almost always identifiers. A hex secret is
  still caught in an assignment (`api_key=…`) or by its provider prefix.
- Tokens after `base64,` (data: URLs, inline images), inside PEM public keys and
  certificates, and tokens over 200 characters are data, not secrets; PEM private keys and
  JWTs have their own detectors.
- E-mail addresses at reserved example domains (example.com/.org/.net, *.example, *.test,
  *.invalid, localhost) are not personal data.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

PUBLIC, INTERNAL, PERSONAL, CREDENTIALS = "public", "internal", "personal", "credentials"
LEVELS: tuple[str, ...] = (PUBLIC, INTERNAL, PERSONAL, CREDENTIALS)
_RANK = {name: i for i, name in enumerate(LEVELS)}


def rank(level: str) -> int:
    """The level's position; an unknown name ranks highest (fail closed)."""
    return _RANK.get(level, len(LEVELS))


def highest(*levels: str) -> str:
    """The most sensitive of the given levels (public when none are given)."""
    return max(levels, key=rank, default=PUBLIC)


def at_most(level: str) -> list[str]:
    """Every level not above `level`, lowest first."""
    return [name for name in LEVELS if rank(name) <= rank(level)]


@dataclass(frozen=True)
class Detection:
    level: str  # public when nothing fired: the detector never lowers a level
    reasons: tuple[str, ...]  # detector names, sorted; never the matched text


Check = Callable[[re.Match[str]], bool]


@dataclass(frozen=True)
class Detector:
    name: str
    level: str
    pattern: re.Pattern[str]
    check: Check | None = None  # a second look at a match (checksum, entropy, decoding)
    # A cheap necessary condition, checked before the regex (which tries every position of
    # the text and cost ~20 us a KB each, most of a batch write's detection time): the
    # pattern can only match if one of `hints` occurs in the text, or one of `folded_hints`
    # in its lower-cased form. Empty: always run the regex. See `_may_match`.
    hints: tuple[str, ...] = ()
    folded_hints: tuple[str, ...] = ()


# A token starts where no token character precedes it: the regex engine then tries a
# pattern only at token starts, which keeps scanning linear.
_NOT_AFTER_WORD = r"(?<![A-Za-z0-9_\-])"
_NOT_BEFORE_WORD = r"(?![A-Za-z0-9_\-])"


def _has_digit_and_letter(match: re.Match[str]) -> bool:
    token = match.group(0)
    return any(c.isdigit() for c in token) and any(c.isalpha() for c in token)


def _jwt_header(match: re.Match[str]) -> bool:
    """The first part decodes to a JSON object naming an `alg`, as every JWT header does."""
    head = match.group(1)
    try:
        raw = base64.urlsafe_b64decode(head + "=" * (-len(head) % 4))
        header = json.loads(raw)
    except (binascii.Error, ValueError):
        return False
    return isinstance(header, dict) and "alg" in header


_PLACEHOLDER = re.compile(r"^(?:[<$%{\[(]|\*+$|x+$|\.+$)", re.IGNORECASE)


def _real_password(match: re.Match[str]) -> bool:
    """`password=<your password>`, `${DB_PASSWORD}`, `********` are placeholders, not secrets."""
    return _PLACEHOLDER.match(match.group("value")) is None


_PROSE_TRAILING = ".,;:!?)]}"


def _prose_password(match: re.Match[str]) -> bool:
    """`the password is hunter2`: a value with a digit, neither a placeholder nor a path or URL
    (`pwd /home/me2`); a word after "password" ("is required", "manager") is not a secret."""
    value = match.group("value").rstrip(_PROSE_TRAILING)
    return (
        len(value) >= 6
        and any(c.isdigit() for c in value)
        and _PLACEHOLDER.match(value) is None
        and not value.startswith(("/", "~", "."))
        and "://" not in value
    )


def shannon_entropy(text: str) -> float:
    """Bits per character of the text's own character distribution."""
    if not text:
        return 0.0
    counts = Counter(text)
    total = len(text)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


ENTROPY_MIN_LEN = 24
ENTROPY_MAX_LEN = 200
ENTROPY_BITS = 4.0  # random base64 of 24+ chars scores 3.7-5.2, nearly always above 4
WORDY = 0.5  # random tokens rarely have half their characters in word-like runs (~1 in 100)
_HEX_OR_UUID = re.compile(r"^[0-9a-fA-F\-]+$")
_WORD_RUN = re.compile(r"[A-Z]?[a-z]{3,}")


def _wordy(token: str) -> float:
    """The share of characters in word-like runs (`Login`, `site`): identifiers and paths
    (`fixTheLoginFlow_v2`, `src/UserProfile2Card`) are mostly words, random tokens are not."""
    return sum(len(run) for run in _WORD_RUN.findall(token)) / len(token)


def _random_token(match: re.Match[str]) -> bool:
    token = match.group(0)
    start = match.start()
    if match.string[max(0, start - 7) : start].lower() == "base64,":
        return False  # a data: URL (inline image), not a secret
    if _HEX_OR_UUID.match(token):
        return False  # hashes and ids: see the module docstring
    if _in_public_pem(match.string, start):
        return False  # public keys and certificates are base64 by nature, and not secret
    kinds = (
        any(c.isdigit() for c in token)
        + any(c.islower() for c in token)
        + any(c.isupper() for c in token)
    )
    return kinds == 3 and _wordy(token) < WORDY and shannon_entropy(token) >= ENTROPY_BITS


_PEM_WINDOW = 16_384  # a certificate chain's block; bounds the look-back per token


def _in_public_pem(text: str, start: int) -> bool:
    """Whether `start` lies inside a `-----BEGIN PUBLIC KEY/CERTIFICATE-----` block."""
    window = max(0, start - _PEM_WINDOW)
    begin = text.rfind("-----BEGIN ", window, start)
    if begin < 0 or text.rfind("-----END ", begin, start) >= 0:
        return False
    label = text[begin + 11 : begin + 60]
    return label.startswith(("PUBLIC KEY", "CERTIFICATE", "RSA PUBLIC KEY", "SSH2 PUBLIC KEY"))


def _iban_checksum(match: re.Match[str]) -> bool:
    iban = match.group(0).replace(" ", "")
    if not 15 <= len(iban) <= 34:
        return False
    moved = iban[4:] + iban[:4]
    digits = "".join(str(int(c, 36)) for c in moved)
    return int(digits) % 97 == 1


def luhn(digits: str) -> bool:
    total = 0
    for i, char in enumerate(reversed(digits)):
        n = int(char)
        if i % 2 == 1:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


_CARD_PREFIX = re.compile(r"^(?:4|5[1-5]|2[2-7]|3[47]|6(?:011|5))")


def _card(match: re.Match[str]) -> bool:
    digits = re.sub(r"[ -]", "", match.group(0))
    if not 13 <= len(digits) <= 19 or len(set(digits)) == 1:
        return False
    return _CARD_PREFIX.match(digits) is not None and luhn(digits)


_EXAMPLE_DOMAIN = re.compile(
    r"(?:^|\.)(?:example\.(?:com|org|net)|[^.]+\.(?:example|test|invalid|localhost))$",
    re.IGNORECASE,
)


def _real_email(match: re.Match[str]) -> bool:
    return _EXAMPLE_DOMAIN.search(match.group("domain")) is None


def _phone_digits(match: re.Match[str]) -> bool:
    count = sum(c.isdigit() for c in match.group(0))
    return 8 <= count <= 15


# Names of secret fields (AWS_SECRET_ACCESS_KEY, db.password, OPENAI_API_KEY, kennwort).
_SENSITIVE_FIELDS = (
    r"password|passwd|passwort|kennwort|passphrase|pwd|secret|api[_-]?key|private[_-]?key|"
    r"access[_-]?key|access[_-]?token|auth[_-]?token|refresh[_-]?token"
)

DETECTORS: tuple[Detector, ...] = (
    Detector(
        "aws_access_key",
        CREDENTIALS,
        re.compile(_NOT_AFTER_WORD + r"(?:AKIA|ASIA)[A-Z2-7]{16}" + _NOT_BEFORE_WORD),
        hints=("AKIA", "ASIA"),
    ),
    Detector(
        "gcp_service_account",
        CREDENTIALS,
        re.compile(r'"private_key"\s{0,10}:\s{0,10}"-----BEGIN'),
        hints=('"private_key"',),
    ),
    Detector(
        "azure_connection_string",
        CREDENTIALS,
        re.compile(r"(?<![A-Za-z])(?:AccountKey|SharedAccessKey)=[A-Za-z0-9+/]{20,}"),
        hints=("AccountKey=", "SharedAccessKey="),
    ),
    Detector(
        "github_token",
        CREDENTIALS,
        re.compile(
            _NOT_AFTER_WORD + r"(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})"
        ),
        hints=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    Detector(
        "gitlab_token",
        CREDENTIALS,
        re.compile(_NOT_AFTER_WORD + r"glpat-[A-Za-z0-9_\-]{20,}"),
        hints=("glpat-",),
    ),
    Detector(
        "slack_token",
        CREDENTIALS,
        re.compile(_NOT_AFTER_WORD + r"xox[abpr]-[A-Za-z0-9\-]{10,}"),
        hints=("xoxa-", "xoxb-", "xoxp-", "xoxr-"),
    ),
    Detector(
        "stripe_key",
        CREDENTIALS,
        re.compile(_NOT_AFTER_WORD + r"[sr]k_live_[A-Za-z0-9]{20,}"),
        hints=("k_live_",),
    ),
    Detector(
        "anthropic_key",
        CREDENTIALS,
        re.compile(_NOT_AFTER_WORD + r"sk-ant-[A-Za-z0-9_\-]{20,}"),
        hints=("sk-ant-",),
    ),
    Detector(
        "openai_key",
        CREDENTIALS,
        re.compile(_NOT_AFTER_WORD + r"sk-(?!ant-)(?:proj-)?[A-Za-z0-9_\-]{20,}"),
        _has_digit_and_letter,
        hints=("sk-",),
    ),
    Detector(
        "google_api_key",
        CREDENTIALS,
        re.compile(_NOT_AFTER_WORD + r"AIza[0-9A-Za-z_\-]{35}" + _NOT_BEFORE_WORD),
        hints=("AIza",),
    ),
    Detector(
        "pem_private_key",
        CREDENTIALS,
        re.compile(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"),
        hints=("-----BEGIN ",),
    ),
    Detector(
        "jwt",
        CREDENTIALS,
        re.compile(
            _NOT_AFTER_WORD + r"(eyJ[A-Za-z0-9_\-]{4,})\.[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]{4,}"
        ),
        _jwt_header,
        hints=("eyJ",),
    ),
    Detector(
        "password_assignment",
        CREDENTIALS,
        re.compile(
            r"(?i)(?<![A-Za-z0-9])(?:[A-Za-z0-9]{1,20}[_.\-]){0,3}(?:" + _SENSITIVE_FIELDS + r")"
            r"[\"']?\s{0,3}(?::=|=>|[:=])\s{0,3}[\"']?"
            r"(?P<value>[^\s\"'<>]{6,200})"
        ),
        _real_password,
        folded_hints=("pass", "kennwort", "pwd", "secret", "key", "token"),
    ),
    Detector(
        # The same secret said in a sentence: "the password is Sommer2024!", "use password
        # hunter2-Xq9 for the db", "das Passwort ist …". Only a value with a digit counts;
        # `password = …` and `password: …` are assignments (the detector above), not prose.
        "password_in_prose",
        CREDENTIALS,
        re.compile(
            r"(?i)(?<![A-Za-z0-9_\-])(?:password|passwort|kennwort|passphrase|passcode|pwd)"
            r"\s{1,3}(?:(?:is|ist|was|war|lautet)\s{1,3})?[\"'`]?"
            r"(?P<value>[^\s\"'<>`=:][^\s\"'<>`]{5,199})"
        ),
        _prose_password,
        folded_hints=("pass", "kennwort", "pwd"),
    ),
    Detector(
        "high_entropy_token",
        CREDENTIALS,
        re.compile(
            rf"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/_\-]{{{ENTROPY_MIN_LEN},{ENTROPY_MAX_LEN}}}"
            r"={0,2}(?![A-Za-z0-9+/_\-])"
        ),
        _random_token,
    ),
    Detector(
        "email_address",
        PERSONAL,
        re.compile(
            r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]{1,64}@"
            r"(?P<domain>[A-Za-z0-9\-]{1,63}(?:\.[A-Za-z0-9\-]{1,63}){0,8}\.[A-Za-z]{2,24})"
            r"(?![A-Za-z0-9\-])"
        ),
        _real_email,
        hints=("@",),
    ),
    Detector(
        "phone_number",
        PERSONAL,
        re.compile(
            r"(?<![\w+])\+[1-9][0-9 ().\-]{6,18}[0-9](?![\w\-])"
            r"|(?<!\w)\(\d{3}\)\s?\d{3}-\d{4}(?!\w)"
            r"|(?<!\w)(?i:tel|phone|mobile|telefon|handy|mobil|fax)\.?:?\s{0,3}"
            r"\+?[0-9][0-9 ()/.\-]{6,18}[0-9](?![\w\-])"
        ),
        _phone_digits,
        hints=("+", "("),
        folded_hints=("tel", "phone", "mobil", "handy", "fax"),
    ),
    Detector(
        "iban",
        PERSONAL,
        re.compile(
            r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?"
            r"(?![A-Za-z0-9])"
        ),
        _iban_checksum,
    ),
    Detector(
        "credit_card",
        PERSONAL,
        re.compile(r"(?<![\w\-])\d(?:[ \-]?\d){12,18}(?![\w\-])"),
        _card,
    ),
)


# The characters outside ASCII that case-insensitive matching pairs with an ASCII letter: the
# dotted and dotless i, the long s and the Kelvin sign (every code point tried: the test in
# tests/ctx/test_sensitivity_hints.py). Lower-casing does not turn them into their ASCII twin.
ASCII_TWINS = "\u0130\u0131\u017f\u212a"
_ASCII_TWIN = re.compile(f"[{ASCII_TWINS}]")


def _folded(text: str) -> str | None:
    """The lower-cased text, in which the (ASCII) folded hints are looked up; None when a
    letter in it could match an ASCII hint letter under IGNORECASE without lower-casing to
    it (then only the regex can tell). Text with other non-ASCII characters (an ellipsis, a
    dash, accented letters) folds safely: lower-casing never changes an ASCII character, and
    no other character matches one. Most conversation text is such text (the windows' "[…]")."""
    if text.isascii() or _ASCII_TWIN.search(text) is None:
        return text.lower()
    return None


def _may_match(detector: Detector, text: str, folded: str | None) -> bool:
    """False only when the detector's pattern cannot match `text` (its hints are absent).

    `folded` is the lower-cased text, or None when it cannot stand in for the text (`_folded`).
    """
    if not detector.hints and not detector.folded_hints:
        return True
    if any(hint in text for hint in detector.hints):
        return True
    if not detector.folded_hints:
        return False
    return folded is None or any(hint in folded for hint in detector.folded_hints)


def _fires(detector: Detector, text: str, folded: str | None) -> bool:
    if not _may_match(detector, text, folded):
        return False
    for match in detector.pattern.finditer(text):
        if detector.check is None or detector.check(match):
            return True
    return False


def detect(text: str) -> Detection:
    """The level the text's content calls for, and which detectors fired."""
    folded = _folded(text)
    fired = [d for d in DETECTORS if _fires(d, text, folded)]
    level = highest(*(d.level for d in fired)) if fired else PUBLIC
    return Detection(level=level, reasons=tuple(sorted({d.name for d in fired})))


def detect_block(
    title: str, content: str, tags: Iterable[str] = (), metadata: Mapping[str, Any] | None = None
) -> Detection:
    """`detect` over everything a block stores as text: title, content, tags and metadata."""
    parts = [title, content, " ".join(tags)]
    if metadata:
        parts.append(json.dumps(metadata, ensure_ascii=False))
    return detect("\n".join(parts))


def text_level(text: str, floor: str = INTERNAL) -> str:
    """The level of a tenant's free text (a query): at least `floor`, raised by the detector."""
    return highest(floor, detect(text).level)


def detect_all(texts: Iterable[str]) -> Detection:
    """`detect` over several texts (a prompt's messages, a batch of passages)."""
    return detect("\n".join(texts))


# --- redaction: credentials out of stored text ---------------------------------------------------

# The placeholder each credentials detector's span becomes (`[redacted:aws-key]`): it names the
# kind of secret so a reader knows something was there, never its value.
PLACEHOLDERS: dict[str, str] = {
    "aws_access_key": "aws-key",
    "gcp_service_account": "private-key",
    "azure_connection_string": "azure-key",
    "github_token": "github-token",
    "gitlab_token": "gitlab-token",
    "slack_token": "slack-token",
    "stripe_key": "stripe-key",
    "anthropic_key": "anthropic-key",
    "openai_key": "openai-key",
    "google_api_key": "google-key",
    "pem_private_key": "private-key",
    "jwt": "jwt",
    "password_assignment": "password",
    "password_in_prose": "password",
    "high_entropy_token": "token",
}
_PEM_END = re.compile(r"-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_MAX = 16_384  # a private key block without its END line: redact this far, not the rest
REDACT_PASSES = 3  # a replacement can expose a second token (a key inside a password value)


def placeholder(detector: str) -> str:
    return f"[redacted:{PLACEHOLDERS.get(detector, 'secret')}]"


def _span(detector: Detector, match: re.Match[str]) -> tuple[int, int]:
    """The characters a match's secret occupies: the value of an assignment (the name stays
    readable), a private key's whole block, otherwise the match."""
    if detector.name in ("password_assignment", "password_in_prose"):
        return match.span("value")
    if detector.name in ("pem_private_key", "gcp_service_account"):
        end = _PEM_END.search(match.string, match.end(), match.end() + _PEM_MAX)
        return match.start(), end.end() if end else min(len(match.string), match.end() + _PEM_MAX)
    return match.span()


def _secret_spans(text: str) -> list[tuple[int, int, str]]:
    folded = _folded(text)
    spans: list[tuple[int, int, int, str]] = []
    for order, detector in enumerate(DETECTORS):  # the specific detectors come first
        if detector.level != CREDENTIALS or not _may_match(detector, text, folded):
            continue
        for match in detector.pattern.finditer(text):
            if detector.check is None or detector.check(match):
                start, end = _span(detector, match)
                spans.append((start, -end, order, detector.name))
    return [(start, -neg_end, name) for start, neg_end, _, name in sorted(spans)]


def _replace(text: str, spans: list[tuple[int, int, str]]) -> str:
    """Each span replaced by its placeholder; of overlapping spans the earlier (then longer)
    one wins, and the others are covered by it."""
    out: list[str] = []
    pos = 0
    for start, end, name in spans:
        if start < pos:
            continue
        out.append(text[pos:start])
        out.append(placeholder(name))
        pos = end
    out.append(text[pos:])
    return "".join(out)


def redact(text: str) -> tuple[str, tuple[str, ...]]:
    """`text` with every credentials-level span replaced by a typed placeholder, and the names
    of the detectors that fired. Personal data (e-mail addresses, phone numbers) is kept: it
    raises the level of what is stored from it, but a conversation without it makes no sense."""
    found: set[str] = set()
    for _ in range(REDACT_PASSES):
        spans = _secret_spans(text)
        if not spans:
            break
        found.update(name for _, _, name in spans)
        text = _replace(text, spans)
    return text, tuple(sorted(found))
