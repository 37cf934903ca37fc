"""`manage.py break_glass`: the plaintext for an operator, audited; `--stdin` needs no database."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from django.core.management import call_command
from django.db import connection

from ctx import services as ctx_services
from ctx.models import ApiKey
from secrets import crypto
from secrets.models import SecretAudit
from tests.secrets.conftest import KEY_A, KEY_B, VALUE, make_secret

ROOT = Path(__file__).resolve().parents[2]
DEAD_DATABASE = "postgresql://nobody@/nodb?host=/nonexistent-socket-dir"


def manage(*args: str, env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "break_glass", *args],
        cwd=ROOT,
        env={**os.environ, **env},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def subprocess_database_url() -> str:
    """The test database (pytest-django's `test_<NAME>`) as a DATABASE_URL for a subprocess."""
    db = connection.settings_dict
    auth = quote(db["USER"]) + (f":{quote(db['PASSWORD'])}" if db["PASSWORD"] else "")
    port = f":{db['PORT']}" if db["PORT"] else ""
    if db["HOST"].startswith("/"):  # a unix socket directory
        return f"postgresql://{auth}@{port}/{quote(db['NAME'])}?host={quote(db['HOST'])}"
    return f"postgresql://{auth}@{db['HOST']}{port}/{quote(db['NAME'])}"


def exported_row(value: str = VALUE) -> str:
    key = crypto.MasterKey(bytes.fromhex(KEY_A))
    sealed = crypto.seal(key, scope="acme/acme:main", name="db", value=value)
    return json.dumps(crypto.export_doc(scope="acme/acme:main", name="db", sealed=sealed))


def test_it_opens_a_piped_row_with_the_database_down() -> None:
    out = manage(
        "secret",
        "--stdin",
        env={"CTX_SECRETS_KEY": KEY_A, "DATABASE_URL": DEAD_DATABASE},
        stdin=exported_row(),
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == VALUE + "\n"
    assert "WARNING" in out.stderr and "secret db in acme/acme:main" in out.stderr
    assert VALUE not in out.stderr


def test_it_opens_a_row_sealed_under_the_previous_key() -> None:
    env = {"CTX_SECRETS_KEY": KEY_B, "CTX_SECRETS_KEY_PREV": KEY_A, "DATABASE_URL": DEAD_DATABASE}
    out = manage("secret", "--stdin", env=env, stdin=exported_row())
    assert out.returncode == 0 and out.stdout == VALUE + "\n"


def test_it_says_nothing_useful_to_a_wrong_key() -> None:
    row = exported_row()
    out = manage(
        "secret",
        "--stdin",
        env={"CTX_SECRETS_KEY": KEY_B, "DATABASE_URL": DEAD_DATABASE},
        stdin=row,
    )
    assert out.returncode == 1 and out.stdout == ""
    assert "No configured key opens this secret" in out.stderr
    assert VALUE not in out.stderr and json.loads(row)["ciphertext"] not in out.stderr


def test_it_refuses_garbage_on_stdin_without_echoing_it() -> None:
    out = manage(
        "secret",
        "--stdin",
        env={"CTX_SECRETS_KEY": KEY_A, "DATABASE_URL": DEAD_DATABASE},
        stdin="hunter2",
    )
    assert out.returncode == 1 and "not hold JSON" in out.stderr and "hunter2" not in out.stderr


@pytest.mark.django_db(transaction=True)
def test_it_reveals_and_exports_from_the_database_and_audits_both() -> None:
    tenant = ctx_services.tenant_create(name="acme")
    key, _ = ctx_services.key_create(
        tenant=tenant, name="o", home="acme:main", role=ApiKey.Role.OWNER
    )
    make_secret(key, "db")
    env = {"CTX_SECRETS_KEY": KEY_A, "DATABASE_URL": subprocess_database_url()}
    shown = manage("secret", "db", "acme/acme:main", env=env)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == VALUE + "\n" and VALUE not in shown.stderr
    exported = manage("export", "db", env=env)
    assert exported.returncode == 0, exported.stderr and VALUE not in exported.stdout
    piped = manage(
        "secret",
        "--stdin",
        env={"CTX_SECRETS_KEY": KEY_A, "DATABASE_URL": DEAD_DATABASE},
        stdin=exported.stdout,
    )
    assert piped.stdout == VALUE + "\n"
    audit = list(SecretAudit.objects.filter(name="db").values_list("action", "scope", "actor"))
    actions = [a for a, _, _ in audit]
    assert actions == ["created", "revealed", "exported"]
    assert audit[1][1] == "acme/acme:main" and audit[1][2].startswith("cli")


@pytest.mark.django_db
def test_it_names_the_scopes_when_a_name_is_ambiguous(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from django.core.management import CommandError

    for name in ("acme", "globex"):
        tenant = ctx_services.tenant_create(name=name)
        key, _ = ctx_services.key_create(
            tenant=tenant, name="o", home=f"{name}:main", role=ApiKey.Role.OWNER
        )
        make_secret(key, "db")
    with pytest.raises(CommandError, match=r"acme/acme:main, globex/globex:main"):
        call_command("break_glass", "secret", "db")
    call_command("break_glass", "secret", "db", "globex:main")
    assert capsys.readouterr().out == VALUE + "\n"


@pytest.mark.django_db
def test_reset_settings_says_when_there_is_nothing_to_reset(
    capsys: pytest.CaptureFixture[str],
) -> None:
    call_command("break_glass", "reset-settings", "CTX_RRF_K")
    assert "removed 0 database override(s) of ctx_rrf_k" in capsys.readouterr().out.lower()
    assert SecretAudit.objects.filter(action="reset-settings", name="CTX_RRF_K").exists()


def docs_query() -> str:
    """The `psql` query docs/secrets.md gives operators, as they would paste it."""
    text = (ROOT / "docs" / "secrets.md").read_text()
    start = text.index('-At -c "') + len('-At -c "')
    return text[start : text.index('" \\\n', start)]


def psql_at(query: str) -> str:
    """`psql -At -c QUERY` against the test database, with the PostgreSQL client pgserver ships."""
    import pgserver

    db = connection.settings_dict
    conn = ["-h", str(db["HOST"]), "-U", str(db["USER"]), "-d", str(db["NAME"])]
    if db.get("PORT"):
        conn += ["-p", str(db["PORT"])]
    psql = Path(pgserver.__file__).parent / "pginstall" / "bin" / "psql"
    out = subprocess.run(
        [str(psql), *conn, "-At", "-c", query], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.django_db(transaction=True)
def test_it_opens_the_row_a_real_psql_pipe_prints_with_wrapped_base64() -> None:
    tenant = ctx_services.tenant_create(name="acme")
    key, _ = ctx_services.key_create(
        tenant=tenant, name="o", home="acme:main", role=ApiKey.Role.OWNER
    )
    long_value = "postgres://app:" + "s3cr3t" * 40 + "@db/prod"  # ciphertext past 76 characters
    make_secret(key, "db", value=long_value)
    row = psql_at(docs_query().replace("'NAME'", "'db'"))
    assert "\n" in json.loads(row)["ciphertext"]  # PostgreSQL wrapped it
    piped = manage(
        "secret",
        "--stdin",
        env={"CTX_SECRETS_KEY": KEY_A, "DATABASE_URL": DEAD_DATABASE},
        stdin=row,
    )
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == long_value + "\n"


def test_base64_with_anything_but_line_breaks_outside_the_alphabet_is_still_refused() -> None:
    doc = json.loads(exported_row())
    doc["ciphertext"] = doc["ciphertext"][:10] + "*" + doc["ciphertext"][10:]
    with pytest.raises(ValueError, match="'ciphertext' is not valid base64"):
        crypto.import_doc(doc)
