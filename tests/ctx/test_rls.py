"""Row-level security: a query that forgets its tenant filter still sees only the caller's rows.

The suite's own connection is the table owner (RLS does not apply to it). These tests switch
to the runtime role `ctx_app` explicitly: inside the test's transaction with SET ROLE for the
visibility rules, and over a real login as `ctx_app` for the ways out that must stay shut.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.db import DatabaseError, connection, transaction

from ctx import selectors
from ctx.models import Block, BlockVersion, Scope
from dream.models import (
    DigestState,
    DreamState,
    GuardFlag,
    Link,
    LinkClass,
    LinkOrigin,
    LinkSet,
)
from ingest.models import ImportJob, Message, Session, SessionEvent, Source, Window
from retrieval.models import BlockChunk, TemporalAnchor, TermStat
from rls import context as rls
from rls.role import ROLE
from secrets.models import Secret
from tests.conftest import Cast

POLICED = [
    "ctx_block",
    "ctx_blockversion",
    "ctx_blockchunk",
    "ctx_temporalanchor",
    "ctx_termstat",
    "dream_link",
    "dream_dreamstate",
    "dream_guardflag",
    "dream_digeststate",
    "dream_linkset",
    "secrets_secret",
    "ingest_source",
    "ingest_session",
    "ingest_message",
    "ingest_window",
    "ingest_importjob",
    "ingest_sessionevent",
]
# The scope of each policed table's rows, unfiltered: what a forgotten filter would return.
SCOPES_OF = {
    "ctx_blockchunk": "SELECT scope_id FROM ctx_blockchunk",
}


def _scope(name: str) -> Scope:
    return Scope.objects.get(name=name)


def _tenant_rows(scope: Scope, tag: str) -> None:
    """One row in every policed table, in `scope`."""
    a = Block.objects.create(
        scope=scope, category="c", title=f"{tag} a", content="x", content_hash="h"
    )
    b = Block.objects.create(
        scope=scope, category="c", title=f"{tag} b", content="y", content_hash="h"
    )
    BlockChunk.objects.create(block=a, scope_id=a.scope_id, idx=0, embedding=[0.1] * 384)
    BlockVersion.objects.create(
        block=a,
        scope=scope,
        version=1,
        category="c",
        title=f"{tag} a",
        content="w",
        type="knowledge",
        sensitivity="internal",
        written_at=a.updated_at,
        replaced_by="owner",
        replaced_via="http",
    )
    TemporalAnchor.objects.create(
        block=a,
        scope=scope,
        dimension="year",
        value=2025,
        source_date=dt.date(2025, 1, 1),
        kind="content",
    )
    Link.objects.create(
        source=a,
        target=b,
        scope=scope,
        link_class=LinkClass.CAUSAL,
        origin=LinkOrigin.values[0],
        confidence=0.9,
        raw_confidence=0.9,
    )
    TermStat.objects.create(scope=scope, config="english", lexeme=tag, df=2)
    DreamState.objects.create(block=a, tenant_id=scope.tenant_id, scope=scope)
    GuardFlag.objects.create(block=a, twin=b, scope=scope, similarity=0.99, kind="similar")
    DigestState.objects.create(scope=scope)
    LinkSet.objects.create(block=a, scope=scope, links=[], replaced_at=a.updated_at)
    Secret.objects.create(
        scope=scope, name=f"{tag}-token", ciphertext=b"c", nonce=b"n" * 12, key_version="k1"
    )
    _conversation_rows(scope, tag, a)


def _conversation_rows(scope: Scope, tag: str, block: Block) -> None:
    source = Source.objects.create(scope=scope, tool="codex", path=f"/{tag}.jsonl")
    session = Session.objects.create(
        scope=scope, tool="codex", external_id="same-id-in-both-tenants", source=source
    )
    Message.objects.create(
        session=session, scope=scope, index=0, role="user", text=tag, content_hash="h"
    )
    Window.objects.create(session=session, scope=scope, first_index=0, last_index=0, block=block)
    SessionEvent.objects.create(
        session=session,
        scope=scope,
        seq=1,
        kind="file_read",
        priority=1,
        text=tag,
        at=block.updated_at,
        content_hash="h",
    )
    ImportJob.objects.create(scope=scope)


@pytest.fixture
def tenants(cast: Cast) -> Cast:
    _tenant_rows(_scope("acme:main"), "acme")
    _tenant_rows(_scope("globex:main"), "globex")
    return cast


def _principal(cast: Cast, which: str) -> Any:
    return selectors.principal_for_key(getattr(cast, which).key)


def _scopes_seen(table: str) -> set[int]:
    sql = SCOPES_OF.get(table, f"SELECT scope_id FROM {table}")  # noqa: S608 - ours
    with connection.cursor() as cur:
        cur.execute(sql)
        return {row[0] for row in cur.fetchall()}


def test_it_shows_an_unfiltered_query_only_the_callers_rows(
    tenants: Cast, runtime_role: None
) -> None:
    owner = _principal(tenants, "owner")
    with rls.using(rls.for_principal(owner)):
        assert {b.title for b in Block.objects.all()} == {"acme a", "acme b"}
        for table in POLICED:
            assert _scopes_seen(table) == {_scope("acme:main").pk}, table
        assert [s.name for s in Secret.objects.all()] == ["acme-token"]


def test_it_shows_the_other_tenant_only_its_own_rows(tenants: Cast, runtime_role: None) -> None:
    with rls.using(rls.for_principal(_principal(tenants, "outsider"))):
        for table in POLICED:
            assert _scopes_seen(table) == {_scope("globex:main").pk}, table


def test_it_shows_nothing_without_a_context(tenants: Cast, runtime_role: None) -> None:
    with rls.using(rls.NONE):
        for table in POLICED:
            assert _scopes_seen(table) == set(), table


def test_it_shows_every_tenant_in_the_system_context(tenants: Cast, runtime_role: None) -> None:
    with rls.using(rls.SYSTEM):
        assert Block.objects.count() == 4


def _refused(work: Any) -> bool:
    try:
        with transaction.atomic():
            work()
    except DatabaseError as exc:
        return "row-level security" in str(exc)
    return False


def test_it_refuses_writes_outside_the_writable_scopes(tenants: Cast, runtime_role: None) -> None:
    globex = _scope("globex:main")
    acme_main = _scope("acme:main")
    with rls.using(rls.for_principal(_principal(tenants, "owner"))):
        assert _refused(
            lambda: Block.objects.create(
                scope=globex, category="c", title="planted", content="x", content_hash="h"
            )
        )
        # Moving an own block into another tenant's scope is a write there too.
        assert _refused(lambda: Block.objects.filter(title="acme a").update(scope=globex))
        # Another tenant's rows are not there to change or delete.
        assert Block.objects.filter(scope=globex).update(title="renamed") == 0
    with rls.using(rls.for_principal(_principal(tenants, "reader"))):  # reads acme:main only
        assert Block.objects.filter(scope=acme_main).count() == 2
        assert Block.objects.filter(scope=acme_main).update(title="renamed") == 0
    with rls.using(rls.SYSTEM):
        assert set(Block.objects.values_list("title", flat=True)) == {
            "acme a",
            "acme b",
            "globex a",
            "globex b",
        }


@pytest.fixture
def app_login(db: Any) -> Iterator[psycopg.Connection[Any]]:
    """A real login as the runtime role, as the web processes and workers make it."""
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    params.pop("prepare_threshold", None)
    params["user"] = ROLE
    params.pop("password", None)
    with psycopg.connect(**params, autocommit=True) as conn:
        yield conn


def _fails(conn: psycopg.Connection[Any], sql: str) -> bool:
    try:
        conn.execute(sql)
    except psycopg.Error:
        return True
    return False


def test_it_keeps_the_runtime_role_inside_the_wall(app_login: psycopg.Connection[Any]) -> None:
    row = app_login.execute(
        "SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user"
    ).fetchone()
    assert row == (False, False)
    assert _fails(app_login, "ALTER TABLE ctx_block DISABLE ROW LEVEL SECURITY")
    assert _fails(app_login, "DROP POLICY ctx_read ON ctx_block")
    assert _fails(app_login, "SET ROLE postgres")
    # With row_security off, PostgreSQL refuses the query instead of skipping the policy.
    app_login.execute("SET row_security = off")
    assert _fails(app_login, "SELECT count(*) FROM ctx_block")
    app_login.execute("RESET row_security")
    assert app_login.execute("SELECT count(*) FROM ctx_block").fetchone() == (0,)


def test_it_resets_the_context_between_requests(tenants: Cast) -> None:
    status, _ = tenants.owner.get("/api/whoami")
    assert status == 200
    assert rls.current() == rls.NONE  # the next request on this thread starts with nothing


def test_it_serves_requests_under_the_runtime_role(tenants: Cast, runtime_role: None) -> None:
    """Through the API as `ctx_app`: the request's own scopes are applied after authentication."""
    stored = tenants.owner.store(title="acme c", content="stored under the runtime role")
    status, found = tenants.owner.post("/api/search", {"query": "runtime role"})
    assert status == 200
    assert [r["id"] for r in found["results"]] == [stored["id"]]
    status, _ = tenants.outsider.post("/api/manage", {"action": "get", "id": stored["id"]})
    assert status == 404
    body = {"scope": "acme:main", "category": "c", "title": "x", "content": "planted"}
    status, body = tenants.outsider.post("/api/store", body)
    assert status in (403, 404), body


