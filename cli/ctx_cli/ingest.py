"""Markdown folders and Obsidian vaults → blocks: pure parsing, planning and a batch uploader.

A note is split at its `##`-and-deeper headings; each section becomes one block titled
"<note title> > <heading> > <subheading>". Front matter, tags and `[[links]]` travel along.
Incremental: a state file maps each block's key to the sha256 of what was sent and to the
block's id, per server and scope, so unchanged sections are not sent again and a note deleted
from the folder is archived on the server (undoable: `ctx restore ID`). The file lives in the
user's state directory (`$XDG_STATE_HOME/ctx/ingest/`, default `~/.local/state/ctx/ingest/`),
one per folder, never inside the folder, where git or Obsidian Sync would pick it up; an older
`.ctx-ingest.json` inside the folder is read once and moved there.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctx_cli import SERVER_MAX_BATCH, CliError
from ctx_cli.config import state_home
from ctx_cli.http import ApiError, Client

# Bounds: the server's limits (content 50 KiB by default, title 500, category 100, 50 tags of
# ≤ 100 chars, metadata 16 KiB, 500 blocks a batch). A batch with one bad block fails whole, so
# every block is made to fit before it is sent.
MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_SECTION_BYTES = 50 * 1024
MAX_TITLE = 500
MAX_CATEGORY = 100
MAX_TAGS = 50
MAX_TAG = 100
MAX_METADATA_BYTES = 16_000
MAX_BATCH = SERVER_MAX_BATCH
# The server takes request bodies up to 8 MiB (DATA_UPLOAD_MAX_MEMORY_SIZE); 500 long notes
# are more. Half of it leaves room for the envelope and any estimate's error.
MAX_BATCH_BYTES = 4 * 1024 * 1024
LEGACY_STATE_FILE = ".ctx-ingest.json"  # where ctx kept the state before: inside the folder
STATE_SAVE_SECONDS = 1.0  # during a run, the state file is rewritten at most this often
UPLOADS = 2  # batches in flight: the server runs two web workers (ctx.runtime.launcher)
SUFFIXES = (".md", ".markdown")
DEFAULT_CATEGORY = "notes"
SEPARATOR = " > "

HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
INLINE_CODE = re.compile(r"`[^`\n]*`")
TAG = re.compile(r"(?<![^\s(\[,])#([\w/-]*[^\W\d][\w/-]*)")
LINK = re.compile(r"\[\[([^\]|#\n]*)(?:#[^\]|\n]*)?(?:\|[^\]\n]*)?\]\]")
FRONT_KEY = re.compile(r"^([A-Za-z0-9_][\w .-]*?)\s*:(?:\s+(.*))?$")


# --- front matter -------------------------------------------------------------------------


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _value(raw: str) -> Any:
    raw = raw.strip()
    if raw.startswith("[") and raw.endswith("]"):
        return [_unquote(v) for v in raw[1:-1].split(",") if v.strip()]
    return _unquote(raw) if raw else None


def parse_front_matter(lines: list[str]) -> dict[str, Any]:
    """`key: value`, `key: [a, b]` and `key:` followed by `- item` lines; others are ignored."""
    data: dict[str, Any] = {}
    current: str | None = None
    for line in lines:
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("- ") and current is not None:
            if data[current] is None or isinstance(data[current], list):
                data[current] = [*(data[current] or []), _unquote(stripped[2:])]
            continue
        match = FRONT_KEY.match(line)
        if match:
            current = match.group(1)
            data[current] = _value(match.group(2) or "")
    return data


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """The front matter (empty without one) and the body after it."""
    if not text.startswith("---\n"):
        return {}, text
    lines = text.split("\n")
    for end in range(1, len(lines)):
        if lines[end].rstrip() in ("---", "..."):
            return parse_front_matter(lines[1:end]), "\n".join(lines[end + 1 :])
    return {}, text


# --- sections -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Section:
    headings: tuple[str, ...]
    text: str


def _fence(line: str, open_fence: str | None) -> str | None:
    """The fence marker still open after `line`."""
    match = FENCE.match(line)
    if not match:
        return open_fence
    marker = match.group(1)
    if open_fence is None:
        return marker
    closes = marker[0] == open_fence[0] and len(marker) >= len(open_fence)
    return None if closes and not line.strip().strip(marker[0]) else open_fence


def _has_body(lines: list[str]) -> bool:
    rest = lines[1:] if lines and HEADING.match(lines[0]) else lines
    return any(line.strip() for line in rest)


def split_sections(body: str) -> list[Section]:
    """Sections at `##`-and-deeper headings outside code fences; empty ones are dropped."""
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    lines: list[str] = []
    fence: str | None = None

    def flush() -> None:
        if _has_body(lines):
            sections.append(Section(tuple(t for _, t in stack), "\n".join(lines).strip()))

    for line in body.split("\n"):
        match = HEADING.match(line) if fence is None else None
        fence = _fence(line, fence)
        if match and len(match.group(1)) >= 2:
            flush()
            level = len(match.group(1))
            stack = [(lv, t) for lv, t in stack if lv < level] + [(level, match.group(2))]
            lines = []
        lines.append(line)
    flush()
    return sections


def first_h1(body: str) -> str | None:
    """The text of the note's first `# heading` outside code fences, if it has one."""
    fence: str | None = None
    for line in body.split("\n"):
        match = HEADING.match(line) if fence is None else None
        fence = _fence(line, fence)
        if match and len(match.group(1)) == 1 and match.group(2).strip():
            return match.group(2).strip()
    return None


