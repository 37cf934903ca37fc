"""The default time zone is the machine's (UTC when it has none), not a zone of ours (#19.15)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def zone_of_a_server(**env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k not in ("CTX_TIME_ZONE", "TZ")}
    code = "from django.conf import settings; print(settings.TIME_ZONE)"
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT, env={**clean, **env}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("machine", ["Asia/Tokyo", "America/New_York"])
def test_it_reads_temporal_words_in_the_machines_zone(machine: str) -> None:
    assert zone_of_a_server(TZ=machine) == machine


def test_it_falls_back_to_utc_for_a_zone_nobody_knows() -> None:
    assert zone_of_a_server(TZ="Nowhere/Atlantis") in ("UTC", "Etc/UTC")


def test_a_zone_set_for_ctx_wins() -> None:
    assert zone_of_a_server(TZ="Asia/Tokyo", CTX_TIME_ZONE="Europe/Lisbon") == "Europe/Lisbon"
