"""A tenant's export and restore (`manage.py tenant_export` / `tenant_import`): a tenant with
something in every part is exported, deleted and restored, and the second export equals the
first; the restored tenant answers searches, opens its secrets and keeps its ids. Refusals
change nothing."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.conf import LazySettings
from django.core.management import CommandError, call_command

from ctx import services, tenancy
from ctx.models import ApiKey, Block, Scope, Tenant
from ctx.ops import transfer
from ctx.overrides.models import SettingOverride
from dream.cycle import run_cycles
from retrieval import indexing
from secrets import services as secret_services
from tests.conftest import Api, Cast
from tests.dream.conftest import cos_mix, put
from tests.ingest.support import batch, imported, message, session
from tests.profiles.support import ProfileApi
from tests.refindex.support import index

pytestmark = pytest.mark.django_db

KEY = "a1" * 32
TALK = [
    message(0, "I prefer Vim over VS Code.", external_id="m-a"),
    message(1, "Noted, Vim it is.", "assistant"),
    message(2, "We deploy on Tuesdays.", external_id="m-c"),
]


@pytest.fixture(autouse=True)
def master_key(settings: LazySettings) -> None:
    settings.CTX = {**settings.CTX, "CTX_SECRETS_KEY": KEY, "CTX_SECRETS_KEY_FILE": ""}
    settings.CELERY_BROKER_URL = ""  # a session import runs in the request (tests/ingest)


def send(api: Api, method: str, path: str, body: Any) -> tuple[int, Any]:
    call = getattr(api.client, method.lower())
    resp = call(
        path, data=json.dumps(body), content_type="application/json", headers=api._headers()
    )
    return resp.status_code, json.loads(resp.content)


def fill(cast: Cast, capture: Any) -> None:
    """Something in every part of acme: blocks with versions and anchors, dream links, a
    setting, a secret, a profile with a signal, a session with extracted facts, an index."""
    owner = cast.owner
    note = owner.store(title="Deploy day", content="We deploy on Tuesdays since 2026-03-03.")
    change = {"content": "We deploy on Thursdays since 2026-03-10."}
    status, _ = owner.post("/api/manage", {"action": "update", "id": note["id"], "fields": change})
    assert status == 200
    indexing.embed_pending(limit=100)  # vectors and windows, as the worker makes them
    put("acme:main", "Green tea", "Sencha and matcha.", cos_mix(1.0))
    put("acme:main", "Tea kettles", "Kettles for tea.", cos_mix(0.9))
    put("acme:team", "Team notes", "Standup at nine.", cos_mix(0.0, 5, 6))
    run_cycles(worker="w", max_seconds=30)
    assert send(owner, "PUT", "/api/settings/CTX_RERANK_TOP_N", {"value": 50})[0] == 200
    assert send(owner, "PUT", "/api/secrets/db", {"value": "sk-live-restored"})[0] in (200, 201)
    profiles = ProfileApi(owner)
    profiles.create("writing")
    profiles.signal("too long", profile="writing")
    imported(owner, batch(session("s-1", TALK)), capture)
    assert index(owner, "# Guide\n\nRun the migrations before the workers.")[0] in (200, 201)


def archive_rows(path: Path) -> dict[str, list[dict[str, Any]]]:
    """The archive's rows by model, with the tenant's own id left out (a restore makes a new
    tenant row; everything else keeps its id)."""
    rows: dict[str, list[dict[str, Any]]] = {}
    with gzip.open(path, "rt") as lines:
        for line in lines:
            doc = json.loads(line)
            if "m" in doc:
                row = {k: v for k, v in doc["r"].items() if k != "tenant_id"}
                rows.setdefault(doc["m"], []).append(row)
    return rows


def export(name: str, path: Path, *flags: str) -> str:
    out = io.StringIO()
    call_command("tenant_export", name, str(path), *flags, stdout=out)
    return out.getvalue()


def restore(path: Path, *flags: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("tenant_import", str(path), *flags, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def delete(name: str) -> None:
    tenancy.tenant_purge(Tenant.objects.get(name=name))


def test_export_delete_restore_gives_the_same_tenant_back(
    cast: Cast, tmp_path: Path, django_capture_on_commit_callbacks: Any
) -> None:
    fill(cast, django_capture_on_commit_callbacks)
    first = tmp_path / "acme.jsonl.gz"
    printed = export("acme", first)
    before = archive_rows(first)
    for part in (
        "ctx.block",
        "ctx.blockversion",
        "retrieval.temporalanchor",
        "dream.link",
        "secrets.secret",
        "ctx.settingoverride",
        "profiles.profile",
        "profiles.signal",
        "ingest.session",
        "ingest.message",
        "memory.fact",
        "memory.provenance",
        "refindex.source",
        "refindex.chunk",
        "retrieval.blockchunk",
    ):
        assert before.get(part), f"nothing exported for {part}"
    assert f"ctx.block: {len(before['ctx.block'])}" in printed
    block_ids = sorted(r["id"] for r in before["ctx.block"])

    delete("acme")
    assert not Block.objects.filter(pk__in=block_ids).exists()
    out, err = restore(first)
    raw_key = out.strip().splitlines()[-1]
    assert raw_key.startswith("ctx_") and "shown once" in err

    second = tmp_path / "again.jsonl.gz"
    export("acme", second)
    # every row of every part, value for value; the API key that sent a signal is not restored
    for signal in before["profiles.signal"]:
        assert signal["key_id"] is not None
        signal["key_id"] = None
    assert archive_rows(second) == before

    owner = Api(raw_key)
    deploy = next(r["id"] for r in before["ctx.block"] if r["title"] == "Deploy day")
    status, found = owner.post("/api/search", {"query": "Thursdays deploy"})
    assert status == 200 and found["results"][0]["id"] == deploy
    status, history = owner.get(f"/api/blocks/{deploy}/history")
    assert status == 200 and history["current"]["version"] == 2, history
    assert [v["content"] for v in history["versions"]] == [
        "We deploy on Tuesdays since 2026-03-03."
    ]
    assert (
        secret_services.secret_reveal(name="db", scope_ref="acme/acme:main", actor="test")
        == "sk-live-restored"
    )
    assert Tenant.objects.get(name="acme").status == Tenant.Status.ACTIVE


def test_a_restore_under_another_name_moves_the_scopes_and_seals_the_secrets_again(
    cast: Cast, tmp_path: Path, django_capture_on_commit_callbacks: Any
) -> None:
    fill(cast, django_capture_on_commit_callbacks)
    path = tmp_path / "acme.jsonl.gz"
    export("acme", path)
    delete("acme")
    restore(path, "--as", "initech")
    names = set(Scope.objects.filter(tenant__name="initech").values_list("name", flat=True))
    assert names == {"initech:main", "initech:team"}
    assert (
        secret_services.secret_reveal(name="db", scope_ref="initech/initech:main", actor="t")
        == "sk-live-restored"
    )
    assert not Tenant.objects.filter(name="acme").exists()


def test_a_restore_while_the_rows_are_still_there_is_refused_and_writes_nothing(
    cast: Cast, tmp_path: Path
) -> None:
    cast.owner.store(title="Kept", content="Still here.")
    path = tmp_path / "acme.jsonl.gz"
    export("acme", path)
    with pytest.raises(CommandError, match="Tenant 'acme' exists"):
        restore(path)
    with pytest.raises(CommandError, match="still in the database"):
        restore(path, "--as", "copy")
    assert not Tenant.objects.filter(name="copy").exists()
    assert Block.objects.filter(title="Kept").count() == 1


def test_a_cut_off_or_foreign_file_is_refused(cast: Cast, tmp_path: Path) -> None:
    for i in range(3):
        cast.owner.store(title=f"note {i}", content=f"Text {i}.")
    path = tmp_path / "acme.jsonl.gz"
    export("acme", path)
    delete("acme")
    lines = gzip.decompress(path.read_bytes()).splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(gzip.compress(b"".join(lines[:-2])))
    with pytest.raises(CommandError, match="ends before its last line"):
        restore(cut)
    junk = tmp_path / "junk.jsonl.gz"
    junk.write_bytes(b"not gzip at all")
    with pytest.raises(CommandError, match="gzip stream is damaged"):
        restore(junk)
    assert not Tenant.objects.filter(name="acme").exists()
    restore(path)  # the whole file still restores
    assert Block.objects.filter(scope__tenant__name="acme").count() == 3


def test_without_embeddings_the_blocks_come_back_unembedded_and_are_embedded_again(
    cast: Cast, tmp_path: Path
) -> None:
    put("acme:main", "Green tea", "Sencha and matcha.", cos_mix(1.0))
    path = tmp_path / "acme.jsonl.gz"
    export("acme", path, "--no-embeddings")
    rows = archive_rows(path)
    assert "embedding" not in rows["ctx.block"][0] and "retrieval.blockchunk" not in rows
    delete("acme")
    out, _ = restore(path)
    assert "1 blocks are queued for embedding" in out
    block = Block.objects.get(title="Green tea")
    assert block.embedding is None and block.embed_model == ""


def test_every_tenant_owned_model_is_exported_or_left_out_with_a_reason() -> None:
    exported = {label for label, _ in transfer.PARTS}
    for model in apps.get_models():
        label = model._meta.label_lower
        relations = {f.related_model for f in model._meta.concrete_fields if f.is_relation}
        if relations & {Tenant, Scope, Block}:
            assert label in exported or label in transfer.LEFT_OUT, label
        if label in exported:  # a key to a row left out is emptied on restore: must be nullable
            assert not model._meta.many_to_many, (label, "many-to-many rows are not exported")
            for f in model._meta.concrete_fields:
                target = f.related_model
                if f.is_relation and target not in (Tenant, Scope) and target is not None:
                    assert target._meta.label_lower in exported or f.null, (label, f.name)


def test_the_api_key_is_not_in_the_archive(cast: Cast, tmp_path: Path) -> None:
    path = tmp_path / "acme.jsonl.gz"
    export("acme", path)
    text = gzip.decompress(path.read_bytes()).decode()
    for key in ApiKey.objects.filter(tenant__name="acme"):
        assert key.prefix not in text and key.secret_hmac not in text


# --- over HTTP: a tenant's owner ---------------------------------------------------------------


def download(api: Api, **params: Any) -> tuple[int, Any, bytes]:
    resp: Any = api.client.get("/api/tenant/export", params, headers=api._headers())
    data = b"".join(resp.streaming_content) if resp.streaming else resp.content
    return resp.status_code, resp, data


def upload(api: Api, data: bytes) -> tuple[int, Any]:
    resp = api.client.post(
        "/api/tenant/import", data=data, content_type="application/gzip", headers=api._headers()
    )
    return resp.status_code, json.loads(resp.content)


def test_an_owner_downloads_the_archive_and_restores_it_into_a_new_tenant(cast: Cast) -> None:
    cast.owner.store(title="Deploy day", content="We deploy on Thursdays.")
    status, resp, data = download(cast.owner)
    assert status == 200 and resp["Content-Type"] == "application/gzip"
    assert resp["Content-Disposition"].startswith('attachment; filename="ctx-acme-')
    head = json.loads(gzip.decompress(data).splitlines()[0])
    assert head["tenant"] == "acme" and head["embeddings"] is True
    delete("acme")

    fresh = tenancy.new_tenant(name="initech")
    owner = Api(fresh.raw_key)
    status, body = upload(owner, data)
    assert status == 200, body
    assert body["tenant"] == "initech" and body["restored"]["ctx.block"] == 1
    status, found = owner.post("/api/search", {"query": "deploy Thursdays"})
    assert status == 200 and found["results"][0]["title"] == "Deploy day"
    status, again = upload(owner, data)  # it holds blocks now
    assert status == 409 and again["error"]["code"] == "conflict"


def test_only_an_owner_takes_or_restores_the_tenant(cast: Cast) -> None:
    cast.owner.store(title="Secret plan", content="Only for acme.")
    _, _, data = download(cast.owner)
    for api in (cast.reader, cast.writer):
        assert download(api)[0] == 403
        assert upload(api, data)[0] == 403
    assert download(cast.outsider)[0] == 403  # globex's member
    _, raw = services.key_create(
        tenant=cast.globex, name="boss", home="globex:main", role=ApiKey.Role.OWNER
    )
    status, _, theirs = download(Api(raw))  # globex's owner takes globex, nothing of acme
    rows = gzip.decompress(theirs)
    assert status == 200 and b"Secret plan" not in rows and b"acme" not in rows


def test_a_bad_upload_is_a_validation_error_naming_the_archive(cast: Cast) -> None:
    for junk in (b"", b"plain text", gzip.compress(b'{"ctx_export": 99}\n')):
        status, body = upload(cast.owner, junk)
        assert status == 400 and body["error"]["details"]["field"] == "archive", body


def rewrite(path: Path, change: Any) -> None:
    """Edit an archive's rows in place: `change(model, row)` may alter a row."""
    out = []
    for line in gzip.decompress(path.read_bytes()).splitlines():
        doc = json.loads(line)
        if "m" in doc:
            change(doc["m"], doc["r"])
        out.append(json.dumps(doc).encode())
    path.write_bytes(gzip.compress(b"\n".join(out) + b"\n"))


