"""`ctx profiles import-feedback`: ChatGPT's thumbs up/down (message_feedback.json) as signals,
with the rated answer from the export's conversations.json as their context."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

from profiles.models import Signal
from tests.cli.conftest import Cli
from tests.conftest import Cast

EXPORT = Path(__file__).resolve().parents[1] / "cli_sessions" / "fixtures" / "chatgpt"
FEEDBACK = [
    {
        "id": "fb-1",
        "message_id": "a2",  # an answer in the fixture's conversations.json
        "conversation_id": "67a0b1c2-d3e4-8f50-a1b2-c3d4e5f6a7b8",
        "user_id": "user-x",
        "rating": "thumbsDown",
        "content": json.dumps({"tags": ["not-helpful"], "text": "way too long, just the number"}),
        "create_time": 1767000100.0,
    },
    {
        "id": "fb-2",
        "message_id": "ans",
        "conversation_id": "5f0e1d2c-3b4a-4958-8776-a5b4c3d2e1f0",
        "user_id": "user-x",
        "rating": "thumbsUp",
        "content": "{}",
    },
    {"id": "fb-3", "message_id": "x", "rating": "meh", "content": "{}"},
]


def _export(folder: Path) -> Path:
    folder.mkdir()
    shutil.copy(EXPORT / "conversations.json", folder / "conversations.json")
    (folder / "message_feedback.json").write_text(json.dumps(FEEDBACK))
    return folder


def test_it_imports_ratings_with_the_rated_answer(
    cli: Cli, live_cast: Cast, tmp_path: Path
) -> None:
    export = _export(tmp_path / "export")
    run = cli("profiles", "import-feedback", str(export / "message_feedback.json"))
    assert run.returncode == 0, run.stderr
    report = run.json()
    assert (report["signals"], report["with_context"], report["created"]) == (2, 2, 2)
    assert report["skipped"] == ["entry 3: rating 'meh' is neither thumbsUp nor thumbsDown"]
    down = Signal.objects.get(sid="chatgpt:fb-1")
    assert (down.type, down.note, down.tags) == (
        "dislike",
        "way too long, just the number",
        ["not-helpful"],
    )
    assert down.context == "2**64 = 18446744073709551616." and down.source == "chatgpt"
    assert down.created_at.timestamp() == 1767000100.0
    assert Signal.objects.get(sid="chatgpt:fb-2").type == "like"
    assert "- Keep answers short." in cli("pull").stdout  # what the thumbs-down note asked for


def test_it_reads_the_zip_and_stores_a_second_import_once(
    cli: Cli, live_cast: Cast, tmp_path: Path
) -> None:
    export = _export(tmp_path / "export")
    archive = tmp_path / "chatgpt-export.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name in ("conversations.json", "message_feedback.json"):
            zf.write(export / name, name)
    assert cli("profiles", "import-feedback", str(archive)).json()["created"] == 2
    again = cli("profiles", "import-feedback", str(archive)).json()
    assert again["created"] == 0 and Signal.objects.count() == 2


def test_it_counts_without_sending_on_a_dry_run(cli: Cli, live_cast: Cast, tmp_path: Path) -> None:
    export = _export(tmp_path / "export")
    report = cli("profiles", "import-feedback", str(export), "--dry-run").json()
    assert report["signals"] == 2 and "created" not in report and Signal.objects.count() == 0


def test_it_says_what_is_wrong_with_a_file_that_is_not_feedback(
    cli: Cli, live_cast: Cast, tmp_path: Path
) -> None:
    wrong = tmp_path / "message_feedback.json"
    wrong.write_text('{"not": "a list"}')
    run = cli("profiles", "import-feedback", str(wrong))
    assert run.returncode == 1 and "is not a JSON list" in run.stderr
