"""Sealing: the associated data binds a row, a wrong key opens nothing and says nothing."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from django.conf import LazySettings

from secrets import crypto, services
from secrets.models import Secret
from tests.conftest import Cast
from tests.secrets.conftest import KEY_A, KEY_B, VALUE, make_secret, use_keys, version

KEY = crypto.MasterKey(bytes.fromhex(KEY_A))


def test_it_opens_what_it_sealed_under_the_same_name_and_scope() -> None:
    sealed = crypto.seal(KEY, scope="acme/acme:main", name="db", value=VALUE)
    value, opener = crypto.unseal([KEY], scope="acme/acme:main", name="db", sealed=sealed)
    assert value == VALUE and opener == KEY and sealed.key_version == version(KEY_A)


@pytest.mark.parametrize(
    ("scope", "name"), [("acme/acme:main", "db2"), ("globex/acme:main", "db"), ("acme/x", "db")]
)
def test_it_refuses_a_ciphertext_under_another_name_or_scope(scope: str, name: str) -> None:
    sealed = crypto.seal(KEY, scope="acme/acme:main", name="db", value=VALUE)
    with pytest.raises(crypto.OpenFailed):
        crypto.unseal([KEY], scope=scope, name=name, sealed=sealed)


@pytest.mark.django_db
def test_it_fails_to_open_a_ciphertext_copied_onto_another_row(cast: Cast) -> None:
    make_secret(cast.owner_key, "db", "value-one")
    make_secret(cast.owner_key, "api", "value-two")
    source = Secret.objects.get(name="db")
    Secret.objects.filter(name="api").update(ciphertext=source.ciphertext, nonce=source.nonce)
    with pytest.raises(crypto.OpenFailed):
        services.secret_reveal(name="api", scope_ref="acme/acme:main", actor="test")
    assert services.secret_reveal(name="db", scope_ref=None, actor="test") == "value-one"


@pytest.mark.django_db
def test_it_opens_nothing_and_leaks_nothing_with_a_wrong_key(
    cast: Cast, settings: LazySettings
) -> None:
    make_secret(cast.owner_key, "db")
    row = Secret.objects.get(name="db")
    use_keys(settings, KEY_B)
    with pytest.raises(crypto.OpenFailed) as info:
        services.secret_reveal(name="db", scope_ref=None, actor="test")
    message = str(info.value)
    for leak in (VALUE, bytes(row.ciphertext).hex(), base64.b64encode(row.ciphertext).decode()):
        assert leak not in message
    assert KEY_A not in message and KEY_B not in message


def test_it_uses_a_fresh_nonce_for_every_seal() -> None:
    seals = [crypto.seal(KEY, scope="s", name="n", value=VALUE) for _ in range(50)]
    assert len({s.nonce for s in seals}) == 50 and len({s.ciphertext for s in seals}) == 50
    assert all(len(s.nonce) == crypto.NONCE_BYTES for s in seals)


@pytest.mark.django_db
def test_it_re_seals_with_a_fresh_nonce_when_a_value_is_put_again(cast: Cast) -> None:
    make_secret(cast.owner_key, "db")
    first = Secret.objects.get(name="db")
    make_secret(cast.owner_key, "db")
    second = Secret.objects.get(name="db")
    assert bytes(first.nonce) != bytes(second.nonce)
    assert bytes(first.ciphertext) != bytes(second.ciphertext)


def test_it_never_shows_a_key_in_a_repr() -> None:
    assert KEY_A not in repr(crypto.keyring_from({"CTX_SECRETS_KEY": KEY_A}))
    assert bytes.fromhex(KEY_A).hex() not in repr(KEY) and "raw" not in repr(KEY)


def test_it_reads_keys_inline_or_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "key"
    path.write_text(KEY_B.upper() + "\n")
    ring = crypto.keyring_from({"CTX_SECRETS_KEY": KEY_A, "CTX_SECRETS_KEY_PREV_FILE": str(path)})
    assert ring.current == KEY and ring.previous == crypto.MasterKey(bytes.fromhex(KEY_B))
    assert crypto.keyring_from({}) == crypto.Keyring(current=None, previous=None)


@pytest.mark.parametrize(
    ("env", "needle"),
    [
        ({"CTX_SECRETS_KEY": "abc"}, "64 hex"),
        ({"CTX_SECRETS_KEY": KEY_A, "CTX_SECRETS_KEY_FILE": "/x"}, "not both"),
        ({"CTX_SECRETS_KEY_FILE": "/nonexistent/key"}, "cannot read"),
        ({"CTX_SECRETS_KEY_PREV": "zz" * 32}, "CTX_SECRETS_KEY_PREV"),
    ],
)
def test_it_rejects_malformed_key_settings(env: dict[str, str], needle: str) -> None:
    with pytest.raises(crypto.KeyConfigError, match=needle) as info:
        crypto.keyring_from(env)
    assert "zz" * 32 not in str(info.value)


def test_it_round_trips_an_export_and_names_a_bad_field_only() -> None:
    sealed = crypto.seal(KEY, scope="acme/acme:main", name="db", value=VALUE)
    doc = crypto.export_doc(scope="acme/acme:main", name="db", sealed=sealed)
    ring = crypto.Keyring(current=KEY)
    assert crypto.open_export(doc, ring) == ("acme/acme:main", "db", VALUE)
    with pytest.raises(ValueError, match="'nonce' is not valid base64"):
        crypto.import_doc({**doc, "nonce": "!!"})
    with pytest.raises(ValueError, match="missing or non-string fields: key_version"):
        crypto.import_doc({k: v for k, v in doc.items() if k != "key_version"})
