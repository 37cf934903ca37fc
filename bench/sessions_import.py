"""Conversation import end to end, against private servers started for the run.

1. Parse + upload: a generated Claude Code history (bench/sessions_parse.py's generator, 10,000
   messages in sessions of 200) read by the CLI's pipeline (ctx_cli.session_upload: the parsers,
   batches, four jobs in flight) and imported by the server until every job is done. Embedding
   is excluded: this server runs with CTX_EMBED_TRUST=public, so no window is embedded.
2. Re-import of the unchanged history with the saved cursors; and once more without them
   (`--full`: every message uploaded again, the server finds each unchanged by its hash).
3. The same history on a server that embeds: from the first byte read until every window is
   embedded and a question about a late session finds its window (semantic arm); the server
   runs `--workers` worker processes (default 2, as `ctx` starts them).
4. recent_sessions and session_detail with 10,000 sessions: p50/p95 of the MCP tools through a
   real MCP client (one session kept open; client wall time and the server's own time from its
   log are not separated: the client time is reported), and of the HTTP endpoints.

    python bench/sessions_import.py [--messages 10000] [--sessions 10000] [--workers 2] [--out FILE]

Prints JSON, then a one-line summary with the machine and the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "cli")]

import httpx  # noqa: E402

from bench.common import emit, machine, percentile, private_server  # noqa: E402
from bench.sessions_parse import claude_history  # noqa: E402
from ctx_cli import session_upload as up  # noqa: E402
from ctx_cli.http import Client  # noqa: E402
from ctx_cli.session_state import State  # noqa: E402

NO_EMBEDDING = {"CTX_EMBED_TRUST": "public", "CTX_DREAM_INITIAL_MODE": "off"}


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def import_history(
    url: str, key: str, home: Path, state_dir: Path, *, full: bool = False
) -> tuple[float, dict[str, Any]]:
    """One CLI import run over the history under `home`; seconds and the summary. `full`
    ignores the saved cursors (`--full`): every file read and uploaded again."""
    client = Client(url, key, timeout=300)
    env = {"XDG_STATE_HOME": str(state_dir)}
    state = State.load(url, up.tenant_of(client), env)
    options = up.Options(tools=["claude-code"], path=home, full=full)
    started = time.perf_counter()
    found, _ = up.targets(options, home, {})
    summary = up.run(client, state, options, found)
    return time.perf_counter() - started, summary.as_dict()


def part_upload(messages: int, work: Path) -> dict[str, Any]:
    home = work / "home"
    claude_history(home, messages)
    with private_server(extra_env=NO_EMBEDDING, prefix="ctx-bench-sess-") as server:
        load = _load()
        first_s, first = import_history(server.url, server.key, home, work / "state")
        again_s, again = import_history(server.url, server.key, home, work / "state")
        full_s, full = import_history(server.url, server.key, home, work / "state", full=True)
    new = first["tools"]["claude-code"]["messages"].get("new", 0)
    return {
        "messages": new,
        "files": first["tools"]["claude-code"]["files"],
        "first_import_s": round(first_s, 2),
        "messages_per_s": round(new / first_s),
        "reimport_unchanged_s": round(again_s, 3),
        "reimport_messages": again["tools"]["claude-code"]["messages"],
        # Without the cursors: every message read, uploaded and found unchanged by its hash.
        "reupload_unchanged_s": round(full_s, 2),
        "reupload_messages": full["tools"]["claude-code"]["messages"],
        "failed": first["failed"] + again["failed"] + full["failed"],
        "load_before": load,
        "load_after": _load(),
    }


def _found(url: str, key: str) -> bool:
    """A question only the last session's windows answer, by meaning (different words)."""
    body = {"query": "which shell command searched the source tree", "limit": 5}
    sources = httpx.post(
        f"{url}/api/query", json=body, headers={"X-Context-Key": key}, timeout=60
    ).json()["sources"]
    return bool(sources) and sources[0]["type"] == "transcript"


def part_searchable(messages: int, work: Path, workers: int) -> dict[str, Any]:
    home = work / "home-embed"
    claude_history(home, messages)
    with private_server(workers=workers, prefix="ctx-bench-sess-embed-") as server:
        load = _load()
        started = time.perf_counter()
        import_s, summary = import_history(server.url, server.key, home, work / "state-embed")
        headers = {"X-Context-Key": server.key}
        while True:
            stats = httpx.post(
                f"{server.url}/api/manage", json={"action": "stats"}, headers=headers, timeout=60
            ).json()["stats"]
            if stats["awaiting_embedding"] == 0:
                break
            time.sleep(1)
        embedded_s = time.perf_counter() - started
        found = _found(server.url, server.key)
        total_s = time.perf_counter() - started
    return {
        "messages": summary["tools"]["claude-code"]["messages"].get("new", 0),
        "windows": stats["blocks"],
        "import_s": round(import_s, 1),
        "embedded_s": round(embedded_s, 1),
        "searchable_s": round(total_s, 1),
        "found_by_meaning": found,
        "workers": workers,
        "load_before": load,
        "load_after": _load(),
    }


# --- recent_sessions / session_detail with many sessions ------------------------------------------


