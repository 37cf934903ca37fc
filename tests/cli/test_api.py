from __future__ import annotations

import json

from tests.cli.conftest import Cli
from tests.conftest import Cast


def test_it_gets_a_path(cli: Cli) -> None:
    run = cli("api", "get", "/api/whoami")
    assert run.returncode == 0, run.stderr
    assert run.json()["tenant"] == "acme"


def test_it_posts_a_json_argument(cli: Cli, live_cast: Cast) -> None:
    body = {"category": "c", "title": "raw", "content": "via api"}
    run = cli("api", "POST", "/api/store", json.dumps(body))
    assert run.returncode == 0, run.stderr
    assert run.json()["action"] == "created"


def test_it_posts_json_from_stdin(cli: Cli, live_cast: Cast) -> None:
    live_cast.owner.store(title="x", content="findable words")
    run = cli("api", "POST", "/api/search", stdin='{"query": "findable"}')
    assert [r["title"] for r in run.json()["results"]] == ["x"]


def test_it_reports_error_envelopes_and_bad_input(cli: Cli) -> None:
    missing = cli("api", "GET", "/api/nope")
    assert missing.returncode == 1 and "(not_found)" in missing.stderr
    bad = cli("api", "POST", "/api/search", "{not json")
    assert bad.returncode == 2 and "not valid JSON" in bad.stderr
    relative = cli("api", "GET", "api/whoami")
    assert relative.returncode == 2 and "must start with '/'" in relative.stderr
    assert cli("api", "FETCH", "/health").returncode == 2


def test_it_pretty_prints_on_a_terminal(cli: Cli) -> None:
    run = cli.tty("api", "GET", "/api/whoami")
    assert run.returncode == 0 and '"tenant": "acme"' in run.stdout
