"""A tenant's export and restore: one streamed archive holding everything the tenant owns.

The archive is gzip-compressed JSON lines: a header (`{"ctx_export": 1, "tenant": …}`), one
line per row (`{"m": "ctx.block", "r": {field: value}}`, models in PARTS order) and a trailer
with the row counts, so a cut-off file is refused instead of half-restored.

Rows keep their ids. A restore after the tenant was deleted (or on another server) gives back
the same blocks under the same ids, so links, versions, provenance (`block:<uuid>` keys),
profile signals and everything else that names a row by id still point where they did, and
clients' saved ids keep working. The tenant itself is the one row that may be renamed
(`--as NAME`): its scope names take the new prefix, and sealed secrets, whose ciphertext binds
`tenant/scope`, are sealed again under the new name (that needs the server's key). A restore
whose ids are still in the database (the tenant was not deleted) is refused as a whole.

Not in the archive, on purpose: API keys (credentials; a restored tenant gets a new owner key),
OAuth state, audit logs and caches shared by the server, per-key state (active profiles, import
jobs) and what ctx recomputes by itself (term statistics; embeddings and their windows when the
export leaves them out: the periodic backfill embeds the restored blocks again).
"""

from __future__ import annotations

import base64
import gzip
import io
import json
import tempfile
import uuid
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import IO, Any

from django.apps import apps
from django.core.management.color import no_style
from django.db import connection, models, transaction
from django.utils.duration import duration_iso_string
from typing_extensions import TypedDict

from ctx import hooks, services, tenancy
from ctx.errors import Conflict, NotFound, ValidationFailed
from ctx.models import ApiKey, Block, Scope, Tenant
from ctx.ops.inputs import Flag, Input
from ctx.overrides.services import check_change
from ctx.permissions import OWNER, rank, refuse
from ctx.principal import Principal
from ctx.shared import refuse_reserved_tenant
from ctx.tenancy import NewTenant
from secrets import crypto
from secrets import services as secret_services
from secrets.models import Secret

FORMAT = 1
BATCH = 500  # rows per INSERT on restore, per read on export
SPOOL = 8 << 20  # an HTTP export held in memory up to this size, then on disk

# What a tenant's archive holds, in restore order, each with the lookup that reaches the tenant.
PARTS: tuple[tuple[str, str], ...] = (
    ("ctx.scope", "tenant"),
    ("ctx.block", "scope__tenant"),
    ("ctx.blockversion", "scope__tenant"),
    ("retrieval.blockchunk", "scope__tenant"),
    ("retrieval.temporalanchor", "scope__tenant"),
    ("dream.link", "scope__tenant"),
    ("dream.linkset", "scope__tenant"),  # the link sets a revert can put back
    ("blobs.blob", "scope__tenant"),  # with each file's bytes (FILE_FIELD)
    ("dream.guardflag", "scope__tenant"),
    ("dream.dreamstate", "tenant"),
    ("dream.dreamtenant", "tenant"),
    ("dream.digeststate", "scope__tenant"),
    ("secrets.secret", "scope__tenant"),
    ("ctx.settingoverride", "tenant"),
    ("profiles.profile", "tenant"),
    ("profiles.profileversion", "scope__tenant"),
    ("profiles.signal", "scope__tenant"),
    ("profiles.interpretation", "scope__tenant"),
    ("profiles.userfact", "scope__tenant"),
    ("profiles.publication", "scope__tenant"),
    ("ingest.source", "scope__tenant"),
    ("ingest.session", "scope__tenant"),
    ("ingest.message", "scope__tenant"),
    ("ingest.window", "scope__tenant"),
    ("ingest.sessionevent", "scope__tenant"),  # the hook event log
    ("memory.fact", "scope__tenant"),
    ("memory.entity", "scope__tenant"),
    ("memory.provenance", "scope__tenant"),
    ("memory.extraction", "scope__tenant"),
    ("refindex.source", "scope__tenant"),
    ("refindex.chunk", "scope__tenant"),
    ("refindex.term", "scope__tenant"),
    ("refindex.word", "scope__tenant"),
)
# Rows of a tenant left out, and why (tests check every tenant-owned model is in one list).
LEFT_OUT: dict[str, str] = {
    "ctx.apikey": "credentials: the restored tenant gets a new owner key",
    "ctx.apikeyuser": "the OAuth user of a key",
    "profiles.activeprofile": "which profile a key uses: keys are not exported",
    "ingest.importjob": "a job's history, bound to the key that ran it",
    "retrieval.termstat": "recomputed from the blocks (the scope is marked stale)",
}
_LABELS = frozenset(label for label, _ in PARTS)
EMBEDDING_PARTS = frozenset({"retrieval.blockchunk"})  # left out with the embeddings


