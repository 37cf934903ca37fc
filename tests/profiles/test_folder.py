"""The folder contract: export writes exactly the contract's files, import reads them back,
and the inbox drains without losing or blocking anything."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from profiles.core.folder import (
    FolderError,
    ProfileSet,
    acknowledge,
    export,
    import_folder,
    read_inbox,
)
from profiles.core.interpret import RuleInterpreter
from profiles.core.profile import ProfileError
from profiles.core.signals import Signal
from profiles.core.synthesis import create_profile, synthesize

T0 = datetime(2025, 3, 12, 14, 0, 0, 123456, tzinfo=UTC)
UUIDS = [f"0000000{i}-aaaa-4bbb-8ccc-dddddddddddd" for i in range(1, 10)]


def sample_set() -> ProfileSet:
    rules = RuleInterpreter()
    sigs = (
        Signal(id="s1", type="dislike", note="too long", context="A long answer…", created_at=T0),
        Signal(
            id="s2",
            type="note",
            note="my name is Priya; no emoji",
            created_at=T0,
            profile="coding",
            source="claude-code",
            session="abc",
        ),
        Signal(id="s3", type="tag", tags=("concise", "no-bullets"), created_at=T0),
    )
    coding = create_profile("coding", "Coding", "coding", now=T0, hint="I write Python.")
    notes = create_profile("meeting-notes", "Notes", "meeting-notes", now=T0)
    for i, signal in enumerate(sigs):
        reading = rules.interpret(signal)
        coding, _ = synthesize(
            coding, reading.interpretations, reading.facts, now=T0 + timedelta(minutes=i + 1)
        )
    return ProfileSet("coding", (coding, notes), sigs)


def test_it_writes_exactly_the_contract_files(tmp_path: Path) -> None:
    export(sample_set(), tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "active.txt",
        "coding.history.jsonl",
        "coding.json",
        "coding.md",
        "inbox",
        "meeting-notes.history.jsonl",
        "meeting-notes.json",
        "meeting-notes.md",
        "signals.jsonl",
    ]
    assert (tmp_path / "inbox").is_dir() and not any((tmp_path / "inbox").iterdir())
    assert (tmp_path / "active.txt").read_text(encoding="utf-8") == "coding\n"
    md = (tmp_path / "coding.md").read_text(encoding="utf-8").splitlines()
    assert md[0] == "# Coding — programming"
    assert md[1] == "*Version 4 · updated 2025-03-12T14:03:00.123456+00:00*"
    history = (tmp_path / "coding.history.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["version"] for line in history] == [1, 2, 3, 4]
    assert json.loads(history[1])["signal_ids"] == ["s1"]
    assert len((tmp_path / "signals.jsonl").read_text(encoding="utf-8").splitlines()) == 3


def test_it_reads_back_the_same_profiles_versions_and_signals(tmp_path: Path) -> None:
    original = sample_set()
    export(original, tmp_path)
    assert import_folder(tmp_path) == original
    export(import_folder(tmp_path), tmp_path / "again")
    for name in ("coding.json", "coding.md", "coding.history.jsonl", "signals.jsonl"):
        assert (tmp_path / name).read_bytes() == (tmp_path / "again" / name).read_bytes()


def test_it_removes_a_deleted_profile_but_no_foreign_file(tmp_path: Path) -> None:
    full = sample_set()
    export(full, tmp_path)
    (tmp_path / "notes.json").write_text('{"mine": true}', encoding="utf-8")
    export(ProfileSet("coding", full.profiles[:1], full.signals), tmp_path)
    names = {p.name for p in tmp_path.iterdir()}
    assert not {"meeting-notes.json", "meeting-notes.md", "meeting-notes.history.jsonl"} & names
    assert "notes.json" in names
    assert [p.slug for p in import_folder(tmp_path).profiles] == ["coding"]


def test_it_leaves_no_temporary_files_behind(tmp_path: Path) -> None:
    export(sample_set(), tmp_path)
    export(sample_set(), tmp_path)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_it_refuses_an_active_slug_that_is_not_a_profile(tmp_path: Path) -> None:
    full = sample_set()
    with pytest.raises(FolderError, match=r"active\.txt"):
        export(ProfileSet("nope", full.profiles), tmp_path)


@pytest.mark.parametrize("slug", ["../escape", "a/b", "UPPER", ""])
def test_it_refuses_a_slug_that_is_not_a_safe_file_name(slug: str) -> None:
    with pytest.raises(ProfileError):
        create_profile(slug, "X", now=T0)


# --- the inbox --------------------------------------------------------------------------------


def drop(folder: Path, name: str, body: str | bytes) -> Path:
    path = folder / "inbox" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body.encode("utf-8") if isinstance(body, str) else body)
    return path


def test_it_rejects_malformed_files_with_a_reason_and_keeps_reading(tmp_path: Path) -> None:
    good1 = drop(
        tmp_path, f"20250312T140000Z-{UUIDS[0]}.json", '{"type": "dislike", "note": "too long"}'
    )
    bad_json = drop(tmp_path, f"20250312T140001Z-{UUIDS[1]}.json", "{nope")
    bad_field = drop(
        tmp_path,
        f"20250312T140002Z-{UUIDS[2]}.json",
        json.dumps({"type": "like", "note": "x" * 2001}),
    )
    bad_name = drop(tmp_path, "hello.json", '{"type": "like"}')
    bad_bytes = drop(tmp_path, f"20250312T140003Z-{UUIDS[3]}.json", b"\xff\xfe{}")
    good2 = drop(
        tmp_path,
        f"1741788000000-{UUIDS[4]}.json",
        '{"id": "mine", "type": "tag", "tags": ["concise"]}',
    )
    drop(tmp_path, f".20250312T140004Z-{UUIDS[5]}.json.tmp", "{half")  # still being written

    accepted, rejected = read_inbox(tmp_path)

    assert [(i.path, i.signal.id) for i in accepted] == [(good2, "mine"), (good1, UUIDS[0])]
    assert accepted[1].signal.created_at == datetime(2025, 3, 12, 14, 0, tzinfo=UTC)
    assert accepted[0].signal.created_at == datetime(2025, 3, 12, 14, 0, tzinfo=UTC)
    reasons = {r.path.name: r.reason for r in rejected}
    assert set(reasons) == {bad_json.name, bad_field.name, bad_name.name, bad_bytes.name}
    assert reasons[bad_field.name] == "note: must be at most 2000 characters"
    assert reasons[bad_name.name] == "the name is not <timestamp>-<uuid>.json"
    assert reasons[bad_bytes.name] == "not UTF-8" and reasons[bad_json.name].startswith("not JSON")
    rejected_dir = tmp_path / "inbox" / "rejected"
    for r in rejected:
        assert r.path.parent == rejected_dir and r.path.exists()
        reason_file = rejected_dir / f"{r.path.name}.reason.txt"
        assert reason_file.read_text(encoding="utf-8") == r.reason + "\n"
    assert not bad_json.exists() and good1.exists() and good2.exists()


def test_it_deletes_nothing_before_the_server_acknowledges(tmp_path: Path) -> None:
    path = drop(tmp_path, f"20250312T140000Z-{UUIDS[0]}.json", '{"type": "like", "note": "short"}')
    first, _ = read_inbox(tmp_path)
    again, _ = read_inbox(tmp_path)
    assert [i.path for i in first] == [i.path for i in again] == [path]
    assert acknowledge(first) == [path] and not path.exists()
    assert read_inbox(tmp_path) == ([], [])


def test_it_acknowledges_only_inbox_files(tmp_path: Path) -> None:
    export(sample_set(), tmp_path)
    keep = tmp_path / "coding.json"
    with pytest.raises(FolderError, match="not an inbox file"):
        acknowledge([keep])
    rejected = drop(tmp_path, f"rejected/20250312T140000Z-{UUIDS[0]}.json", "{}")
    with pytest.raises(FolderError):
        acknowledge([rejected])
    assert keep.exists() and rejected.exists()


def test_it_never_overwrites_an_earlier_rejection(tmp_path: Path) -> None:
    name = f"20250312T140000Z-{UUIDS[0]}.json"
    drop(tmp_path, name, "{bad")
    read_inbox(tmp_path)
    drop(tmp_path, name, "{worse")
    read_inbox(tmp_path)
    stored = sorted(p.name for p in (tmp_path / "inbox" / "rejected").iterdir())
    assert len([s for s in stored if not s.endswith(".reason.txt")]) == 2


def test_it_rejects_an_oversized_file_without_reading_it(tmp_path: Path) -> None:
    path = drop(tmp_path, f"20250312T140000Z-{UUIDS[0]}.json", "{" + " " * 70_000 + "}")
    _, rejected = read_inbox(tmp_path)
    assert [r.reason for r in rejected] == ["larger than 65536 bytes"] and not path.exists()


def test_it_reads_the_inbox_oldest_first_whatever_the_stamp_form(tmp_path: Path) -> None:
    later = drop(tmp_path, f"1741788060-{UUIDS[0]}.json", '{"type": "like", "note": "b"}')
    first = drop(tmp_path, f"20250312T140000Z-{UUIDS[1]}.json", '{"type": "like", "note": "a"}')
    latest = drop(tmp_path, f"20250312T140100.5Z-{UUIDS[2]}.json", '{"type": "like", "note": "c"}')
    accepted, _ = read_inbox(tmp_path)
    assert [i.path for i in accepted] == [first, later, latest]
    assert accepted[1].signal.created_at == datetime(2025, 3, 12, 14, 1, tzinfo=UTC)


def test_it_keeps_reading_when_a_rejected_file_cannot_be_moved(tmp_path: Path) -> None:
    bad = drop(tmp_path, f"20250312T140000Z-{UUIDS[0]}.json", "{bad")
    good = drop(tmp_path, f"20250312T140001Z-{UUIDS[1]}.json", '{"type": "like", "note": "short"}')
    (tmp_path / "inbox" / "rejected").write_text("a file where the folder should be")
    accepted, rejected = read_inbox(tmp_path)
    assert [i.path for i in accepted] == [good]
    assert [r.path for r in rejected] == [bad] and "(not moved:" in rejected[0].reason
