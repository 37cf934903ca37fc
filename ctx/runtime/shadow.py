"""Make `secrets` mean the project's app even when the stdlib module was imported first.

Tools such as mypy import the stdlib `secrets` before the project root is on sys.path, and then
`secrets.apps` cannot be found. Our package re-exports the whole stdlib API, so swapping it in
is safe for code that already holds the stdlib module.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[2] / "secrets"


def ensure_project_secrets() -> None:
    current = sys.modules.get("secrets")
    if current is not None and hasattr(current, "__path__"):
        return
    spec = importlib.util.spec_from_file_location(
        "secrets", _PACKAGE / "__init__.py", submodule_search_locations=[str(_PACKAGE)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["secrets"] = module
    spec.loader.exec_module(module)