@dataclass
class Counts:
    rows: dict[str, int] = field(default_factory=dict)

    def add(self, label: str, n: int = 1) -> None:
        self.rows[label] = self.rows.get(label, 0) + n


# --- export --------------------------------------------------------------------------------------


def _fields(model: type[models.Model]) -> list[models.Field[Any, Any]]:
    """The columns a row is written with: every concrete field but generated ones."""
    return [f for f in model._meta.concrete_fields if not getattr(f, "generated", False)]


def _encode(f: models.Field[Any, Any], value: Any) -> Any:
    """A column's value as JSON can carry it; `_line` writes dates, ids and decimals."""
    if value is None:
        return None
    if isinstance(f, models.BinaryField):
        return base64.b64encode(bytes(value)).decode("ascii")
    if hasattr(value, "tolist"):  # a vector (numpy)
        return value.tolist()
    return value


FILE_FIELD = "_file"  # a row's file (hooks.ARCHIVE_FILES), base64, beside its columns


def _rows(label: str, lookup: str, tenant: Tenant, embeddings: bool) -> Iterator[dict[str, Any]]:
    model = apps.get_model(label)
    cols = _fields(model)
    if not embeddings:
        cols = [f for f in cols if f.name != "embedding"]
    files = hooks.ARCHIVE_FILES.as_dict().get(label)
    qs = model._base_manager.filter(**{lookup: tenant}).order_by("pk")
    for obj in qs.iterator(chunk_size=BATCH):
        row = {f.attname: _encode(f, f.value_from_object(obj)) for f in cols}
        if files is not None:
            row[FILE_FIELD] = base64.b64encode(files.read(obj)).decode("ascii")
        yield row


Progress = Callable[[int], None]  # told the rows done so far (a progress display)


def _quiet(done: int) -> None:
    pass


def lines(
    tenant: Tenant, *, embeddings: bool = True, progress: Progress = _quiet
) -> Iterator[bytes]:
    """The archive's JSON lines (uncompressed), header to trailer."""
    head = {
        "ctx_export": FORMAT,
        "tenant": tenant.name,
        "display_name": tenant.display_name,
        "exported_at": datetime.now(UTC).isoformat(),
        "embeddings": embeddings,
    }
    yield _line(head)
    counts, done = Counts(), 0
    for label, lookup in PARTS:
        if label in EMBEDDING_PARTS and not embeddings:
            continue
        for row in _rows(label, lookup, tenant, embeddings):
            counts.add(label)
            yield _line({"m": label, "r": row})
            done += 1
            if done % BATCH == 0:
                progress(done)
    yield _line({"end": True, "counts": counts.rows})


def _line(doc: dict[str, Any]) -> bytes:
    text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"), default=_plain)
    return text.encode("utf-8") + b"\n"


def _plain(value: Any) -> Any:
    """Dates and times to the microsecond (Django's JSON encoder keeps milliseconds only)."""
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, timedelta):
        return duration_iso_string(value)
    if isinstance(value, (uuid.UUID, Decimal)):
        return str(value)
    raise TypeError(f"cannot export a {type(value).__name__}")


def gzipped(chunks: Iterable[bytes], level: int = 6) -> Iterator[bytes]:
    """A gzip stream of the chunks, yielded as it is made (HTTP streams it as it goes)."""
    packer = zlib.compressobj(level, zlib.DEFLATED, 31)  # 31: the gzip container
    pending: list[bytes] = []
    size = 0
    for chunk in chunks:
        out = packer.compress(chunk)
        if out:
            pending.append(out)
            size += len(out)
        if size >= 1 << 16:
            yield b"".join(pending)
            pending, size = [], 0
    pending.append(packer.flush())
    yield b"".join(pending)


def export_to(
    tenant: Tenant, out: IO[bytes], *, embeddings: bool = True, progress: Progress = _quiet
) -> dict[str, int]:
    """Write the archive to a binary file; the row counts per model."""
    counts: dict[str, int] = {}
    rows = lines(tenant, embeddings=embeddings, progress=progress)
    for chunk in gzipped(_counting(rows, counts)):
        out.write(chunk)
    return counts


