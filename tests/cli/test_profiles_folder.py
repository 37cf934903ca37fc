"""`ctx profiles export|sync|import --folder DIR`: the folder contract, both ways.

The folder's files are the server's (its profiles core renders them); the CLI writes them and
moves inbox files: deleted only once the server stored them, moved to inbox/rejected/ with the
server's reason when it refused them, never blocking the others."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import Cli
from tests.conftest import Cast

UUIDS = [f"0000000{i}-aaaa-4bbb-8ccc-dddddddddddd" for i in range(1, 10)]


def _drop(folder: Path, name: str, body: str | bytes) -> Path:
    path = folder / "inbox" / name
    path.write_bytes(body.encode("utf-8") if isinstance(body, str) else body)
    return path


def test_it_exports_exactly_the_contract_files(cli: Cli, live_cast: Cast, tmp_path: Path) -> None:
    cli("profiles", "create", "coding", "--template", "coding", "--name", "Coding")
    cli("signal", "no tables please", "--type", "dislike")
    folder = tmp_path / "prefs"
    run = cli("profiles", "export", "--folder", str(folder))
    assert run.returncode == 0, run.stderr
    names = sorted(p.name for p in folder.iterdir())
    assert names == [
        "active.txt",
        "coding.history.jsonl",
        "coding.json",
        "coding.md",
        "inbox",
        "signals.jsonl",
    ]
    assert (folder / "active.txt").read_text() == "coding\n"
    md = (folder / "coding.md").read_text()
    assert md.startswith("# Coding — programming\n*Version 2 · updated ")
    assert md == cli("pull").stdout
    state = json.loads((folder / "coding.json").read_text())
    assert state["format"] == "ctx.profile/1" and state["version"] == 2
    history = [
        json.loads(line) for line in (folder / "coding.history.jsonl").read_text().splitlines()
    ]
    assert [h["version"] for h in history] == [1, 2]
    (signal,) = [json.loads(line) for line in (folder / "signals.jsonl").read_text().splitlines()]
    assert signal["note"] == "no tables please" and signal["profile"] == "coding"


def test_it_brings_an_inbox_signal_into_the_next_version(
    cli: Cli, live_cast: Cast, tmp_path: Path
) -> None:
    cli("profiles", "create", "coding", "--template", "coding", "--name", "Coding")
    folder = tmp_path / "prefs"
    cli("profiles", "export", "--folder", str(folder))
    dropped = _drop(
        folder,
        f"20250312T140000Z-{UUIDS[0]}.json",
        '{"type": "dislike", "note": "stop using tables"}',
    )

    run = cli("profiles", "sync", "--folder", str(folder))
    assert run.returncode == 0, run.stderr
    report = run.json()
    assert report["inbox"] == {"stored": 1, "duplicate": 0, "rejected": []}
    assert not dropped.exists()
    md = (folder / "coding.md").read_text()
    assert "*Version 2 · " in md and "- Avoid tables." in md
    signals = (folder / "signals.jsonl").read_text()
    assert UUIDS[0] in signals


def test_it_rejects_a_malformed_file_and_takes_the_others(
    cli: Cli, live_cast: Cast, tmp_path: Path
) -> None:
    folder = tmp_path / "prefs"
    cli("signal", "be concise")
    cli("profiles", "export", "--folder", str(folder))
    good = _drop(
        folder, f"20250312T140000Z-{UUIDS[0]}.json", '{"type": "dislike", "note": "no emoji"}'
    )
    bad_json = _drop(folder, f"20250312T140001Z-{UUIDS[1]}.json", "{nope")
    bad_field = _drop(
        folder, f"20250312T140002Z-{UUIDS[2]}.json", json.dumps({"type": "like", "noet": "typo"})
    )
    bad_name = _drop(folder, "hello.json", '{"type": "like", "note": "x"}')
    bad_bytes = _drop(folder, f"20250312T140003Z-{UUIDS[3]}.json", b"\xff\xfe{}")
    later = _drop(
        folder, f"20250312T140004Z-{UUIDS[4]}.json", '{"type": "dislike", "note": "too long"}'
    )
    busy = _drop(folder, f".20250312T140005Z-{UUIDS[5]}.json.tmp", "{half")  # still written

    report = cli("profiles", "sync", "--folder", str(folder)).json()

    assert report["inbox"]["stored"] == 2 and not good.exists() and not later.exists()
    reasons = {r["name"]: r["reason"] for r in report["inbox"]["rejected"]}
    assert set(reasons) == {bad_json.name, bad_field.name, bad_name.name, bad_bytes.name}
    assert reasons[bad_field.name] == "noet: is not a signal field"
    assert reasons[bad_name.name] == "the name is not <timestamp>-<uuid>.json"
    assert reasons[bad_bytes.name] == "not UTF-8" and reasons[bad_json.name].startswith("not JSON")
    rejected = folder / "inbox" / "rejected"
    for name, reason in reasons.items():
        assert (rejected / name).exists()
        assert (rejected / f"{name}.reason.txt").read_text() == reason + "\n"
    assert busy.exists()
    assert "emoji" in (folder / "default.md").read_text().lower()


def test_it_keeps_inbox_files_when_the_server_cannot_be_reached(
    offline_cli: Cli, tmp_path: Path
) -> None:
    folder = tmp_path / "prefs"
    waiting = _drop_new(
        folder, f"20250312T140000Z-{UUIDS[0]}.json", '{"type": "like", "note": "x"}'
    )
    run = offline_cli("profiles", "sync", "--folder", str(folder))
    assert run.returncode == 1 and "cannot reach" in run.stderr
    assert waiting.exists() and not (folder / "inbox" / "rejected").exists()


def _drop_new(folder: Path, name: str, body: str) -> Path:
    (folder / "inbox").mkdir(parents=True)
    return _drop(folder, name, body)


def test_it_stores_a_resent_file_once(cli: Cli, live_cast: Cast, tmp_path: Path) -> None:
    """A file whose deletion failed after the server stored it is sent again: stored once."""
    folder = tmp_path / "prefs"
    body = '{"type": "dislike", "note": "no tables"}'
    _drop_new(folder, f"20250312T140000Z-{UUIDS[0]}.json", body)
    assert cli("profiles", "sync", "--folder", str(folder)).json()["inbox"]["stored"] == 1
    _drop(folder, f"20250312T140000Z-{UUIDS[0]}.json", body)
    again = cli("profiles", "sync", "--folder", str(folder)).json()
    assert again["inbox"] == {"stored": 0, "duplicate": 1, "rejected": []}
    history = cli("profiles", "history", "default").json()
    assert [v["version"] for v in history["versions"]] == [2, 1]


def test_it_imports_a_folder_with_its_versions(cli: Cli, live_cast: Cast, tmp_path: Path) -> None:
    cli("profiles", "create", "coding", "--template", "coding", "--name", "Coding")
    cli("signal", "no tables please", "--type", "dislike")
    cli("signal", "always use type hints")
    folder = tmp_path / "prefs"
    cli("profiles", "export", "--folder", str(folder))
    (folder / "notes.json").write_text('{"not": "a profile"}')  # a foreign file is left alone

    other = cli("profiles", "import", "--folder", str(folder), CTX_KEY=live_cast.outsider.key)
    assert other.returncode == 0, other.stderr
    assert other.json() == {
        "success": True,
        "created": ["coding"],
        "skipped": [],
        "signals": 2,
        "active": "coding",
    }
    pulled = cli("pull", CTX_KEY=live_cast.outsider.key).stdout
    assert pulled == (folder / "coding.md").read_text()
    history = cli("profiles", "history", "coding", CTX_KEY=live_cast.outsider.key).json()
    assert [v["version"] for v in history["versions"]] == [3, 2, 1]
    again = cli("profiles", "import", "--folder", str(folder), CTX_KEY=live_cast.outsider.key)
    assert again.json()["created"] == [] and again.json()["skipped"] == ["coding"]
