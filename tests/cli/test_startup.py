"""The client stays a client: no server code, and the fast paths skip httpx and rich."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from ctx_cli.main import GROUPS, build_parser
from tests.cli.conftest import free_port

SERVER_PACKAGES = ("django", "rest_framework", "torch", "celery", "psycopg", "retrieval", "dream")

IMPORT_EVERYTHING = """
import importlib, json, pkgutil, sys
import ctx_cli.commands
from ctx_cli.main import build_parser
build_parser()
for mod in ("ctx_cli.ingest", "ctx_cli.hooks", "ctx_cli.http", "ctx_cli.output"):
    importlib.import_module(mod)
for info in pkgutil.iter_modules(ctx_cli.commands.__path__):
    importlib.import_module(f"ctx_cli.commands.{info.name}")
import httpx, rich.console  # what the commands load on use
print(json.dumps(sorted(sys.modules)))
"""


RUN_THEN_LIST = """
import contextlib, io, json, sys
from ctx_cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _imported_by(*args: str, **extra_env: str) -> set[str]:
    """The modules loaded by running `ctx *args` in a fresh interpreter."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")},
        "CTX_BASE_URL": f"http://127.0.0.1:{free_port()}",
        "CTX_KEY": "k",
        "XDG_CONFIG_HOME": "/nonexistent/ctx-test",
        **extra_env,
    }
    proc = subprocess.run(
        [sys.executable, "-c", RUN_THEN_LIST, *args],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    result = json.loads(proc.stdout.splitlines()[-1])
    return set(result["modules"])


def test_it_imports_no_server_code() -> None:
    out = subprocess.run(
        [sys.executable, "-c", IMPORT_EVERYTHING], capture_output=True, text=True, check=True
    ).stdout
    modules = json.loads(out)
    assert "ctx_cli.commands.blocks" in modules  # the probe really imported the commands
    server = [m for m in modules if m.split(".")[0] in SERVER_PACKAGES]
    assert server == []
    assert not [m for m in modules if m.split(".")[0] == "ctx"]  # not even the server's root


HEAVY = ("httpx", "rich", "httpcore")
# http.client, the email package it parses headers with, and ssl, which it imports for HTTPS
HTTP_CLIENT = ("http", "email", "ssl", "_ssl")


def _heavy(modules: set[str], heavy: tuple[str, ...] = HEAVY) -> set[str]:
    return {m for m in modules if m.split(".")[0] in heavy}


def test_it_runs_version_without_httpx_or_rich() -> None:
    imported = _imported_by("version", "--client")
    assert "ctx_cli.commands.setup" in imported  # the probe saw the command run
    assert _heavy(imported, HEAVY + HTTP_CLIENT) == set()
    assert "ctx_cli.wire" not in imported  # no request, no HTTP client


def test_it_sends_a_request_without_httpx_or_rich() -> None:
    imported = _imported_by("--json", "health")
    assert "ctx_cli.wire" in imported and "http.client" in imported  # the request was made
    assert _heavy(imported) == set()


def test_it_uses_httpx_when_a_proxy_is_configured() -> None:
    proxy = f"http://127.0.0.1:{free_port()}"
    assert "httpx" in _imported_by("--json", "health", HTTPS_PROXY=proxy)


def _registered(parser: argparse.ArgumentParser) -> set[str]:
    (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return set(sub.choices)


def test_it_builds_only_the_parser_of_the_command_that_runs() -> None:
    everything = _registered(build_parser())
    assert everything == {name for _, names in GROUPS for name in names}  # the table is true
    assert _registered(build_parser(["--json", "query", "x"])) == {"search", "query", "api"}
    assert _registered(build_parser(["--help"])) == everything
    assert _registered(build_parser(["nonsense"])) == everything  # argparse lists the choices
