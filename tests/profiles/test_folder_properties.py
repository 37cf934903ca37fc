"""The folder protocol's parsers on anything a folder or a client can hold: the inbox file
(its name and bytes), the profile files, the inbox order. Each answers its documented error
(FolderError, SignalError: both ValueErrors, which the inbox turns into a rejected file and
the API into a 400) and nothing else."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from profiles.core.folder import (
    ACTIVE,
    SIGNALS,
    FolderError,
    import_files,
    inbox_order,
    parse_inbox_file,
)
from profiles.core.profile import PROFILE_FORMAT, change_to_dict, profile_to_dict
from profiles.core.signals import SignalError
from tests.profiles.test_folder import sample_set

CHECKS = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))

UUID = "0b6f4a3e-1c2d-4e5f-8a9b-0c1d2e3f4a5b"
STAMPS = st.one_of(
    st.from_regex(r"\A\d{8}T\d{6}(\.\d{1,6})?Z\Z"),  # any digits: 20261399T256199Z too
    st.from_regex(r"\A\d{10}(\d{3})?\Z"),
)
NAMES = st.one_of(STAMPS.map(lambda s: f"{s}-{UUID}.json"), st.text(max_size=60))
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=12,
)
SIGNAL_KEYS = st.sampled_from(["id", "kind", "text", "created_at", "tags", "tool", "rating"])
SIGNALISH = st.dictionaries(SIGNAL_KEYS, JSON, max_size=6)
PROFILE_KEYS = st.sampled_from(
    ["slug", "name", "version", "updated_at", "metrics", "rules", "facts", "context", "template"]
)
PROFILISH = st.dictionaries(PROFILE_KEYS, JSON, max_size=8).map(
    lambda d: {"format": PROFILE_FORMAT, **d}
)


@CHECKS
@given(NAMES, st.one_of(st.binary(max_size=300), SIGNALISH.map(lambda d: json.dumps(d).encode())))
def test_an_inbox_file_is_a_signal_or_its_reason(name: str, data: bytes) -> None:
    with contextlib.suppress(FolderError, SignalError):
        parse_inbox_file(name, data)


@CHECKS
@given(NAMES)
def test_any_name_has_an_inbox_place(name: str) -> None:
    inbox_order(name)  # sorting the inbox must never stop at one odd name


def _lines(items: list[Any]) -> str:
    return "\n".join(json.dumps(i) for i in items)


@CHECKS
@given(
    st.lists(PROFILISH, max_size=3),
    st.lists(st.one_of(JSON, SIGNALISH), max_size=3),
    st.lists(JSON, max_size=3),
    st.text(max_size=20),
)
def test_profile_files_are_a_profile_set_or_its_reason(
    profiles: list[dict[str, Any]], signals: list[Any], history: list[Any], active: str
) -> None:
    # a profile whose slug is its file's (else the reading stops at that first check)
    named = [{**p, "slug": f"p{i}"} if i % 2 == 0 else p for i, p in enumerate(profiles)]
    files = {f"p{i}.json": json.dumps(p) for i, p in enumerate(named)}
    files |= {f"p{i}.history.jsonl": _lines(history) for i in range(len(profiles))}
    files |= {SIGNALS: _lines(signals), ACTIVE: active}
    with contextlib.suppress(FolderError):
        import_files(files)


_CODING = sample_set().profiles[0]
VALID = profile_to_dict(_CODING)
HISTORY = [change_to_dict(c) for c in _CODING.history]


def _damaged(data: dict[str, Any], key: str, value: Any, deep: bool) -> dict[str, Any]:
    """`data` with one field replaced, or (deep) one field of its first list's first item."""
    lists = [k for k, v in data.items() if isinstance(v, list) and v and isinstance(v[0], dict)]
    if deep and lists:
        first = lists[0]
        item = data[first][0]
        inner = sorted(item)[hash(key) % len(item)] if item else key
        return {**data, first: [{**item, inner: value}, *data[first][1:]]}
    return {**data, key: value}


@CHECKS
@given(
    st.sampled_from(sorted(set(VALID) - {"format", "slug"})),
    JSON,
    st.booleans(),
    st.sampled_from(sorted(HISTORY[0])),
    JSON,
    st.booleans(),
)
def test_a_damaged_profile_or_history_is_its_reason(
    key: str, value: Any, deep: bool, change_key: str, change_value: Any, in_history: bool
) -> None:
    profile, history = _damaged(VALID, key, value, deep), list(HISTORY)
    if in_history:
        profile, history[0] = VALID, _damaged(HISTORY[0], change_key, change_value, deep)
    files = {
        f"{_CODING.slug}.json": json.dumps(profile),
        f"{_CODING.slug}.history.jsonl": _lines(history),
    }
    with contextlib.suppress(FolderError):
        import_files(files)


@pytest.mark.parametrize("number", ["Infinity", "-Infinity", "1e400"])
def test_a_number_no_int_holds_is_the_files_reason(number: str) -> None:
    text = json.dumps({**VALID, "version": 0}).replace('"version": 0', f'"version": {number}')
    with pytest.raises(FolderError, match=f"{_CODING.slug}.json"):
        import_files({f"{_CODING.slug}.json": text})
