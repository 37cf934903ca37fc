from __future__ import annotations

from typing import Any

import pytest
from django.core.management import CommandError, call_command

from ctx.models import ApiKey, Scope, Tenant
from tests.conftest import Api

pytestmark = pytest.mark.django_db


def test_it_creates_a_tenant_with_scopes(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("tenant_create", "acme", "--scope", "acme:team")
    assert sorted(Scope.objects.filter(tenant__name="acme").values_list("name", flat=True)) == [
        "acme:main",
        "acme:team",
    ]
    assert "created tenant acme" in capsys.readouterr().out


def test_it_refuses_a_duplicate_tenant() -> None:
    call_command("tenant_create", "acme")
    with pytest.raises(CommandError, match="already exists"):
        call_command("tenant_create", "acme")


def test_it_creates_a_working_key_shown_once(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("tenant_create", "acme", "--scope", "acme:team")
    call_command(
        "keys",
        "create",
        "--tenant",
        "acme",
        "--home",
        "acme:main",
        "--read",
        "acme:team",
        "--admin",
    )
    raw = capsys.readouterr().out.strip().splitlines()[-1]
    status, body = Api(raw).get("/api/whoami")
    assert status == 200 and body["is_admin"] and body["read_scopes"] == ["acme:main", "acme:team"]
    call_command("keys", "list")
    listing = capsys.readouterr().out
    assert raw not in listing and raw.split("_")[1] in listing


def test_it_makes_read_only_keys_with_an_empty_write_list(
    capsys: pytest.CaptureFixture[str],
) -> None:
    call_command("tenant_create", "acme")
    call_command("keys", "create", "--tenant", "acme", "--home", "acme:main", "--write")
    raw = capsys.readouterr().out.strip().splitlines()[-1]
    status, _ = Api(raw).post("/api/store", {"category": "a", "title": "b", "content": "c"})
    assert status == 403


def test_it_revokes_a_key(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("tenant_create", "acme")
    call_command("keys", "create", "--tenant", "acme", "--home", "acme:main")
    raw = capsys.readouterr().out.strip().splitlines()[-1]
    call_command("keys", "revoke", raw.split("_")[1])
    assert Api(raw).get("/api/whoami")[0] == 401


def test_it_rejects_scopes_of_another_tenant() -> None:
    call_command("tenant_create", "acme")
    call_command("tenant_create", "globex")
    with pytest.raises(CommandError, match="Unknown scopes"):
        call_command("keys", "create", "--tenant", "acme", "--home", "globex:main")


def test_it_bootstraps_once(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("bootstrap")
    raw = capsys.readouterr().out.strip()
    assert raw.startswith("ctx_") and Api(raw).get("/api/whoami")[1]["is_admin"] is True
    call_command("bootstrap")
    assert capsys.readouterr().out.strip() == ""
    assert Tenant.objects.count() == 1 and ApiKey.objects.count() == 1


def test_prepare_migrates_bootstraps_once_and_records_the_config(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """What the launcher runs before its servers, in one process: only the first run prints
    a key, and each run logs one config record."""
    with caplog.at_level("INFO", logger="ctx.config"):
        call_command("prepare")
    raw = capsys.readouterr().out.strip()
    assert raw.startswith("ctx_") and Api(raw).get("/api/whoami")[1]["is_admin"] is True
    assert [r for r in caplog.records if r.getMessage().startswith("config record ")]
    call_command("prepare")
    assert capsys.readouterr().out.strip() == ""
    assert ApiKey.objects.count() == 1


def _last_line(capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    captured = capsys.readouterr()
    return captured.out.strip().splitlines()[-1], captured.err


def test_it_gives_a_new_tenant_an_owner_key(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("tenant_create", "acme", "--scope", "acme:team")
    raw, err = _last_line(capsys)
    status, body = Api(raw).get("/api/whoami")
    assert status == 200 and (body["tenant"], body["role"]) == ("acme", "owner")
    assert body["write_scopes"] == ["acme:main", "acme:team"]
    assert "owner key" in err and "shown once" in err


def test_it_takes_the_tenant_from_the_home_scope(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("tenant_create", "acme", "--scope", "acme:team")
    call_command("keys", "create", "--home", "acme:team", "--name", "ci")
    raw, err = _last_line(capsys)
    assert Api(raw).get("/api/whoami")[1]["home_scope"] == "acme:team"
    prefix = raw.split("_")[1]
    assert f"created API key 'ci' (ctx_{prefix}_…) in tenant acme, role member" in err
    assert "created key key" not in err


def test_it_makes_a_read_only_key_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("tenant_create", "acme")
    call_command("keys", "create", "--home", "acme:main", "--read-only")
    raw, err = _last_line(capsys)
    status, _ = Api(raw).post("/api/store", {"category": "a", "title": "b", "content": "c"})
    assert status == 403 and "writes=-" in err


def test_it_lists_what_each_key_reads_and_writes(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("tenant_create", "acme", "--scope", "acme:team")
    call_command("keys", "create", "--home", "acme:main", "--read", "acme:team", "--name", "r")
    capsys.readouterr()
    call_command("keys", "list")
    line = next(x for x in capsys.readouterr().out.splitlines() if " r " in x)
    assert "reads=acme:main,acme:team writes=acme:main" in line


def test_it_creates_a_key_that_reads_credentials_in_clear(
    capsys: pytest.CaptureFixture[str],
) -> None:
    call_command("tenant_create", "acme")
    for ceiling in ([], ["--max-sensitivity", "credentials"]):
        call_command("keys", "create", "--tenant", "acme", "--home", "acme:main", *ceiling)
    default, vault = [
        line for line in capsys.readouterr().out.strip().splitlines() if line.startswith("ctx_")
    ][-2:]
    note = "The staging deploy uses access key " + "AKIA" + "IOSFODNN7EXAMPLE" + "."
    stored = Api(default).store(category="infra", title="Deploy key", content=note)
    get = {"action": "get", "id": stored["id"]}
    assert Api(default).post("/api/manage", get)[1]["block"]["content"] == "[redacted:credentials]"
    assert Api(vault).post("/api/manage", get)[1]["block"]["content"] == note
    call_command("keys", "list")
    assert "max=credentials" in capsys.readouterr().out


def test_config_shows_the_values_the_server_chose_itself(
    settings: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # Left empty, the secret key is generated and the time zone is the machine's: `config`
    # said neither (an empty CTX_SECRET_KEY read as if there were none).
    settings.CTX = {**settings.CTX, "CTX_SECRET_KEY": "", "CTX_TIME_ZONE": ""}
    settings.SECRET_KEY = "generated-secret-0123456789abcdef0123456789"
    settings.TIME_ZONE = "Asia/Tokyo"
    call_command("config")
    rows = (line.partition(" ") for line in capsys.readouterr().out.splitlines())
    lines = {name: value.strip() for name, _, value in rows}
    assert lines["CTX_SECRET_KEY"].endswith("(generated)")
    assert "0123456789abcdef" not in lines["CTX_SECRET_KEY"]
    assert lines["CTX_TIME_ZONE"] == "Asia/Tokyo (the machine's zone)"
