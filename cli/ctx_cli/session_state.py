"""Where `ctx sessions import` remembers how far it read each file: one JSON file per server
and tenant in the user's state directory (`$XDG_STATE_HOME/ctx/sessions/`, default
`~/.local/state/ctx/sessions/`), never inside the folders it scans.

Each file's entry holds the parser's cursor (ctx_cli.sessions.model.Cursor) and is written
only after the server confirmed every batch carrying that file's messages, so an interrupted
or failed run reads the same messages again next time (the server recognises them by hash).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctx_cli import CliError
from ctx_cli.config import state_home
from ctx_cli.sessions.model import Cursor

VERSION = 1


def state_dir(environ: Mapping[str, str] = os.environ) -> Path:
    return state_home(environ) / "sessions"


def state_path(base_url: str, tenant: str, environ: Mapping[str, str] = os.environ) -> Path:
    digest = hashlib.sha256(f"{base_url.rstrip('/')}\n{tenant}".encode()).hexdigest()[:16]
    return state_dir(environ) / f"{digest}.json"


class State:
    """The cursors of one server and tenant, by absolute file path."""

    def __init__(self, path: Path, base_url: str, tenant: str) -> None:
        self.path = path
        self.base_url = base_url
        self.tenant = tenant
        self.files: dict[str, dict[str, Any]] = {}

    @classmethod
    def load(cls, base_url: str, tenant: str, environ: Mapping[str, str] = os.environ) -> State:
        state = cls(state_path(base_url, tenant, environ), base_url, tenant)
        try:
            data = json.loads(state.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return state
        except (OSError, ValueError) as exc:
            raise CliError(f"cannot read the import state {state.path}: {exc}") from None
        if isinstance(data, dict) and data.get("version") == VERSION:
            state.files = dict(data.get("files") or {})
        return state

    def cursor(self, file: Path, tool: str) -> Cursor | None:
        entry = self.files.get(str(file))
        if not entry or entry.get("tool") != tool:
            return None
        return Cursor.from_dict(entry.get("cursor"))

    def remember(self, file: Path, tool: str, cursor: Cursor) -> None:
        self.files[str(file)] = {"tool": tool, "cursor": cursor.to_dict()}

    def save(self) -> None:
        """Atomically, mode 0600 (paths of the user's projects are in it)."""
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        body = {
            "version": VERSION,
            "server": self.base_url,
            "tenant": self.tenant,
            "files": self.files,
        }
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(body, fh)
        os.replace(tmp, self.path)