def test_it_refuses_a_reader_with_403_under_the_runtime_role(
    tenants: Cast, runtime_role: None
) -> None:
    """`FOR UPDATE` sees writable scopes only under RLS: a block the key only reads must still
    answer the 403 it answers as the owner, not the 404 of a missing block."""
    stored = tenants.owner.store(title="acme r", content="read, not written")
    for action, extra in (("delete", {}), ("update", {"fields": {"content": "x"}})):
        status, body = tenants.reader.post(
            "/api/manage", {"action": action, "id": stored["id"]} | extra
        )
        assert (status, body["error"]["code"]) == (403, "forbidden"), (action, body)
    status, body = tenants.outsider.post("/api/manage", {"action": "delete", "id": stored["id"]})
    assert status == 404


def test_it_starts_the_servers_as_the_runtime_role() -> None:
    from ctx.runtime import embedded, launcher

    handles = embedded.Embedded(database_url="postgresql://postgres:@/postgres?host=/run/pg")
    assert launcher._runtime_url(handles) == "postgresql://ctx_app@/postgres?host=/run/pg"
    assert launcher._runtime_url(embedded.Embedded()) is None  # external: used as given


def _plan(sql: str) -> str:
    with connection.cursor() as cur:
        cur.execute("SET LOCAL enable_seqscan = off")
        cur.execute("EXPLAIN " + sql)
        return "\n".join(row[0] for row in cur.fetchall())


def test_it_keeps_the_text_indexes_usable_under_the_policy(
    tenants: Cast, runtime_role: None
) -> None:
    """A non-LEAKPROOF operator may not run before the policy, which rules out its index."""
    with rls.using(rls.for_principal(_principal(tenants, "owner"))):
        fts = _plan("SELECT id FROM ctx_block WHERE tsv_en @@ to_tsquery('english', 'garden')")
        title = _plan("SELECT id FROM ctx_block WHERE title % 'acme garden'")
    assert "block_tsv_en_gin" in fts, fts
    assert "block_title_trgm" in title, title


def test_it_lets_a_server_admin_delete_another_tenant_under_the_runtime_role(
    tenants: Cast, runtime_role: None
) -> None:
    from tests.api.settings_support import server_admin

    with rls.using(rls.SYSTEM):  # the cast's helper writes keys and scopes as a command would
        admin = server_admin()
    resp = admin.client.delete(
        "/api/admin/tenants/globex", headers={"X-Context-Key": str(admin.key)}
    )
    assert resp.status_code == 200, resp.content
    with rls.using(rls.SYSTEM):
        assert not Block.objects.filter(title__startswith="globex").exists()
        assert not Scope.objects.filter(name="globex:main").exists()
