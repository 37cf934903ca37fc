"""pytest plugin: one embedded PostgreSQL and Redis per test process, before Django loads
settings: per run, or per worker under pytest-xdist (`make test`), never shared by two.

Loaded with `-p tests.support.plugin` (pyproject addopts) so its hook runs before pytest-django
reads DATABASES. A DATABASE_URL / REDIS_URL already in the environment is used instead.
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

_handles: Any = None


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: Any, parser: Any, args: list[str]) -> None:
    global _handles
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ["CTX_TESTING"] = "1"
    # The temporal fixtures are written in Berlin time; the product default is the machine zone.
    os.environ.setdefault("CTX_TIME_ZONE", "Europe/Berlin")
    if os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL"):
        return
    if _distributing(early_config):
        return  # each xdist worker starts its own (below): nothing is shared between them
    from ctx.runtime import embedded

    data_dir = Path(tempfile.mkdtemp(prefix="ctx-test-"))
    os.environ.setdefault("CTX_DATA_DIR", str(data_dir))
    _handles = embedded.start(data_dir, temporary=True)


def _distributing(config: Any) -> bool:
    """True in the controller of an xdist run (`-n`), which runs no test itself."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return False
    return bool(getattr(config.known_args_namespace, "numprocesses", None))


def pytest_collection_finish(session: Any) -> None:
    """Refuse a run where two tests share a node id: pytest-xdist tells tests apart by it and
    silently runs only one of them. Under pytest 9.2 all of schemathesis's operations share
    one (pyproject pins pytest below it)."""
    ids = Counter(i.nodeid for i in session.items)
    shared = sorted(nodeid for nodeid, n in ids.items() if n > 1)
    if shared:
        raise pytest.UsageError(f"tests share a node id; pytest-xdist would run one: {shared[:3]}")


def pytest_unconfigure(config: Any) -> None:
    global _handles
    if _handles is not None:
        _handles.stop()
        _handles = None
