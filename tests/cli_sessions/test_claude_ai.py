from __future__ import annotations

import zipfile
from datetime import UTC, datetime
from pathlib import Path

from ctx_cli.sessions.parsers import claude_ai
from tests.cli_sessions.conftest import FIXTURES, roles

INVOICE = "0e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b"


def export_zip(tmp_path: Path) -> Path:
    path = tmp_path / "data-2026-01-06.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for name in ("conversations.json", "users.json"):
            archive.write(FIXTURES / "claude_ai" / name, name)
    return path


def test_it_reads_blocks_tools_and_attachments(tmp_path: Path) -> None:
    result = claude_ai.read(export_zip(tmp_path))
    invoice = result.sessions[0]
    assert (invoice.external_id, invoice.title) == (INVOICE, "Invoice parser")
    assert roles(invoice) == ["user", "assistant", "tool"]
    prompt, answer, tool = invoice.messages
    assert prompt.text == (
        "Parse the totals from this invoice\n\n[attachment: invoice.txt]\n"
        "Subtotal 90.00\nTax 9.00\nTotal 99.00"
    )
    # thinking skipped; the text blocks around the tool call form one answer
    assert (
        answer.text
        == "I'll run a quick parse.\n\nThe total is 99.00 (subtotal 90.00 plus tax 9.00)."
    )
    assert answer.tool_calls == ["repl: print(99.00)"]
    assert tool.text == "[repl] 99.0"
    assert answer.timestamp == datetime(2026, 1, 5, 11, 0, 9, tzinfo=UTC)
    assert invoice.project_root is None


def test_it_reads_older_text_only_exports(tmp_path: Path) -> None:
    haiku = claude_ai.read(FIXTURES / "claude_ai" / "conversations.json").sessions[1]
    assert haiku.title == "Haiku about rain"
    assert haiku.messages[1].text.startswith("Soft rain on the roof\n")
    assert haiku.started_at == datetime(2024, 5, 1, 8, 0, tzinfo=UTC)


def test_it_refuses_a_chatgpt_export(tmp_path: Path) -> None:
    result = claude_ai.read(FIXTURES / "chatgpt" / "conversations.json")
    assert result.sessions == [] and "looks like a chatgpt export" in result.problems[0]
    assert claude_ai.locate(tmp_path, "darwin") == []