def prose(text: str) -> str:
    """The text without fenced code and inline code: tags and links there are not meant."""
    kept: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        inside = fence is not None or FENCE.match(line) is not None
        fence = _fence(line, fence)
        if not inside:
            kept.append(line)
    return INLINE_CODE.sub("", "\n".join(kept))


def inline_tags(text: str) -> list[str]:
    return [m.group(1) for m in TAG.finditer(text)]


def wiki_links(text: str) -> list[str]:
    """Targets of `[[note]]`, `[[note#heading]]` and `[[note|alias]]`, first-seen order."""
    return list(dict.fromkeys(t.strip() for t in LINK.findall(text) if t.strip()))


def _pieces(text: str, limit: int) -> Iterator[str]:
    """Paragraphs, else lines, else character runs, each at most `limit` UTF-8 bytes."""
    for para in re.split(r"(?<=\n\n)", text):
        if len(para.encode()) <= limit:
            yield para
            continue
        for line in para.splitlines(keepends=True):
            if len(line.encode()) <= limit:
                yield line
            else:
                step = max(1, limit // 4)  # ≤ 4 bytes a character in UTF-8
                yield from (line[i : i + step] for i in range(0, len(line), step))


def split_large(text: str, limit: int = MAX_SECTION_BYTES) -> list[str]:
    """`text` in parts of at most `limit` UTF-8 bytes, cut at paragraph or line ends if it can."""
    if len(text.encode()) <= limit:
        return [text]
    parts: list[str] = []
    current, size = "", 0
    for piece in _pieces(text, limit):
        piece_size = len(piece.encode())
        if current and size + piece_size > limit:
            parts.append(current)
            current, size = "", 0
        current, size = current + piece, size + piece_size
    parts.append(current)
    return [p.strip() for p in parts if p.strip()]


# --- blocks -------------------------------------------------------------------------------


def fit_title(title: str) -> str:
    """At most MAX_TITLE characters; a cut title keeps a hash so distinct titles stay distinct."""
    if len(title) <= MAX_TITLE:
        return title
    digest = hashlib.sha256(title.encode()).hexdigest()[:8]
    return f"{title[: MAX_TITLE - 10]}… {digest}"


def normalize_tags(*groups: Any) -> list[str]:
    tags: list[str] = []
    for group in groups:
        values = group.replace(",", " ").split() if isinstance(group, str) else group or []
        tags += [str(v).strip().lstrip("#").lower() for v in values]
    unique = dict.fromkeys(t for t in tags if t and len(t) <= MAX_TAG)
    return list(unique)[:MAX_TAGS]


def _metadata(base: dict[str, Any], front: dict[str, Any], links: list[str]) -> dict[str, Any]:
    meta = {
        **base,
        **({"front_matter": front} if front else {}),
        **({"links": links} if links else {}),
    }
    if len(json.dumps(meta)) <= MAX_METADATA_BYTES:  # almost always: one encode a block
        return meta
    if front:
        meta["front_matter"] = {"omitted": "larger than the metadata limit"}
    while len(json.dumps(meta)) > MAX_METADATA_BYTES and meta.get("links"):
        meta["links"] = meta["links"][: len(meta["links"]) // 2]
    return meta


def category_for(rel: Path, override: str | None) -> str:
    name = override or (rel.parts[0] if len(rel.parts) > 1 else DEFAULT_CATEGORY)
    return name.strip()[:MAX_CATEGORY] or DEFAULT_CATEGORY


def _titled(note_title: str, sections: list[Section]) -> Iterator[tuple[str, Section]]:
    """Each section's title; repeated heading paths in one note get " (2)", " (3)", …"""
    seen: dict[str, int] = {}
    for section in sections:
        title = fit_title(SEPARATOR.join((note_title, *section.headings)))
        seen[title] = seen.get(title, 0) + 1
        yield (fit_title(f"{title} ({seen[title]})") if seen[title] > 1 else title), section


def note_blocks(rel: Path, text: str, category: str) -> list[dict[str, Any]]:
    """The blocks of one note, in order, before any cross-note de-duplication."""
    front, body = split_front_matter(text.replace("\r\n", "\n").lstrip("\ufeff"))
    raw_title = front.get("title")
    # Front matter's title, else the H1 heading (Obsidian's file names are often dates or
    # slugs), else the file name.
    given = raw_title.strip() if isinstance(raw_title, str) else ""
    note_title = given or first_h1(body) or rel.stem
    blocks: list[dict[str, Any]] = []
    for title, section in _titled(note_title, split_sections(body)):
        visible = prose(section.text)
        tags = normalize_tags(front.get("tags"), front.get("tag"), inline_tags(visible))
        base = {"path": rel.as_posix(), "headings": list(section.headings)}
        parts = split_large(section.text)
        for n, part in enumerate(parts, 1):
            meta = _metadata(
                {**base, **({"part": n} if len(parts) > 1 else {})}, front, wiki_links(visible)
            )
            part_title = title if n == 1 else fit_title(f"{title} (part {n})")
            blocks.append(
                {
                    "category": category,
                    "title": part_title,
                    "content": part,
                    "tags": tags,
                    "metadata": meta,
                }
            )
    return blocks


# --- planning -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    key: str
    digest: str
    block: dict[str, Any]


@dataclass
class Plan:
    items: list[Item] = field(default_factory=list)
    notes: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)


def block_key(block: dict[str, Any]) -> str:
    return json.dumps([block["category"], block["title"]], ensure_ascii=False)


def digest(block: dict[str, Any]) -> str:
    canonical = json.dumps(block, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(canonical).hexdigest()


def note_paths(root: Path) -> Iterator[Path]:
    """Markdown files under `root`, sorted, skipping hidden folders (.obsidian, .git, .trash)."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.lower().endswith(SUFFIXES) and not name.startswith("."):
                yield Path(folder) / name


def _read(path: Path) -> tuple[str | None, str]:
    """The note's text, or None and why it is skipped."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None, "larger than 5 MB"
        return path.read_text(encoding="utf-8"), ""
    except UnicodeDecodeError:
        return None, "not UTF-8 text"
    except OSError as exc:
        return None, f"unreadable: {exc.strerror or exc}"


def _add(plan: Plan, block: dict[str, Any], taken: set[str]) -> None:
    if block_key(block) in taken:  # same title in another note of the category
        block["title"] = fit_title(f"{block['title']} [{block['metadata']['path']}]")
    key = block_key(block)
    taken.add(key)
    plan.items.append(Item(key, digest(block), block))


def collect(root: Path, category: str | None = None) -> Plan:
    plan = Plan()
    taken: set[str] = set()
    for path in note_paths(root):
        rel = path.relative_to(root)
        text, reason = _read(path)
        if text is None:
            plan.skipped.append((rel.as_posix(), reason))
            continue
        plan.notes += 1
        for block in note_blocks(rel, text, category_for(rel, category)):
            _add(plan, block, taken)
    return plan


# --- state --------------------------------------------------------------------------------


def state_path(root: Path, environ: Mapping[str, str] = os.environ) -> Path:
    """The folder's state file in the user's state directory, named by the folder's path."""
    name = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:16]
    return state_home(environ) / "ingest" / f"{name}.json"


def load_state(root: Path) -> dict[str, Any]:
    path = state_path(root)
    legacy = root / LEGACY_STATE_FILE
    if not path.exists() and legacy.exists():
        path = legacy  # moved by the next save_state
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"version": 1, "folder": str(root.resolve()), "targets": {}, "ids": {}}
    except (OSError, ValueError) as exc:
        raise CliError(f"cannot read {path}: {exc}; delete it to ingest everything again") from exc
    if not isinstance(state, dict) or not isinstance(state.get("targets"), dict):
        raise CliError(f"{path} is not an ingest state file; delete it to ingest everything again")
    state.setdefault("ids", {})  # written before ids were kept: deletions cannot be archived
    state["folder"] = str(root.resolve())
    return state


