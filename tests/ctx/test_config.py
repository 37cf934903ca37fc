from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from ctx import config

ROOT = Path(__file__).resolve().parents[2]


def test_it_uses_defaults_for_unset_values() -> None:
    values = config.load({})
    assert values["CTX_PORT"] == 8000 and values["CTX_DEBUG"] is False


def test_it_lists_every_malformed_value_at_once() -> None:
    with pytest.raises(config.ConfigError) as info:
        config.load(
            {
                "CTX_PORT": "eighty",
                "CTX_DEBUG": "maybe",
                "CTX_WORKERS": "999",
                "CTX_LOG_LEVEL": "loud",
            }
        )
    findings = "\n".join(info.value.findings)
    for name in ("CTX_PORT", "CTX_DEBUG", "CTX_WORKERS", "CTX_LOG_LEVEL"):
        assert name in findings
    assert len(info.value.findings) == 4


def test_it_never_echoes_a_malformed_secret() -> None:
    with pytest.raises(config.ConfigError) as info:
        config.load({"DATABASE_URL": "hunter2-not-a-url"})
    assert "hunter2" not in str(info.value)


def test_it_masks_secrets() -> None:
    shown = config.masked(
        {"DATABASE_URL": "postgresql://u:pw@h/db", "CTX_SECRET_KEY": "abc", "CTX_PORT": 1}
    )
    assert shown == {
        "DATABASE_URL": "postgresql://u:***@h/db",
        "CTX_SECRET_KEY": "***",
        "CTX_PORT": 1,
    }


def test_it_stops_the_launcher_with_every_finding() -> None:
    env = {"PATH": "/usr/bin:/bin", "CTX_PORT": "x", "CTX_DEBUG": "perhaps"}
    out = subprocess.run(
        [sys.executable, "-m", "ctx.runtime.launcher", "run"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2
    assert "CTX_PORT" in out.stderr and "CTX_DEBUG" in out.stderr


@pytest.mark.django_db
def test_it_prints_effective_settings_masked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.conf import settings

    monkeypatch.setitem(settings.CTX, "CTX_SECRET_KEY", "topsecretvalue")
    call_command("config")
    out = capsys.readouterr().out
    assert "CTX_PORT" in out and "topsecretvalue" not in out and "***" in out


@pytest.mark.django_db
def test_it_has_no_missing_migrations() -> None:
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def test_it_flags_an_embedding_dimension_that_does_not_fit_the_column(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from django.conf import settings

    from retrieval.checks import check_embedding_dimension

    assert check_embedding_dimension(None) == []
    monkeypatch.setitem(settings.CTX, "CTX_EMBED_DIM", 768)
    assert [e.id for e in check_embedding_dimension(None)] == ["ctx.E010"]


def test_it_flags_an_incomplete_llm_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    from django.conf import settings

    from retrieval.checks import check_llm_settings

    assert check_llm_settings(None) == []
    monkeypatch.setitem(settings.CTX, "CTX_LLM_PROVIDER", "openai")
    assert {e.id for e in check_llm_settings(None)} == {"ctx.E011"}


def test_a_reader_that_stops_early_gets_no_traceback() -> None:
    """`manage.py config | head -1`: the pipe is closed before the command writes."""
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "config"],
        cwd=ROOT,
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # Django takes a second to start: nothing was written yet
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