def _counting(source: Iterator[bytes], counts: dict[str, int]) -> Iterator[bytes]:
    last = b""
    for line in source:
        last = line
        yield line
    counts.update(json.loads(last)["counts"])


# --- restore -------------------------------------------------------------------------------------


class BadArchive(ValidationFailed):
    def __init__(self, message: str) -> None:
        super().__init__(f"Not a usable ctx export: {message}", details={"field": "archive"})


@dataclass
class Target:
    """Where the rows go: the tenant, its new name, and how old scope ids map to new ones."""

    tenant: Tenant
    old_name: str
    scopes: dict[int, int] = field(default_factory=dict)  # old scope id -> new
    names: dict[int, tuple[str, str]] = field(default_factory=dict)  # new id -> (old, new) name
    existing: dict[str, int] = field(default_factory=dict)  # name -> id of scopes already there
    skipped: list[str] = field(default_factory=list)

    def rename(self, scope_name: str) -> str:
        rest = scope_name.split(":", 1)[1] if ":" in scope_name else scope_name
        return f"{self.tenant.name}:{rest}"


def read_lines(stream: IO[bytes]) -> Iterator[dict[str, Any]]:
    """The archive's documents, one per line; BadArchive for anything else."""
    try:
        with gzip.GzipFile(fileobj=stream) as unpacked:
            for raw in io.BufferedReader(unpacked):
                yield _doc(raw)
    except (OSError, EOFError, zlib.error) as exc:
        raise BadArchive(f"the gzip stream is damaged ({exc}).") from None


def _doc(raw: bytes) -> dict[str, Any]:
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError):
        raise BadArchive("a line is not JSON.") from None
    if not isinstance(doc, dict):
        raise BadArchive("a line is not a JSON object.")
    return doc


def _header(docs: Iterator[dict[str, Any]]) -> dict[str, Any]:
    head = next(docs, None)
    if head is None or head.get("ctx_export") != FORMAT or not isinstance(head.get("tenant"), str):
        raise BadArchive(f"the first line is not a format {FORMAT} header.")
    return head


@dataclass
class Restored:
    tenant: Tenant
    counts: dict[str, int]
    to_embed: list[str]
    skipped: list[str]  # settings overrides this server refuses, with the reason


def restore(
    stream: IO[bytes], *, into: Callable[[dict[str, Any]], Tenant], progress: Progress = _quiet
) -> Restored:
    """Write the archive's rows into the tenant `into(header)` gives (a new one, or one without
    blocks), inside the caller's transaction. Conflict when an id is still taken."""
    docs = read_lines(stream)
    head = _header(docs)
    tenant = into(head)
    target = Target(tenant=tenant, old_name=head["tenant"])
    target.existing = dict(Scope.objects.filter(tenant=tenant).values_list("name", "id"))
    counts = Counts()
    trailer: dict[str, Any] | None = None
    batch: list[dict[str, Any]] = []
    label = ""
    for doc in docs:
        if doc.get("end") is True:
            trailer = doc
            break
        if doc.get("m") != label or len(batch) >= BATCH:
            _insert(label, batch, target, counts)
            progress(sum(counts.rows.values()))
            batch, label = [], _label(doc)
        batch.append(_row(doc))
    _insert(label, batch, target, counts)
    _check_trailer(trailer, counts)
    _check_references(tenant)
    _after(target, counts)
    to_embed = list(
        Block.objects.filter(scope__tenant=tenant, embedding__isnull=True, archived=False)
        .values_list("pk", flat=True)
        .iterator()
    )
    return Restored(tenant, counts.rows, [str(i) for i in to_embed], target.skipped)


def _label(doc: dict[str, Any]) -> str:
    label = doc.get("m")
    if label not in _LABELS:
        raise BadArchive(f"unknown part {str(label)[:40]!r}.")
    return str(label)


def _row(doc: dict[str, Any]) -> dict[str, Any]:
    row = doc.get("r")
    if not isinstance(row, dict):
        raise BadArchive("a row is not a JSON object.")
    return row