def save_state(root: Path, state: dict[str, Any]) -> None:
    path = state_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    # Compact: `indent` switches json to its pure-Python encoder, 2x slower on 20k entries.
    tmp.write_text(json.dumps(state, sort_keys=True, separators=(",", ":")), encoding="utf-8")
    os.replace(tmp, path)  # atomic: an interrupted run leaves the last complete state
    (root / LEGACY_STATE_FILE).unlink(missing_ok=True)  # moved out of the folder


def target_name(base_url: str, scope: str | None) -> str:
    """`<server> <scope>`; a scope name starts with its tenant's."""
    return f"{base_url} {scope or '(home scope)'}"


# --- upload -------------------------------------------------------------------------------


def _explain(exc: ApiError, chunk: list[Item]) -> ApiError:
    index = exc.details.get("index")
    if isinstance(index, int) and 0 <= index < len(chunk):
        block = chunk[index].block
        exc.message += f" [{block['metadata']['path']}: {block['title']!r}]"
    return exc


def _send(client: Client, scope: str | None, chunk: list[Item]) -> list[tuple[str, str]]:
    body: dict[str, Any] = {"blocks": [item.block for item in chunk]}
    if scope:
        body["scope"] = scope
    try:
        # A new connection per batch: the server's web workers share one listening socket,
        # and a new connection goes to whichever is free, where two kept-alive ones often
        # both sat on one worker, which then ran the batches one after the other (measured).
        results = client.post("/api/store/batch", body, fresh=True)["results"]
    except ApiError as exc:
        raise _explain(exc, chunk) from None
    return [(str(r.get("action")), str(r.get("id") or "")) for r in results]


