"""The core's knobs: server, database, limits, trust levels of providers, rate limits.

Pure data, read before Django starts (ctx.config collects every app's KNOBS); one line of help
per knob, shown by `manage.py config` and docs/settings.md.
"""

from __future__ import annotations

from ctx.config import Knob, choice, knob

KNOBS: tuple[Knob, ...] = (
    knob(
        "DATABASE_URL",
        "url",
        "",
        "PostgreSQL URL; unset = the embedded server in CTX_DATA_DIR.",
        secret=True,
    ),
    knob(
        "REDIS_URL",
        "url",
        "",
        "Redis URL (broker); unset = the embedded redis-server.",
        secret=True,
    ),
    knob("CTX_DEBUG", "bool", False, "Django debug mode; never in production."),
    knob(
        "CTX_SECRET_KEY",
        "str",
        "",
        "Django secret key and API-key HMAC pepper; generated into the data dir in embedded mode.",
        secret=True,
    ),
    knob("CTX_ALLOWED_HOSTS", "list", ["127.0.0.1", "localhost"], "Hosts Django answers."),
    knob("CTX_PUBLIC_URL", "str", "", "Public origin behind a reverse proxy (https://host)."),
    knob("CTX_DATA_DIR", "str", ".ctx", "Where the embedded PostgreSQL and Redis keep data."),
    knob(
        "CTX_STATIC_ROOT",
        "str",
        "",
        "Where collectstatic writes the served static files; unset = CTX_DATA_DIR/static.",
    ),
    knob("CTX_HOST", "str", "127.0.0.1", "Address `make run` binds."),
    knob(
        "CTX_PORT",
        "int",
        8000,
        "Port `make run` binds; busy: refused when set, else a free one with a warning.",
        bounds=(0, 65535),
    ),
    knob("CTX_WORKERS", "int", 2, "Celery worker processes started by `make run`.", bounds=(0, 64)),
    knob(
        "CTX_TIME_ZONE",
        "str",
        "",
        "Time zone for temporal expressions (IANA name); unset = the machine's zone, else UTC.",
    ),
    knob(
        "CTX_DB_CONN_MAX_AGE",
        "int",
        60,
        "Seconds a database connection is reused (make run sets 0 for the web server).",
        bounds=(0, 3600),
    ),
    knob(
        "CTX_DB_POOL",
        "int",
        0,
        "Per-process connection pool size (0 = none); make run gives the web server 6.",
        bounds=(0, 64),
    ),
    knob(
        "CTX_DB_POOL_TIMEOUT",
        "float",
        1.25,
        "Seconds a request waits for a pooled connection before it answers 503 (the gate hands "
        "out no more slots than connections, so only a database that went away makes it wait; "
        "long enough to bridge a restart: the pool reconnects 0.25 and 0.75 s after a failure).",
        bounds=(0.1, 60),
    ),
    knob(
        "CTX_REQUEST_QUEUE_SECONDS",
        "float",
        30.0,
        "Seconds a request may queue for one of its worker's pool slots before it answers 503.",
        bounds=(0.1, 600),
    ),
    knob(
        "CTX_MAX_BODY_BYTES",
        "int",
        8 * 1024 * 1024,
        "Largest request body (every path, /mcp too); larger is 413 before it is read.",
        bounds=(65536, 268435456),
    ),
    knob(
        "CTX_MAX_CONTENT_BYTES",
        "int",
        51200,
        "Largest block content in bytes (UTF-8).",
        bounds=(1024, 1048576),
    ),
    knob(
        "CTX_SEARCH_MAX_LIMIT",
        "int",
        50,
        "Largest `limit` a search or query may ask.",
        bounds=(1, 500),
    ),
    knob(
        "CTX_LOG_LEVEL",
        "str",
        "INFO",
        "Log level of the ctx loggers.",
        parse=choice("debug", "info", "warning", "error"),
    ),
    # --- sensitivity: the highest block level each provider kind may see (docs/security.md)
    knob(
        "CTX_EMBED_TRUST",
        "str",
        "auto",
        "Highest sensitivity sent to the embedder; auto = credentials local, internal remote.",
        parse=choice("auto", "public", "internal", "personal", "credentials"),
    ),
    knob(
        "CTX_LLM_TRUST",
        "str",
        "internal",
        "Highest sensitivity sent to the LLM (synthesis, judge, translation, dream typing).",
        parse=choice("public", "internal", "personal", "credentials"),
    ),
    knob(
        "CTX_RERANK_TRUST",
        "str",
        "auto",
        "Highest sensitivity sent to the reranker; auto = credentials local, internal remote.",
        parse=choice("auto", "public", "internal", "personal", "credentials"),
    ),
    knob(
        "CTX_TRUST_PROXY",
        "bool",
        False,
        "Trust X-Forwarded-Proto/-Host/-For from one reverse proxy in front of ctx.",
    ),
    # --- rate limits (ctx/ratelimit.py, docs/api.md "Rate limits") ------------------------------
    knob(
        "CTX_RATE_READ_PER_MIN",
        "int",
        600,
        "Reads (search, query, get, lists) per API key and minute; 0 = reads unlimited.",
        bounds=(0, 1_000_000),
        live=True,
    ),
    knob(
        "CTX_RATE_WRITE_PER_MIN",
        "int",
        1200,
        "Blocks written (a batch counts each) per API key and minute; 0 = unlimited.",
        bounds=(0, 1_000_000),
        live=True,
    ),
    knob(
        "CTX_RATE_BURST",
        "int",
        0,
        "Token-bucket size per key before the per-minute rate applies; 0 = rate limiting off.",
        bounds=(0, 1_000_000),
        live=True,
    ),
)
