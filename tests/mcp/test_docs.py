"""docs/mcp.md stays true: the tool reference is generated from the registered tools."""

from __future__ import annotations

from ctx.config import KNOBS
from ctx.mcp.docgen import MCP_MD, render_document


def test_it_keeps_the_tool_reference_generated() -> None:
    text = MCP_MD.read_text()
    assert text == render_document(text), "run: python -m ctx.mcp.docgen"


def test_it_documents_every_mcp_and_oauth_setting() -> None:
    text = MCP_MD.read_text()
    names = [k.name for k in KNOBS if k.name.startswith(("CTX_OAUTH_", "CTX_MCP_"))]
    missing = [n for n in [*names, "CTX_PUBLIC_URL", "CTX_TRUST_PROXY"] if f"`{n}`" not in text]
    assert len(names) == 4 and missing == []
