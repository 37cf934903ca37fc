"""Preference profiles, the two latency targets of issue 24: a signal → its new profile version
visible through `ctx pull` (target ≤ 5 s with the deterministic interpreter), and
`GET /api/preferences/active` (target p95 ≤ 20 ms).

    python bench/profiles_latency.py [--signals 20] [--pulls 10] [--requests 500]
                                     [--url U --key K] [--out FILE]

The server is --url/--key, else a private one (`ctx.runtime.launcher run`: web, a Celery
worker and beat on embedded PostgreSQL and Redis, no LLM, CTX_PROFILES_INTERPRETER=rules), so
a signal goes the production way: committed, enqueued, processed by the worker.

0. One warm-up signal (it creates the `default` profile and is the worker's first task):
   its time is reported apart.
1. *signal → visible*: POST /api/signals, then GET /api/preferences/active every 25 ms until
   no signal is pending; the time is from the POST's start to that answer. Notes are the
   labelled development signals of bench/profiles/ (varied dimensions).
2. *signal → `ctx pull`*: POST, then run `ctx pull` (a new process each time, as a hook or a
   pipeline does) until its prompt shows a version above the one before; the time includes
   every pull's process start.
3. *GET /api/preferences/active*: sequential keep-alive requests after 20 warm-ups, JSON and
   text/plain, client wall time on the same machine; `GET /api/whoami` the same way as the
   baseline (the key check and the envelope without any profile work).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import ROOT, emit, percentile, server_from_args

ACTIVE = "/api/preferences/active"
VERSION = re.compile(r"\*Version (\d+) ·")
POLL = 0.025
TIMEOUT = 60.0


def notes(count: int) -> list[str]:
    """Development-split notes that should change a profile (no `none`, no facts)."""
    path = ROOT / "bench" / "profiles" / "signals_labelled.jsonl"
    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    usable = [
        i["note"]
        for i in items
        if i["split"] == "dev"
        and i["note"]
        and i["expected"]["dimension"] not in ("none",)
        and not i["expected"]["dimension"].startswith("fact:")
    ]
    return usable[:count]


def stats(values: list[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50": round(percentile(values, 50), 2),
        "p95": round(percentile(values, 95), 2),
        "max": round(max(values), 2) if values else float("nan"),
    }


def active(client: httpx.Client) -> dict[str, Any]:
    resp = client.get(ACTIVE)
    resp.raise_for_status()
    return dict(resp.json())


def signal(client: httpx.Client, note: str) -> None:
    resp = client.post("/api/signals", json={"type": "dislike", "note": note, "source": "bench"})
    resp.raise_for_status()


def to_visible(client: httpx.Client, note: str) -> tuple[float, bool]:
    """Seconds from the POST to an answer with nothing pending; whether the version moved."""
    before = active(client)["version"] if _has_profile(client) else 0
    started = time.perf_counter()
    signal(client, note)
    while time.perf_counter() - started < TIMEOUT:
        body = active(client)
        if body["pending"] == 0:
            return time.perf_counter() - started, body["version"] > before
        time.sleep(POLL)
    raise RuntimeError(f"signal not applied within {TIMEOUT} s: {note!r}")


def _has_profile(client: httpx.Client) -> bool:
    return client.get(ACTIVE).status_code == 200


def pull_command() -> list[str]:
    """This checkout's CLI (`python -m ctx_cli.main` with cli/ first on the path)."""
    return [sys.executable, "-m", "ctx_cli.main", "pull"]


