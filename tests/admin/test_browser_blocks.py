"""Editing a block in the admin, in Chromium: the edit goes through the update operation, so
the content hash, content dates, anchors and the embedding are derived again."""

from __future__ import annotations

import numpy as np
import pytest
from playwright.sync_api import Page

from ctx.models import Block
from ctx.services import content_hash
from retrieval import indexing
from retrieval.models import BlockChunk, TemporalAnchor
from tests.admin.conftest import Keys, block, browser_sign_in, rows, shot
from tests.support.axe import assert_accessible
from tests.support.live import LiveServer

pytestmark = pytest.mark.django_db(transaction=True)
NEW = "Production deploys moved to Thursdays after the standup, from 2025-03-14 on."


def test_it_re_derives_and_re_embeds_an_edited_block(
    live: LiveServer, page: Page, keys: Keys
) -> None:
    old = block(keys.owner_key, "Deploy policy", "Production deploys happen on Tuesdays.")
    assert indexing.embed_pending(limit=10) == 1
    before = Block.objects.get(pk=old.pk)

    browser_sign_in(page, live, keys.owner)
    page.goto(live.url + "/admin/ctx/block/")
    assert rows(page) == ["Deploy policy"]
    shot(page, "block-list")
    page.click("text=Deploy policy")
    shot(page, "block-change")
    assert_accessible(page)
    page.fill("#id_content", NEW)
    page.click("input[name=_save]")
    assert "was changed successfully" in page.locator(".messagelist").inner_text()

    edited = Block.objects.get(pk=old.pk)
    assert edited.content == NEW and edited.content_hash == content_hash(NEW)
    assert edited.embedding is None  # stale: queued for the worker
    assert [t.date().isoformat() for t in edited.content_times] == ["2025-03-14"]
    assert TemporalAnchor.objects.filter(block=edited, kind="content").exists()

    assert indexing.embed_pending(limit=10) == 1  # what the worker runs for the queued block
    embedded = Block.objects.get(pk=old.pk)
    assert embedded.embedding is not None and before.embedding is not None
    assert float(np.dot(embedded.embedding, before.embedding)) < 0.999  # a new vector
    assert BlockChunk.objects.filter(block=embedded).count() >= 1

    page.goto(live.url + f"/admin/ctx/block/{old.pk}/change/")
    assert page.locator(".field-embedded img").get_attribute("alt") == "True"
    shot(page, "block-after-edit")


def test_it_archives_and_restores_a_block(live: LiveServer, page: Page, keys: Keys) -> None:
    kept = block(keys.owner_key, "Runbook", "Restart the worker with systemctl.")
    indexing.embed_pending(limit=10)
    browser_sign_in(page, live, keys.owner)
    page.goto(live.url + f"/admin/ctx/block/{kept.pk}/change/")
    page.click("button.ctx-action-archive")
    assert Block.objects.get(pk=kept.pk).archived
    assert page.locator("#id_content").count() == 0  # read-only until restored
    shot(page, "block-archived")
    page.click("button.ctx-action-restore")
    restored = Block.objects.get(pk=kept.pk)
    assert not restored.archived and restored.embedding is None  # embedded again
    assert indexing.embed_pending(limit=10) == 1
