"""Publishing: the canonical hash is stable, the payload shares nothing private, and a
profile holding credentials is refused (with the server's real detector)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctx.sensitivity import detect
from profiles.core.folder import ProfileSet, export, import_folder
from profiles.core.interpret import Interpretation, RuleInterpreter
from profiles.core.profile import Profile
from profiles.core.publish import (
    PublishRefused,
    canonical_json,
    check_publishable,
    content_hash,
    public_payload,
    publish,
)
from profiles.core.signals import Signal
from profiles.core.synthesis import create_profile, set_fact_privacy, synthesize

T0 = datetime(2025, 3, 12, 14, 0, tzinfo=UTC)
EXCERPT = "Here is the answer you reacted to, with a distinctive phrase: zebra-quartz-17."
AWS_KEY = "AKIA" + "QWERTYUIOPASDFGH"  # split: this file must not look like it leaks one


def built(*notes: str) -> Profile:
    profile = create_profile("coding", "Coding", "coding", now=T0, hint="private hint text")
    for i, note in enumerate(notes):
        signal = Signal(id=f"sig-{i}", type="dislike", note=note, context=EXCERPT, created_at=T0)
        reading = RuleInterpreter().interpret(signal)
        profile, _ = synthesize(
            profile, reading.interpretations, reading.facts, now=T0 + timedelta(minutes=i)
        )
    return profile


def test_it_hashes_the_same_profile_the_same_way_twice() -> None:
    profile = built("too long", "no emoji")
    first, second = publish(profile, detect), publish(profile, detect)
    assert first.hash == second.hash and len(first.hash) == 12
    assert first.body == canonical_json(first.payload)
    assert all(c in "0123456789abcdef" for c in first.hash)


def test_it_hashes_independently_of_key_order() -> None:
    payload = public_payload(built("too long"))
    reordered = json.loads(json.dumps(dict(reversed(list(payload.items())))))
    reordered["metrics"] = dict(reversed(list(reordered["metrics"].items())))
    assert list(reordered) != list(payload)
    assert content_hash(reordered) == content_hash(payload)


def test_it_gives_the_same_hash_to_a_new_version_that_changed_nothing_visible(
    tmp_path: Path,
) -> None:
    profile = built("too long")
    again, change = synthesize(
        profile,
        [Interpretation("verbosity", "Keep answers short.", "-", 0.9, "r", signal_id="later")],
        now=T0 + timedelta(days=1),
    )
    assert again.version == profile.version + 1 and change.reinforced  # a new version …
    export(ProfileSet("coding", (again,)), tmp_path)
    (read_back,) = import_folder(tmp_path).profiles
    # … that says the same: republishing it (or its folder copy) gives the same hash.
    assert {publish(p, detect).hash for p in (profile, again, read_back)} == {
        publish(profile, detect).hash
    }


def test_it_changes_the_hash_when_a_rule_changes() -> None:
    assert publish(built("too long"), detect).hash != publish(built("too short"), detect).hash


def test_it_shares_no_signals_excerpts_history_or_private_facts() -> None:
    profile = built("too long", "my name is Priya, I'm a data scientist")
    profile = set_fact_privacy(profile, "role", False)
    body = publish(profile, detect).body.decode("utf-8")
    for secret in ("sig-0", "sig-1", "zebra-quartz-17", "private hint text", "Priya", "history"):
        assert secret not in body
    payload = json.loads(body)
    assert payload["facts"] == [{"key": "role", "value": "data scientist"}]
    assert set(payload) == {
        "format",
        "slug",
        "name",
        "context",
        "template",
        "core_style",
        "metrics",
        "sections",
        "facts",
    }
    assert {
        "title": "Length and tone",
        "rules": ["Skip pleasantries; start with the content.", "Keep answers short."],
    } in payload["sections"]


def test_it_refuses_a_profile_holding_credentials_and_says_where() -> None:
    profile = built(f"always deploy with {AWS_KEY} as the key")
    assert any(AWS_KEY in rule.text for rule in profile.rules)
    with pytest.raises(PublishRefused) as err:
        publish(profile, detect)
    (finding,) = err.value.findings
    assert finding.path == "sections[2].rules[0]" and finding.detectors == ("aws_access_key",)
    assert "aws_access_key" in err.value.reason and AWS_KEY not in err.value.reason


def test_it_returns_personal_findings_without_refusing() -> None:
    payload: dict[str, Any] = {"rules": ["Write to anna.schmidt@gmail.com for access."]}
    (finding,) = check_publishable(payload, detect)
    assert (finding.path, finding.level) == ("rules[0]", "personal")


def test_it_checks_keys_too() -> None:
    with pytest.raises(PublishRefused):
        check_publishable({f"password={'hunter2hunter2'}": 1}, detect)


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=20)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=25,
)


def reverse_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: reverse_keys(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [reverse_keys(v) for v in value]
    return value


@settings(max_examples=300, deadline=None)
@given(_JSON)
def test_it_writes_canonical_json_independent_of_key_order(value: Any) -> None:
    assert canonical_json(reverse_keys(value)) == canonical_json(value)
    assert json.loads(canonical_json(value)) == value
