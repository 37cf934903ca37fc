"""Preference-profile operations: one function per user-visible action, `op(principal, data)`
→ its wire payload (profiles/payloads.py). HTTP, MCP, the CLI (over HTTP) and the web page
call these and nothing below them."""

from __future__ import annotations

import difflib
import json
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import Field

from ctx import knobs
from ctx.errors import CtxError, TooLarge, ValidationFailed
from ctx.ops.inputs import Input, IntParam, OneOf, ScopeName, Text, When
from ctx.principal import Principal
from profiles import payloads as p
from profiles import selectors, services
from profiles.core.folder import (
    MAX_INBOX_BYTES,
    FolderError,
    import_files,
    inbox_order,
    parse_inbox_file,
    render_files,
)
from profiles.core.profile import MAX_CONTEXT_CHARS, MAX_NAME_CHARS
from profiles.core.signals import SIGNAL_TYPES, SignalError
from profiles.core.signals import Signal as CoreSignal
from profiles.core.templates import TEMPLATES
from profiles.inputs import (
    Excerpt,
    HashPath,
    Hint,
    NewSlug,
    Note,
    ProfileSlug,
    SessionId,
    SignalId,
    SignalTags,
    Sized,
    SlugPath,
    SourceName,
    list_of,
)
from profiles.models import Profile

MAX_BATCH = 500  # signals per request
MAX_INBOX_FILES = 100  # inbox files per request (each ≤ 64 KiB)
MAX_IMPORT_BYTES = 8 * 1024 * 1024  # a folder's files, in one request


class NoInput(Input):
    pass


class SlugInput(Input):
    slug: SlugPath


class ActiveInput(Input):
    profile: ProfileSlug = None


def _iso(value: datetime) -> str:
    return value.isoformat()


# --- reading profiles -------------------------------------------------------------------------


def _active_slug(principal: Principal) -> str | None:
    found, _ = selectors.active_profile(principal)
    return found.slug if found else None


def profiles_list(principal: Principal, data: NoInput) -> p.ProfilesPayload:
    rows = list(selectors.profiles_for(principal))
    active = _active_slug(principal)
    pending = selectors.open_counts(r.pk for r in rows)
    items = [p.summary(r, active=active, pending=pending.get(r.pk, 0)) for r in rows]
    return {"count": len(items), "active": active, "profiles": items}


def _detail(principal: Principal, row: Profile) -> p.ProfilePayload:
    published = sorted(row.publications.values_list("hash", flat=True))
    item = p.detail(
        row,
        active=_active_slug(principal),
        pending=selectors.open_signals(row),
        published=published,
    )
    return {"profile": item}


def profile_get(principal: Principal, data: SlugInput) -> p.ProfilePayload:
    return _detail(principal, selectors.get_profile_for(principal, data.slug))


def preferences(principal: Principal, data: ActiveInput) -> p.PreferencesPayload:
    """The prompt to follow: the named profile, else the key's active one."""
    row, source = selectors.require_active(principal, data.profile)
    return {
        "profile": row.slug,
        "name": row.name,
        "version": row.version,
        "updated_at": _iso(row.updated_at),
        "source": source,
        "pending": selectors.open_signals(row),
        "prompt": row.prompt,
    }


def preferences_text(payload: p.PreferencesPayload) -> str:
    """The text/plain answer of the active preferences: the prompt itself."""
    return payload["prompt"]


# --- changing profiles ------------------------------------------------------------------------


class CreateInput(Input):
    slug: NewSlug
    name: Annotated[str, Text(MAX_NAME_CHARS, description="Shown as the prompt's title.")]
    template: Annotated[
        str, OneOf(tuple(TEMPLATES), description="The starter template (default general).")
    ] = "general"
    context: Annotated[
        str | None, Text(MAX_CONTEXT_CHARS, required=False, description="What it is for.")
    ] = None
    interpretation_hint: Hint = None
    scope: ScopeName = None


def profile_create(principal: Principal, data: CreateInput) -> p.ProfilePayload:
    row = services.profile_create(
        principal=principal,
        slug=data.slug,
        name=data.name,
        template=data.template,
        context=data.context,
        hint=data.interpretation_hint or "",
        scope=data.scope,
    )
    return _detail(principal, row)


def _privacy(value: Any) -> dict[str, bool] | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not all(isinstance(v, bool) for v in value.values()):
        raise ValidationFailed(
            "'fact_privacy' must map fact keys to true (private) or false (public).",
            details={"field": "fact_privacy"},
        )
    return {str(k): v for k, v in value.items()}


class UpdateInput(Input):
    slug: SlugPath
    name: Annotated[str | None, Text(MAX_NAME_CHARS, required=False)] = None
    context: Annotated[str | None, Text(MAX_CONTEXT_CHARS, required=False)] = None
    interpretation_hint: Hint = None
    fact_privacy: Annotated[dict[str, bool] | None, Field(description="key → private")] = None


