"""GET /api/facts and /api/facts/{id}: what extraction made of stored blocks."""

from __future__ import annotations

from typing import Any

from tests.conftest import Cast
from tests.memory.support import facts, store


def test_it_lists_facts_extracted_from_a_stored_block(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    text = "I prefer Vim over VS Code. We deploy on Tuesdays. I work at Acme Corp."
    stored = store(cast.owner, django_capture_on_commit_callbacks, text)
    found = {f["attribute"]: f for f in facts(cast.owner)}
    assert found["preferred_editor"]["value"] == "Vim"
    assert found["preferred_editor"]["kind"] == "preference"
    assert found["deploy_day"]["evidence"] == "We deploy on Tuesdays"
    assert found["employer"]["statement"] == "The user works at Acme Corp."
    (source,) = found["employer"]["sources"]
    assert source["block_id"] == stored["id"] and source["quote"] == "I work at Acme Corp"
    assert text[text.index(source["quote"]) :].startswith(source["quote"])
