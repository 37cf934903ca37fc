"""What a blob is, from its bytes: a signature table of common formats, then text detection.

Pure (no Django). The client's Content-Type is never trusted: an HTML page uploaded as an
image must not come back labelled as one. No library for this is installed (python-magic,
filetype, puremagic), so the table below covers the formats people attach; anything else is
`application/octet-stream`. The file name only refines a text blob's kind (Markdown, CSV),
never turns bytes into text.
"""

from __future__ import annotations

import json

OCTET = "application/octet-stream"

# (offset, signature, content type); checked in order, first match wins.
SIGNATURES: tuple[tuple[int, bytes, str], ...] = (
    (0, b"\x89PNG\r\n\x1a\n", "image/png"),
    (0, b"\xff\xd8\xff", "image/jpeg"),
    (0, b"GIF87a", "image/gif"),
    (0, b"GIF89a", "image/gif"),
    (0, b"%PDF-", "application/pdf"),
    (0, b"PK\x03\x04", "application/zip"),
    (0, b"PK\x05\x06", "application/zip"),  # an empty archive
    (0, b"\x1f\x8b", "application/gzip"),
    (0, b"BZh", "application/x-bzip2"),
    (0, b"\xfd7zXZ\x00", "application/x-xz"),
    (0, b"7z\xbc\xaf\x27\x1c", "application/x-7z-compressed"),
    (0, b"\x28\xb5\x2f\xfd", "application/zstd"),
    (0, b"BM", "image/bmp"),
    (0, b"II*\x00", "image/tiff"),
    (0, b"MM\x00*", "image/tiff"),
    (0, b"\x00\x00\x01\x00", "image/vnd.microsoft.icon"),
    (0, b"ID3", "audio/mpeg"),
    (0, b"OggS", "audio/ogg"),
    (0, b"fLaC", "audio/flac"),
    (0, b"\x1aE\xdf\xa3", "video/webm"),
    (0, b"\x00asm", "application/wasm"),
    (0, b"\x7fELF", "application/x-executable"),
    (0, b"SQLite format 3\x00", "application/vnd.sqlite3"),
    (0, b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "application/x-ole-storage"),  # old Office files
    (257, b"ustar", "application/x-tar"),
)
RIFF_KINDS = {b"WEBP": "image/webp", b"WAVE": "audio/wav", b"AVI ": "video/x-msvideo"}
FTYP_KINDS = {b"avif": "image/avif", b"heic": "image/heic", b"qt  ": "video/quicktime"}

TEXT_BY_SUFFIX = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".csv": "text/csv",
    ".tsv": "text/tab-separated-values",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
}
# Kinds whose bytes are text: their text is extracted, searched and checked for secrets.
TEXT_LIKE = frozenset({"application/json", "application/xml", "application/yaml"})
SAMPLE = 8192  # bytes looked at to decide text or binary
JSON_PARSE_MAX = 1024 * 1024  # a larger JSON-looking file is text/plain (parsing it costs)


def is_text_like(content_type: str) -> bool:
    return content_type.startswith("text/") or content_type in TEXT_LIKE


def content_type(data: bytes, name: str = "") -> str:
    """The content type the bytes show (`name` only refines a text kind)."""
    for offset, signature, kind in SIGNATURES:
        if data[offset : offset + len(signature)] == signature:
            return kind
    if data[:4] == b"RIFF" and data[8:12] in RIFF_KINDS:
        return RIFF_KINDS[data[8:12]]
    if data[4:8] == b"ftyp":
        return FTYP_KINDS.get(data[8:12], "video/mp4")
    if not _looks_like_text(data):
        return OCTET
    return _text_kind(data, name)


def _looks_like_text(data: bytes) -> bool:
    """UTF-8 (a character cut at the sample's end allowed) without NUL or most controls."""
    sample = data[:SAMPLE]
    if b"\x00" in sample:
        return False
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(sample) - 3:  # not just a character cut at the sample's end
            return False
    controls = sum(1 for b in sample if b < 32 and b not in (9, 10, 12, 13, 27))
    return controls <= len(sample) // 100


def _text_kind(data: bytes, name: str) -> str:
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if head.startswith((b"<!doctype html", b"<html")):
        return "text/html"
    if head.startswith(b"<svg") or (head.startswith(b"<?xml") and b"<svg" in data[:SAMPLE]):
        return "image/svg+xml"
    if head.startswith(b"<?xml"):
        return "application/xml"
    if head[:1] in (b"{", b"[") and len(data) <= JSON_PARSE_MAX and _is_json(data):
        return "application/json"
    suffix = name[name.rfind(".") :].lower() if "." in name else ""
    return TEXT_BY_SUFFIX.get(suffix, "text/plain")


def _is_json(data: bytes) -> bool:
    try:
        json.loads(data)
    except ValueError:
        return False
    return True


def extract_text(data: bytes, kind: str, max_chars: int) -> str:
    """The text of a text-like blob (UTF-8, at most `max_chars`), else ''. NUL characters are
    dropped: PostgreSQL text cannot hold them."""
    if not (is_text_like(kind) or kind == "image/svg+xml") or max_chars <= 0:
        return ""
    text = data[: max_chars * 4].decode("utf-8", errors="replace")[:max_chars]
    return text.lstrip("\ufeff").replace("\x00", "")
