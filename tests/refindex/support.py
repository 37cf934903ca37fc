"""Documents and calls shared by the index tests."""

from __future__ import annotations

from typing import Any

GUIDE = """# Guide

Welcome to the deployment guide for the payments service.

## Install

Run the installer:

```bash
# Install with pip (not a heading)
pip install payments

## still code, not a heading
```

## Configure

Set PAYMENTS_TIMEOUT in the environment. The scheduler retries failed webhooks.

### Database

Use PostgreSQL with the pgvector extension; the scheduler keeps its queue there.

## Upgrade

Stop the workers, then run the migrations.

## Monitoring

Watch the error rate of the webhook endpoint.
"""


def index(api: Any, content: str, source: str = "guide.md", **fields: Any) -> tuple[int, Any]:
    return api.post("/api/index", {"content": content, "source": source, **fields})


def search(api: Any, *queries: str, **fields: Any) -> tuple[int, Any]:
    return api.post("/api/index/search", {"queries": list(queries), **fields})


def delete(api: Any, label: str, **params: Any) -> tuple[int, Any]:
    query = "&".join(f"{k}={v}" for k, v in params.items())
    path = f"/api/index/sources/{label}" + (f"?{query}" if query else "")
    resp = api.client.delete(path, headers=api._headers())
    return resp.status_code, resp.json()
