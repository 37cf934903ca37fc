"""bench/execute.py still runs: its log generator and the overhead pass (no server needed)."""

from __future__ import annotations

import sys
from pathlib import Path

from bench import execute as bench


def test_it_generates_a_log_with_the_planted_answers() -> None:
    log = bench.generate_log(60)
    assert 60 * 1024 <= len(log.encode()) < 61 * 1024 + 200
    for line, _, answer in bench.PLANTED:
        assert log.count(line) == 1 and answer in line
    assert bench.generate_log(60) == log  # seeded


def test_it_times_the_overhead_of_execute(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    tools = bench._tools("http://127.0.0.1:9", None, tmp_path)
    result = bench.bench_overhead(tools, runs=3)
    assert result["runs"] == 3 and 0 < result["first_byte_p50_ms"] <= result["call_p95_ms"]
    assert result["isolation"]["network"] in ("off", "on")
    assert "ctx_cli" in sys.modules
