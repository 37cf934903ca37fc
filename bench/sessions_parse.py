"""Throughput of the CLI's session-log parsers (parsing only: no upload, no server).

Generates, in a temporary directory:
- a Claude Code history of `--messages` messages (default 10,000) in sessions of 200, shaped
  like the real thing (streamed answers in two records, tool calls, tool results), and
- a ChatGPT export of about `--export-mb` MB (default 200), as a bare `conversations.json`.

Measures: parse throughput (messages/s) of the first read, the time of a re-read of the
unchanged history with the cursors the first read returned (and of the same after `touch`),
an incremental read after one appended line per file, and for the export its parse rate and
the peak RSS of a fresh process parsing it (against the same process's RSS before it started;
the same when each conversation is handed to a callback instead of collected (`on_session`,
how an uploader can stream), and with `--naive` of `json.load` of the same file).

Run from the repository root: `python bench/sessions_parse.py [--messages N] [--export-mb M]`.
Prints JSON, then a one-line summary as the last line.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "cli")]

from bench.common import emit  # noqa: E402
from ctx_cli.sessions import parsers  # noqa: E402
from ctx_cli.sessions.model import Cursor  # noqa: E402
from ctx_cli.sessions.parsers import chatgpt  # noqa: E402

WORDS = [
    *("the", "cart", "total", "checkout", "discount", "tax", "test", "build", "cache", "index"),
    *("query", "session", "window", "function", "file", "error", "fix", "deploy", "branch"),
    *("commit", "review", "api", "server", "client", "parser"),
]
SESSION_SIZE = 200


def words(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


# --- Claude Code history --------------------------------------------------------------------


def claude_history(root: Path, messages: int, seed: int = 7) -> list[Path]:
    """Session files holding `messages` messages in total (user, assistant, tool in turn)."""
    rng = random.Random(seed)
    paths = []
    for s in range(max(1, messages // SESSION_SIZE)):
        session = f"00000000-0000-4000-8000-{s:012d}"
        path = root / ".claude" / "projects" / f"-home-dev-p{s % 7}" / f"{session}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w") as f:
            for turn in range(SESSION_SIZE // 3 + 1):
                for record in _turn(rng, session, s, turn):
                    f.write(json.dumps(record) + "\n")
        paths.append(path)
    return paths


def _turn(rng: random.Random, session: str, s: int, turn: int) -> list[dict[str, Any]]:
    stamp = f"2026-03-01T{10 + turn // 60:02d}:{turn % 60:02d}:00.000Z"
    env = {
        "sessionId": session,
        "cwd": f"/home/dev/p{s % 7}",
        "gitBranch": "main",
        "version": "2.0.14",
        "timestamp": stamp,
        "isSidechain": False,
        "userType": "external",
    }
    u, a, t = f"u{turn}", f"a{turn}", f"t{turn}"
    answer = {"id": f"msg_{s}_{turn}", "type": "message", "role": "assistant", "model": "claude-x"}
    tool = {
        "type": "tool_use",
        "id": f"toolu_{s}_{turn}",
        "name": "Bash",
        "input": {"command": f"rg {rng.choice(WORDS)} src"},
    }
    result = {"type": "tool_result", "tool_use_id": tool["id"], "content": words(rng, 20, 300)}
    return [
        {
            **env,
            "type": "user",
            "uuid": u,
            "message": {"role": "user", "content": words(rng, 5, 80)},
        },
        {
            **env,
            "type": "assistant",
            "uuid": a,
            "requestId": f"r{turn}",
            "message": {**answer, "content": [{"type": "text", "text": words(rng, 20, 400)}]},
        },
        {
            **env,
            "type": "assistant",
            "uuid": a + "b",
            "requestId": f"r{turn}",
            "message": {**answer, "content": [tool]},
        },
        {
            **env,
            "type": "user",
            "uuid": t,
            "message": {"role": "user", "content": [result]},
            "toolUseResult": {"stdout": result["content"], "stderr": "", "interrupted": False},
        },
    ]


def read_all(paths: list[Path], cursors: dict[Path, Cursor]) -> tuple[int, float]:
    start = time.perf_counter()
    total = 0
    for path in paths:
        result = parsers.read_as("claude-code", path, cursors.get(path))
        assert not result.problems, result.problems
        cursors[path] = result.cursor
        total += result.message_count
    return total, time.perf_counter() - start


def bench_claude(root: Path, messages: int) -> dict[str, Any]:
    paths = claude_history(root, messages)
    size = sum(p.stat().st_size for p in paths)
    cursors: dict[Path, Cursor] = {}
    count, first = read_all(paths, cursors)
    _, unchanged = read_all(paths, cursors)
    for path in paths:
        os.utime(path)
    _, touched = read_all(paths, cursors)
    for path in paths:
        with path.open("a") as f:
            f.write(json.dumps(_turn(random.Random(1), path.stem, 0, 999)[0]) + "\n")
    appended, incremental = read_all(paths, cursors)
    return {
        "files": len(paths),
        "bytes": size,
        "messages": count,
        "first_read_s": round(first, 3),
        "messages_per_s": round(count / first),
        "unchanged_reread_s": round(unchanged, 4),
        "touched_reread_s": round(touched, 4),
        "appended_messages": appended,
        "incremental_read_s": round(incremental, 4),
    }


# --- ChatGPT export -------------------------------------------------------------------------


def chatgpt_export(path: Path, megabytes: int, seed: int = 11) -> int:
    """A `conversations.json` of about `megabytes` MB; returns the number of conversations."""
    rng = random.Random(seed)
    target = megabytes * 1_000_000
    n = 0
    with path.open("w") as f:
        f.write("[")
        while f.tell() < target:
            f.write(("," if n else "") + json.dumps(_conversation(rng, n)))
            n += 1
        f.write("]")
    return n


def _conversation(rng: random.Random, n: int) -> dict[str, Any]:
    mapping: dict[str, Any] = {
        "root": {"id": "root", "message": None, "parent": None, "children": []}
    }
    parent, t = "root", 1_700_000_000.0 + n * 3600
    for i in range(rng.randint(4, 40)):
        node = f"n{n}-{i}"
        role = "user" if i % 2 == 0 else "assistant"
        text = words(rng, 10, 60) if role == "user" else words(rng, 60, 500)
        mapping[node] = {
            "id": node,
            "parent": parent,
            "children": [],
            "message": {
                "id": node,
                "author": {"role": role, "name": None, "metadata": {}},
                "create_time": t + i,
                "update_time": None,
                "content": {"content_type": "text", "parts": [text]},
                "status": "finished_successfully",
                "end_turn": role == "assistant",
                "weight": 1.0,
                "metadata": {"model_slug": "gpt-x"} if role == "assistant" else {},
                "recipient": "all",
            },
        }
        mapping[parent]["children"].append(node)
        parent = node
    return {
        "id": f"conv-{n}",
        "conversation_id": f"conv-{n}",
        "title": words(rng, 2, 6),
        "create_time": t,
        "update_time": t + 60,
        "mapping": mapping,
        "current_node": parent,
        "moderation_results": [],
        "default_model_slug": "gpt-x",
    }


def child(mode: str, path: str) -> None:
    """Runs in a fresh process: parse (or json.load) the export, report time and peak RSS."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    if mode == "naive":
        with open(path, "rb") as f:
            data = json.load(f)
        count, cursor_time, cursor_bytes = len(data), 0.0, 0
    elif mode == "stream":
        counted: list[int] = []
        result = chatgpt.read(Path(path), None, lambda s: counted.append(len(s.messages)))
        assert not result.problems, result.problems
        count, cursor_time, cursor_bytes = sum(counted), 0.0, 0
    else:
        result = parsers.read_as("chatgpt", Path(path))
        assert not result.problems, result.problems
        count = result.message_count
        again = time.perf_counter()
        assert parsers.read_as("chatgpt", Path(path), result.cursor).message_count == 0
        cursor_time = time.perf_counter() - again
        cursor_bytes = len(json.dumps(result.cursor.to_dict()))
    elapsed = time.perf_counter() - start - cursor_time
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {
                "messages": count,
                "seconds": elapsed,
                "rss_before_kb": before,
                "rss_peak_kb": peak,
                "unchanged_reread_s": cursor_time,
                "cursor_bytes": cursor_bytes,
            }
        )
    )