def batches(items: list[Item], count: int, size: int = MAX_BATCH_BYTES) -> list[list[Item]]:
    """The items in order, in batches of at most `count` blocks and `size` bytes of JSON (as
    the client encodes them); a block larger than `size` goes alone."""
    found: list[list[Item]] = []
    current: list[Item] = []
    used = 0
    for item in items:
        cost = len(json.dumps(item.block)) + 2  # ASCII-escaped, as sent; ", " between blocks
        if current and (len(current) >= count or used + cost > size):
            found.append(current)
            current, used = [], 0
        current.append(item)
        used += cost
    return [*found, current] if current else found


def upload(
    client: Client, scope: str | None, items: list[Item], batch: int, parallel: int = UPLOADS
) -> Iterator[tuple[list[Item], list[tuple[str, str]]]]:
    """POST the items in batches, `parallel` requests in flight; yields each batch with the
    server's actions for it, in order. Keys are unique in a plan, so concurrent batches never
    write the same block."""
    from concurrent.futures import Future, ThreadPoolExecutor  # only ingest pays for it

    chunks = batches(items, batch)
    with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
        in_flight: list[tuple[list[Item], Future[list[tuple[str, str]]]]] = []
        for chunk in chunks:
            in_flight.append((chunk, pool.submit(_send, client, scope, chunk)))
            if len(in_flight) >= parallel:
                done, future = in_flight.pop(0)
                yield done, future.result()
        for done, future in in_flight:
            yield done, future.result()


