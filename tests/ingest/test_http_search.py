"""POST /api/sessions/search: hybrid retrieval over transcript windows, grouped by session;
/api/query finds the same windows with its arms and temporal stages."""

from __future__ import annotations

from typing import Any

import pytest

from ingest.models import Window
from retrieval import indexing
from retrieval.models import BlockChunk
from tests.conftest import Cast
from tests.ingest.support import batch, imported, message, session

pytestmark = pytest.mark.django_db

GARDEN = [
    "The tomatoes in the raised bed got blight again.",
    "Remove the infected leaves and water at the base, not the foliage.",
    "Should I spray copper fungicide on the tomato plants?",
    "Copper helps early; rotate the beds next season.",
]
DEPLOY = [
    "The deploy to production failed with a migration lock timeout.",
    "Run the migration before switching traffic and raise lock_timeout.",
]


def _conversation(texts: list[str], day: str) -> list[dict[str, Any]]:
    return [
        message(i, t, role="user" if i % 2 == 0 else "assistant", timestamp=f"{day}T09:0{i}:00Z")
        for i, t in enumerate(texts)
    ]


@pytest.fixture
def corpus(cast: Cast, django_capture_on_commit_callbacks: Any, settings: Any) -> Cast:
    settings.CTX = {**settings.CTX, "CTX_SESSION_WINDOW_SIZE": 2, "CTX_SESSION_WINDOW_STRIDE": 2}
    sessions = [
        session("garden", _conversation(GARDEN, "2026-02-10"), tool="chatgpt"),
        session("deploy", _conversation(DEPLOY, "2026-03-02")),
    ]
    imported(cast.owner, batch(*sessions), django_capture_on_commit_callbacks)
    blocks = [str(b) for b in Window.objects.values_list("block_id", flat=True)]
    assert indexing.embed_blocks(blocks) == 3
    return cast


def test_it_groups_the_windows_found_by_session(corpus: Cast) -> None:
    status, data = corpus.owner.post("/api/sessions/search", {"query": "tomato plant disease"})
    assert status == 200, data
    first = data["sessions"][0]
    assert first["session"]["external_id"] == "garden" and first["session"]["tool"] == "chatgpt"
    assert [(w["first_index"], w["last_index"]) for w in first["windows"]] in (
        [(0, 1), (2, 3)],
        [(2, 3), (0, 1)],
    )
    assert first["score"] == first["windows"][0]["score"]


def test_it_keeps_at_most_the_configured_windows_per_session(corpus: Cast, settings: Any) -> None:
    settings.CTX = {**settings.CTX, "CTX_SESSION_SEARCH_PER_SESSION": 1}
    _, data = corpus.owner.post("/api/sessions/search", {"query": "tomato blight copper"})
    assert all(len(s["windows"]) == 1 for s in data["sessions"])


def test_it_filters_by_tool(corpus: Cast) -> None:
    body = {"query": "tomato blight", "tool": "claude-code"}
    _, data = corpus.owner.post("/api/sessions/search", body)
    assert [s["session"]["external_id"] for s in data["sessions"]] == ["deploy"]


def test_it_finds_the_windows_through_api_query_with_the_temporal_stages(corpus: Cast) -> None:
    body = {"query": "what went wrong with the deploy in March 2026?", "explain": True}
    status, data = corpus.owner.post("/api/query", {**body, "now": "2026-03-20"})
    assert status == 200 and data["sources"][0]["type"] == "transcript"
    assert data["sources"][0]["metadata"]["external_id"] == "deploy"
    assert "temporal" in data["explain"]


def test_it_never_finds_another_tenants_conversations(corpus: Cast) -> None:
    status, data = corpus.outsider.post("/api/sessions/search", {"query": "tomato blight"})
    assert status == 200 and data["sessions"] == []
    foreign = corpus.outsider.post("/api/sessions/search", {"query": "x", "scopes": ["acme:main"]})
    missing = corpus.outsider.post("/api/sessions/search", {"query": "x", "scopes": ["acme:no"]})
    assert foreign == missing and foreign[0] == 403


def test_it_refuses_an_empty_query(corpus: Cast) -> None:
    status, data = corpus.owner.post("/api/sessions/search", {"query": " "})
    assert status == 400 and data["error"]["details"]["field"] == "query"