def run_child(mode: str, path: Path) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", mode, str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    data: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return data


def bench_export(root: Path, megabytes: int, naive: bool) -> dict[str, Any]:
    path = root / "conversations.json"
    conversations = chatgpt_export(path, megabytes)
    parsed = run_child("parse", path)
    result: dict[str, Any] = {
        "bytes": path.stat().st_size,
        "conversations": conversations,
        "messages": parsed["messages"],
        "parse_s": round(parsed["seconds"], 2),
        "messages_per_s": round(parsed["messages"] / parsed["seconds"]),
        "peak_rss_mb": round(parsed["rss_peak_kb"] / 1024, 1),
        "peak_rss_over_start_mb": round(
            (parsed["rss_peak_kb"] - parsed["rss_before_kb"]) / 1024, 1
        ),
        "unchanged_reread_s": round(parsed["unchanged_reread_s"], 4),
        "cursor_kb": round(parsed["cursor_bytes"] / 1024, 1),
    }
    streamed = run_child("stream", path)
    result["streamed_peak_rss_over_start_mb"] = round(
        (streamed["rss_peak_kb"] - streamed["rss_before_kb"]) / 1024, 1
    )
    if naive:
        loaded = run_child("naive", path)
        result["naive_json_load_peak_rss_over_start_mb"] = round(
            (loaded["rss_peak_kb"] - loaded["rss_before_kb"]) / 1024, 1
        )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--export-mb", type=int, default=200)
    parser.add_argument("--naive", action="store_true", help="also measure json.load's peak")
    parser.add_argument("--out", help="also write the JSON here")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="ctx-bench-sessions-") as folder:
        claude = bench_claude(Path(folder), args.messages)
        export = bench_export(Path(folder), args.export_mb, args.naive)
    result = {
        "claude_code": claude,
        "chatgpt_export": export,
        "load_before": load_before,
        "load_after": os.getloadavg(),
    }
    summary = (
        f"sessions_parse: Claude Code {claude['messages']} msgs at {claude['messages_per_s']}/s, "
        f"unchanged re-read {claude['unchanged_reread_s'] * 1000:.0f} ms "
        f"(touched {claude['touched_reread_s'] * 1000:.0f} ms); "
        f"ChatGPT {export['bytes'] / 1e6:.0f} MB, {export['messages']} msgs at "
        f"{export['messages_per_s']}/s, peak RSS +{export['peak_rss_over_start_mb']} MB "
        f"(streamed +{export['streamed_peak_rss_over_start_mb']} MB)"
    )
    emit(result, summary, args.out)


if __name__ == "__main__":
    main()
