"""Key rotation: the sweep re-seals what the previous key opens and leaves the rest alone."""

from __future__ import annotations

import logging

import pytest
from django.conf import LazySettings
from django.core.management import call_command

from rls import context as rls
from secrets import services
from secrets.apps import is_server_process, reseal_at_start, start_sweep
from secrets.models import Secret, SecretAudit
from tests.conftest import Cast
from tests.secrets.conftest import KEY_A, KEY_B, KEY_C, VALUE, make_secret, use_keys, version


def _rows() -> dict[str, tuple[str, bytes]]:
    return {s.name: (s.key_version, bytes(s.ciphertext)) for s in Secret.objects.all()}


def _seal_under_a_and_c(cast: Cast, settings: LazySettings) -> None:
    make_secret(cast.owner_key, "one", "value-one")
    make_secret(cast.owner_key, "two", "value-two", scope="acme:team")
    use_keys(settings, KEY_C)
    make_secret(cast.owner_key, "lost", VALUE)


@pytest.mark.django_db
def test_it_re_seals_under_the_new_key_and_leaves_unknown_rows(
    cast: Cast, settings: LazySettings, caplog: pytest.LogCaptureFixture
) -> None:
    _seal_under_a_and_c(cast, settings)
    before = _rows()
    use_keys(settings, KEY_B, previous=KEY_A)
    caplog.set_level(logging.INFO, logger="ctx.secrets")
    report = services.secrets_reseal(actor="test")
    assert sorted(report.resealed) == ["acme/acme:main/one", "acme/acme:team/two"]
    assert report.unopenable == ["acme/acme:main/lost"]
    after = _rows()
    assert after["one"][0] == after["two"][0] == version(KEY_B)
    assert after["lost"] == before["lost"]  # untouched, byte for byte
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "acme/acme:main/lost" in warnings[0]
    assert "value-" not in caplog.text and VALUE not in caplog.text
    use_keys(settings, KEY_B)  # the previous key is gone: the new one alone must open them
    assert services.secret_reveal(name="two", scope_ref=None, actor="t") == "value-two"
    assert SecretAudit.objects.filter(action="resealed").count() == 2


@pytest.mark.django_db
def test_it_does_nothing_the_second_time(cast: Cast, settings: LazySettings) -> None:
    make_secret(cast.owner_key, "one")
    use_keys(settings, KEY_B, previous=KEY_A)
    assert len(services.secrets_reseal(actor="t").resealed) == 1
    again = services.secrets_reseal(actor="t")
    assert again.resealed == [] and again.unopenable == []


@pytest.mark.django_db
def test_the_command_prints_a_summary(
    cast: Cast, settings: LazySettings, capsys: pytest.CaptureFixture[str]
) -> None:
    _seal_under_a_and_c(cast, settings)
    use_keys(settings, KEY_B, previous=KEY_A)
    call_command("rotate_secrets")
    out = capsys.readouterr().out
    assert f"re-sealed 2 secret(s) under key {version(KEY_B)}; 1 left untouched" in out


@pytest.mark.django_db(transaction=True)
def test_the_start_up_sweep_runs_in_the_background(cast: Cast, settings: LazySettings) -> None:
    make_secret(cast.owner_key, "one")
    use_keys(settings, KEY_B, previous=KEY_A)
    start_sweep().join(timeout=20)
    assert Secret.objects.get(name="one").key_version == version(KEY_B)


@pytest.mark.django_db
def test_the_start_up_sweep_sees_every_tenant_under_the_runtime_role(
    cast: Cast,
    settings: LazySettings,
    runtime_role: None,
) -> None:
    # A web process runs as the runtime role with no scopes of its own: the policies hide
    # every secret unless the sweep asks for the system context.
    with rls.using(rls.SYSTEM):
        make_secret(cast.owner_key, "one")
    use_keys(settings, KEY_B, previous=KEY_A)
    reseal_at_start()
    with rls.using(rls.SYSTEM):
        assert Secret.objects.get(name="one").key_version == version(KEY_B)


@pytest.mark.parametrize(
    ("argv", "serving"),
    [
        (["/venv/bin/uvicorn", "ctx.asgi:app"], True),
        (["/venv/lib/python3.11/site-packages/uvicorn/__main__.py", "ctx.asgi:app"], True),
        (["/venv/bin/gunicorn", "ctx.wsgi"], True),
        (["/venv/bin/celery", "-A", "ctx", "worker"], True),
        (["/venv/lib/python3.11/site-packages/celery/__main__.py", "-A", "ctx", "worker"], True),
        (["/venv/bin/celery", "-A", "ctx", "beat"], False),
        (["manage.py", "runserver"], True),
        (["manage.py", "migrate"], False),
        (["/venv/bin/pytest"], False),
        ([], False),
    ],
)
def test_it_sweeps_at_start_only_in_servers_and_workers(argv: list[str], serving: bool) -> None:
    assert is_server_process(argv) is serving
