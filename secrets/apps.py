"""The app: system checks ctx.E020/E021, and the re-seal sweep at start during a rotation."""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from django.apps import AppConfig, apps
from django.conf import settings
from django.core.checks import Error, Tags, register
from django.db import DatabaseError, connection

from ctx import knobs

log = logging.getLogger("ctx.secrets")

SERVER_PROGRAMS = {"uvicorn", "gunicorn", "daphne", "hypercorn"}


class SecretsConfig(AppConfig):
    name = "secrets"
    label = "secrets"
    verbose_name = "Sealed secrets"

    def ready(self) -> None:
        from ctx import hooks  # app modules load once the registry is ready

        from . import services  # app modules load once the registry is ready

        hooks.SECRET_OPENER.register(services.secret_open_for_setting)
        register(check_key_settings)
        register(check_key_present, Tags.database)

        # Only a rotation (a previous key is set) has anything to sweep; ready() itself must not
        # query (the registry is not ready yet), so the sweep runs in a thread.
        previous = knobs.value("CTX_SECRETS_KEY_PREV") or knobs.value("CTX_SECRETS_KEY_PREV_FILE")
        if previous and is_server_process(sys.argv) and not os.environ.get("CTX_TESTING"):
            start_sweep()


def is_server_process(argv: list[str]) -> bool:
    """Web servers and Celery workers re-seal at start; tests, migrations and commands do not."""
    if not argv:
        return False
    program = Path(argv[0])
    names = {program.name, program.parent.name}  # `python -m uvicorn` runs uvicorn/__main__.py
    if names & SERVER_PROGRAMS:
        return True
    if "celery" in names:
        return "worker" in argv[1:]
    return argv[1:2] == ["runserver"]


def start_sweep() -> threading.Thread:
    """Re-seal in the background: a slow or failing sweep never delays or aborts the start."""
    thread = threading.Thread(target=_sweep, name="ctx-secrets-sweep", daemon=True)
    thread.start()
    return thread


def _sweep() -> None:

    deadline = time.monotonic() + 60
    while not apps.ready and time.monotonic() < deadline:  # queries wait for the app registry
        time.sleep(0.05)
    try:
        reseal_at_start()
    except Exception:
        log.warning("secrets sweep failed; run `manage.py rotate_secrets`", exc_info=True)
    finally:
        connection.close()  # this thread's own connection


def reseal_at_start() -> None:
    """Re-seal every tenant's secrets. It runs in the row-level-security system context: a web
    process's own context holds no scopes, and the policies would show the sweep no rows."""
    from rls import context as rls_context  # app modules load once the registry is ready

    from . import services  # app modules load once the registry is ready

    with rls_context.using(rls_context.SYSTEM):
        report = services.secrets_reseal(actor="start-up")
    log.info(
        "secrets sweep: %d re-sealed, %d left (no key opens them)",
        len(report.resealed),
        len(report.unopenable),
    )


def check_key_settings(app_configs: Any, **kwargs: Any) -> list[Error]:
    """ctx.E021: the master key settings must be readable and well-formed."""

    from . import crypto  # app modules load once the registry is ready

    try:
        crypto.keyring_from(settings.CTX)
    except crypto.KeyConfigError as exc:
        return [Error(str(exc), hint="See docs/secrets.md.", id="ctx.E021")]
    return []


def check_key_present(app_configs: Any, **kwargs: Any) -> list[Error]:
    """ctx.E020: once a secret exists the master key is required (runs with migrate)."""

    from . import crypto, selectors  # app modules load once the registry is ready

    if not kwargs.get("databases"):  # Django's rule for database checks: only when asked
        return []
    try:
        if crypto.keyring_from(settings.CTX).current is not None:
            return []
        exist = selectors.secrets_exist()
    except (crypto.KeyConfigError, DatabaseError):  # E021 reports the former; before migrate
        return []
    if not exist:
        return []
    return [
        Error(
            "Sealed secrets exist but no master key is set.",
            hint="Set CTX_SECRETS_KEY or CTX_SECRETS_KEY_FILE (docs/secrets.md).",
            id="ctx.E020",
        )
    ]