def test_an_archive_pointing_at_another_tenants_block_is_refused(
    cast: Cast, tmp_path: Path
) -> None:
    theirs = cast.outsider.store(title="Globex plan", content="Only for globex.")["id"]
    cast.owner.store(title="Acme note", content="Ours.")
    path = tmp_path / "acme.jsonl.gz"
    export("acme", path)
    delete("acme")

    def link_out(model: str, row: dict[str, Any]) -> None:
        if model == "ctx.block":
            row["superseded_by_id"] = theirs

    rewrite(path, link_out)
    with pytest.raises(CommandError, match=r"ctx\.block\.superseded_by names a row outside"):
        restore(path)
    assert not Tenant.objects.filter(name="acme").exists()
    assert Block.objects.get(pk=theirs).scope.tenant.name == "globex"


def test_a_settings_override_this_server_refuses_is_reported_not_restored(
    cast: Cast, tmp_path: Path
) -> None:
    assert send(cast.owner, "PUT", "/api/settings/CTX_RERANK_TOP_N", {"value": 50})[0] == 200
    path = tmp_path / "acme.jsonl.gz"
    export("acme", path)
    delete("acme")

    def server_only(model: str, row: dict[str, Any]) -> None:
        if model == "ctx.settingoverride":
            row["key"] = "CTX_RERANK_BUDGET_MS"  # a server-wide knob, never per tenant

    rewrite(path, server_only)
    _, err = restore(path)
    assert "CTX_RERANK_BUDGET_MS cannot be overridden per tenant" in err
    assert not SettingOverride.objects.filter(tenant__name="acme").exists()
