"""`ctx exec` (run code in the local sandbox), `ctx runtimes`, and `ctx stats --session`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ctx_cli import CliError, UsageError
from ctx_cli.commands import App, local_sandbox, stdin_text
from ctx_cli.output import fields, table

TIMED_OUT = 124  # what timeout(1) exits with


def _program(args: argparse.Namespace) -> tuple[str, str]:
    """The code and its language from the arguments, a script file or stdin."""
    from ctx_cli.sandbox import runtimes

    if args.file:
        if args.code:
            raise UsageError("give the program as CODE or --file, not both")
        path = Path(args.file)
        try:
            code = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CliError(f"cannot read {path}: {exc}") from None
        language = args.lang or runtimes.language_of(path.name)
        if language is None:
            raise UsageError(f"--lang: cannot tell the language of {path.name}")
        return code, language
    given = args.code if args.code not in (None, "-") else stdin_text(required=True, what="code")
    return str(given or ""), str(args.lang or "shell")


def execute(args: argparse.Namespace, app: App) -> int:
    from ctx_cli.sandbox.core import ToolError

    code, language = _program(args)
    sandbox = local_sandbox(app, network=args.network)
    try:
        if args.input:
            payload = sandbox.execute_file(
                args.input, code, language, timeout=args.timeout, intent=args.intent
            )
        else:
            payload = sandbox.execute(code, language, timeout=args.timeout, intent=args.intent)
    except ToolError as exc:
        raise CliError(exc.message, code=exc.code) from None
    finally:
        sandbox.close()
    _show(app, payload)
    printed = str(payload.get("output", "")) + str(payload.get("stderr", ""))
    returned = len(printed.encode())
    sandbox.record("exec", payload.get("output_bytes", 0), returned)
    return _exit_code(payload)


def _show(app: App, payload: dict[str, Any]) -> None:
    if app.out.as_json:
        app.out.json(payload)
        return
    if payload["status"] != "completed":
        return  # _exit_code says why on stderr
    sys.stdout.write(payload["output"] + ("" if payload["output"].endswith("\n") else "\n"))
    if payload.get("stderr"):
        sys.stderr.write(payload["stderr"])
    if payload.get("mode") == "indexed":
        terms = ", ".join(payload.get("terms") or [])
        app.out.warn(
            f"output indexed as {payload['source']}; more with "
            f"`ctx index search QUERY --source {payload['source']}`"
            + (f" ({terms})" if terms else "")
        )


def _exit_code(payload: dict[str, Any]) -> int:
    status = payload["status"]
    if status == "denied":
        sys.stderr.write(f"denied: {payload['command']}: {payload['message']}\n")
        return 1
    if status == "redirected":
        sys.stderr.write(f"not run: {payload['command']}: {payload['message']}\n")
        return 1
    if payload["timed_out"]:
        return TIMED_OUT
    code = int(payload["exit_code"])
    return code if 0 <= code < 256 else 128 - code  # killed by signal N: 128 + N


def runtimes(args: argparse.Namespace, app: App) -> int:
    """The languages `ctx exec` and `execute` can run here, and what the OS isolates."""
    from ctx_cli.sandbox import runner
    from ctx_cli.sandbox import runtimes as found

    path = runner.child_path(app.environ)
    rows = [{"language": rt.language, "program": rt.program} for rt in found.available(path)]
    isolation = runner.probe_isolation()
    payload = {"runtimes": rows, "isolation": isolation}

    def render(console: Any, data: dict[str, Any]) -> None:
        table(console, ["language", "program"], [(r["language"], r["program"]) for r in rows])
        fields(console, list(isolation.items()), title="isolation")

    app.out.emit(payload, render)
    return 0


def session_stats(args: argparse.Namespace, app: App) -> int:
    """`ctx stats --session [ID]`: bytes produced vs returned by the local tools."""
    from ctx_cli.sandbox import stats

    session = args.session or app.environ.get(stats.SESSION_VARIABLE)
    session = session or stats.latest_session(app.environ)
    if not session:
        raise CliError("no session figures yet: run `ctx exec` or the bridge's tools first")
    summary = stats.summary(stats.read(session, app.environ))

    def render(console: Any, data: dict[str, Any]) -> None:
        rows = [
            (name, t["calls"], f"{t['bytes_produced']:,}", f"{t['bytes_returned']:,}",
             f"{t['savings']:.1%}")
            for name, t in [*data["tools"].items(), ("total", data["total"])]
        ]  # fmt: skip
        title = f"session {data['session']}: {data['formula']}"
        table(console, ["tool", "calls", "produced", "returned", "savings"], rows, title=title)

    app.out.emit(summary, render)
    return 0
