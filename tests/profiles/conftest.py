"""Fixtures of the profile app's tests: the cast's clients, with signals processed at once.

pytest-django wraps each test in a transaction, so an on-commit task never runs by itself;
the clients run each write's commit callbacks before answering, as a commit would (without a
broker the task's work runs inline: profiles.tasks.enqueue)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import pytest

from tests.conftest import Cast
from tests.profiles.support import Apis, clients


@pytest.fixture
def apis(
    cast: Cast,
    settings: Any,
    django_capture_on_commit_callbacks: Callable[..., AbstractContextManager[Any]],
) -> Apis:
    """owner, reader, writer, outsider."""
    settings.CELERY_BROKER_URL = ""
    return clients(cast, lambda: django_capture_on_commit_callbacks(execute=True))