def _check_trailer(trailer: dict[str, Any] | None, counts: Counts) -> None:
    if trailer is None:
        raise BadArchive("it ends before its last line (a cut-off file?).")
    listed = trailer.get("counts")
    expected = {k: v for k, v in listed.items() if v} if isinstance(listed, dict) else None
    if expected != counts.rows:
        raise BadArchive(f"its trailer counts {expected}, the file holds {counts.rows}.")


def _check_references(tenant: Tenant) -> None:
    """Every row names only rows of its own tenant. The archive is input: a hand-made one
    must not link a restored row to another tenant's block (foreign keys would accept it)."""
    lookups = dict(PARTS)
    for label, lookup in PARTS:
        model = apps.get_model(label)
        for f in model._meta.concrete_fields:
            target = f.related_model
            if target is None or target._meta.label_lower not in lookups or target is Scope:
                continue
            rows = model._base_manager.filter(**{lookup: tenant, f"{f.name}__isnull": False})
            if rows.exclude(**{f"{f.name}__{lookups[target._meta.label_lower]}": tenant}).exists():
                raise BadArchive(f"{label}.{f.name} names a row outside the tenant.")


def _insert(label: str, rows: list[dict[str, Any]], target: Target, counts: Counts) -> None:
    if not rows:
        return
    model = apps.get_model(label)
    cols = _fields(model)
    objs = [obj for row in rows if (obj := _build(model, cols, row, target)) is not None]
    counts.add(label, len(rows))
    if not objs:
        return
    pks = [o.pk for o in objs]
    if model._base_manager.filter(pk__in=pks).exists():
        raise Conflict(
            f"Rows of this export ({model._meta.verbose_name_plural}) are still in the database: "
            "delete the tenant first, or restore into another server."
        )
    model._base_manager._insert(objs, fields=cols, raw=True)
    _files_after_commit(label, rows, objs)


def _files_after_commit(label: str, rows: list[dict[str, Any]], objs: list[models.Model]) -> None:
    """The rows' files, written once the restore committed (a rolled-back restore leaves
    none behind). A row the archive names without its file is refused as a whole."""
    files = hooks.ARCHIVE_FILES.as_dict().get(label)
    if files is None:
        return
    by_pk = {str(o.pk): o for o in objs}
    pending = []
    for row in rows:
        obj = by_pk.get(str(row.get("id")))
        if obj is None:
            continue
        encoded = row.get(FILE_FIELD)
        if not isinstance(encoded, str):
            raise BadArchive(f"{label} {row.get('id')} has no file.")
        try:
            data = base64.b64decode(encoded, validate=True)
        except ValueError:
            raise BadArchive(f"{label} {row.get('id')}: its file is not base64.") from None
        pending.append((obj, data))
    transaction.on_commit(lambda: [files.write(obj, data) for obj, data in pending])


def _build(
    model: type[models.Model], cols: list[models.Field[Any, Any]], row: dict[str, Any], t: Target
) -> models.Model | None:
    values: dict[str, Any] = {}
    for f in cols:
        try:
            raw = row.get(f.attname)
            values[f.attname] = None if raw is None else f.to_python(raw)
        except Exception as exc:  # a value its column cannot hold
            raise BadArchive(f"{model._meta.label_lower}.{f.name}: {exc}") from None
    adjust = _ADJUST.get(model._meta.label_lower)
    _remap(model, values, t)
    if adjust is not None and adjust(values, t) is False:
        return None
    return model(**values)


def _remap(model: type[models.Model], values: dict[str, Any], t: Target) -> None:
    """Foreign keys to the tenant and to its scopes take their new ids; keys to rows the
    archive leaves out are emptied (every such column is nullable: tests check it)."""
    for f in model._meta.concrete_fields:
        target = f.related_model
        if target is None or values.get(f.attname) is None:
            continue
        if target is Tenant:
            values[f.attname] = t.tenant.pk
        elif target is Scope:
            old = values[f.attname]
            if old not in t.scopes:
                raise BadArchive(f"a {model._meta.label_lower} row names scope {old}, not in it.")
            values[f.attname] = t.scopes[old]
        elif target._meta.label_lower not in _LABELS:
            # a row outside the archive (the API key that sent a signal): not restored
            values[f.attname] = None


