"""Signing in to the web UI with an API key: a session cookie (HttpOnly, SameSite=Lax), CSRF
on the form, the key's own principal, and sign-out; every page carries the CSP."""

from __future__ import annotations

import pytest
from django.test import Client

from ctx import services
from ctx.models import ApiKey
from frontend.csp import POLICY
from tests.conftest import Cast
from tests.webui.conftest import INLINE_SCRIPT, signed_in, text

pytestmark = pytest.mark.django_db


def test_it_sends_a_signed_out_visitor_to_the_sign_in_page(cast: Cast) -> None:
    resp = Client().get("/")
    assert resp.status_code == 302 and resp["Location"] == "/sign-in?next=%2F"
    page = Client().get("/sign-in")
    assert page.status_code == 200 and 'name="api_key"' in text(page)


def test_it_refuses_a_wrong_key_and_says_so(cast: Cast) -> None:
    resp = Client().post("/sign-in", {"api_key": "ctx_nothing_here"})
    assert resp.status_code == 401
    assert "That is not an active ctx API key." in text(resp)
    assert "sessionid" not in resp.cookies


def test_it_sets_an_httponly_samesite_lax_session_cookie(cast: Cast) -> None:
    client = Client()
    resp = client.post("/sign-in", {"api_key": cast.owner.key, "next": "/search"})
    assert resp.status_code == 302 and resp["Location"] == "/search"
    cookie = resp.cookies["sessionid"]
    assert cookie["httponly"] and cookie["samesite"] == "Lax"
    key = cast.owner.key
    assert key and key not in str(client.session.items())  # the key itself is not kept
    home = client.get("/")
    assert home.status_code == 200 and "owner @ acme" in text(home)


def test_it_refuses_a_sign_in_without_the_csrf_token(cast: Cast) -> None:
    client = Client(enforce_csrf_checks=True)
    resp = client.post("/sign-in", {"api_key": cast.owner.key})
    assert resp.status_code == 403
    assert signed_in(cast.owner.key, csrf=True).get("/").status_code == 200


def test_it_refuses_a_sign_out_without_the_csrf_token(cast: Cast) -> None:
    client = signed_in(cast.owner.key, csrf=True)
    assert client.post("/sign-out").status_code == 403
    assert client.get("/").status_code == 200  # still signed in


def test_it_signs_out(cast: Cast) -> None:
    client = signed_in(cast.owner.key)
    resp = client.post("/sign-out")
    assert resp.status_code == 302 and resp["Location"] == "/sign-in"
    assert client.get("/search").status_code == 302


def test_it_ends_the_session_when_the_key_is_revoked(cast: Cast) -> None:
    client = signed_in(cast.writer.key)
    assert client.get("/").status_code == 200
    services.key_revoke(tenant=cast.acme, prefix=ApiKey.objects.get(name="writer").prefix)
    assert client.get("/").status_code == 302


def test_it_sends_a_policy_without_inline_scripts_on_every_page(cast: Cast) -> None:
    block = cast.owner.store(title="Policy", content="Body")
    client = signed_in(cast.owner.key)
    paths = ["/", "/search?q=policy", "/blocks", f"/blocks/{block['id']}", "/review"]
    paths += [f"/blocks/{block['id']}/edit", f"/graph/{block['id']}", "/blocks/nothing"]
    for path in paths:
        resp = client.get(path)
        assert resp["Content-Security-Policy"] == POLICY, path
        assert not INLINE_SCRIPT.search(text(resp)), path
    assert "script-src 'self';" in POLICY and "unsafe" not in POLICY
    assert Client().get("/sign-in")["Content-Security-Policy"] == POLICY
