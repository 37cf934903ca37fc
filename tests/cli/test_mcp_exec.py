"""The stdio bridge's local tools (execute, execute_file, batch_execute, fetch_and_index,
index with a path, stats with the session), driven by the mcp SDK's stdio client against a
real uvicorn server: large output is indexed there in the caller's scope only."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.conftest import Cast
from tests.mcp.live import LiveServer, shared

CLI = Path(__file__).resolve().parents[2] / "cli"
LOG_PROGRAM = """
import random
random.seed(7)
services = ["auth", "billing", "search", "mailer", "gateway"]
for i in range(1000):
    if i == 523:
        print("2026-11-27T10:52:11Z ERROR payments: connection refused by ledger-db-7 port 5432")
    else:
        s = random.choice(services)
        ms = random.randint(3, 90)
        print(f"2026-11-27T10:{i % 60:02d}:00Z INFO {s}: request {i} served in {ms} ms")
"""


@pytest.fixture(scope="module")
def live(
    django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    yield from shared(tmp_path_factory)


@pytest.fixture(autouse=True)
def as_the_live_server(settings: Any) -> None:
    settings.CELERY_BROKER_URL = ""
    settings.CTX = {**settings.CTX, "CTX_GUARD_HINTS": False}


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """World-writable: the sandbox runs as nobody here (tests run as root)."""
    path = Path(tempfile.mkdtemp(prefix="ctx-mcp-exec-"))
    path.chmod(0o777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@asynccontextmanager
async def bridge(url: str, key: str, home: Path, *options: str, cwd: Path | None = None) -> Any:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "CTX_BASE_URL": url,
        "CTX_KEY": key,
        "CTX_SESSION_ID": "mcp-test",
        "PYTHONPATH": str(CLI),
    }
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "ctx_cli.main", "mcp-stdio", *options],
        env=env,
        cwd=str(cwd or home),
    )
    async with Client(stdio_client(params, errlog=sys.stderr), mode="auto") as client:
        yield client


def calls(
    live: LiveServer, key: str, home: Path, steps: list[tuple[str, dict[str, Any]]], *options: str
) -> list[Any]:
    async def go() -> list[Any]:
        async with bridge(live.url, key, home, *options) as client:
            return [await client.call_tool(name, args) for name, args in steps]

    return asyncio.run(go())


def _text(result: Any) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


def test_it_returns_the_matching_lines_of_a_large_output(
    live: LiveServer, live_cast: Cast, open_dir: Path
) -> None:
    key = live_cast.owner.key or ""
    intent = "which database refused the connection"
    run, stats = calls(
        live,
        key,
        open_dir,
        [
            ("execute", {"language": "python", "code": LOG_PROGRAM, "intent": intent}),
            ("stats", {}),
        ],
    )
    assert not run.is_error, _text(run)
    payload = run.structured_content
    assert payload["mode"] == "indexed" and payload["output_bytes"] > 50_000
    assert "ledger-db-7" in payload["output"] and "«refused»" in payload["output"]
    assert len(_text(run).encode()) < 0.03 * payload["output_bytes"]  # a few hundred bytes
    assert payload["source"].startswith("exec:") and payload["scope"] == "acme:main"
    assert isinstance(payload["terms"], list)  # distinctive words to search next, if any
    # The session's figures, beside the server's own counts.
    session = stats.structured_content["session"]
    row = session["tools"]["execute"]
    assert row["calls"] == 1 and row["bytes_produced"] == payload["output_bytes"]
    assert row["bytes_returned"] == len(_text(run).encode())
    assert "blocks" in stats.structured_content["stats"]
    # Indexed in the caller's scope: the owner finds it, another tenant's key does not.
    query = {"queries": ["ledger"], "source": payload["source"]}
    status, body = live_cast.owner.post("/api/index/search", query)
    assert status == 200 and body["results"][0]["hits"]
    status, body = live_cast.outsider.post("/api/index/search", query)
    assert status == 404


def test_it_shows_a_matching_line_once(live: LiveServer, live_cast: Cast, open_dir: Path) -> None:
    # Plain text is indexed in overlapping 20-line windows: line 77777 is in two of them.
    (run,) = calls(
        live,
        live_cast.owner.key or "",
        open_dir,
        [("execute", {"language": "shell", "code": "seq 1 100000", "intent": "77777"})],
    )
    payload = run.structured_content
    assert payload["mode"] == "indexed" and payload["output"].count("«77777»") == 1, payload


def test_it_runs_over_a_file_and_a_batch(live: LiveServer, live_cast: Cast, open_dir: Path) -> None:
    data = open_dir / "app.log"
    data.write_text("INFO a\nERROR b\nERROR c\n")
    doc = open_dir / "guide.md"
    doc.write_text("# Guide\n\n## Deploy\n\nDeploys happen on Tuesdays.\n")
    count = "import sys\nprint(sum('ERROR' in line for line in sys.stdin))"
    by_file, batch, indexed = calls(
        live,
        live_cast.owner.key or "",
        open_dir,
        [
            ("execute_file", {"path": str(data), "language": "python", "code": count}),
            ("batch_execute", {"commands": ["echo one", "echo two >&2; exit 3"]}),
            ("index", {"path": str(doc), "source": "guide.md"}),
        ],
    )
    assert by_file.structured_content["output"] == "2\n"
    rows = batch.structured_content["commands"]
    assert [r["exit_code"] for r in rows] == [0, 3]
    expected = "# echo one\n\none\n\n# echo two >&2; exit 3\n\ntwo\n"
    assert batch.structured_content["output"] == expected
    assert indexed.structured_content["source"]["label"] == "guide.md"
    assert indexed.structured_content["source"]["chunks"] >= 1


def test_it_refuses_a_denied_command_and_redirects_a_fetch(
    live: LiveServer, live_cast: Cast, open_dir: Path
) -> None:
    (open_dir / ".claude").mkdir()
    deny = {"permissions": {"deny": ["Bash(touch:*)", "Read(./.env)"]}}
    (open_dir / ".claude" / "settings.local.json").write_text(json.dumps(deny))
    (open_dir / ".env").write_text("API_TOKEN=tok-abcdef123456\n")
    marker = open_dir / "marker"
    denied, redirected, secret = calls(
        live,
        live_cast.owner.key or "",
        open_dir,
        [
            ("execute", {"language": "shell", "code": f"touch {marker}"}),
            ("execute", {"language": "shell", "code": "curl https://example.com"}),
            ("execute", {"language": "shell", "code": "cat .env"}),
        ],
    )
    assert denied.is_error and denied.structured_content["error"]["code"] == "forbidden"
    assert denied.structured_content["rule"] == "Bash(touch:*)"
    assert not marker.exists()
    assert secret.is_error and secret.structured_content["rule"] == "Read(./.env)"
    assert "tok-abcdef" not in _text(secret)
    assert not redirected.is_error
    assert redirected.structured_content["status"] == "redirected"
    assert redirected.structured_content["tool"] == "fetch_and_index"


PRIVATE = ["http://127.0.0.1:9/x", "http://10.1.2.3:9/x", "http://169.254.169.254/latest/"]


def test_it_refuses_private_addresses_unless_allowed(
    live: LiveServer, live_cast: Cast, open_dir: Path
) -> None:
    key = live_cast.owner.key or ""
    results = calls(live, key, open_dir, [("fetch_and_index", {"url": u}) for u in PRIVATE])
    for url, result in zip(PRIVATE, results, strict=True):
        assert result.is_error, url
        error = result.structured_content["error"]
        assert error["code"] == "forbidden" and "address: refused" in error["message"], url
    (allowed,) = calls(
        live,
        key,
        open_dir,
        [("fetch_and_index", {"url": f"{live.url}/health", "source": "health"})],
        "--allow-private",
    )
    assert not allowed.is_error, _text(allowed)
    assert allowed.structured_content["source"]["label"] == "health"
    assert allowed.structured_content["source"]["type"] == "json"
