"""The local operations behind `ctx exec` and the bridge's tools: one place for the rules.

`Sandbox` runs code (deny rules first, then `runner.run`), shrinks large output
(`shrink.shrink`), fetches and indexes URLs (`fetch`), and records bytes per session
(`stats`). Each method returns a JSON-ready payload; the interfaces only render it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ctx_cli import CliError
from ctx_cli.config import config_path
from ctx_cli.sandbox import fetch, netguard, policy, runner, shrink, stats

MAX_CODE = 1024 * 1024  # characters of code in one call
MAX_INPUT_FILE = 64 * 1024 * 1024  # bytes of a file given to execute_file
MAX_INDEX_FILE = 10 * 1024 * 1024  # the server's CTX_INDEX_MAX_BYTES


class ToolError(CliError):
    """A refused call: `code` is the error envelope's code (bad_request, not_found, …)."""


class Sandbox:
    def __init__(
        self,
        *,
        base_url: str,
        key: str | None,
        session: str,
        environ: Mapping[str, str] = os.environ,
        allow_private: bool = False,
        network: bool = False,
        hide: Sequence[Path] | None = None,
    ) -> None:
        self.base_url, self.key, self.session = base_url, key, session
        self.environ = environ
        self.allow_private, self.network = allow_private, network
        self.hide = list(hide) if hide is not None else config_dirs(environ)
        self._client: Any = None
        self.last_first_byte_ms: float | None = None  # of the last run (bench/execute.py)

    def client(self) -> Any:
        if self._client is None and self.key:
            from ctx_cli.http import Client  # lazy: only large output talks to the server

            self._client = Client(self.base_url, self.key, timeout=60.0)
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()

    # --- execution ---------------------------------------------------------------------

    def execute(
        self,
        code: str,
        language: str,
        *,
        timeout: float = 30.0,
        intent: str | None = None,
        input_file: Path | None = None,
    ) -> dict[str, Any]:
        """Run `code`; the payload says `status` (completed, denied, redirected), the
        (shrunk) `output`, `stderr`, `exit_code`, limits hit and `isolation`."""
        verdict = self.check(code, language)
        if verdict is not None:
            return _verdict(verdict)
        result = self.run(code, language, timeout=timeout, input_file=input_file)
        return self.present(result, intent)

    def _home(self) -> Path:
        return Path(self.environ.get("HOME") or os.path.expanduser("~"))

    def check(self, code: str, language: str) -> policy.Verdict | None:
        project, home = policy.project_dir(self.environ), self._home()
        files = policy.settings_files(project, home)
        return policy.check(
            code,
            _family(language),
            policy.load_rules(files),
            policy.load_path_rules(files, project, home),
            policy.Place(Path.cwd(), home),  # where `run` starts the program
        )

    def check_path(self, file: Path) -> None:
        """ToolError (forbidden) when a `Read(...)` deny rule covers the file."""
        project, home = policy.project_dir(self.environ), self._home()
        rules = policy.load_path_rules(policy.settings_files(project, home), project, home)
        rule = policy.path_denied(file, rules)
        if rule is not None:
            raise ToolError(
                f"path: blocked by the deny rule {rule.rule} in {rule.origin}", code="forbidden"
            )

    def run(
        self, code: str, language: str, *, timeout: float, input_file: Path | None = None
    ) -> dict[str, Any]:
        if os.name != "posix":
            raise ToolError("local execution needs a POSIX system (Linux, macOS)")
        if len(code) > MAX_CODE:
            raise ToolError(f"code: {len(code):,} characters, over {MAX_CODE:,}", code="too_large")
        try:
            result = runner.run(
                code,
                language,
                limits=runner.Limits(timeout=timeout),
                environ=self.environ,
                known_secrets=[self.key] if self.key else [],
                hide=self.hide,
                network=self.network,
                stdin_file=input_file,
                cwd=os.getcwd(),
            )
        except LookupError as exc:
            raise ToolError(f"language: {exc}", code="bad_request") from None
        self.last_first_byte_ms = result["first_byte_ms"]
        return result

    def present(self, result: dict[str, Any], intent: str | None) -> dict[str, Any]:
        shrunk = shrink.shrink(result["stdout"], intent, self.client())
        payload: dict[str, Any] = {
            "status": "completed",
            "language": result["language"],
            "exit_code": result["exit_code"],
            "signal": result["signal"],
            "timed_out": result["timed_out"],
            "output_capped": result["output_capped"],
            "output": shrunk.pop("output"),
            "stderr": shrink.head_tail(result["stderr"], 1024, 1024),
            "output_bytes": len(result["stdout"].encode()) + len(result["stderr"].encode()),
            **shrunk,
            "duration_ms": result["duration_ms"],
            "isolation": result["isolation"],
        }
        return payload

    def execute_file(
        self, path: str, code: str, language: str, *, timeout: float, intent: str | None
    ) -> dict[str, Any]:
        """Run `code` with the file on stdin and its copy's path in $INPUT_FILE."""
        file = _readable_file(path, MAX_INPUT_FILE)
        self.check_path(file)
        return self.execute(code, language, timeout=timeout, intent=intent, input_file=file)

    def batch(
        self, commands: Sequence[str], *, timeout: float, intent: str | None
    ) -> dict[str, Any]:
        """Run shell commands one after another; their outputs, each under a `# command`
        heading, are shrunk as one document (one index source for an intent)."""
        for command in commands:
            verdict = self.check(command, "shell")
            if verdict is not None:
                return _verdict(verdict)
        parts, rows, produced = [], [], 0
        for command in commands:
            result = self.run(command, "shell", timeout=timeout)
            text = result["stdout"] + result["stderr"]
            produced += len(text.encode())
            parts.append(f"# {command}\n\n{text.rstrip()}\n")
            rows.append(_row(command, result))
        shrunk = shrink.shrink("\n".join(parts), intent, self.client(), prefix="batch")
        return {
            "status": "completed",
            "commands": rows,
            "output": shrunk.pop("output"),
            "output_bytes": produced,
            **shrunk,
        }

    # --- fetching ------------------------------------------------------------------------

    def fetch_and_index(
        self, url: str, *, source: str | None = None, scope: str | None = None
    ) -> dict[str, Any]:
        try:
            final, body, kind = fetch.fetch(url, allow_private=self.allow_private)
        except netguard.BlockedURL as exc:
            raise ToolError(str(exc), code="forbidden") from None
        except fetch.FetchError as exc:
            raise ToolError(str(exc), code="bad_request") from None
        client = self.client()
        if client is None:
            raise ToolError("no API key configured: run `ctx init` or set CTX_KEY")
        label = (source or final)[:200]
        answer = client.post(
            "/api/index", _compact({"content": body, "source": label, "type": kind, "scope": scope})
        )
        src = answer["source"]
        return {
            "url": final,
            "fetched_bytes": len(body.encode()),
            "action": answer.get("action"),
            "source": {k: src.get(k) for k in ("label", "scope", "type", "bytes", "chunks")},
            "terms": (src.get("terms") or [])[: shrink.TERMS],
            "titles": (answer.get("titles") or [])[:20],
        }

    # --- stats ---------------------------------------------------------------------------

    def record(self, tool: str, produced: int, returned: int) -> None:
        # Figures are advisory: a read-only state directory must not fail the call.
        with contextlib.suppress(OSError):
            stats.record(
                self.session, tool, produced=produced, returned=returned, environ=self.environ
            )

    def session_stats(self) -> dict[str, Any]:
        return stats.summary(stats.read(self.session, self.environ))


