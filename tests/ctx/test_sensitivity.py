"""The sensitivity detector on literal data: what it flags, what it leaves alone, its cost."""

from __future__ import annotations

import base64
import json
import random
import string
import time

import pytest

from ctx.sensitivity import (
    CREDENTIALS,
    INTERNAL,
    PERSONAL,
    PUBLIC,
    detect,
    detect_block,
    highest,
    luhn,
    text_level,
)


def _jwt(header: dict[str, str]) -> str:
    def part(data: dict[str, str]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{part(header)}.{part({'sub': '1234567890'})}.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0"


# Built from parts so that no literal secret-shaped string sits in the repository.
AWS = "AKIA" + "IOSFODNN7EXAMPLE"
CREDENTIAL_CASES = [
    (f"Our deploy key is {AWS} for the staging account.", "aws_access_key"),
    ("Temporary creds: ASIA" + "Y34FZKBOKMUTVV7A", "aws_access_key"),
    (
        '{"type": "service_account", "project_id": "p", "private_key": "-----BEGIN PRIVATE'
        ' KEY-----\\nMIIEvQIBADANBg\\n-----END PRIVATE KEY-----\\n"}',
        "gcp_service_account",
    ),
    (
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey="
        + "q1w2E3r4T5y6U7i8O9p0AaSsDdFfGgHh==;EndpointSuffix=core.windows.net",
        "azure_connection_string",
    ),
    ("token: ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5", "github_token"),
    ("github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "github_token"),
    ("CI uses glpat-" + "x8Yz3AbCdEfGhIjKlMnO", "gitlab_token"),
    ("bot token xoxb-" + "123456789012-abcdefABCDEF", "slack_token"),
    ("stripe: sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "stripe_key"),
    ("OPENAI=sk-" + "proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34", "openai_key"),
    ("key sk-" + "T3BlbkFJ1234abcdEFGH5678ijkl", "openai_key"),
    ("claude key sk-ant-" + "api03-AbCdEf123456GhIjKl789012", "anthropic_key"),
    ("maps AIza" + "SyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI", "google_api_key"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----", None),
    ("-----BEGIN OPENSSH PRIVATE KEY-----", "pem_private_key"),
    ("-----BEGIN PGP PRIVATE KEY BLOCK-----", "pem_private_key"),
    (f"Authorization: Bearer {_jwt({'alg': 'HS256', 'typ': 'JWT'})}", "jwt"),
    ("db.password = hunter2hunter2", "password_assignment"),
    ('export DB_PASSWORD="s3cr3t-Pa55"', "password_assignment"),
    ("client_secret: Zx81kfQ09a", "password_assignment"),
    ("Kennwort: Sommer2024!", "password_assignment"),
    ("Always use the password hunter2-Xq9!zz7 for the db.", "password_in_prose"),
    ("my password is hunter2", "password_in_prose"),
    ("Das Passwort ist Sommer2024!", "password_in_prose"),
    ('the wifi passphrase is "Tr0ub4dor&3"', "password_in_prose"),
    ("export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", None),
    ("session wP8kL2xQ9zR4mN7vB1cT6yH3jF5gD0sA expires soon", "high_entropy_token"),
]


@pytest.mark.parametrize(("text", "reason"), CREDENTIAL_CASES)
def test_it_flags_credentials(text: str, reason: str | None) -> None:
    found = detect(text)
    assert found.level == CREDENTIALS
    if reason is not None:
        assert reason in found.reasons


PERSONAL_CASES = [
    ("Write to jane.doe@gmail.com about the offer.", "email_address"),
    ("Ruf mich an: +49 30 12345678", "phone_number"),
    ("US office (555) 123-4567", "phone_number"),
    ("Tel.: 030 1234567", "phone_number"),
    ("IBAN DE89 3704 0044 0532 0130 00 (Girokonto)", "iban"),
    ("IBAN GB82WEST12345698765432", "iban"),
    ("card 4111 1111 1111 1111 exp 12/29", "credit_card"),
    ("Amex 3782-822463-10005", "credit_card"),
]


@pytest.mark.parametrize(("text", "reason"), PERSONAL_CASES)
def test_it_flags_personal_data(text: str, reason: str) -> None:
    assert detect(text) == detect(text)  # deterministic
    found = detect(text)
    assert found.level == PERSONAL and found.reasons == (reason,)


NEGATIVES = [
    "The western region grew faster than the eastern one.",
    "We met partners from Slovakia and the ASIA-Pacific office.",
    "ASIAPACIFICSALES2024 is the campaign code.",
    "The task-force reviewed the risk-assessment-for-the-new-product-line.",
    "Whisk-based recipes and sk-8 boards",
    "Commit 3f2a9c1d4e5b6a7980f1e2d3c4b5a69788796a5b fixed the build.",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "Request id 123e4567-e89b-12d3-a456-426614174000 failed.",
    "uuid 123e4567e89b12d3a456426614174000",
    "Die Straße ist schön; wir treffen uns um 14:00 Uhr am Hauptbahnhof, Gleis 7.",
    "Die Kennwortrichtlinie verlangt mindestens 12 Zeichen und einen Passwortmanager.",
    "The secret: we never ship on Fridays.",
    "secret_sauce = tomatoes",
    "password: see the vault",
    "password=<your-password>",
    "PASSWORD=${DB_PASSWORD}",
    "password: ********",
    "password_reset_url: https://x.example/reset",
    "The password is required and passwords expire every 90 days.",
    "Password policy: at least 12 characters; use a password manager like 1Password.",
    "password reset link https://x.example/r/abc123",
    "pwd /home/me2/src",
    "the password is <your-password2>",
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----",
    "![img](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
    "YPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==)",
    "See /usr/local/lib/python3.11/site-packages/django/db/models/Query2Set.py",
    "TODO_fixTheLoginFlowForOAuth2Clients_v3 and AbstractSingletonProxyFactoryBean2",
    "https://github.com/acme/widgets/blob/main/src/UserProfile2Card/index.tsx",
    "node_modules/@types/react-dom/index.d.ts and @property decorators",
    "Mail jane@example.com or test@foo.test, never user@localhost",
    "Release 1.2.3 on 2024-03-01, ticket #12345, 12,500 EUR budget.",
    "In 2023 we served 1234567890123 requests; order 1234 5678 9012 3456.",
    "Telefonnummer der Zentrale steht im Wiki.",
    "eyJhbGciOi is the start of many tokens; abc.def.ghi is not one.",
    "DE00 0000 0000 0000 0000 00 is not a valid IBAN",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_it_leaves_ordinary_text_alone(text: str) -> None:
    assert detect(text).level == PUBLIC, detect(text).reasons


def test_it_rejects_a_three_part_token_whose_header_is_not_a_jwt() -> None:
    fake = _jwt({"typ": "JWT"})  # no alg: not a JWT header
    assert "jwt" not in detect(fake).reasons


def test_it_checks_luhn() -> None:
    assert luhn("4111111111111111") and not luhn("4111111111111112")


def test_it_reads_title_tags_and_metadata_too() -> None:
    assert detect_block(AWS, "harmless").level == CREDENTIALS
    assert detect_block("t", "harmless", tags=["jane.doe@gmail.com"]).level == PERSONAL
    found = detect_block("t", "harmless", metadata={"db": {"password": "hunter2hunter2"}})
    assert found.reasons == ("password_assignment",)


def test_it_names_detectors_never_the_matched_text() -> None:
    found = detect(f"key {AWS} and mail jane.doe@gmail.com")
    assert found.level == CREDENTIALS
    assert found.reasons == ("aws_access_key", "email_address")
    assert AWS not in repr(found) and "jane" not in repr(found)


def test_it_orders_levels() -> None:
    assert highest(PUBLIC, CREDENTIALS, INTERNAL) == CREDENTIALS
    assert highest(PERSONAL, INTERNAL) == PERSONAL
    assert highest() == PUBLIC
    assert highest("bogus", CREDENTIALS) == "bogus"  # unknown ranks highest: fail closed
    assert text_level("what is our deploy policy?") == INTERNAL
    assert text_level(f"why does {AWS} fail?") == CREDENTIALS


def _adversarial() -> dict[str, str]:
    n = 50_000
    rng = random.Random(7)
    b64 = string.ascii_letters + string.digits + "+/"
    return {
        "at": "@" * n,
        "a@": "a@" * (n // 2),
        "dots": "ab." * (n // 3),
        "local-part": "x." * (n // 2),
        "domain": "a@" + "b." * (n // 2),
        "jwt-parts": "eyJabcd." * (n // 8),
        "pem": "-----BEGIN " * (n // 11),
        "password": "password=" * (n // 9),
        "plus": "+1 " * (n // 3),
        "digits": "4 " * (n // 2),
        "iban": "DE89 " * (n // 5),
        "sk": "sk-" * (n // 3),
        "underscores": "a_" * (n // 2),
        "base64": "".join(rng.choice(b64) for _ in range(n)),
        "tokens": " ".join("".join(rng.choice(b64) for _ in range(24)) for _ in range(n // 25)),
        "public-pem": "-----BEGIN PUBLIC KEY-----\n"
        + "\n".join("".join(rng.choice(b64) for _ in range(24)) for _ in range(n // 25)),
    }


def test_it_scans_50_kb_of_adversarial_text_in_bounded_time() -> None:
    """Linear patterns: measured worst case ~55 ms on 2 busy cores (docs/security.md)."""
    for name, text in _adversarial().items():
        started = time.perf_counter()
        detect(text)
        elapsed = time.perf_counter() - started
        assert elapsed < 1.0, f"{name}: {elapsed:.3f} s"


# --- redact ---------------------------------------------------------------------------------


def test_it_redacts_credentials_into_typed_placeholders() -> None:
    from ctx.sensitivity import redact

    text = (
        "key AKIAIOSFODNN7EXAMPLE and "
        "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
        " token ghp_abcdefghijklmnopqrstuvwxyz0123456789 mail bob@acme.io"
    )
    clean, found = redact(text)
    assert clean == (
        "key [redacted:aws-key] and AWS_SECRET_ACCESS_KEY=[redacted:password]"
        " token [redacted:github-token] mail bob@acme.io"
    )
    assert found == ("aws_access_key", "github_token", "high_entropy_token", "password_assignment")


def test_it_redacts_a_private_key_block_to_its_end_line() -> None:
    from ctx.sensitivity import redact

    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----"
    assert redact(f"before\n{pem}\nafter")[0] == "before\n[redacted:private-key]\nafter"


def test_it_leaves_text_without_credentials_unchanged() -> None:
    from ctx.sensitivity import redact

    text = "commit 3f2a9c1e, uuid 0a9e8d7c-6b5a-4f3e-8d2c-1b0a9f8e7d6c, password=${DB_PASSWORD}"
    assert redact(text) == (text, ())
