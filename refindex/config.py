"""The body limit of POST /api/index for ctx.guards.BodyLimit (read when the ASGI app is built).

A document may be up to CTX_INDEX_MAX_BYTES (10 MB), above the server's CTX_MAX_BODY_BYTES
(8 MiB) for every other path. Sent as JSON its text grows by its escapes (a newline is two
bytes, a quote two), so the request may be twice the document, plus the fields around it;
the operation then measures the document itself (413 over CTX_INDEX_MAX_BYTES).
"""

from __future__ import annotations

INDEX_PATH = "/api/index"  # ctx/api/urls.py
ENVELOPE = 64 * 1024  # the label, scope and type around the document


def body_allowances() -> dict[str, int]:
    from ctx import knobs  # Django is configured by the time the ASGI app is built

    return {INDEX_PATH: 2 * int(knobs.configured("CTX_INDEX_MAX_BYTES")) + ENVELOPE}
