"""`ctx settings list|get|set|unset` against a live server, as the acme owner."""

from __future__ import annotations

from typing import Any

from tests.api.settings_support import server_admin_key
from tests.cli.conftest import Cli
from tests.conftest import Cast


def test_set_get_list_unset_round_trip(cli: Cli) -> None:
    run = cli("settings", "set", "CTX_QUERY_STAGES", "graph,supersedes")
    assert run.returncode == 0, run.stderr
    shown = run.json()["settings"][0]
    assert (shown["value"], shown["source"]) == (["graph", "supersedes"], "tenant")
    got = cli("settings", "get", "CTX_QUERY_STAGES").json()["setting"]
    assert got["value"] == ["graph", "supersedes"]
    assert cli("settings", "set", "CTX_RRF_K", "40").returncode == 0
    listed = {s["name"]: s for s in cli("settings", "list").json()["settings"]}
    assert listed["CTX_RRF_K"]["value"] == 40 and listed["CTX_RRF_K"]["source"] == "tenant"
    run = cli("settings", "unset", "CTX_RRF_K")
    assert run.returncode == 0 and run.json()["setting"]["source"] == "default"


def test_it_shows_a_table_on_a_terminal(cli: Cli) -> None:
    run = cli.tty("settings", "list")
    assert run.returncode == 0, run.stderr
    assert "CTX_RRF_K" in run.stdout and "live,tenant" in run.stdout


def test_it_reports_every_finding_and_exits_1(cli: Cli) -> None:
    run = cli("settings", "set", "CTX_RRF_K", "0")
    assert run.returncode == 1 and run.stdout == ""
    assert "CTX_RRF_K=0: must be between 1 and 1000" in run.stderr


def test_a_member_is_refused(cli: Cli, live_cast: Cast) -> None:
    run = cli("settings", "list", CTX_KEY=live_cast.writer.key)
    assert run.returncode == 1 and "permission tier" in run.stderr


def test_a_server_admin_names_a_secret_for_a_credential(cli: Cli, settings: Any) -> None:
    settings.CTX = {**settings.CTX, "CTX_SECRETS_KEY": "a1" * 32, "CTX_SECRETS_KEY_FILE": ""}
    _, admin = server_admin_key()
    assert cli("secrets", "set", "llm", stdin="sk-value\n", CTX_KEY=admin.key).returncode == 0
    run = cli("settings", "set", "CTX_LLM_API_KEY", "--secret", "llm", CTX_KEY=admin.key)
    assert run.returncode == 0, run.stderr
    assert run.json()["settings"][0]["secret_ref"] == "ops/ops:main/llm"
    assert "sk-value" not in run.stdout
    assert cli("settings", "set", "CTX_RRF_K").returncode == 2  # neither a value nor --secret
