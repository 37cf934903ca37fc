"""Command handlers, one module per group. Each handler is `(args, app) -> exit code`."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from functools import cached_property
from typing import Any
from urllib.parse import quote, urlencode

from ctx_cli import CliError, UsageError, config
from ctx_cli.http import Client
from ctx_cli.output import Output

NO_KEY = "no API key configured: run `ctx init` or set CTX_KEY"


class App:
    """What a handler needs: output, configuration and an HTTP client, each made on demand."""

    def __init__(self, out: Output, environ: Mapping[str, str] = os.environ) -> None:
        self.out = out
        self.environ = environ

    @cached_property
    def config(self) -> config.Config:
        return config.load(self.environ)

    def client(self, *, auth: bool = True, timeout: float | None = None) -> Client:
        cfg = self.config
        if auth and not cfg.key:
            raise CliError(NO_KEY)
        if timeout is None:
            return Client(cfg.base_url, cfg.key if auth else None)
        return Client(cfg.base_url, cfg.key if auth else None, timeout=timeout)


Handler = Callable[[argparse.Namespace, App], int]


def local_sandbox(app: App, *, network: bool = False, allow_private: bool = False) -> Any:
    """The sandbox `ctx exec` and `ctx index add` run and fetch in, its figures kept for the
    session in CTX_SESSION_ID (else "cli")."""
    from ctx_cli.sandbox import stats  # lazy: the CLI starts in every hook; load on use
    from ctx_cli.sandbox.core import Sandbox

    cfg = app.config
    return Sandbox(
        base_url=cfg.base_url,
        key=cfg.key,
        session=app.environ.get(stats.SESSION_VARIABLE) or "cli",
        environ=app.environ,
        network=network,
        allow_private=allow_private,
    )


def split_list(values: Iterable[str] | None) -> list[str]:
    """`--tag a,b --tag c` → ["a", "b", "c"]."""
    items = (part.strip() for value in values or () for part in value.split(","))
    return list(dict.fromkeys(item for item in items if item))


def compact(body: dict[str, Any]) -> dict[str, Any]:
    """The body without unset options, so the server applies its own defaults."""
    return {k: v for k, v in body.items() if v is not None and v != [] and v is not False}


def stdin_text(*, required: bool, what: str) -> str | None:
    """Text piped on stdin; None on a terminal unless `required` (then a usage error)."""
    if sys.stdin is None or sys.stdin.isatty():
        if required:
            raise UsageError(f"{what}: give it as an argument or pipe it on stdin")
        return None
    return sys.stdin.read()


def with_query(path: str, params: dict[str, Any]) -> str:
    """`path?a=1&b=2` without the unset parameters; lists become the server's `a,b` form."""
    flat = {k: ",".join(v) if isinstance(v, list) else v for k, v in compact(params).items()}
    return f"{path}?{urlencode(flat, quote_via=quote)}" if flat else path