def pulled_version(env: dict[str, str]) -> tuple[int, float]:
    started = time.perf_counter()
    proc = subprocess.run(pull_command(), capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - started
    found = VERSION.search(proc.stdout)
    if proc.returncode != 0 or found is None:
        raise RuntimeError(f"ctx pull failed: {proc.returncode} {proc.stderr[-500:]}")
    return int(found.group(1)), wall


def to_pull(client: httpx.Client, env: dict[str, str], note: str) -> tuple[float, int, bool]:
    """Seconds from the POST until `ctx pull` shows a newer version, the pulls it took, and
    whether it did (a signal that changes nothing never shows: timed out at nothing pending)."""
    before = active(client)["version"]
    started = time.perf_counter()
    signal(client, note)
    pulls = 0
    while time.perf_counter() - started < TIMEOUT:
        version, _ = pulled_version(env)
        pulls += 1
        if version > before:
            return time.perf_counter() - started, pulls, True
        if active(client)["pending"] == 0 and active(client)["version"] == before:
            return time.perf_counter() - started, pulls, False
    raise RuntimeError(f"ctx pull did not show the signal within {TIMEOUT} s: {note!r}")


def requests_ms(client: httpx.Client, count: int, accept: str, path: str = ACTIVE) -> list[float]:
    headers = {"Accept": accept}
    for _ in range(20):
        client.get(path, headers=headers).raise_for_status()
    times = []
    for _ in range(count):
        started = time.perf_counter()
        client.get(path, headers=headers).raise_for_status()
        times.append((time.perf_counter() - started) * 1000)
    return times


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--signals", type=int, default=20)
    parser.add_argument("--pulls", type=int, default=10)
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--url", default=os.environ.get("CTX_BASE_URL"))
    parser.add_argument("--key", default=os.environ.get("CTX_KEY"))
    parser.add_argument("--out")
    return parser.parse_args()


def run(server: Any, args: argparse.Namespace) -> dict[str, Any]:
    headers = {"X-Context-Key": server.key}
    env = {**os.environ, "CTX_BASE_URL": server.url, "CTX_KEY": server.key}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "cli"), env.get("PYTHONPATH", "")])
    texts = notes(args.signals + args.pulls + 1)
    result: dict[str, Any] = {"server": server.url, "load_avg_start": os.getloadavg()}
    with httpx.Client(base_url=server.url, headers=headers, timeout=30) as client:
        # The first signal creates the profile and meets a cold worker: reported, not counted.
        result["first_signal_ms"] = round(to_visible(client, texts.pop())[0] * 1000, 1)
        visible = [to_visible(client, n) for n in texts[: args.signals]]
        moved = [s * 1000 for s, changed in visible if changed]
        result["signal_to_visible_ms"] = {**stats(moved), "unchanged": len(visible) - len(moved)}
        result["load_avg_after_visible"] = os.getloadavg()
        pulled = [to_pull(client, env, n) for n in texts[args.signals :]]
        shown = [s * 1000 for s, _, ok in pulled if ok]
        result["signal_to_ctx_pull_ms"] = {
            **stats(shown),
            "unchanged": len(pulled) - len(shown),
            "pulls_per_signal": [p for _, p, ok in pulled if ok],
        }
        result["ctx_pull_wall_ms"] = stats([pulled_version(env)[1] * 1000 for _ in range(10)])
        result["load_avg_after_pull"] = os.getloadavg()
        body = active(client)
        result["profile"] = {"version": body["version"], "prompt_chars": len(body["prompt"])}
        result["preferences_active_json_ms"] = stats(
            requests_ms(client, args.requests, "application/json")
        )
        result["preferences_active_text_ms"] = stats(
            requests_ms(client, args.requests, "text/plain")
        )
        # The same key check and envelope without the profile: what the machine costs.
        result["baseline_whoami_ms"] = stats(
            requests_ms(client, args.requests, "application/json", "/api/whoami")
        )
    result["load_avg_end"] = os.getloadavg()
    return result


def summary_line(r: dict[str, Any]) -> str:
    vis, pull = r["signal_to_visible_ms"], r["signal_to_ctx_pull_ms"]
    js, tx = r["preferences_active_json_ms"], r["preferences_active_text_ms"]
    return (
        f"signal → visible p50 {vis['p50']:.0f} ms p95 {vis['p95']:.0f} ms (n={vis['n']}); "
        f"signal → ctx pull p50 {pull['p50']:.0f} ms p95 {pull['p95']:.0f} ms max "
        f"{pull['max']:.0f} ms (n={pull['n']}, target ≤ 5000); GET {ACTIVE} p95 "
        f"{js['p95']:.1f} ms JSON, {tx['p95']:.1f} ms text (n={js['n']}, target ≤ 20; "
        f"/api/whoami p95 {r['baseline_whoami_ms']['p95']:.1f} ms); "
        f"load {r['load_avg_start'][0]:.1f}→{r['load_avg_end'][0]:.1f}"
    )


def main() -> None:
    args = parse_args()
    extra = {"CTX_PROFILES_INTERPRETER": "rules"}
    ctx = server_from_args(args.url, args.key) if args.url else None
    if ctx is None:
        from bench.common import private_server

        ctx = private_server(extra_env=extra, prefix="ctx-bench-profiles-")
    with ctx as server:
        result = run(server, args)
    result["interpreter"] = "rules"
    emit(result, summary_line(result), args.out)


if __name__ == "__main__":
    main()