def _scope(values: dict[str, Any], t: Target) -> bool:
    old_name, name = str(values["name"]), t.rename(str(values["name"]))
    old_id = values["id"]
    values.update(name=name, tenant_id=t.tenant.pk, term_stats_at=None, term_stats_blocks=None)
    new_id = t.existing.get(name, old_id)
    t.scopes[old_id], t.names[new_id] = new_id, (old_name, name)
    if name in t.existing:  # the tenant made it already (its main scope): that row, updated
        Scope.objects.filter(pk=new_id).update(
            description=values["description"], created_at=values["created_at"]
        )
        return False
    return True


def _block(values: dict[str, Any], t: Target) -> bool:
    if values.get("embedding") is None:
        values["embed_model"] = ""  # the backfill embeds it again
    return True


def _dream_state(values: dict[str, Any], t: Target) -> bool:
    values.update(claimed_by="", claim_token=None, claim_until=None)
    return True


def _secret(values: dict[str, Any], t: Target) -> bool:
    if t.tenant.name != t.old_name:
        _reseal(values, t)
    return True


def _reseal(values: dict[str, Any], t: Target) -> None:
    """The ciphertext binds `tenant/scope`: a renamed tenant's secrets are sealed again."""
    old_scope, new_scope = t.names[values["scope_id"]]
    keyring = secret_services.current_keyring()
    sealed = crypto.Sealed(
        ciphertext=bytes(values["ciphertext"]),
        nonce=bytes(values["nonce"]),
        key_version=values["key_version"],
    )
    try:
        plain, _ = crypto.unseal(
            keyring.openers(sealed.key_version),
            scope=f"{t.old_name}/{old_scope}",
            name=values["name"],
            sealed=sealed,
        )
    except crypto.OpenFailed:
        raise Conflict(
            f"Secret '{values['name']}' cannot be sealed again under the new tenant name: this "
            "server's key does not open it. Restore under the old name, or set the key it was "
            "sealed with (CTX_SECRETS_KEY_PREVIOUS)."
        ) from None
    key = secret_services.sealing_key(keyring)
    again = crypto.seal(key, scope=f"{t.tenant.name}/{new_scope}", name=values["name"], value=plain)
    values.update(ciphertext=again.ciphertext, nonce=again.nonce, key_version=again.key_version)


def _override(values: dict[str, Any], t: Target) -> bool:
    """A settings override goes through the checks an API write passes (known knob, per
    tenant, valid value, a secret of this tenant); one this server refuses is reported."""
    raw = values["value"]
    if (
        isinstance(raw, dict)
        and isinstance(raw.get("secret"), str)
        and raw["secret"].count("/") >= 2
    ):
        _, scope, name = raw["secret"].split("/", 2)  # tenant/scope/name
        raw = {"secret": name, "scope": t.rename(scope)}
    change, findings = check_change(str(values["key"]), raw, t.tenant, partial(_secret_of, t))
    if change is None:
        t.skipped += findings
        return False
    values.update(key=change.knob.name, value=change.value)
    values["secret_id"] = change.secret.pk if change.secret is not None else None
    return True


def _secret_of(t: Target, name: str, scope: str | None) -> Secret:
    found = Secret.objects.filter(scope__tenant=t.tenant, scope__name=scope, name=name).first()
    if found is None:
        raise LookupError(name)
    return found


_ADJUST = {
    "ctx.settingoverride": _override,
    "ctx.scope": _scope,
    "ctx.block": _block,
    "dream.dreamstate": _dream_state,
    "secrets.secret": _secret,
}


def _after(target: Target, counts: Counts) -> None:
    """Sequences past the restored ids (they came from another database's counters)."""
    restored = [apps.get_model(label) for label in counts.rows]
    with connection.cursor() as cur:
        for sql in connection.ops.sequence_reset_sql(no_style(), restored):
            cur.execute(sql)


def embed_later(block_ids: list[str]) -> None:
    """After the commit: blocks restored without their vectors are embedded again (the same
    hook as a write; the periodic backfill catches whatever it misses)."""
    if block_ids:
        transaction.on_commit(lambda: [hook(block_ids) for hook in hooks.BLOCKS_WRITTEN])


# --- the operations: manage.py and the HTTP API (a tenant's owner) -------------------------------


def export_file(
    name: str, path: Path, *, embeddings: bool = True, progress: Progress = _quiet
) -> dict[str, int]:
    """`manage.py tenant_export`: the archive written next to `path`, then moved into place
    (a failed export leaves no half file behind)."""
    tenant = _named(name)
    part = path.with_name(path.name + ".part")
    try:
        with part.open("wb") as out:
            counts = export_to(tenant, out, embeddings=embeddings, progress=progress)
        part.replace(path)
    finally:
        part.unlink(missing_ok=True)
    return counts


