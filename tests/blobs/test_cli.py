"""`ctx blob put|get|ls|rm` as a subprocess against the live server."""

from __future__ import annotations

from pathlib import Path

from tests.blobs.conftest import PNG
from tests.cli.conftest import Cli
from tests.conftest import Cast

NOTES = "Runbook: restart the gannet worker before the nightly export.\n"


def _put(cli: Cli, path: Path, *args: str) -> dict[str, object]:
    run = cli("blob", "put", str(path), "--json", *args)
    assert run.returncode == 0, run.stderr
    return dict(run.json())


def test_it_puts_lists_gets_and_removes_a_file(cli: Cli, live_cast: Cast, tmp_path: Path) -> None:
    source = tmp_path / "runbook.txt"
    source.write_text(NOTES)
    put = _put(cli, source, "--tag", "ops", "--scope", "acme:team")
    blob = put["blob"]
    assert isinstance(blob, dict)
    assert put["action"] == "created" and blob["name"] == "runbook.txt"
    assert blob["scope"] == "acme:team" and blob["tags"] == ["ops"]
    assert _put(cli, source, "--scope", "acme:team")["action"] == "existing"

    listed = cli("blob", "ls", "gannet", "--json")
    assert [b["id"] for b in listed.json()["blobs"]] == [blob["id"]]
    screen = cli.tty("blob", "ls", "--scope", "acme:team")
    assert "runbook.txt" in screen.stdout and "text/plain" in screen.stdout

    got = cli("blob", "get", str(blob["id"]))
    assert got.returncode == 0 and got.stdout == NOTES

    removed = cli.tty("blob", "rm", str(blob["id"]))
    assert removed.returncode == 0 and f"deleted blob {blob['id']}" in removed.stdout
    gone = cli("blob", "get", str(blob["id"]))
    assert gone.returncode != 0 and "No such blob." in gone.stderr


def test_it_writes_a_binary_file_byte_for_byte(cli: Cli, live_cast: Cast, tmp_path: Path) -> None:
    source = tmp_path / "shot.txt"  # a PNG under a text name: the server sniffs it
    source.write_bytes(PNG + bytes(range(256)))
    blob = _put(cli, source, "--name", "screen.png")["blob"]
    assert isinstance(blob, dict) and blob["content_type"] == "image/png"
    target = tmp_path / "copy.png"
    run = cli("blob", "get", str(blob["id"]), "-o", str(target))
    assert run.returncode == 0, run.stderr
    assert target.read_bytes() == source.read_bytes()


def test_it_refuses_a_read_only_key(cli: Cli, live_cast: Cast, tmp_path: Path) -> None:
    source = tmp_path / "a.txt"
    source.write_text("x")
    run = cli("blob", "put", str(source), CTX_KEY=live_cast.reader.key)
    assert run.returncode != 0 and "scope" in run.stderr.lower()
