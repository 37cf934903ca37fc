"""AES-256-GCM sealing of secret values, and the master keys that seal them.

Pure functions with no Django import: the break-glass `--stdin` mode opens an exported row with
nothing but this module and the environment, so it works while the database or server is down.
No message raised here ever contains a key, a plaintext or a ciphertext.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

KEY_BYTES = 32
NONCE_BYTES = 12  # the GCM standard size; a fresh random one per seal
AD_PREFIX = b"ctx-secret:v1:"
CURRENT = "CTX_SECRETS_KEY"
PREVIOUS = "CTX_SECRETS_KEY_PREV"
EXPORT_FIELDS = ("name", "scope", "ciphertext", "nonce", "key_version")


class KeyConfigError(Exception):
    """The key settings are malformed; the message names the variable, never its value."""


class OpenFailed(Exception):
    """No configured key opens the sealed value (wrong key, or a row copied elsewhere)."""

    def __init__(self) -> None:
        super().__init__(
            "No configured key opens this secret (wrong key, or it was tampered with)."
        )


@dataclass(frozen=True)
class MasterKey:
    raw: bytes = field(repr=False)  # repr=False: a logged or printed keyring shows no key

    @property
    def version(self) -> str:
        return fingerprint(self.raw)


@dataclass(frozen=True)
class Sealed:
    ciphertext: bytes
    nonce: bytes
    key_version: str


@dataclass(frozen=True)
class Keyring:
    current: MasterKey | None
    previous: MasterKey | None = None

    def openers(self, key_version: str) -> list[MasterKey]:
        """The configured keys, the one whose fingerprint matches the row first."""
        keys = [k for k in (self.current, self.previous) if k is not None]
        return sorted(keys, key=lambda k: k.version != key_version)


def fingerprint(key: bytes) -> str:
    """A short, non-secret name of a key: the first 8 hex digits of its SHA-256."""
    return hashlib.sha256(key).hexdigest()[:8]


def associated_data(scope: str, name: str) -> bytes:
    """Binds a ciphertext to its row: opened under another (scope, name) the tag fails."""
    # NUL cannot occur in a scope or a secret name, so the encoding is unambiguous.
    return AD_PREFIX + scope.encode("utf-8") + b"\0" + name.encode("utf-8")


def seal(key: MasterKey, *, scope: str, name: str, value: str) -> Sealed:
    nonce = os.urandom(NONCE_BYTES)
    ciphertext = AESGCM(key.raw).encrypt(nonce, value.encode("utf-8"), associated_data(scope, name))
    return Sealed(ciphertext=ciphertext, nonce=nonce, key_version=key.version)


def unseal(
    keys: Iterable[MasterKey], *, scope: str, name: str, sealed: Sealed
) -> tuple[str, MasterKey]:
    """The plaintext and the key that opened it; OpenFailed when none does."""
    ad = associated_data(scope, name)
    for key in keys:
        try:
            plain = AESGCM(key.raw).decrypt(sealed.nonce, sealed.ciphertext, ad)
        except (InvalidTag, ValueError):  # ValueError: a malformed nonce
            continue
        return plain.decode("utf-8"), key
    raise OpenFailed()


# --- keys from the environment ----------------------------------------------------------------


def parse_key(text: str, *, source: str) -> MasterKey:
    value = text.strip().lower()
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raw = b""
    if len(raw) != KEY_BYTES or len(value) != 2 * KEY_BYTES:
        raise KeyConfigError(f"{source} must hold 64 hex characters (32 random bytes).")
    return MasterKey(raw)


def _key_from(env: Mapping[str, Any], name: str) -> MasterKey | None:
    inline = str(env.get(name) or "").strip()
    path = str(env.get(f"{name}_FILE") or "").strip()
    if inline and path:
        raise KeyConfigError(f"Set {name} or {name}_FILE, not both.")
    if inline:
        return parse_key(inline, source=name)
    if not path:
        return None
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise KeyConfigError(f"{name}_FILE: cannot read {path} ({exc.strerror}).") from None
    return parse_key(text, source=f"{name}_FILE ({path})")


def keyring_from(env: Mapping[str, Any]) -> Keyring:
    """The current and previous keys from os.environ or the parsed settings (same names)."""
    return Keyring(current=_key_from(env, CURRENT), previous=_key_from(env, PREVIOUS))


# --- the export format of one sealed row (break-glass) ------------------------------------------


def export_doc(*, scope: str, name: str, sealed: Sealed) -> dict[str, str]:
    """A JSON-ready row: opening it needs the key, so it may travel through a terminal."""
    return {
        "name": name,
        "scope": scope,
        "ciphertext": base64.b64encode(sealed.ciphertext).decode("ascii"),
        "nonce": base64.b64encode(sealed.nonce).decode("ascii"),
        "key_version": sealed.key_version,
    }


def import_doc(doc: Any) -> tuple[str, str, Sealed]:
    """(scope, name, sealed) from an exported row; ValueError names the faulty field only."""
    if not isinstance(doc, dict):
        raise ValueError("expected a JSON object with " + ", ".join(EXPORT_FIELDS))
    missing = [f for f in EXPORT_FIELDS if not isinstance(doc.get(f), str)]
    if missing:
        raise ValueError("missing or non-string fields: " + ", ".join(missing))
    sealed = Sealed(
        ciphertext=_b64(doc["ciphertext"], "ciphertext"),
        nonce=_b64(doc["nonce"], "nonce"),
        key_version=doc["key_version"],
    )
    if len(sealed.nonce) != NONCE_BYTES:
        raise ValueError(f"'nonce' must decode to {NONCE_BYTES} bytes")
    return doc["scope"], doc["name"], sealed


def open_export(doc: Any, keyring: Keyring) -> tuple[str, str, str]:
    """(scope, name, plaintext) of an exported row; ValueError or OpenFailed otherwise."""
    scope, name, sealed = import_doc(doc)
    value, _ = unseal(keyring.openers(sealed.key_version), scope=scope, name=name, sealed=sealed)
    return scope, name, value


def _b64(text: str, name: str) -> bytes:
    # Whitespace is dropped first: PostgreSQL's encode(…, 'base64') wraps its output every 76
    # characters, and an operator piping `psql -At` into break-glass should not have to strip
    # the line breaks by hand. Anything else outside the alphabet is still refused.
    try:
        return base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(f"'{name}' is not valid base64") from None