@dataclass
class Summary:
    notes: int = 0
    blocks: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: int = 0
    archived: int = 0  # blocks of notes deleted from the folder
    kept: int = 0  # blocks of deleted notes left on the server (--keep-deleted, or no id known)

    def count(self, action: str) -> None:
        name = {"created": "created", "updated": "updated"}.get(action, "unchanged")
        setattr(self, name, getattr(self, name) + 1)


def run_upload(
    root: Path,
    plan: Plan,
    target: str,
    *,
    client: Client,
    scope: str | None,
    batch: int,
    progress: Callable[[int], None],
    keep_deleted: bool = False,
) -> Summary:
    """Send what changed since the state file says, saving the state after every batch; then
    archive the blocks of notes no longer in the folder (unless `keep_deleted`)."""
    state = load_state(root)
    known: dict[str, str] = state["targets"].get(target, {})
    ids: dict[str, str] = state["ids"].get(target, {})
    pending = [item for item in plan.items if known.get(item.key) != item.digest]
    summary = Summary(
        notes=plan.notes,
        blocks=len(plan.items),
        unchanged=len(plan.items) - len(pending),
        skipped=len(plan.skipped),
    )
    saved = time.monotonic()
    try:
        for chunk, results in upload(client, scope, pending, batch):
            for item, (action, block_id) in zip(chunk, results):
                summary.count(action)
                known[item.key] = item.digest
                if block_id:
                    ids[item.key] = block_id
            state["targets"][target], state["ids"][target] = known, ids
            # Not after every batch: rewriting a large state file each time grows
            # quadratically; a killed run re-sends at most a second's worth (found unchanged).
            if time.monotonic() - saved >= STATE_SAVE_SECONDS:
                save_state(root, state)
                saved = time.monotonic()
            progress(len(chunk))
    except BaseException:  # a failed batch or Ctrl-C: keep what the server confirmed
        if summary.created + summary.updated + summary.unchanged > len(plan.items) - len(pending):
            save_state(root, state)
        raise
    live = {item.key for item in plan.items}
    gone = [key for key in known if key not in live]
    _archive_gone(client, gone, ids, summary, keep_deleted)
    state["targets"][target] = {k: v for k, v in known.items() if k in live}
    state["ids"][target] = {k: v for k, v in ids.items() if k in live}
    save_state(root, state)
    return summary


def _archive_gone(
    client: Client, gone: list[str], ids: dict[str, str], summary: Summary, keep: bool
) -> None:
    """Archive the blocks of deleted notes (a block already archived or deleted on the server
    counts as archived). Without an id (state written by an older ctx) a block is kept."""
    for key in gone:
        block_id = ids.get(key)
        if keep or not block_id:
            summary.kept += 1
            continue
        try:
            client.post("/api/manage", {"action": "delete", "id": block_id})
        except ApiError as exc:
            if exc.status != 404:
                raise
        summary.archived += 1


def pending_items(root: Path, plan: Plan, target: str) -> list[tuple[str, Item]]:
    """What a run would send, each "new" or "changed" (dry run: nothing is written)."""
    known: dict[str, str] = load_state(root)["targets"].get(target, {})
    return [
        ("changed" if item.key in known else "new", item)
        for item in plan.items
        if known.get(item.key) != item.digest
    ]


def gone_keys(root: Path, plan: Plan, target: str) -> list[str]:
    """Blocks sent before whose notes are no longer in the folder (a run archives them)."""
    known: dict[str, str] = load_state(root)["targets"].get(target, {})
    live = {item.key for item in plan.items}
    return [key for key in known if key not in live]