def _seed_sessions(url: str, key: str, count: int) -> list[int]:
    rng = random.Random(5)
    headers = {"X-Context-Key": key}
    tools = ("claude-code", "codex", "gemini", "cursor", "copilot")
    for start in range(0, count, 500):
        sessions = [
            {
                "tool": tools[i % len(tools)],
                "external_id": f"s-{i}",
                "project_root": f"/home/dev/p{i % 40}",
                "messages": [
                    {
                        "index": j,
                        "role": "user" if j % 2 == 0 else "assistant",
                        "text": f"step {j} of task {i}: "
                        + " ".join(rng.choice("abcdefgh") for _ in range(30)),
                        "timestamp": f"2026-0{1 + i % 9}-{1 + i % 28:02d}T{j % 24:02d}:00:00Z",
                    }
                    for j in range(4)
                ],
            }
            for i in range(start, min(count, start + 500))
        ]
        job = httpx.post(
            f"{url}/api/sessions/import", json={"sessions": sessions}, headers=headers, timeout=300
        ).json()["job"]
        while job["status"] not in ("done", "failed"):
            time.sleep(0.5)
            job = httpx.get(f"{url}/api/jobs/{job['id']}", headers=headers, timeout=60).json()[
                "job"
            ]
    listed = httpx.get(f"{url}/api/sessions?limit=100", headers=headers, timeout=60).json()
    return [s["id"] for s in listed["sessions"]]


async def _mcp_latency(url: str, key: str, ids: list[int], rounds: int) -> dict[str, Any]:
    import httpx2
    from mcp import Client as McpClient
    from mcp.client.streamable_http import streamable_http_client

    timings: dict[str, list[float]] = {"recent_sessions": [], "session_detail": []}
    headers = {"Authorization": f"Bearer {key}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        McpClient(streamable_http_client(f"{url}/mcp", http_client=http)) as client,
    ):
        for i in range(rounds):
            for name, args in (
                ("recent_sessions", {"limit": 10, **({"project": "p7"} if i % 2 else {})}),
                ("session_detail", {"id": ids[i % len(ids)], "latest": True, "limit": 20}),
            ):
                started = time.perf_counter()
                result = await client.call_tool(name, args)
                timings[name].append((time.perf_counter() - started) * 1000)
                assert not result.is_error, result
    return {n: _pcts(v) for n, v in timings.items()}


def _http_latency(url: str, key: str, ids: list[int], rounds: int) -> dict[str, Any]:
    timings: dict[str, list[float]] = {"GET /api/sessions": [], "GET /api/sessions/{id}": []}
    with httpx.Client(base_url=url, headers={"X-Context-Key": key}, timeout=60) as http:
        for i in range(rounds):
            for name, path in (
                ("GET /api/sessions", "/api/sessions?limit=10"),
                (
                    "GET /api/sessions/{id}",
                    f"/api/sessions/{ids[i % len(ids)]}?latest=true&limit=20",
                ),
            ):
                started = time.perf_counter()
                assert http.get(path).status_code == 200
                timings[name].append((time.perf_counter() - started) * 1000)
    return {n: _pcts(v) for n, v in timings.items()}


def _pcts(values: list[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50": round(percentile(values, 50), 2),
        "p95": round(percentile(values, 95), 2),
    }


def part_latency(count: int, rounds: int) -> dict[str, Any]:
    with private_server(extra_env=NO_EMBEDDING, prefix="ctx-bench-sess-lat-") as server:
        started = time.perf_counter()
        ids = _seed_sessions(server.url, server.key, count)
        seed_s = time.perf_counter() - started
        load = _load()
        mcp = asyncio.run(_mcp_latency(server.url, server.key, ids, rounds))
        http = _http_latency(server.url, server.key, ids, rounds)
    return {
        "sessions": count,
        "seed_s": round(seed_s, 1),
        "mcp_client_ms": mcp,
        "http_client_ms": http,
        "load_before": load,
        "load_after": _load(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--skip", default="", help="parts to skip: upload,searchable,latency")
    # The searchable part runs the worker processes `ctx` starts by default (CTX_WORKERS=2):
    # one model process per core. Up to session 45 it ran one, whose two threads embedded 74
    # texts/s here against 2 x 117 for two single-thread processes (docs/benchmarks.md).
    parser.add_argument("--workers", type=int, default=2, help="worker processes (searchable)")
    parser.add_argument("--out")
    args = parser.parse_args()
    skip = set(args.skip.split(","))
    result: dict[str, Any] = {"benchmark": "sessions_import", "load_start": _load()}
    with tempfile.TemporaryDirectory(prefix="ctx-bench-sessions-") as tmp:
        work = Path(tmp)
        if "upload" not in skip:
            result["upload"] = part_upload(args.messages, work)
        if "searchable" not in skip:
            result["searchable"] = part_searchable(args.messages, work, args.workers)
    if "latency" not in skip:
        result["latency"] = part_latency(args.sessions, args.rounds)
    result["load_end"] = _load()
    emit(result, _summary(result), args.out)
    return 0


def _summary(r: dict[str, Any]) -> str:
    parts = []
    if "upload" in r:
        u = r["upload"]
        parts.append(
            f"parse+upload {u['messages_per_s']} msgs/s ({u['messages']} in "
            f"{u['first_import_s']} s), re-import unchanged {u['reimport_unchanged_s']} s "
            f"(re-upload without cursors {u['reupload_unchanged_s']} s)"
        )
    if "searchable" in r:
        s = r["searchable"]
        parts.append(f"imported+embedded+searchable {s['searchable_s']} s ({s['windows']} windows)")
    if "latency" in r:
        m = r["latency"]["mcp_client_ms"]
        parts.append(
            f"MCP p95 recent_sessions {m['recent_sessions']['p95']} ms, session_detail "
            f"{m['session_detail']['p95']} ms at {r['latency']['sessions']} sessions"
        )
    cpu = machine()
    return " | ".join(parts) + f" | {cpu['cpu']} x{cpu['cpus']}, load {r['load_end'][0]}"


if __name__ == "__main__":
    sys.exit(main())