def _named(name: str) -> Tenant:
    tenant = Tenant.objects.filter(name=name).first()
    if tenant is None:
        raise NotFound(f"No tenant named '{name}'.")
    return tenant


def import_file(
    path: Path, *, as_name: str | None = None, progress: Progress = _quiet
) -> tuple[Restored, NewTenant]:
    """`manage.py tenant_import`: a new tenant (the archive's name, or `as_name`) holding the
    archive's rows, with a new owner key; nothing is written when anything fails."""

    def new(head: dict[str, Any]) -> Tenant:
        name = as_name or str(head["tenant"])
        refuse_reserved_tenant(name, "as")
        if not tenancy.TENANT_NAME_RE.match(name):
            raise ValidationFailed(
                "A tenant name is 1-64 characters of a-z, 0-9 and '-'.", details={"field": "as"}
            )
        if Tenant.objects.filter(name=name).exists():
            raise Conflict(
                f"Tenant '{name}' exists: delete it first, or restore under another name (--as)."
            )
        # No scopes yet: the archive's come with their ids.
        return Tenant.objects.create(name=name, display_name=str(head.get("display_name") or name))

    with path.open("rb") as stream, transaction.atomic():
        restored = restore(stream, into=new, progress=progress)
        owner = _first_owner(restored.tenant)
        embed_later(restored.to_embed)
    return restored, owner


def _first_owner(tenant: Tenant) -> NewTenant:
    """The restored tenant's owner key (keys are never in an archive), as tenant_create
    makes it: home `<name>:main`, writes every scope."""
    main = f"{tenant.name}:main"
    if not Scope.objects.filter(tenant=tenant, name=main).exists():
        services.scope_create(tenant=tenant, name=main)
    every = list(
        Scope.objects.filter(tenant=tenant).order_by("name").values_list("name", flat=True)
    )
    key, raw = services.key_create(
        tenant=tenant, name="owner", home=main, write=every, role=ApiKey.Role.OWNER
    )
    return NewTenant(tenant, key, raw)


def _owner(principal: Principal) -> Tenant:
    """A tenant's archive is its owner's (or a server admin's) to take and to restore."""
    if rank(principal) < OWNER:
        raise refuse()
    return Tenant.objects.get(pk=principal.tenant_id)


class ExportInput(Input):
    embeddings: Flag = True


class ExportPayload(TypedDict):
    file: IO[bytes]
    filename: str


def tenant_export(principal: Principal, data: ExportInput) -> ExportPayload:
    """`GET /api/tenant/export`: the caller's tenant as an archive. Written to a spooled
    temporary file first (memory up to SPOOL bytes, then disk): the rows are read inside the
    request, under its tenant context, and the file is streamed out afterwards."""
    tenant = _owner(principal)
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL)  # noqa: SIM115 (the response closes it)
    export_to(tenant, spool, embeddings=data.embeddings)
    spool.seek(0)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return {"file": spool, "filename": f"ctx-{tenant.name}-{stamp}.jsonl.gz"}


class ImportInput(Input):
    archive: bytes


class ImportPayload(TypedDict):
    tenant: str
    restored: dict[str, int]
    embedding: int  # blocks restored without a vector, queued for embedding
    skipped: list[str]  # settings overrides this server refused, with the reason


def tenant_import(principal: Principal, data: ImportInput) -> ImportPayload:
    """`POST /api/tenant/import`: an archive restored into the caller's tenant, which must hold
    no blocks yet (a fresh tenant: its main scope is reused)."""
    tenant = _owner(principal)

    def into(head: dict[str, Any]) -> Tenant:
        if Block.objects.filter(scope__tenant=tenant).exists():
            raise Conflict(
                "This tenant already holds blocks: a restore goes into an empty tenant "
                "(or a new one: manage.py tenant_import FILE --as NAME)."
            )
        return tenant

    with transaction.atomic():
        restored = restore(io.BytesIO(data.archive), into=into)
        embed_later(restored.to_embed)
    return {
        "tenant": tenant.name,
        "restored": restored.counts,
        "embedding": len(restored.to_embed),
        "skipped": restored.skipped,
    }
