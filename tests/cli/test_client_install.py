"""A client-only install: `pip install ./cli` into a fresh venv, nothing of the server.

The CLI is its own distribution (cli/pyproject.toml): the standard library, httpx and rich,
Python >= 3.9. A laptop installs it with `pipx install ./cli` (or pip) and talks to a remote
server; the server's Django, torch and its top-level `secrets` package must not come along.
"""

from __future__ import annotations

import ast
import shlex
import shutil
import subprocess
import sys
import venv
from dataclasses import dataclass
from pathlib import Path

import pytest

import ctx_cli
from tests.cli.conftest import Cli
from tests.cli_sessions.test_python39 import _call_violations
from tests.conftest import Cast
from tests.support.live import LiveServer

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "cli"
PACKAGE = CLIENT / "ctx_cli"
PIP = [sys.executable, "-m", "pip"]
SERVER_ONLY = ("django", "torch", "ctx", "secrets", "retrieval", "dream", "psycopg")


def local_package_sources() -> list[str]:
    """pip options that resolve from this machine's own package index, if pip is configured
    with one (file:// index URLs, local find-links): the test then never reaches the network.
    Without one, pip's own defaults apply."""
    out = subprocess.run([*PIP, "config", "list"], capture_output=True, text=True).stdout
    indexes: list[str] = []
    for line in out.splitlines():
        name, _, value = line.partition("=")
        if name.endswith("index-url"):
            indexes += [u for u in shlex.split(value.strip("'\"")) if u.startswith("file://")]
    if not indexes:
        return []
    return ["--index-url", indexes[0], *(f"--extra-index-url={u}" for u in indexes[1:])]


@dataclass
class Installed:
    root: Path

    @property
    def ctx(self) -> Path:
        return self.root / "bin" / "ctx"

    def site_packages(self) -> Path:
        (found,) = self.root.glob("lib/python*/site-packages")
        return found


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The client installed from the repository path into a fresh venv. The venv gets no pip
    of its own (creating it with ensurepip took seconds); this interpreter's pip installs
    into it with `--python`, as a user's pip would."""
    root = tmp_path_factory.mktemp("client-venv")
    venv.create(root, with_pip=False)
    python = str(root / "bin" / "python")
    # From a copy: setuptools leaves build/ in the folder it builds, and a cli/build/ in the
    # checkout is a second ctx_cli to mypy ("Duplicate module named 'ctx_cli'").
    source = tmp_path_factory.mktemp("client-source") / "cli"
    shutil.copytree(CLIENT, source, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    result = subprocess.run(
        [*PIP, "--python", python, "install", "-q", *local_package_sources(), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return Installed(root)


def test_it_installs_the_client_and_nothing_of_the_server(installed: Installed) -> None:
    site = installed.site_packages()
    top = {p.name.split("-")[0].lower() for p in site.iterdir()}
    assert {"ctx_cli", "httpx", "rich"} <= top
    assert not top & set(SERVER_ONLY), sorted(top & set(SERVER_ONLY))
    assert installed.ctx.exists()


@pytest.mark.django_db(transaction=True)
def test_it_talks_to_a_server_from_the_fresh_venv(
    installed: Installed, live: LiveServer, live_cast: Cast, tmp_path: Path
) -> None:
    cli = Cli(home=tmp_path, url=live.url, key=live_cast.owner.key, program=[str(installed.ctx)])
    version = cli("version", PYTHONPATH=None)  # the installed package, not this checkout's
    assert version.returncode == 0, version.stderr
    assert version.json() == {"client": ctx_cli.__version__, "server": ctx_cli.__version__}
    me = cli("whoami", PYTHONPATH=None)
    assert me.returncode == 0, me.stderr
    assert me.json()["tenant"] == "acme" and me.json()["home_scope"] == "acme:main"


# --- Python 3.9 ------------------------------------------------------------------------------


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_it_needs_python_3_9_at_most_says_vermin() -> None:
    script = Path(sys.executable).with_name("vermin")
    if not script.exists():
        pytest.skip("vermin is not installed; the AST check below still runs")
    out = subprocess.run(
        [str(script), "--no-tips", "--eval-annotations", "-t=3.9-", "--violations", str(PACKAGE)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(CLIENT)))
def test_it_calls_nothing_newer_than_python_3_9(path: Path) -> None:
    tree = ast.parse(path.read_text())
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert [v for call in calls for v in _call_violations(call)] == []


def test_the_declared_python_is_3_9() -> None:
    text = (CLIENT / "pyproject.toml").read_text()
    assert 'requires-python = ">=3.9"' in text and 'target-version = "py39"' in text
