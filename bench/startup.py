"""`make run` start-up: seconds from the launcher's start to "ctx: ready", first start and restart.

    python bench/startup.py [--rounds 2] [--against DIR] [--out results.json]

Each round starts `python -m ctx.runtime.launcher run` on an empty data directory (initdb,
migrations, the bootstrap key, collectstatic, every child ready), stops it with Ctrl-C, and
starts it again on the same directory (a restart). `--against DIR` times another checkout of
ctx (its own `.venv`) in alternation, for a paired comparison. Extraction and Dream Mode are
off: they only add background work after "ready".
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.common import emit, stop  # noqa: E402

READY = "ctx: ready"


def time_start(code: Path, data_dir: Path, timeout: float = 300) -> float:
    """Seconds until the launcher printed READY; the server is stopped again before returning."""
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(
        CTX_DATA_DIR=str(data_dir),
        CTX_PORT="0",
        HF_HUB_OFFLINE="1",
        CTX_EXTRACTION="off",
        CTX_DREAM_INITIAL_MODE="off",
    )
    started = time.perf_counter()
    proc = subprocess.Popen(  # the checkout's own interpreter and launcher
        [str(code / ".venv" / "bin" / "python"), "-m", "ctx.runtime.launcher", "run"],
        cwd=code,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.strip() == READY:
                return time.perf_counter() - started
            if time.perf_counter() - started > timeout:
                break
        raise RuntimeError(f"{code}: no '{READY}' within {timeout:.0f} s")
    finally:
        stop(proc, signal.SIGINT, 90)


def one_round(code: Path) -> dict[str, float]:
    data_dir = Path(tempfile.mkdtemp(prefix="ctx-bench-startup-")) / "data"
    try:
        first = time_start(code, data_dir)
        again = time_start(code, data_dir)
    finally:
        shutil.rmtree(data_dir.parent, ignore_errors=True)
    return {"first_s": round(first, 1), "restart_s": round(again, 1), "load1": os.getloadavg()[0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--against", type=Path, help="another checkout, timed in alternation")
    ap.add_argument("--out")
    args = ap.parse_args()
    codes = {"this": ROOT, **({"against": args.against.resolve()} if args.against else {})}
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in codes}
    for _ in range(args.rounds):
        for name, code in codes.items():
            runs[name].append(one_round(code))
            print(name, runs[name][-1], file=sys.stderr)
    result: dict[str, Any] = {"benchmark": "startup", "runs": runs}
    summary = "; ".join(
        f"{name}: first start {median(r['first_s'] for r in rs):.1f} s, restart "
        f"{median(r['restart_s'] for r in rs):.1f} s (median of {len(rs)})"
        for name, rs in runs.items()
    )
    emit(result, f"startup: {summary}", args.out)


if __name__ == "__main__":
    main()
