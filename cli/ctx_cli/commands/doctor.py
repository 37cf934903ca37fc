"""`ctx doctor`: what this machine's ctx set-up has and lacks, one line per check, so a new
user sees in one command why something does not work (docs/cli.md, "ctx doctor").

Checks: the config file, the server (`/health`), the key (`/api/whoami`), the server's
version against the client's, the runtimes `ctx exec` can use and the isolation it gets, the AI
tools' session logs `ctx sessions import` would read, and Claude Code's hooks. A check that
stops ctx from working (no server, a refused key) fails and the exit code is 1; what only limits
a feature (no logs yet, hooks not set) is a warning.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from ctx_cli import CliError, __version__
from ctx_cli.commands import App
from ctx_cli.output import table

OK, WARN, FAIL = "ok", "warn", "fail"
HOOK = "ctx brief"  # what docs/cli.md's SessionStart hook runs


def _row(check: str, status: str, detail: str) -> dict[str, str]:
    return {"check": check, "status": status, "detail": detail}


def _config(app: App) -> tuple[dict[str, str], Any]:
    try:
        cfg = app.config
    except CliError as exc:
        return _row("config", FAIL, exc.message), None
    env = [name for name in ("CTX_BASE_URL", "CTX_KEY") if app.environ.get(name)]
    where = f"{cfg.path}" if cfg.path.exists() else f"no file at {cfg.path} (`ctx init` writes it)"
    status = OK if cfg.path.exists() or "CTX_KEY" in env else WARN
    detail = f"{where}; server {cfg.base_url}" + (f"; {' and '.join(env)} set" if env else "")
    return _row("config", status, detail), cfg


def _server(app: App, cfg: Any) -> dict[str, str]:
    try:
        resp = app.client(auth=False, timeout=5.0).send("GET", "/health")
    except CliError as exc:
        return _row("server", FAIL, exc.message)
    data = resp.data if isinstance(resp.data, dict) else {}
    if resp.status == 200 and data.get("status") == "ok":
        return _row("server", OK, f"{cfg.base_url}: ok")
    down = ", ".join(data.get("degraded") or []) or f"HTTP {resp.status}"
    return _row("server", FAIL, f"{cfg.base_url}: {data.get('status') or 'not ok'} ({down})")


def _key(app: App, cfg: Any) -> dict[str, str]:
    if not cfg.key:
        return _row("key", FAIL, "no API key: run `ctx init` or set CTX_KEY")
    from ctx_cli.commands.setup import describe

    try:
        return _row("key", OK, describe(app.client(timeout=5.0).get("/api/whoami")))
    except CliError as exc:
        return _row("key", FAIL, exc.message)


def _version(app: App) -> dict[str, str]:
    from ctx_cli.commands.setup import server_version

    server, why = server_version(app)
    if server is None:
        return _row("version", WARN, f"client {__version__}; server unknown: {why}")
    same = server.split("+")[0] == __version__.split("+")[0]
    detail = f"client {__version__}, server {server}"
    return _row("version", OK if same else WARN, detail + ("" if same else " (they differ)"))


def _runtimes(app: App) -> dict[str, str]:
    from ctx_cli.sandbox import runner
    from ctx_cli.sandbox import runtimes as found

    languages = [rt.language for rt in found.available(runner.child_path(app.environ))]
    isolation = runner.probe_isolation()
    shown = {True: "yes", False: "no"}
    walls = ", ".join(f"{k} {shown.get(v, v)}" for k, v in isolation.items())
    return _row("exec", OK if languages else WARN, f"{', '.join(languages) or 'none'}; {walls}")


def _logs(app: App) -> dict[str, str]:
    from ctx_cli.session_upload import platform_name
    from ctx_cli.sessions import parsers

    home = Path(app.environ.get("HOME") or os.path.expanduser("~"))
    found = parsers.locate_all(home, platform_name(), app.environ)
    counts = [f"{tool} {len(paths)}" for tool, paths in found.items() if paths]
    if not counts:
        return _row("session logs", WARN, f"none of {', '.join(found)} has written logs here")
    return _row("session logs", OK, "files: " + ", ".join(counts) + " (`ctx sessions import`)")


def _hooks(app: App) -> dict[str, str]:
    home = Path(app.environ.get("HOME") or os.path.expanduser("~"))
    folder = app.environ.get("CLAUDE_CONFIG_DIR")
    settings = (Path(folder) if folder else home / ".claude") / "settings.json"
    try:
        text = settings.read_text(encoding="utf-8")
        json.loads(text)
    except FileNotFoundError:
        return _row("hooks", WARN, f"no {settings}: Claude Code hooks not set (docs/cli.md)")
    except (OSError, ValueError) as exc:
        return _row("hooks", WARN, f"{settings} unreadable: {exc}")
    if HOOK not in text:
        return _row("hooks", WARN, f"{settings} runs no `{HOOK}` (docs/cli.md, hooks)")
    return _row("hooks", OK, f"{settings} briefs sessions from ctx")


def doctor(args: argparse.Namespace, app: App) -> int:
    first, cfg = _config(app)
    rows = [first]
    if cfg is not None:
        server = _server(app, cfg)
        key = _key(app, cfg) if server["status"] == OK else _row("key", WARN, "not checked")
        rows += [server, key, _version(app)]
    rows += [_runtimes(app), _logs(app), _hooks(app)]
    failed = [r["check"] for r in rows if r["status"] == FAIL]
    payload = {"ok": not failed, "checks": rows}

    def render(console: Any, data: dict[str, Any]) -> None:
        table(
            console, ["check", "", "detail"], [(r["check"], r["status"], r["detail"]) for r in rows]
        )

    app.out.emit(payload, render)
    if failed:
        raise CliError(f"ctx doctor: {', '.join(failed)} failed")
    return 0
