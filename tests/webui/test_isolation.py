"""An outsider's key (another tenant) sees none of acme's blocks on any page: home, browse,
search, a block page by id (the same 404 page as a missing id), the graph and review; and its
writes by id change nothing."""

from __future__ import annotations

import uuid

import pytest

from ctx.models import Block
from dream.models import GuardFlag, Link
from tests.conftest import Cast
from tests.webui.cast import seed
from tests.webui.conftest import page_text, signed_in, text

pytestmark = pytest.mark.django_db


def test_it_shows_an_outsider_none_of_another_tenants_blocks(cast: Cast) -> None:
    s = seed(cast)
    cast.outsider.store(category="ops", title="Globex runbook", content="Deploys on Fridays.")
    client = signed_in(cast.outsider.key)
    for path, params in [
        ("/", {}),
        ("/blocks", {}),
        ("/blocks", {"category": "ops"}),
        ("/search", {"q": "deploy plan tuesdays"}),
        ("/review", {}),
    ]:
        html = text(client.get(path, params))
        assert "Globex runbook" in html or path == "/review", path
        for acme in ("Deploy plan", "Deploy notes", "Tuesday", "acme:"):
            assert acme not in html, (path, acme)
        assert s.plan not in html and s.twin not in html, path
    missing = client.get(f"/blocks/{uuid.uuid4()}")
    for path in (f"/blocks/{s.plan}", f"/blocks/{s.plan}/edit", f"/graph/{s.plan}"):
        resp = client.get(path)
        assert resp.status_code == 404 and page_text(resp) == page_text(missing), path
    assert client.get(f"/graph/{s.plan}/data").status_code == 404


def test_it_changes_nothing_an_outsider_posts_by_id(cast: Cast) -> None:
    s = seed(cast)
    client = signed_in(cast.outsider.key)
    assert client.post(f"/blocks/{s.plan}/archive").status_code == 404
    Block.objects.filter(pk=s.notes).update(archived=True)
    assert client.post(f"/blocks/{s.notes}/restore").status_code == 404
    assert client.post(f"/review/links/{s.link}", {"action": "delete"}).status_code == 404
    assert client.post(f"/review/flags/{s.flag}", {"action": "archive"}).status_code == 404
    assert not Block.objects.get(pk=s.plan).archived and Block.objects.get(pk=s.notes).archived
    assert Link.objects.filter(pk=s.link).exists()
    assert GuardFlag.objects.get(pk=s.flag).status == "open"
    assert not Block.objects.get(pk=s.twin).archived
