"""`ctx index add|search|list|rm`: a document indexed from the shell and searched by snippets."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Cli
from tests.conftest import Cast

GUIDE = """# Operations guide

## Deploys

We deploy the billing service on Thursdays after the review.

## Backups

Nightly snapshots go to the cold storage bucket; restores are tested monthly.

## Incidents

Page the on-call engineer, then open a ticket in the tracker.
"""


def _guide(tmp_path: Path) -> Path:
    path = tmp_path / "ops.md"
    path.write_text(GUIDE)
    return path


def test_it_indexes_a_file_and_finds_a_snippet_with_its_rung(
    cli: Cli, live_cast: Cast, tmp_path: Path
) -> None:
    added = cli("index", "add", str(_guide(tmp_path)), "--source", "ops")
    assert added.returncode == 0, added.stderr
    body = added.json()
    assert body["action"] == "created" and body["source"]["scope"] == "acme:main"
    assert body["source"]["chunks"] >= 3
    found = cli("index", "search", "snapshots", "trackr", "--source", "ops").json()
    exact, typo = found["results"]
    assert exact["rung"] == "stemmed_and" and "«snapshots»" in exact["hits"][0]["snippet"]
    assert "Backups" in exact["hits"][0]["title"]
    assert typo["rung"] == "typo" and typo["corrections"] == {"trackr": "tracker"}
    # The same label again: replaced in place, not a second source.
    assert cli("index", "add", str(_guide(tmp_path)), "--source", "ops").json()["action"] in {
        "unchanged",
        "replaced",
    }
    assert [s["label"] for s in cli("index", "list").json()["sources"]] == ["ops"]


def test_it_shows_snippets_and_sources_on_a_terminal(
    cli: Cli, live_cast: Cast, tmp_path: Path
) -> None:
    cli("index", "add", str(_guide(tmp_path)), "--source", "ops")
    run = cli.tty("index", "search", "thursdays deploy")
    assert run.returncode == 0, run.stderr
    assert "thursdays deploy: stemmed_and" in run.stdout and "«Thursdays»" in run.stdout
    listing = cli.tty("index", "list")
    assert "ops" in listing.stdout and "acme:main" in listing.stdout


def test_it_deletes_a_source_and_keeps_other_tenants_out(
    cli: Cli, live_cast: Cast, tmp_path: Path
) -> None:
    cli("index", "add", str(_guide(tmp_path)), "--source", "ops")
    (tmp_path / "outsider").mkdir()
    outsider = Cli(home=tmp_path / "outsider", url=cli.url, key=live_cast.outsider.key)
    refused = outsider("index", "rm", "ops")
    assert refused.returncode == 1 and "Source not found" in refused.stderr
    assert outsider("index", "search", "snapshots").json()["results"][0]["hits"] == []
    removed = cli("index", "rm", "ops")
    assert removed.returncode == 0 and removed.json()["blocks"] >= 3
    assert cli("index", "list").json()["sources"] == []
    assert cli("index", "search", "snapshots").json()["results"][0]["hits"] == []


def test_it_refuses_a_missing_file_and_a_private_address(cli: Cli, tmp_path: Path) -> None:
    missing = cli("index", "add", str(tmp_path / "nope.md"))
    assert missing.returncode == 1 and "no such file" in missing.stderr
    private = cli("index", "add", "http://127.0.0.1:9/notes")
    assert private.returncode == 1 and "address: refused" in private.stderr
    health = cli("index", "add", f"{cli.url}/health", "--source", "health", "--allow-private")
    assert health.returncode == 0, health.stderr
    assert health.json()["source"]["type"] == "json"


def test_exec_says_how_to_search_its_indexed_output(cli: Cli, live_cast: Cast) -> None:
    run = cli.tty("exec", "seq 1 100000", "--intent", "77777")
    assert run.returncode == 0, run.stderr
    assert "«77777»" in run.stdout
    label = run.stderr.split("output indexed as ", 1)[1].split(";", 1)[0]
    assert f"ctx index search QUERY --source {label}" in " ".join(run.stderr.split())
    found = cli("index", "search", "77778", "--source", label).json()["results"][0]
    assert "«77778»" in found["hits"][0]["snippet"]


def test_it_indexes_a_folders_documents_each_as_a_source(
    cli: Cli, live_cast: Cast, tmp_path: Path
) -> None:
    docs = tmp_path / "handbook"
    (docs / "sub").mkdir(parents=True)
    (docs / ".git").mkdir()
    (docs / "ops.md").write_text(GUIDE)
    (docs / "sub" / "hosts.json").write_text('[{"name": "ledger-db-7", "role": "primary"}]')
    (docs / "notes.txt").write_text("The staging cluster is rebuilt every Monday.\n")
    (docs / ".git" / "config.md").write_text("# hidden\n")
    (docs / "logo.png").write_bytes(b"\x89PNG")
    run = cli("index", "add", str(docs))
    assert run.returncode == 0, run.stderr
    body = run.json()
    assert (body["files"], body["created"], body["failed"]) == (3, 3, [])
    labels = sorted(s["label"] for s in cli("index", "list").json()["sources"])
    assert labels == ["handbook/notes.txt", "handbook/ops.md", "handbook/sub/hosts.json"]
    found = cli("index", "search", "ledger-db-7").json()["results"][0]["hits"][0]
    assert found["source"] == "handbook/sub/hosts.json"
    again = cli("index", "add", str(docs)).json()
    assert again["unchanged"] == 3 and "created" not in again


def test_a_file_it_cannot_index_is_named_and_the_others_go_on(
    cli: Cli, live_cast: Cast, tmp_path: Path
) -> None:
    docs = tmp_path / "mixed"
    docs.mkdir()
    (docs / "a.md").write_text(GUIDE)
    (docs / "huge.txt").write_text("x" * (11 * 1024 * 1024))
    run = cli("index", "add", str(docs))
    assert run.returncode == 1 and "1 of 2 files not indexed" in run.stderr
    body = run.json()
    assert body["created"] == 1
    (failure,) = body["failed"]
    assert failure["path"].endswith("huge.txt") and "limit" in failure["error"]
