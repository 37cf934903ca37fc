"""Dream's own models: CTX_DREAM_LLM_* / CTX_DREAM_EMBED_* inherit the main settings when
unset, show in `dream stats`, and are really used (SmolLM2 as Dream's second endpoint, a
sidecar answering embeddings over real HTTP)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.checks import run_checks

from ctx.errors import SensitivityBlocked
from dream import engines
from dream.cycle import run_cycles
from dream.models import DreamState
from retrieval.llm import get_llm
from retrieval.models import LLMCall
from tests.conftest import Cast
from tests.dream.conftest import T0, cos_mix, days, put, settings_ctx
from tests.fake_http import FakeServer, Reply
from tests.llm_server import MODEL_NAME, llm_server  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db


def test_each_unset_dream_setting_inherits_the_main_one() -> None:
    values = {"CTX_LLM_PROVIDER": "openai", "CTX_LLM_MODEL": "big", "CTX_LLM_TIMEOUT": 60.0}
    merged, own = engines.inherit(values, *engines.LLM)
    assert own == [] and merged["CTX_LLM_MODEL"] == "big"
    values |= {"CTX_DREAM_LLM_MODEL": "bigger", "CTX_DREAM_LLM_TIMEOUT": 600.0}
    merged, own = engines.inherit(values, *engines.LLM)
    assert own == ["MODEL", "TIMEOUT"]
    assert (merged["CTX_LLM_PROVIDER"], merged["CTX_LLM_MODEL"]) == ("openai", "bigger")
    assert merged["CTX_LLM_TIMEOUT"] == 600.0


def test_dream_stats_shows_each_model_and_whether_it_is_its_own(cast: Cast, settings: Any) -> None:
    from tests.api.settings_support import server_admin

    admin = server_admin()
    engines_now = admin.get("/api/dream/stats")[1]["engines"]
    assert engines_now["llm"] == {"provider": "none", "model": "", "endpoint": "", "own": False}
    assert engines_now["embed"]["provider"] == "local" and engines_now["embed"]["own"] is False
    settings_ctx(
        settings,
        CTX_DREAM_LLM_PROVIDER="openai",
        CTX_DREAM_LLM_MODEL="qwen-32b",
        CTX_DREAM_LLM_BASE_URL="http://dreamer:s3cret@10.0.0.9:8000/v1?key=abc",
        CTX_DREAM_LLM_API_KEY="sk-never-shown",
    )
    body = admin.get("/api/dream/stats")[1]
    assert body["engines"]["llm"] == {
        "provider": "openai",
        "model": "qwen-32b",
        "endpoint": "http://10.0.0.9:8000/v1",
        "own": True,
    }
    assert "s3cret" not in str(body) and "sk-never-shown" not in str(body)
    assert get_llm() is None  # the main LLM is still none: only Dream has one


@pytest.mark.slow
def test_dream_types_links_with_its_own_llm_while_the_server_has_none(
    cast: Cast,
    settings: Any,
    llm_server: str,  # noqa: F811
) -> None:
    settings_ctx(
        settings,
        CTX_LLM_PROVIDER="none",
        CTX_DREAM_LLM_PROVIDER="openai",
        CTX_DREAM_LLM_BASE_URL=llm_server,
        CTX_DREAM_LLM_MODEL=MODEL_NAME,
        CTX_DREAM_LLM_TIMEOUT=120.0,
        CTX_DREAM_LLM_CANDIDATES=2,
    )
    assert get_llm() is None
    old = put("acme:main", "Deploy policy", "We deploy on Tuesdays.", cos_mix(1.0), when=T0)
    put(
        "acme:main",
        "Deploy policy 2025",
        "We deploy on Thursdays.",
        cos_mix(0.9),
        when=T0 + days(30),
    )
    DreamState.objects.filter(block=old).update(next_at=None)
    summary = run_cycles(worker="w")
    assert summary.cycles == 1 and summary.outcomes["retry"] == summary.outcomes["error"] == 0
    call = LLMCall.objects.get(pipeline="dream.link_type")
    assert call.ok, call.error  # answered by Dream's endpoint: the server has no LLM


def test_the_guard_embeds_through_dreams_sidecar(settings: Any) -> None:
    def answer(seen: Any, n: int) -> Reply:
        texts = seen.body["input"]
        data = [{"index": i, "embedding": [1.0] + [0.0] * 383} for i in range(len(texts))]
        return Reply(json={"data": data})

    with FakeServer(answer) as sidecar:
        settings_ctx(
            settings,
            CTX_DREAM_EMBED_PROVIDER="openai",
            CTX_DREAM_EMBED_MODEL="all-minilm-l6-v2",
            CTX_DREAM_EMBED_BASE_URL=sidecar.url,
        )
        vectors = engines.embed_texts(["deploy on Thursdays"], kind="probe", level="internal")
        assert vectors == [[1.0] + [0.0] * 383]
        assert [(s.path, s.body["model"]) for s in sidecar.seen] == [
            ("/v1/embeddings", "all-minilm-l6-v2")
        ]
        # The trust rules hold for the sidecar as for the main embedder.
        with pytest.raises(SensitivityBlocked):
            engines.embed_texts(["AKIAIOSFODNN7EXAMPLE"], kind="probe", level="credentials")
        assert len(sidecar.seen) == 1


def test_a_dream_llm_without_a_model_stops_the_start(settings: Any) -> None:
    settings_ctx(settings, CTX_LLM_PROVIDER="none", CTX_DREAM_LLM_PROVIDER="ollama")
    errors = [e for e in run_checks() if e.id == "ctx.E033"]
    assert errors and "MODEL is required" in errors[0].msg
