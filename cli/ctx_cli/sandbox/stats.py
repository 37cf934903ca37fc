"""Bytes produced by the local tools vs bytes returned into the context, per session.

One small JSON file per session in the client's state directory
(`$XDG_STATE_HOME/ctx/exec-stats/<session>.json`): the bridge process is one session
(`mcp-<pid>-<start>`) unless CTX_SESSION_ID names one; `ctx exec` records under
CTX_SESSION_ID, else `cli`. Formula (docs/cli.md): per tool, `saved = produced - returned`
and `savings = 1 - returned / produced` (0 when nothing was produced).
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctx_cli.config import state_home

SESSION_VARIABLE = "CTX_SESSION_ID"


def stats_dir(environ: Mapping[str, str] = os.environ) -> Path:
    return state_home(environ) / "exec-stats"


def _safe(session: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", session)[:100] or "session"


def session_path(session: str, environ: Mapping[str, str] = os.environ) -> Path:
    return stats_dir(environ) / f"{_safe(session)}.json"


def latest_session(environ: Mapping[str, str] = os.environ) -> str | None:
    """The session whose file changed last, or None."""
    files = list(stats_dir(environ).glob("*.json"))
    if not files:
        return None
    return max(files, key=lambda p: p.stat().st_mtime).stem


def read(session: str, environ: Mapping[str, str] = os.environ) -> dict[str, Any]:
    try:
        data = json.loads(session_path(session, environ).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = None
    return data if isinstance(data, dict) else {"session": session, "tools": {}}


def record(
    session: str,
    tool: str,
    *,
    produced: int,
    returned: int,
    environ: Mapping[str, str] = os.environ,
) -> None:
    """Add one call of `tool`. Written atomically; a lost update between two processes of
    the same session costs one call's figures, never the file."""
    data = read(session, environ)
    row = data.setdefault("tools", {}).setdefault(
        tool, {"calls": 0, "bytes_produced": 0, "bytes_returned": 0}
    )
    row["calls"] += 1
    row["bytes_produced"] += produced
    row["bytes_returned"] += returned
    data["session"] = session
    data.setdefault("started_at", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    data["updated_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    path = session_path(session, environ)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    os.replace(tmp, path)


def _figures(produced: int, returned: int) -> dict[str, Any]:
    savings = 1 - returned / produced if produced else 0.0
    return {
        "bytes_produced": produced,
        "bytes_returned": returned,
        "bytes_saved": produced - returned,
        "savings": round(savings, 4),
    }


def summary(data: Mapping[str, Any]) -> dict[str, Any]:
    """Per tool and in total: produced, returned, saved and the savings ratio."""
    tools = {
        name: {"calls": row["calls"], **_figures(row["bytes_produced"], row["bytes_returned"])}
        for name, row in sorted((data.get("tools") or {}).items())
    }
    total = _figures(
        sum(t["bytes_produced"] for t in tools.values()),
        sum(t["bytes_returned"] for t in tools.values()),
    )
    return {
        "session": data.get("session"),
        "started_at": data.get("started_at"),
        "updated_at": data.get("updated_at"),
        "tools": tools,
        "total": {"calls": sum(t["calls"] for t in tools.values()), **total},
        "formula": "saved = produced - returned; savings = 1 - returned / produced",
    }
