"""The web UI's helpers: a Django client signed in through the sign-in form with a key."""

from __future__ import annotations

import re

from django.test import Client

# Every page must carry its scripts as files: an inline <script> (with a body) is refused by
# the policy, and one would mean the template put text where code runs.
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.IGNORECASE)


def signed_in(raw_key: str | None, *, csrf: bool = False) -> Client:
    """A client whose session was started by posting `raw_key` to the sign-in form."""
    assert raw_key is not None
    client = Client(enforce_csrf_checks=csrf)
    if csrf:
        client.get("/sign-in")
        data = {"api_key": raw_key, "csrfmiddlewaretoken": client.cookies["csrftoken"].value}
    else:
        data = {"api_key": raw_key}
    resp = client.post("/sign-in", data)
    assert resp.status_code == 302, resp.content.decode()[:2000]
    return client


def text(resp: object) -> str:
    return resp.content.decode()  # type: ignore[attr-defined]


_TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')


def page_text(resp: object) -> str:
    """The page with its CSRF token blanked (a masked token differs on every render)."""
    return _TOKEN.sub('name="csrfmiddlewaretoken" value=""', text(resp))
