"""bench/cli.py still runs: a small pass against the live server."""

from __future__ import annotations

from pathlib import Path

from bench import cli as bench
from ctx_cli import ingest
from tests.cli.conftest import Cli


def test_it_generates_a_vault_the_ingester_reads(tmp_path: Path) -> None:
    bench.generate_vault(tmp_path, 12)
    plan = ingest.collect(tmp_path)
    assert plan.notes == 12 and len(plan.items) == 12 * 4 and not plan.skipped
    assert {item.block["category"] for item in plan.items} == set(bench.FOLDERS)


def test_it_times_commands_and_ingest(cli: Cli) -> None:
    env = cli.env()
    bench.seed(env)
    timing = bench.time_command(env, bench.command_args("search", "deploy"), runs=2)
    assert timing["failures"] == 0 and 0 < timing["p50_ms"] <= timing["p95_ms"]
    result = bench.bench_ingest(env, notes=10)
    assert result["summary"]["created"] == 40 and result["rerun_summary"]["unchanged"] == 40
    line = bench.summary_line({"commands": {"search": timing}, "ingest": result})
    assert line.startswith("cli: search p50 ") and "ingest 10 notes" in line
