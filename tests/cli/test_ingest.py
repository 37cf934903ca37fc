from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctx.models import Block
from ctx_cli.ingest import LEGACY_STATE_FILE, MAX_FILE_BYTES, state_path
from tests.cli.conftest import Cli
from tests.conftest import Cast

NOTES = {
    "Projects/Docker.md": (
        "---\ntitle: Docker Guide\ntags: [infra, containers]\nstatus: draft\n---\n"
        "# Docker Guide\nWhy we use [[Compose]]. #ops\n"
        "## Install\nRun the installer. See [[Linux Setup|linux]].\n"
        "### Debian\nUse apt.\n"
    ),
    "Projects/Linux Setup.md": "## Kernel\nKeep it current. #ops/kernel\n",
    "Inbox.md": "A loose thought about [[Docker]].\n",
    ".obsidian/workspace.md": "## hidden\nnot a note\n",
    "Projects/image.png": "not markdown",
}


def make_vault(root: Path, notes: dict[str, str] = NOTES) -> Path:
    for rel, text in notes.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return make_vault(tmp_path / "vault")


def state_of(cli: Cli, root: Path) -> Path:
    """Where the CLI (HOME = cli.home) keeps the folder's ingest state."""
    return state_path(root, {"XDG_STATE_HOME": str(cli.home / ".local" / "state")})


