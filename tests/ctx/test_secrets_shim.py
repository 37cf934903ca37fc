"""`secrets/` shadows the stdlib module; Django's hashing and CSRF must still work."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.hashers import check_password, make_password

ROOT = Path(__file__).resolve().parents[2]


def test_it_reexports_the_stdlib_api() -> None:
    import secrets

    assert hasattr(secrets, "__path__")  # the project's package, not the stdlib module
    assert len(secrets.token_hex(8)) == 16
    assert secrets.compare_digest("a", "a") and not secrets.compare_digest("a", "b")


@pytest.mark.django_db
def test_it_keeps_password_hashing_working() -> None:
    assert check_password("pw", make_password("pw"))


def test_it_works_in_a_fresh_process_with_the_server_settings() -> None:
    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='ctx.settings'; django.setup();"
        "from django.contrib.auth.hashers import make_password, check_password;"
        "from django.middleware.csrf import get_token; import secrets;"
        "assert check_password('x', make_password('x')); print(secrets.token_hex(4))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert len(out.stdout.strip()) == 8
