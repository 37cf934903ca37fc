"""`ctx_simple_text`'s fast path (migration ctx 0024) gives what its slow path gives."""

from __future__ import annotations

import importlib
import re

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db

SAFE = importlib.import_module("migrations.ctx.0024_simple_text_symbols").SAFE
# The slow path alone, as the function ran it for every non-ASCII text before 0024.
SLOW = r"""SELECT ctx_fold(regexp_replace(%s,
    '([\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff])',
    ' \1 ', 'g'))"""


def _ranges() -> list[tuple[int, int]]:
    """SAFE's ranges as code points (its escapes are \\xhh, \\uhhhh and \\Uhhhhhhhh)."""
    points = [int(h, 16) for h in re.findall(r"\\(?:x|u|U)([0-9a-f]+)", SAFE)]
    singles = re.sub(r"\\(?:x|u|U)[0-9a-f]+-\\(?:x|u|U)[0-9a-f]+", "", SAFE)
    lone = {int(h, 16) for h in re.findall(r"\\(?:x|u|U)([0-9a-f]+)", singles)}
    out, i = [], 0
    while i < len(points):
        if points[i] in lone:
            out.append((points[i], points[i]))
            i += 1
        else:
            out.append((points[i], points[i + 1]))
            i += 2
    return out


def _one(sql: str, value: str) -> str:
    with connection.cursor() as cur:
        cur.execute(sql, [value])
        return str(cur.fetchone()[0])


def test_it_leaves_every_character_of_the_fast_path_as_the_slow_path_does() -> None:
    chars = "".join(chr(c) for lo, hi in _ranges() for c in range(lo, hi + 1))
    assert len(chars) > 1900  # every range was read (ASCII, Latin-1 symbols, arrows, emoji …)
    assert _one(SLOW, chars) == chars
    assert _one("SELECT ctx_simple_text(%s)", chars) == chars


def test_it_folds_a_window_that_mixes_symbols_and_accents() -> None:
    text = "user: Zoë\u2019s deploy — done […] ✅ 🚀"
    assert _one("SELECT ctx_simple_text(%s)", text) == _one(SLOW, text)
    assert _one("SELECT ctx_simple_text(%s)", text) == "user: Zoe\u2019s deploy — done […] ✅ 🚀"


def test_it_still_spaces_cjk_next_to_punctuation() -> None:
    text = "日本語 — […]"
    assert _one("SELECT ctx_simple_text(%s)", text) == " 日  本  語  — […]"
