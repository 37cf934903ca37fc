"""`ctx init`, `ctx health`, `ctx version`, `ctx whoami`."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ctx_cli import CliError, UsageError, __version__, config
from ctx_cli.commands import App
from ctx_cli.http import Client
from ctx_cli.output import Output, fields

VERSION_TIMEOUT = 3.0  # `ctx version` answers quickly even when the server does not


def server_version(app: App) -> tuple[str | None, str | None]:
    """(version, None) from the server's MCP handshake (its serverInfo), or (None, why not).

    `ctx version` must work without configuration and offline, so nothing here is an error.
    """
    try:
        cfg = app.config
    except CliError as exc:
        return None, str(exc)
    if not cfg.key:
        return None, "no API key configured"
    # lazy: the CLI starts in every hook; load on use
    from ctx_cli.commands.mcp_stdio import server_info

    try:
        info = server_info(cfg.base_url, cfg.key, timeout=VERSION_TIMEOUT)
    except CliError as exc:
        return None, exc.message
    return str(info.get("version") or "") or None, None


def version(args: argparse.Namespace, app: App) -> int:
    if args.client:  # no configuration, no httpx import, no request
        if app.out.as_json:
            app.out.json({"client": __version__})
        else:
            app.out.text(f"ctx {__version__} (client)")
        return 0
    server, why = server_version(app)
    if app.out.as_json:
        app.out.json({"client": __version__, "server": server})
    elif server:
        app.out.text(f"ctx {__version__} (client), server {server}")
    else:
        app.out.text(f"ctx {__version__} (client), server unknown: {why}")
    return 0


def health(args: argparse.Namespace, app: App) -> int:
    """The server's state and each dependency's (database, Redis, embedder, LLM); exit 1
    unless all is well, naming what is down."""
    client = app.client(auth=False, timeout=10.0)
    resp = client.send("GET", "/health")
    data = resp.data if isinstance(resp.data, dict) else {}
    status = data.get("status")
    payload: dict[str, Any] = {
        "base_url": client.base_url,
        "status": status or f"HTTP {resp.status}",
    }
    if isinstance(data.get("checks"), dict):
        payload["checks"] = data["checks"]
    app.out.emit(payload, _render_health)
    if resp.status != 200 or status != "ok":
        down = ", ".join(data.get("degraded") or []) or payload["status"]
        raise CliError(f"ctx at {client.base_url} is {payload['status']} (down: {down})")
    return 0


def _render_health(console: Any, payload: dict[str, Any]) -> None:
    console.print(f"ctx at {payload['base_url']}: [bold]{payload['status']}[/]")
    for name, state in (payload.get("checks") or {}).items():
        console.print(f"  {name:<9} {state.replace('_', ' ')}")


def describe(me: dict[str, Any]) -> str:
    key = me.get("key") or {}
    return (
        f"key {key.get('name')!r} ({key.get('prefix')}…) of tenant {me.get('tenant')}, "
        f"role {me.get('role')}, home scope {me.get('home_scope')}"
    )


def _render_whoami(console: Any, payload: dict[str, Any]) -> None:
    key = payload.get("key") or {}
    fields(
        console,
        [
            ("key", f"{key.get('name')} ({key.get('prefix')}…)"),
            ("tenant", payload.get("tenant")),
            ("role", payload.get("role")),
            ("home scope", payload.get("home_scope")),
            ("reads", payload.get("read_scopes")),
            ("writes", payload.get("write_scopes")),
            ("admin", "yes" if payload.get("is_admin") else "no"),
        ],
        title="whoami",
    )


def whoami(args: argparse.Namespace, app: App) -> int:
    app.out.emit(app.client().get("/api/whoami"), _render_whoami)
    return 0


# --- init ---------------------------------------------------------------------------------


def _existing(path: Any) -> dict[str, str]:
    """The current file's values as defaults; a broken file is what init is there to replace."""
    try:
        return {name: value for name, (value, _) in config.read_file(path).items()}
    except config.ConfigError:
        return {}


def _prompt(label: str, default: str) -> str:
    sys.stderr.write(f"{label} [{default}]: " if default else f"{label}: ")
    sys.stderr.flush()
    return sys.stdin.readline().strip() or default


def _ask_key(current: str) -> str:
    import getpass  # lazy: the CLI starts in every hook; load on use

    hint = " (hidden; Enter keeps the current one)" if current else " (hidden)"
    return getpass.getpass(f"API key{hint}: ").strip() or current


def _settings(args: argparse.Namespace, app: App) -> tuple[str, str]:
    known = {**_existing(config.config_path(app.environ))}
    known.update({n: app.environ[n] for n in config.SETTINGS if app.environ.get(n)})
    interactive = sys.stdin is not None and sys.stdin.isatty()
    url = args.url or known.get("CTX_BASE_URL", "")
    if not args.url and interactive:
        url = _prompt("Server URL", url or config.DEFAULT_BASE_URL)
    key = args.key or known.get("CTX_KEY", "")
    if not args.key and interactive:
        key = _ask_key(key)
    if not key:
        raise UsageError("no API key: pass --key, set CTX_KEY, or run `ctx init` in a terminal")
    return config.check_url(url or config.DEFAULT_BASE_URL, "--url"), key


def _check(url: str, key: str) -> dict[str, Any]:
    # The values just written, not the environment's: init verifies what it saved.
    client = Client(url, key, timeout=10.0)
    resp = client.send("GET", "/health")
    status = resp.data.get("status") if isinstance(resp.data, dict) else None
    if status != "ok":
        raise CliError(f"ctx at {url} is not healthy ({status or f'HTTP {resp.status}'})")
    return client.get("/api/whoami")


def init(args: argparse.Namespace, app: App) -> int:
    url, key = _settings(args, app)
    path = config.config_path(app.environ)
    config.write(path, base_url=url, key=key)
    payload: dict[str, Any] = {"config": str(path), "base_url": url, "checked": False}
    if not args.no_check:
        try:
            payload.update(checked=True, whoami=_check(url, key))
        except CliError as exc:
            exc.message = f"saved {path}, but {exc.message}"
            raise
    _report_init(app.out, payload)
    return 0


def _report_init(out: Output, payload: dict[str, Any]) -> None:
    if out.as_json:
        out.json(payload)
        return
    out.text(f"saved {payload['config']} (mode 0600)")
    if payload.get("whoami"):
        out.text(f"connected to {payload['base_url']} as {describe(payload['whoami'])}")
