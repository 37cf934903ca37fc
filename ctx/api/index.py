"""The index API: index a document, list and delete sources, snippet search (docs/index.md)."""

from __future__ import annotations

from ctx.api.routing import READ, Op, created_or_ok, endpoint
from refindex import config
from refindex import operations as ops


def _megabytes(data: ops.IndexInput) -> int:
    """A document costs a write token per started megabyte (1-10 at the default limit)."""
    return 1 + len(data.content.encode("utf-8")) // 1_000_000


def _body_limit() -> int:
    """The path's own body limit (the ASGI guard's allowance): documents up to
    CTX_INDEX_MAX_BYTES, above the server's body limit."""
    return config.body_allowances()[config.INDEX_PATH]


index = endpoint(
    post=Op(
        ops.index, ops.IndexInput, cost=_megabytes, status=created_or_ok, body_limit=_body_limit
    )
)
sources = endpoint(get=Op(ops.sources_list, ops.SourcesInput, bucket=READ))
source = endpoint(delete=Op(ops.source_delete, ops.SourceInput))
search = endpoint(post=Op(ops.search, ops.SearchInput, bucket=READ))
