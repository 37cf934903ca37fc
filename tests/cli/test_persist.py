from __future__ import annotations

import json
from pathlib import Path

from ctx.models import Block
from tests.cli.conftest import Cli

TEXT = """Done with the task.

[PERSIST:decisions:Use Postgres]
We chose PostgreSQL for its extensions.

[PERSIST:howto:Restart: the worker]
Run `make restart`.
[PERSIST:empty:Nothing here]
"""


def test_it_stores_each_persist_section_from_stdin(cli: Cli) -> None:
    run = cli("persist", "--project", "Acme", stdin=TEXT)
    assert run.returncode == 0, run.stderr
    stored = run.json()["stored"]
    assert [(s["category"], s["title"], s["action"]) for s in stored] == [
        ("decisions", "Use Postgres", "created"),
        ("howto", "Restart: the worker", "created"),
    ]
    block = Block.objects.get(title="Use Postgres")
    assert block.content == "We chose PostgreSQL for its extensions."
    assert block.tags == ["project:acme"]
    assert Block.objects.get(title="Restart: the worker").content == "Run `make restart`."


def test_it_reads_the_subagent_stop_last_message(cli: Cli) -> None:
    hook_input = {
        "hook_event_name": "SubagentStop",
        "cwd": "/src/rocket",
        "last_assistant_message": "[PERSIST:notes:Fuel]\nMethane.",
    }
    run = cli("persist", "--hook", stdin=json.dumps(hook_input))
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("ctx: created notes/Fuel (")  # plain text, never hook JSON
    assert Block.objects.get(title="Fuel").tags == ["project:rocket"]


def test_it_reads_the_last_assistant_message_of_the_transcript(cli: Cli, tmp_path: Path) -> None:
    def assistant(mid: str, text: str) -> dict:
        return {
            "type": "assistant",
            "message": {
                "id": mid,
                "role": "assistant",
                "content": [{"type": "text", "text": text}],
            },
        }

    entries = [
        {"type": "user", "message": {"role": "user", "content": "[PERSIST:x:From user]\nno"}},
        assistant("m1", "[PERSIST:notes:Old]\nstale"),
        {"type": "assistant", "message": {"id": "m2", "content": [{"type": "tool_use"}]}},
        assistant("m3", "[PERSIST:notes:First]\none"),
        assistant("m3", "[PERSIST:notes:Second]\ntwo"),
    ]
    transcript = tmp_path / "t.jsonl"
    # and lines that are JSON but not an entry (hypothesis found a crash on them)
    odd = '\nnot json\n"assistant"\n["assistant"]\n'
    transcript.write_text("\n".join(json.dumps(e) for e in entries) + odd)
    hook_input = {
        "hook_event_name": "SubagentStop",
        "transcript_path": str(transcript),
        "cwd": "/p",
    }
    assert cli("persist", "--hook", stdin=json.dumps(hook_input)).returncode == 0
    assert sorted(Block.objects.values_list("title", flat=True)) == ["First", "Second"]


def test_it_reports_when_there_is_nothing_to_store(cli: Cli) -> None:
    assert cli("persist", stdin="no markers here").json()["stored"] == []
    hook = cli("persist", "--hook", stdin=json.dumps({"last_assistant_message": "plain"}))
    assert hook.returncode == 0 and "no [PERSIST:…] sections" in hook.stdout


def test_it_never_blocks_an_agent_in_hook_mode(offline_cli: Cli) -> None:
    hook_input = json.dumps({"last_assistant_message": "[PERSIST:a:b]\nc", "cwd": "/p"})
    run = offline_cli("persist", "--hook", stdin=hook_input)
    assert run.returncode == 0 and "cannot reach ctx" in run.stderr
    garbled = offline_cli("persist", "--hook", stdin="{not json")
    assert garbled.returncode == 0 and "not JSON" in garbled.stderr
    assert offline_cli("persist", stdin="[PERSIST:a:b]\nc").returncode == 1
