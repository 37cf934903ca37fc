"""Web worker memory under large request bodies: RSS before, right after and 10 s after.

    python bench/bodies.py [--count 50] [--mb 5] [--over 9] [--concurrency 5] [--out FILE]

Starts a private server the way `make run` does, warms both web workers (models loaded), then
sends `count` stores whose content is `mb` MB (each refused: a block holds at most
CTX_MAX_CONTENT_BYTES), and `count` bodies of `over` MB (over CTX_MAX_BODY_BYTES). Reported per
web worker: resident memory (VmRSS) before, after each round and after 10 s idle, and the
statuses the clients saw.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import ServerInfo, emit, private_server
from bench.faults import children

MB = 1024 * 1024


def web_workers(launcher: int) -> list[int]:
    """The uvicorn worker processes (children of the launcher's uvicorn)."""
    master = next(pid for pid, cmd in children(launcher).items() if "uvicorn" in cmd)
    return sorted(children(master))


def rss_mb(pid: int) -> float:
    for line in (Path("/proc") / str(pid) / "status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def send_round(server: ServerInfo, size: int, count: int, concurrency: int) -> dict[str, int]:
    """`count` stores of one `size`-byte content; statuses by count."""
    content = "x" * size
    body = {"category": "big", "title": "big", "content": content}

    def one(_: int) -> str:
        try:
            with httpx.Client(base_url=server.url, timeout=120) as c:
                resp = c.post("/api/store", json=body, headers={"X-Context-Key": server.key})
            return str(resp.status_code)
        except httpx.TransportError as exc:
            return type(exc).__name__

    with ThreadPoolExecutor(concurrency) as pool:
        return dict(Counter(pool.map(one, range(count))))


def warm(server: ServerInfo) -> None:
    """A connection per round: the kernel spreads them, so both workers load their models."""
    headers = {"X-Context-Key": server.key}
    for i in range(40):
        with httpx.Client(base_url=server.url, headers=headers, timeout=120) as c:
            c.post("/api/store", json={"category": "w", "title": f"w{i}", "content": f"warm {i}"})
            c.post("/api/query", json={"query": f"warm note {i}"})


def measure(server: ServerInfo, args: argparse.Namespace) -> dict[str, Any]:
    assert server.process is not None
    warm(server)
    workers = web_workers(server.process.pid)
    rss: dict[str, list[float]] = {"before": [rss_mb(p) for p in workers]}
    statuses = {f"{args.mb} MB": send_round(server, args.mb * MB, args.count, args.concurrency)}
    rss[f"after {args.mb} MB"] = [rss_mb(p) for p in workers]
    statuses[f"{args.over} MB"] = send_round(server, args.over * MB, args.count, args.concurrency)
    rss[f"after {args.over} MB"] = [rss_mb(p) for p in workers]
    time.sleep(10)
    rss["idle 10 s"] = [rss_mb(p) for p in workers]
    return {"workers": workers, "rss_mb": rss, "statuses": statuses}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=50)
    parser.add_argument("--mb", type=int, default=5)
    parser.add_argument("--over", type=int, default=9)
    parser.add_argument("--concurrency", type=int, default=5)
    parser.add_argument("--out")
    args = parser.parse_args()
    load_before = os.getloadavg()
    with private_server(workers=1, prefix="ctx-bodies-") as server:
        result = measure(server, args)
    result |= {"load_average_before": [round(x, 2) for x in load_before]}
    rss = result["rss_mb"]
    summary = "bodies: web worker RSS MB " + "; ".join(
        f"{k} {'/'.join(str(v) for v in vals)}" for k, vals in rss.items()
    )
    emit({"benchmark": "bodies", **result}, summary, args.out)


if __name__ == "__main__":
    main()