def files_in(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def test_it_imports_notes_as_sections_with_front_matter_tags_and_links(
    cli: Cli, vault: Path
) -> None:
    run = cli("ingest", str(vault))
    assert run.returncode == 0, run.stderr
    assert run.json() == {
        "notes": 3,
        "blocks": 5,
        "created": 5,
        "updated": 0,
        "unchanged": 0,
        "skipped": 0,
        "archived": 0,
        "kept": 0,
    }
    blocks = {b.title: b for b in Block.objects.all()}
    assert sorted(blocks) == [
        "Docker Guide",
        "Docker Guide > Install",
        "Docker Guide > Install > Debian",
        "Inbox",
        "Linux Setup > Kernel",
    ]
    intro = blocks["Docker Guide"]
    assert intro.category == "Projects" and blocks["Inbox"].category == "notes"
    assert intro.tags == ["infra", "containers", "ops"]
    assert intro.metadata["front_matter"]["status"] == "draft"
    assert intro.metadata["links"] == ["Compose"]
    assert blocks["Docker Guide > Install"].metadata["links"] == ["Linux Setup"]
    assert blocks["Linux Setup > Kernel"].tags == ["ops/kernel"]


def test_it_sends_nothing_on_a_second_run_and_only_changes_after_an_edit(
    cli: Cli, vault: Path
) -> None:
    cli("ingest", str(vault))
    again = cli("ingest", str(vault)).json()
    assert (again["unchanged"], again["created"], again["updated"]) == (5, 0, 0)
    (vault / "Inbox.md").write_text("A revised thought.\n")
    edited = cli("ingest", str(vault)).json()
    assert (edited["updated"], edited["unchanged"]) == (1, 4)
    assert Block.objects.get(title="Inbox").content == "A revised thought."


def test_it_keeps_state_per_folder_and_scope(cli: Cli, vault: Path) -> None:
    cli("ingest", str(vault))
    state = json.loads(state_of(cli, vault).read_text())
    (target,) = state["targets"]
    assert target.startswith(str(cli.url)) and len(state["targets"][target]) == 5
    other = cli("ingest", str(vault), "--scope", "acme:team").json()
    assert other["created"] == 5
    assert Block.objects.filter(scope__name="acme:team").count() == 5


def test_it_keeps_state_per_tenant_for_one_vault(cli: Cli, vault: Path, live_cast: Cast) -> None:
    assert cli("ingest", str(vault)).json()["created"] == 5
    theirs = cli("ingest", str(vault), CTX_KEY=live_cast.outsider.key)
    assert theirs.returncode == 0, theirs.stderr
    assert (theirs.json()["created"], theirs.json()["unchanged"]) == (5, 0)
    assert Block.objects.filter(scope__name="globex:main").count() == 5
    mine = cli("ingest", str(vault), "--dry-run").json()["summary"]
    assert (mine["new"], mine["unchanged"]) == (0, 5)


def test_it_titles_a_note_by_its_h1_heading(cli: Cli, tmp_path: Path) -> None:
    notes = {
        "daily/2024-01-05.md": "# Weekly sync\nWe agreed on Redis streams.\n## Actions\nShip it.\n",
        "fenced.md": "```\n# not a heading\n```\ntext\n",
    }
    assert cli("ingest", str(make_vault(tmp_path / "v", notes))).returncode == 0
    notes_only = Block.objects.exclude(category__startswith="memory/")  # not extracted facts
    titles = sorted(notes_only.values_list("title", flat=True))
    assert titles == ["Weekly sync", "Weekly sync > Actions", "fenced"]


def test_it_sends_nothing_on_a_dry_run(cli: Cli, vault: Path) -> None:
    run = cli("ingest", str(vault), "--dry-run")
    assert run.returncode == 0, run.stderr
    body = run.json()
    assert body["dry_run"] is True and body["summary"]["new"] == 5
    assert {b["status"] for b in body["would_send"]} == {"new"}
    assert {"category", "title", "content", "tags", "metadata"} <= set(body["would_send"][0])
    assert Block.objects.count() == 0
    assert not state_of(cli, vault).exists()


def test_it_needs_no_key_for_a_dry_run(cli: Cli, vault: Path) -> None:
    assert cli("ingest", str(vault), "--dry-run", CTX_KEY=None).returncode == 0


def test_it_prints_a_summary_line_on_a_terminal(cli: Cli, vault: Path) -> None:
    run = cli.tty("ingest", str(vault), "--batch", "2")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().endswith(
        "3 notes → 5 blocks: 5 created, 0 updated, 0 unchanged, 0 skipped"
    )
    dry = cli.tty("ingest", str(vault), "--dry-run")
    assert "dry run: 3 notes → 5 blocks: 0 new, 0 changed, 5 unchanged" in dry.stdout


def test_it_skips_files_over_5_mb_and_non_utf8(cli: Cli, vault: Path) -> None:
    (vault / "huge.md").write_text("x" * (MAX_FILE_BYTES + 1))
    (vault / "latin1.md").write_bytes("caf\xe9".encode("latin-1"))
    run = cli("ingest", str(vault))
    assert run.json()["skipped"] == 2 and run.json()["created"] == 5
    assert "skipped huge.md: larger than 5 MB" in run.stderr
    assert "skipped latin1.md: not UTF-8 text" in run.stderr


def test_it_disambiguates_notes_with_the_same_title(cli: Cli, tmp_path: Path) -> None:
    root = make_vault(tmp_path / "v", {"a/x/Note.md": "one\n", "a/y/Note.md": "two\n"})
    assert cli("ingest", str(root)).json()["created"] == 2
    assert sorted(Block.objects.values_list("title", flat=True)) == ["Note", "Note [a/y/Note.md]"]


def test_it_fails_clearly_on_a_missing_folder_or_a_server_error(cli: Cli, vault: Path) -> None:
    missing = cli("ingest", str(vault / "nope"))
    assert missing.returncode == 2 and "not a folder" in missing.stderr
    foreign = cli("ingest", str(vault), "--scope", "globex:main")
    assert foreign.returncode == 1 and foreign.stderr.startswith("error: ")
    assert not state_of(cli, vault).exists()


def test_it_keeps_what_the_server_confirmed_when_a_later_batch_fails(
    cli: Cli, tmp_path: Path, settings: Any
) -> None:
    settings.CTX = {**settings.CTX, "CTX_MAX_CONTENT_BYTES": 1000}  # the live server's limit
    root = make_vault(tmp_path / "v", {"a.md": "fits\n", "b.md": "x" * 2000, "c.md": "fits\n"})
    run = cli("ingest", str(root), "--batch", "1")
    assert run.returncode == 1 and "[b.md: 'b']" in run.stderr
    (target,) = json.loads(state_of(cli, root).read_text())["targets"].values()
    assert list(target) == ['["notes", "a"]']
    settings.CTX = {**settings.CTX, "CTX_MAX_CONTENT_BYTES": 50_000}
    again = cli("ingest", str(root)).json()
    # c's batch was in flight when b failed: stored, not recorded, so sent again as a no-op
    assert (again["created"], again["updated"], again["unchanged"]) == (1, 0, 2)
    assert sorted(Block.objects.values_list("title", flat=True)) == ["a", "b", "c"]


def test_it_splits_a_batch_the_server_would_find_too_large(cli: Cli, tmp_path: Path) -> None:
    # 190 notes of 46 KB: under 500 blocks, but 8.7 MB in one body, over the server's 8 MiB.
    words = " ".join(f"word{n}" for n in range(6_000))[:46_000]
    notes = {f"n{n:03}.md": f"{n} {words}\n" for n in range(190)}
    root = make_vault(tmp_path / "v", notes)
    run = cli("ingest", str(root))
    assert run.returncode == 0, run.stderr
    assert run.json()["created"] == 190 and Block.objects.count() == 190


def test_it_keeps_its_state_outside_the_folder(cli: Cli, vault: Path) -> None:
    before = files_in(vault)
    assert cli("ingest", str(vault)).json()["created"] == 5
    assert files_in(vault) == before  # nothing for git or Obsidian Sync to pick up
    assert state_of(cli, vault).is_relative_to(cli.home / ".local" / "state" / "ctx" / "ingest")
    assert json.loads(state_of(cli, vault).read_text())["folder"] == str(vault.resolve())


def test_it_moves_a_state_file_left_in_the_folder_by_an_older_ctx(cli: Cli, vault: Path) -> None:
    cli("ingest", str(vault))
    state_of(cli, vault).rename(vault / LEGACY_STATE_FILE)
    again = cli("ingest", str(vault)).json()
    assert (again["created"], again["unchanged"]) == (0, 5)  # read: nothing sent again
    assert not (vault / LEGACY_STATE_FILE).exists() and state_of(cli, vault).exists()


def test_it_archives_the_blocks_of_notes_deleted_from_the_folder(cli: Cli, vault: Path) -> None:
    cli("ingest", str(vault))
    (vault / "Inbox.md").unlink()
    planned = cli("ingest", str(vault), "--dry-run").json()["summary"]
    assert planned["to_archive"] == 1
    run = cli("ingest", str(vault))
    assert run.returncode == 0, run.stderr
    assert (run.json()["archived"], run.json()["unchanged"]) == (1, 4)
    inbox = Block.objects.get(title="Inbox")
    assert inbox.archived  # archived, not deleted: `ctx restore` brings it back
    restored = cli("restore", str(inbox.pk))
    assert restored.returncode == 0, restored.stderr
    assert not Block.objects.get(pk=inbox.pk).archived


def test_it_leaves_deleted_notes_on_the_server_with_keep_deleted(cli: Cli, vault: Path) -> None:
    cli("ingest", str(vault))
    (vault / "Inbox.md").unlink()
    run = cli("ingest", str(vault), "--keep-deleted").json()
    assert (run["archived"], run["kept"]) == (0, 1)
    assert not Block.objects.get(title="Inbox").archived
    later = cli("ingest", str(vault)).json()  # forgotten: a later run leaves it alone too
    assert (later["archived"], later["kept"]) == (0, 0)
    assert not Block.objects.get(title="Inbox").archived