def profile_update(principal: Principal, data: UpdateInput) -> p.ProfilePayload:
    edit = services.ProfileEdit(
        name=data.name or None,
        context=data.context,
        interpretation_hint=data.interpretation_hint,
        fact_privacy=_privacy(data.fact_privacy),
    )
    row = services.profile_update(principal=principal, slug=data.slug, edit=edit)
    return _detail(principal, row)


def profile_delete(principal: Principal, data: SlugInput) -> dict[str, str]:
    slug = services.profile_delete(principal=principal, slug=data.slug)
    return {"action": "deleted", "slug": slug}


def profile_activate(principal: Principal, data: SlugInput) -> dict[str, str]:
    row = services.profile_activate(principal=principal, slug=data.slug)
    return {"action": "activated", "active": row.slug}


# --- versions ---------------------------------------------------------------------------------


class VersionsInput(Input):
    slug: SlugPath
    limit: Annotated[int | None, IntParam(1, 500, description="Most versions (default 50).")] = None


def profile_versions(principal: Principal, data: VersionsInput) -> p.VersionsPayload:
    row = selectors.get_profile_for(principal, data.slug)
    items = [p.version_entry(v) for v in selectors.versions_of(row, data.limit or 50)]
    return {"profile": row.slug, "count": len(items), "versions": items}


Version = Annotated[int | None, IntParam(1, 1_000_000)]


class DiffInput(Input):
    slug: SlugPath
    from_: Annotated[Version, Field(alias="from")] = None
    to: Version = None


def profile_diff(principal: Principal, data: DiffInput) -> p.DiffPayload:
    """The prompt's unified diff between two versions (default: the latest and the one
    before) and the change records that lead from one to the other."""
    row = selectors.get_profile_for(principal, data.slug)
    to = data.to or row.version
    start = data.from_ or max(1, to - 1)
    if start > to:
        raise ValidationFailed("'from' must not be after 'to'.", details={"field": "from"})
    new = selectors.version_of(row, to)
    old = selectors.version_of(row, start)
    diff = difflib.unified_diff(
        old.prompt.splitlines(keepends=True),
        new.prompt.splitlines(keepends=True),
        fromfile=f"{row.slug} v{start}",
        tofile=f"{row.slug} v{to}",
    )
    steps = row.versions.filter(version__gt=start, version__lte=to).order_by("version")
    return {
        "profile": row.slug,
        "from_version": start,
        "to_version": to,
        "diff": "".join(diff),
        "changes": [p.version_entry(v) for v in steps],
    }


# --- signals ----------------------------------------------------------------------------------


class SignalInput(Input):
    type: Annotated[str, OneOf(SIGNAL_TYPES, description="like, dislike, tag or note.")]
    note: Note = ""
    tags: SignalTags = []
    context: Excerpt = ""
    source: SourceName = ""
    session: SessionId = ""
    id: SignalId = ""
    created_at: When = None
    profile: ProfileSlug = None

    def signal(self) -> CoreSignal:
        try:
            return CoreSignal(
                id=self.id or services.new_signal_id(),
                type=self.type,  # type: ignore[arg-type]  # OneOf checked it
                created_at=_aware(self.created_at),
                note=self.note,
                tags=tuple(self.tags),
                context=self.context,
                source=self.source,
                session=self.session or None,
                profile=self.profile or "",
            )
        except SignalError as exc:
            message = f"'{exc.field}': {exc.message}."
            raise ValidationFailed(message, details={"field": exc.field}) from None


def _aware(value: datetime | None) -> datetime:
    if value is None:
        return datetime.now(UTC)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def signal_record(principal: Principal, data: SignalInput) -> p.SignalPayload:
    (done,) = services.signals_record(principal=principal, signals=[data.signal()])
    row = Profile.objects.get(pk=done.profile.pk)  # processed already when no broker is set
    return {
        "action": done.action,
        "id": done.signal.id,
        "type": done.signal.type,
        "profile": row.slug,
        "version": row.version,
        "pending": selectors.open_signals(row),
    }


class SignalBatchInput(Input):
    # Items are parsed one by one so that an error names its item.
    signals: Annotated[list[Any], list_of(MAX_BATCH, "signals")]


def _item(index: int, raw: Any) -> CoreSignal:
    try:
        return SignalInput.parse(raw).signal()
    except Exception as exc:
        message = getattr(exc, "message", str(exc))
        exc.message = f"signals[{index}]: {message}"  # type: ignore[attr-defined]
        raise


def signals_record(principal: Principal, data: SignalBatchInput) -> p.SignalBatchPayload:
    items = [_item(i, raw) for i, raw in enumerate(data.signals)]
    done = services.signals_record(principal=principal, signals=items)
    results: list[p.SignalResult] = [
        {"id": d.signal.id, "profile": d.profile.slug, "action": d.action} for d in done
    ]
    created = sum(1 for d in done if d.action == "created")
    return {"count": len(results), "created": created, "results": results}


# --- the folder contract ----------------------------------------------------------------------


