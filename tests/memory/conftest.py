"""Extraction runs where the write ran (no broker: memory.tasks.enqueue extracts in-process);
`django_capture_on_commit_callbacks(execute=True)` fires the after-commit hooks, which the
test's wrapping transaction would otherwise hold back. tests/memory/test_worker.py runs the
task in a real Celery worker instead."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(autouse=True)
def no_broker(settings: Any) -> None:
    settings.CELERY_BROKER_URL = ""