def test_overlapping_windows_embed_the_messages_they_share_once(
    cast: Cast, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 12 messages, windows of 8 every 4: messages 5-8 are in both windows. Each run of 4
    # short messages is one embedded text: 3 texts embedded, not 4, and both windows carry
    # the very same vector for the one they share.
    topics = ["Tomato blight", "Copper spray", "Raised beds", "Watering", "Mulch", "Aphids"]
    topics += ["Pruning", "Compost", "Seedlings", "Frost cover", "Harvest", "Crop rotation"]
    said = [
        message(i, f"{topic} needs attention.", timestamp=f"2026-02-10T09:{i:02d}:00Z")
        for i, topic in enumerate(topics)
    ]
    imported(cast.owner, batch(session("g", said)), django_capture_on_commit_callbacks)
    windows = list(Window.objects.order_by("first_index"))
    assert [(x.first_index, x.last_index) for x in windows] == [(0, 7), (4, 11)]
    embedded: list[str] = []
    real = indexing.embed_texts

    def spy(texts: list[str], **kw: Any) -> Any:
        embedded.extend(texts)
        return real(texts, **kw)

    monkeypatch.setattr(indexing, "embed_texts", spy)
    assert indexing.embed_blocks([str(x.block_id) for x in windows]) == 2
    first, second = (
        [list(c.embedding) for c in BlockChunk.objects.filter(block_id=x.block_id).order_by("idx")]
        for x in windows
    )
    opening = [text.split("] user: ")[1].split(" needs")[0] for text in embedded]
    assert opening == ["Tomato blight", "Mulch", "Seedlings"]
    assert len(first) == len(second) == 2 and first[1] == second[0] and first[0] != second[1]
    status, data = cast.owner.post(
        "/api/sessions/search", {"query": "protecting plants from frost"}
    )
    assert status == 200 and data["sessions"][0]["windows"][0]["first_index"] == 4


CHECKOUT = [
    "The checkout test is flaky again: the flaky test waits for the payment iframe.",
    "Stub the payment iframe so the checkout test stops being flaky.",
]
LOGIN = [
    "The login spec times out now and then on CI.",
    "Wait for the session cookie before asserting; the flaky test passes then.",
]


def test_a_session_titled_by_the_query_comes_first(
    cast: Cast, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    settings.CTX = {**settings.CTX, "CTX_SESSION_WINDOW_SIZE": 2, "CTX_SESSION_WINDOW_STRIDE": 2}
    sessions = [
        session("checkout", _conversation(CHECKOUT, "2026-02-10"), title="Checkout redesign"),
        session("login", _conversation(LOGIN, "2026-02-11"), title="Fix flaky login test"),
    ]
    imported(cast.owner, batch(*sessions), django_capture_on_commit_callbacks)
    indexing.embed_blocks([str(b) for b in Window.objects.values_list("block_id", flat=True)])
    _, windows = cast.owner.post("/api/query", {"query": "flaky test", "types": ["transcript"]})
    assert windows["sources"][0]["metadata"]["external_id"] == "checkout"  # windows alone
    _, data = cast.owner.post("/api/sessions/search", {"query": "flaky test"})
    assert [s["session"]["external_id"] for s in data["sessions"]] == ["login", "checkout"]
    assert [s["title_match"] for s in data["sessions"]] == [1.0, 0.0]  # why, for the reader


def test_a_window_preview_shows_the_words_searched(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    # One window of four messages whose match is in the last: its opening lines say nothing
    # of what was searched.
    chat = [
        "From now on use pnpm instead of npm in the shop-api project, with the lockfile.",
        "Understood, I will use pnpm for every install and keep the lockfile committed.",
        "We decided to deploy shop-api on Thursdays after the weekly review of open issues.",
        "The checkout test is blocked by the flaky payment sandbox.",
    ]
    imported(
        cast.owner,
        batch(session("long", _conversation(chat, "2026-03-02"))),
        django_capture_on_commit_callbacks,
    )
    status, data = cast.owner.post("/api/sessions/search", {"query": "payment sandbox"})
    assert status == 200, data
    preview = data["sessions"][0]["windows"][0]["preview"]
    assert "flaky payment sandbox" in preview
    assert preview.startswith("…[2026-03-02 09:03] assistant:")
    status, data = cast.owner.post("/api/sessions/search", {"query": "pnpm lockfile"})
    assert data["sessions"][0]["windows"][0]["preview"].startswith("[2026-03-02 09:00] user:")
