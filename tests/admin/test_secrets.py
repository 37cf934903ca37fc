"""Sealed secrets in the admin (test client): metadata only, writes through the operations,
delete refused while a setting names the secret."""

from __future__ import annotations

import base64

import pytest
from django.conf import LazySettings

from ctx.models import Scope
from ctx.overrides.models import SettingOverride
from secrets.models import Secret, SecretAudit
from tests.admin.conftest import Keys, sign_in
from tests.secrets.conftest import KEY_A, VALUE, make_secret, use_keys

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def master_key(settings: LazySettings) -> None:
    use_keys(settings, KEY_A)


def test_it_shows_metadata_never_a_value_or_ciphertext(keys: Keys) -> None:
    make_secret(keys.owner_key, "db")
    secret = Secret.objects.get()
    leaks = (VALUE, base64.b64encode(secret.ciphertext).decode(), bytes(secret.ciphertext).hex())
    client = sign_in(keys.owner)
    for url in (
        "/admin/secrets/secret/",
        f"/admin/secrets/secret/{secret.pk}/change/",
        "/admin/secrets/secretaudit/",
    ):
        page = client.get(url).content.decode()
        assert "db" in page and not any(leak in page for leak in leaks)
        assert "ciphertext" not in page.lower()


def test_its_add_form_starts_on_the_keys_home_scope(keys: Keys) -> None:
    page = sign_in(keys.owner).get("/admin/secrets/secret/add/").content.decode()
    home = Scope.objects.get(name="acme:main").pk
    assert f'<option value="{home}" selected>' in page


def test_it_refuses_to_delete_a_secret_a_setting_names(keys: Keys) -> None:
    make_secret(keys.owner_key, "llm")
    secret = Secret.objects.get()
    # Credential knobs are server-wide: the server admin names acme's secret as tenant/scope.
    resp = sign_in(keys.root).post(
        "/admin/ctx/settingoverride/add/",
        {
            "key": "CTX_LLM_API_KEY",
            "tenant_name": "",
            "value_json": '{"secret": "llm", "scope": "acme/acme:main"}',
        },
    )
    assert resp.status_code == 302, resp.content.decode()[:3000]
    client = sign_in(keys.owner)
    resp = client.post(f"/admin/secrets/secret/{secret.pk}/delete/", {"post": "yes"}, follow=True)
    assert "is still referenced by: setting:CTX_LLM_API_KEY." in resp.content.decode()
    assert Secret.objects.exists()
    SettingOverride.objects.all().delete()
    client.post(f"/admin/secrets/secret/{secret.pk}/delete/", {"post": "yes"})
    assert not Secret.objects.exists()
    assert SecretAudit.objects.latest("id").action == "deleted"


def test_it_writes_only_into_a_scope_the_key_may_write(keys: Keys) -> None:
    client = sign_in(keys.owner)
    globex = Scope.objects.get(name="globex:main")
    resp = client.post(
        "/admin/secrets/secret/add/", {"scope": globex.pk, "name": "x", "value": VALUE}
    )
    assert resp.status_code == 200 and VALUE not in resp.content.decode()
    assert not Secret.objects.exists()


def test_it_lets_a_server_admin_set_a_secret_in_any_tenant(keys: Keys) -> None:
    globex = Scope.objects.get(name="globex:main")
    resp = sign_in(keys.root).post(
        "/admin/secrets/secret/add/", {"scope": globex.pk, "name": "hook", "value": VALUE}
    )
    assert resp.status_code == 302, resp.content.decode()[:2000]
    assert Secret.objects.get().scope_id == globex.pk
    assert SecretAudit.objects.get().scope == "globex/globex:main"
