"""Preference profiles are tenant data: every table of the profiles app is policed by its scope
(docs/rls.md), with two deliberate differences.

- `profiles_activeprofile`: which profile a key pulls is the key's choice, not a change of the
  tenant's data, so a key that may read the profile's scope may also write the row.
- `profiles_publication`: a publication is public by construction (no signals, excerpts,
  history or private facts; docs/profiles.md), so anyone may read one, anonymous requests to
  /p/<hash> and /api/raw/<hash> included; writing one still needs a writable scope.
"""

from __future__ import annotations

import importlib

from django.db import migrations

_first = importlib.import_module("migrations.rls.0001_policies")

SCOPED = [
    "profiles_profile",
    "profiles_profileversion",
    "profiles_signal",
    "profiles_interpretation",
    "profiles_userfact",
]
ACTIVE = "profiles_activeprofile"
PUBLICATION = "profiles_publication"
READ = _first._scoped("scope_id", "ctx_rls_read")
WRITE = _first._scoped("scope_id", "ctx_rls_write")


def forward() -> str:
    parts = [_first._policies(table, READ, WRITE) for table in SCOPED]
    parts.append(_first._policies(ACTIVE, READ, READ))
    parts.append(_first._policies(PUBLICATION, "(true)", WRITE))
    return "".join(parts)


def backward() -> str:
    return "".join(_first._drop(table) for table in [*SCOPED, ACTIVE, PUBLICATION])


class Migration(migrations.Migration):
    dependencies = [
        ("rls", "0004_anchor_scope_policy"),
        ("profiles", "0001_initial"),
    ]

    operations = [migrations.RunSQL(forward(), backward())]
