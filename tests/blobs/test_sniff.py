"""The content type from the bytes (blobs/sniff.py), on literal data."""

from __future__ import annotations

import pytest

from blobs import sniff


@pytest.mark.parametrize(
    ("data", "name", "kind"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00", "x.txt", "image/png"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "x.png", "image/jpeg"),
        (b"GIF89a\x01\x00", "", "image/gif"),
        (b"%PDF-1.7\n", "a.md", "application/pdf"),
        (b"PK\x03\x04\x14\x00", "a.docx", "application/zip"),
        (b"RIFF\x24\x00\x00\x00WEBPVP8 ", "", "image/webp"),
        (b"\x00\x00\x00\x18ftypmp42", "", "video/mp4"),
        (b"hello world\n", "notes", "text/plain"),
        (b"# Title\n\ntext", "README.md", "text/markdown"),
        (b"a,b\n1,2\n", "t.csv", "text/csv"),
        (b'{"a": [1, 2]}', "x.txt", "application/json"),
        (b"{not json", "x", "text/plain"),
        (b"<?xml version='1.0'?><r/>", "", "application/xml"),
        (b"<!DOCTYPE html><html></html>", "a.png", "text/html"),
        (b"<svg xmlns='http://www.w3.org/2000/svg'/>", "", "image/svg+xml"),
        ("Grüße, 東京\n".encode(), "", "text/plain"),
        (b"\x00\x01\x02\x03binary", "a.txt", "application/octet-stream"),
        (b"\xc3\x28 not utf-8 at all \xff\xfe", "", "application/octet-stream"),
        (b"", "", "text/plain"),
    ],
)
def test_it_tells_the_type_from_the_bytes(data: bytes, name: str, kind: str) -> None:
    assert sniff.content_type(data, name) == kind


def test_it_keeps_a_character_cut_at_the_sample_end_as_text() -> None:
    data = b"a" * (sniff.SAMPLE - 1) + "é".encode()  # é's second byte is past the sample
    assert sniff.content_type(data) == "text/plain"


def test_it_extracts_bounded_text_only_from_text_like_kinds() -> None:
    assert sniff.extract_text(b"abcdef", "text/plain", 3) == "abc"
    assert sniff.extract_text(b'{"k": 1}', "application/json", 100) == '{"k": 1}'
    assert sniff.extract_text(b"\x89PNG", "image/png", 100) == ""
    assert sniff.extract_text(b"a\x00b", "text/plain", 100) == "ab"
    assert sniff.extract_text("\ufeffbom".encode(), "text/plain", 100) == "bom"
