"""The preference-profiles API (docs/profiles.md): each endpoint one operation of
profiles/operations.py. /api/preferences/active also answers text/plain (the prompt itself);
/api/raw/<hash> answers the published bytes and needs no key."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctx.api.routing import READ, Op, created, created_or_ok, endpoint
from profiles import operations as ops


def _published(payload: Mapping[str, Any]) -> int:
    return 201 if payload.get("action") == "published" else 200


signals = endpoint(post=Op(ops.signal_record, ops.SignalInput, status=created_or_ok))
# A batch costs one write token per signal, an inbox drain one per file.
signals_batch = endpoint(
    post=Op(ops.signals_record, ops.SignalBatchInput, cost=lambda data: len(data.signals))
)
signals_inbox = endpoint(
    post=Op(ops.inbox_ingest, ops.InboxInput, cost=lambda data: len(data.files))
)
preferences_active = endpoint(
    get=Op(ops.preferences, ops.ActiveInput, bucket=READ, text=ops.preferences_text)
)
profiles = endpoint(
    get=Op(ops.profiles_list, ops.NoInput, bucket=READ),
    post=Op(ops.profile_create, ops.CreateInput, status=created),
)
profile = endpoint(
    get=Op(ops.profile_get, ops.SlugInput, bucket=READ),
    patch=Op(ops.profile_update, ops.UpdateInput),
    delete=Op(ops.profile_delete, ops.SlugInput),
)
activate = endpoint(post=Op(ops.profile_activate, ops.SlugInput))
versions = endpoint(get=Op(ops.profile_versions, ops.VersionsInput, bucket=READ))
diff = endpoint(get=Op(ops.profile_diff, ops.DiffInput, bucket=READ))
publish = endpoint(
    post=Op(ops.profile_publish, ops.SlugInput, status=_published),
    delete=Op(ops.profile_unpublish, ops.SlugInput),
)
export = endpoint(get=Op(ops.profiles_export, ops.NoInput, bucket=READ))
folder_import = endpoint(post=Op(ops.profiles_import, ops.ImportInput))
raw = endpoint(public=True, get=Op(ops.published, ops.HashInput, body=ops.published_body))