def config_dirs(environ: Mapping[str, str]) -> list[Path]:
    """The CLI's config directory in use, and the default one if XDG_CONFIG_HOME moved it:
    both may hold a key."""
    home = environ.get("HOME") or os.path.expanduser("~")
    dirs = [config_path(environ).parent, Path(home) / ".config" / "ctx"]
    return list(dict.fromkeys(dirs))


def _family(language: str) -> str:
    from ctx_cli.sandbox.runtimes import canonical

    return canonical(language)


def _compact(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if v is not None}


def _verdict(verdict: policy.Verdict) -> dict[str, Any]:
    return {"status": verdict.status, **_compact(verdict._asdict())}


def _row(command: str, result: dict[str, Any]) -> dict[str, Any]:
    return {
        "command": command,
        "exit_code": result["exit_code"],
        "timed_out": result["timed_out"],
        "output_capped": result["output_capped"],
        "duration_ms": result["duration_ms"],
    }


def _readable_file(path: str, limit: int) -> Path:
    file = Path(os.path.expanduser(path))
    try:
        size = file.stat().st_size
    except OSError:
        raise ToolError(f"path: no such file: {path}", code="not_found") from None
    if not file.is_file():
        raise ToolError(f"path: not a file: {path}", code="bad_request")
    if size > limit:
        raise ToolError(f"path: {size:,} bytes, over the {limit:,}-byte limit", code="too_large")
    return file


def read_document(sandbox: Sandbox, path: str) -> str:
    """A local file to index, as text (≤ the server's index limit), unless a Read rule
    denies it."""
    file = _readable_file(path, MAX_INDEX_FILE)
    sandbox.check_path(file)
    return file.read_bytes().decode("utf-8", "replace")
