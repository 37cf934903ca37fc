"""The resolver: reload without restart, across processes, with at most one check a second."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ctx.overrides import resolver
from ctx.overrides.models import SettingAudit, SettingOverride
from tests.api.settings_support import put, server_admin
from tests.secrets.test_break_glass import ROOT, subprocess_database_url

pytestmark = pytest.mark.django_db


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _other_process_writes(key: str, value: object) -> None:
    """What another web worker does: rows and an audit row, without touching our cache."""
    SettingOverride.objects.update_or_create(
        key=key, tenant=None, defaults={"value": value, "updated_by": "elsewhere"}
    )
    SettingAudit.objects.create(key=key, action="set", new=value, actor="elsewhere")


def test_another_processs_change_is_seen_within_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    monkeypatch.setattr(resolver, "clock", clock)
    assert resolver.value("CTX_RRF_K") == 60
    _other_process_writes("CTX_RRF_K", 12)
    clock.now += 0.5
    assert resolver.value("CTX_RRF_K") == 60  # still within the interval: no query at all
    clock.now += 0.6
    assert resolver.value("CTX_RRF_K") == 12


def test_it_checks_the_version_at_most_once_per_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    monkeypatch.setattr(resolver, "clock", clock)
    resolver.values()
    with CaptureQueriesContext(connection) as seen:
        for _ in range(50):
            resolver.values(7)
    assert len(seen) == 0
    clock.now += 1.5
    with CaptureQueriesContext(connection) as seen:
        resolver.values()
    assert len(seen) == 1  # the version query; the rows did not change


def test_a_change_through_the_api_is_visible_to_the_next_request(cast: object) -> None:
    admin = server_admin()
    assert admin.get("/api/settings/CTX_GRAPH_SEEDS")[1]["setting"]["value"] == 5
    put(admin, "CTX_GRAPH_SEEDS", 2)
    assert admin.get("/api/settings/CTX_GRAPH_SEEDS")[1]["setting"]["value"] == 2
    assert resolver.value("CTX_GRAPH_SEEDS") == 2  # what the graph stage reads in this process


READER = """
import sys, time
from ctx.overrides import resolver
end = time.monotonic() + 20
while time.monotonic() < end:
    value = resolver.value("CTX_RRF_K")
    print("V", time.monotonic(), value, flush=True)
    if value != 60:
        break
    time.sleep(0.05)
"""


@pytest.mark.django_db(transaction=True)
def test_a_long_running_process_sees_an_api_change_within_a_second() -> None:
    """Like a Celery worker: started before the change, never restarted."""
    admin = server_admin()
    reader = subprocess.Popen(
        [sys.executable, "manage.py", "shell", "-c", READER],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": subprocess_database_url()},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert reader.stdout is not None
        lines = (line.split() for line in reader.stdout if line.startswith("V "))
        first = next(lines, ["V", "0", "none"])  # it has read (and cached) the default
        assert first[2] == "60", reader.stderr.read() if reader.stderr else ""
        assert put(admin, "CTX_RRF_K", 20)[0] == 200
        changed_at = time.monotonic()
        last = first
        for row in lines:  # monotonic is system-wide on Linux: comparable across processes
            last = row
        assert last[2] == "20"
        assert float(last[1]) - changed_at < 1.5  # the version is checked once a second
    finally:
        reader.kill()
        reader.wait()
