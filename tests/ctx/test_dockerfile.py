"""The image installs what a checkout installs: every package pyproject.toml names is copied
into the image before `pip install .` (an app left out made the image fail at its first
import; five were missing before this test)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_image_copies_every_package_the_project_installs() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    installed = {
        p.rstrip("*") for p in pyproject["tool"]["setuptools"]["packages"]["find"]["include"]
    }
    copied = set(re.findall(r"^COPY (\w+) \1$", (ROOT / "Dockerfile").read_text(), re.M))
    assert installed - copied == set(), "add a COPY line to the Dockerfile"
    assert all((ROOT / name / "__init__.py").is_file() for name in installed)