def profiles_export(principal: Principal, data: NoInput) -> p.ExportPayload:
    """The folder's files for this key (name → text), rendered by the core's folder module so
    that a client writes them without knowing the format."""
    limit = int(knobs.value("CTX_PROFILES_EXPORT_SIGNALS", principal.tenant_id))
    folder = selectors.profile_set(principal, limit)
    files = render_files(folder)
    rows = list(selectors.profiles_for(principal))
    pending = sum(selectors.open_counts(r.pk for r in rows).values())
    return {
        "active": folder.active or None,
        "profiles": [prof.slug for prof in folder.profiles],
        "signals": len(folder.signals),
        "pending": pending,
        "files": files,
    }


class InboxFile(Input):
    name: Annotated[str, Text(200, description="The file's name in inbox/.")]
    text: Annotated[str, Sized(MAX_INBOX_BYTES, in_bytes=True, description="Its UTF-8 text.")]


class InboxInput(Input):
    # Items are parsed one by one: one malformed file never stops the others.
    files: Annotated[list[Any], list_of(MAX_INBOX_FILES, "files")]


def _inbox_signal(raw: Any) -> tuple[str, CoreSignal | str]:
    """(name, the file's signal) or (name, why it is rejected)."""
    name = raw.get("name") if isinstance(raw, dict) else None
    name = name if isinstance(name, str) else "?"
    try:
        item = InboxFile.parse(raw)
        return name, parse_inbox_file(item.name, item.text.encode("utf-8"))
    except (SignalError, FolderError) as exc:
        return name, str(exc)
    except CtxError as exc:
        return name, exc.message


def inbox_ingest(principal: Principal, data: InboxInput) -> p.InboxPayload:
    """Store the signals of inbox files; each file answers stored, duplicate (its id was
    stored before: the client may delete it too) or rejected with the reason."""
    parsed = sorted((_inbox_signal(raw) for raw in data.files), key=lambda t: inbox_order(t[0]))
    good = [(name, s) for name, s in parsed if isinstance(s, CoreSignal)]
    done = services.signals_record(principal=principal, signals=[s for _, s in good])
    results: list[p.InboxResult] = [
        {"name": name, "action": "rejected", "reason": why}
        for name, why in parsed
        if isinstance(why, str)
    ]
    for (name, _), rec in zip(good, done, strict=True):
        action = "stored" if rec.action == "created" else "duplicate"
        results.append(
            {"name": name, "action": action, "id": rec.signal.id, "profile": rec.profile.slug}
        )
    return {"results": results}


class ImportInput(Input):
    files: Annotated[dict[str, str], Field(description="The folder's files: name → text.")]
    scope: ScopeName = None


def _folder_files(files: dict[str, Any]) -> dict[str, str]:
    total = sum(len(str(t).encode("utf-8")) for t in files.values())
    if total > MAX_IMPORT_BYTES:
        raise TooLarge(f"'files' hold more than {MAX_IMPORT_BYTES} bytes.")
    if not all(isinstance(t, str) for t in files.values()):
        raise ValidationFailed("'files' must map file names to text.", details={"field": "files"})
    return files


def profiles_import(principal: Principal, data: ImportInput) -> p.ImportPayload:
    """Create profiles (with their versions and signals) from a folder's files."""
    try:
        folder = import_files(_folder_files(dict(data.files)))
    except FolderError as exc:
        raise ValidationFailed(f"Not a profiles folder: {exc}.") from None
    done = services.profile_import(principal=principal, folder=folder, scope=data.scope)
    return {
        "created": done.created,
        "skipped": done.skipped,
        "signals": done.signals,
        "active": done.active,
    }


# --- publishing -------------------------------------------------------------------------------


def profile_publish(principal: Principal, data: SlugInput) -> p.PublishPayload:
    done = services.publish(principal=principal, slug=data.slug)
    digest = done.publication.hash
    findings: list[p.PublishFinding] = [
        {"path": f.path, "level": f.level, "detectors": list(f.detectors)} for f in done.findings
    ]
    return {
        "action": done.action,
        "hash": digest,
        "url": f"/p/{digest}",
        "raw": f"/api/raw/{digest}",
        "findings": findings,
    }


def profile_unpublish(principal: Principal, data: SlugInput) -> dict[str, Any]:
    hashes = services.unpublish(principal=principal, slug=data.slug)
    return {"action": "unpublished", "hashes": hashes}


class HashInput(Input):
    hash: HashPath


def published(principal: Principal | None, data: HashInput) -> p.PublishedPayload:
    """A publication for anyone (no key needed): its canonical JSON and the payload."""
    row = selectors.publication(data.hash)
    return {"hash": row.hash, "body": row.body, "payload": json.loads(row.body)}


def published_body(payload: p.PublishedPayload) -> tuple[bytes, str]:
    """The raw answer: exactly the bytes that were hashed."""
    return payload["body"].encode("utf-8"), "application/json; charset=utf-8"
