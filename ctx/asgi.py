"""The ASGI entry point served by uvicorn (`uvicorn ctx.asgi:app`)."""

from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ctx.settings")
django_app = get_asgi_application()  # sets Django up: the MCP modules import models

# Writes enqueue Celery tasks after commit. Without the project's Celery app loaded (the worker
# loads it with -A), Celery falls back to its default AMQP broker and each write waits seconds.
import ctx.celery  # noqa: E402, F401

# Under `make run`: load the embedder on a thread while the server already answers, then say
# ready to the launcher (ctx/runtime/ready.py), so the first store and question are not slow.
from ctx.runtime import heap, ready  # noqa: E402


def _warm() -> None:
    from django.db import connection

    from retrieval.embeddings import warm

    try:
        warm()
    finally:
        connection.close()  # this thread's, if the provider's settings were read from the database
        heap.freeze()  # the embedder is loaded by now (ctx/runtime/heap.py)


ready.announce_after(_warm)

# --- MCP endpoint (ctx/mcp/app.py): /mcp, the lifespan the SDK needs, the access log ---------
from blobs import config as blob_config  # noqa: E402
from ctx import knobs  # noqa: E402
from ctx.gate import RequestGate  # noqa: E402
from ctx.guards import ASGIApp, BodyLimit, DatabaseUnavailable  # noqa: E402
from ctx.mcp.app import with_mcp  # noqa: E402
from refindex import config as index_config  # noqa: E402

served: ASGIApp = DatabaseUnavailable(with_mcp(django_app))  # type: ignore[arg-type]
if knobs.configured("CTX_DB_POOL"):  # as many requests at once as the pool has connections
    served = RequestGate(
        served, knobs.configured("CTX_DB_POOL"), knobs.configured("CTX_REQUEST_QUEUE_SECONDS")
    )
# Outermost: a body over the limit is refused before anything reads it or waits (ctx/guards.py).
# The blob upload alone takes bodies up to the blob limit (and its form around the file).
# The blob upload and the document index take larger bodies (each up to its own limit).
allowances = {**blob_config.body_allowances(), **index_config.body_allowances()}
app = BodyLimit(served, knobs.configured("CTX_MAX_BODY_BYTES"), allowances)

# Everything above lives as long as the process: out of full collections (ctx/runtime/heap.py).
# Under `make run` the warm-up freezes the embedder's objects too once it has loaded them.
heap.freeze()
