"""The admin shows metadata and the audit trail, never a value or ciphertext, and edits nothing."""

from __future__ import annotations

import base64

import pytest
from django.contrib.auth.models import User
from django.test import Client

from secrets.models import Secret
from tests.conftest import Cast
from tests.secrets.conftest import VALUE, make_secret

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client_() -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("root", "root@example.com", "pw"))
    return client


def test_it_shows_metadata_only(cast: Cast, admin_client_: Client) -> None:
    make_secret(cast.owner_key, "db")
    secret = Secret.objects.get()
    leaks = (VALUE, base64.b64encode(secret.ciphertext).decode(), bytes(secret.ciphertext).hex())
    for url in (
        "/admin/secrets/secret/",
        f"/admin/secrets/secret/{secret.pk}/change/",
        "/admin/secrets/secretaudit/",
    ):
        resp = admin_client_.get(url)
        page = resp.content.decode()
        assert resp.status_code == 200 and "db" in page
        assert not any(leak in page for leak in leaks)
        assert "ciphertext" not in page.lower()


def test_it_adds_changes_and_deletes_nothing(cast: Cast, admin_client_: Client) -> None:
    make_secret(cast.owner_key, "db")
    pk = Secret.objects.get().pk
    assert admin_client_.get("/admin/secrets/secret/add/").status_code == 403
    assert admin_client_.post(f"/admin/secrets/secret/{pk}/change/", {}).status_code == 403
    assert admin_client_.post(f"/admin/secrets/secret/{pk}/delete/", {}).status_code == 403
    assert Secret.objects.count() == 1
