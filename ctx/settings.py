"""Django settings. Every value comes from the environment through ctx.config (validated)."""

from __future__ import annotations

import os
from pathlib import Path

from ctx.runtime.shadow import ensure_project_secrets

ensure_project_secrets()

from psycopg_pool.base import AttemptWithBackoff  # noqa: E402

import secrets  # noqa: E402 - the project's app, which re-exports the stdlib module
from blobs.config import blob_storage  # noqa: E402
from ctx import config  # noqa: E402
from ctx.dburl import parse_database_url  # noqa: E402

BASE_DIR = Path(__file__).resolve().parent.parent
CTX = config.load()

DATA_DIR = (BASE_DIR / CTX["CTX_DATA_DIR"]).resolve()
DEBUG = CTX["CTX_DEBUG"]


def _secret_key() -> str:
    """The configured key, or one generated once into the data directory for local use."""
    if CTX["CTX_SECRET_KEY"]:
        return str(CTX["CTX_SECRET_KEY"])
    path = DATA_DIR / "secret_key"
    if path.exists():
        return path.read_text().strip()
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    path.write_text(key)
    path.chmod(0o600)
    return key


SECRET_KEY = _secret_key()
ALLOWED_HOSTS = CTX["CTX_ALLOWED_HOSTS"] + (["testserver"] if os.environ.get("CTX_TESTING") else [])

INSTALLED_APPS = [
    "ctx.apps.OperatorAdminConfig",  # django.contrib.admin on the operators' site (ctx/admin)
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "drf_spectacular",  # the OpenAPI schema at /api/schema (ctx/api/schema.py)
    "ctx.apps.CtxConfig",
    "retrieval.apps.RetrievalConfig",
    "dream.apps.DreamConfig",
    "secrets.apps.SecretsConfig",
    "profiles.apps.ProfilesConfig",
    "frontend.apps.FrontendConfig",
    "ingest.apps.IngestConfig",
    "memory.apps.MemoryConfig",
    "refindex.apps.RefindexConfig",
    "blobs.apps.BlobsConfig",
    "rls.apps.RlsConfig",  # last: its migration polices the other apps' tables
]

# One place for the whole schema history (design §2).
MIGRATION_MODULES = {
    "ctx": "migrations.ctx",
    "retrieval": "migrations.retrieval",
    "dream": "migrations.dream",
    "secrets": "migrations.secrets",
    "profiles": "migrations.profiles",
    "frontend": "migrations.frontend",
    "ingest": "migrations.ingest",
    "memory": "migrations.memory",
    "refindex": "migrations.refindex",
    "blobs": "migrations.blobs",
    "rls": "migrations.rls",
}

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Which interface a request came through, for block version history (ctx/channel.py).
    "ctx.channel.ChannelMiddleware",
    # Static files (the admin's, the web UI's) from the web process itself, before the session
    # and auth work that a stylesheet does not need; docs/architecture.md "Static files".
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # The web UI's pages: a Content-Security-Policy without inline scripts (frontend/csp.py).
    "frontend.csp.ContentSecurityPolicyMiddleware",
]

# The admin's sign-in is an API key (ctx/admin/auth.py): ctx keeps no passwords.
AUTHENTICATION_BACKENDS = ["ctx.admin.auth.ApiKeyBackend"]

ROOT_URLCONF = "ctx.urls"
APPEND_SLASH = False  # a redirect would turn a POST into a body-less GET
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # The operators' admin overrides Django's admin templates (admin/base_site.html): a
        # directory is searched before the apps', and django.contrib.admin comes first there.
        "DIRS": [BASE_DIR / "ctx" / "admin" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]
WSGI_APPLICATION = "ctx.wsgi.application"
ASGI_APPLICATION = "ctx.asgi.app"

_db = parse_database_url(CTX["DATABASE_URL"] or "postgresql://postgres@/postgres")
# HNSW iterative scan: scope filters applied after the index scan must not starve recall.
_db["OPTIONS"].setdefault("options", "-c hnsw.iterative_scan=relaxed_order")
_db["CONN_MAX_AGE"] = CTX["CTX_DB_CONN_MAX_AGE"]
if CTX["CTX_DB_POOL"]:
    # Django hands a closed connection back to the pool; persistent connections are then off.
    _db["CONN_MAX_AGE"] = 0
    # A request that gets no connection within the timeout answers 503 (ctx.errors): a
    # database that is down or a pool that is used up must not hold requests for long.
    # psycopg_pool retries a failed connection with back-off (1, 2, 4 … s) for 5 minutes: a
    # database back after 20 s was used only at the next attempt, ~10 s later. Giving up
    # after a few seconds lets the next request try at once.
    _db["OPTIONS"]["pool"] = {
        "min_size": 1,
        "max_size": CTX["CTX_DB_POOL"],
        "timeout": CTX["CTX_DB_POOL_TIMEOUT"],
        "reconnect_timeout": 3.0,
    }
    # Its first retry of a failed connection comes 1 s after the failure (then 2, 4 s), and
    # psycopg_pool has no setting for it: a PostgreSQL restart of 0.4 s outlasted a request's
    # wait for a connection (503s). Retried after 0.25, 0.75, 1.75 s, a restart is bridged
    # within the wait, and a stopped database still answers 503 within CTX_DB_POOL_TIMEOUT.
    AttemptWithBackoff.INITIAL_DELAY = 0.25
_db["CONN_HEALTH_CHECKS"] = True
DATABASES = {"default": _db}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = CTX["REDIS_URL"]
CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_TASK_TIME_LIMIT = 300  # set globally (conventions §9); tasks own only their retries
CELERY_TASK_SOFT_TIME_LIMIT = 240
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ACKS_LATE = True
# Nothing reads task results: storing them cost a Redis write per task, and a publisher that
# expects a result subscribes to its channel first (one more round trip, one more connection).
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Requests never publish themselves (ctx.broker publishes on a thread, with socket timeouts);
# these bound the retries of the workers' and beat's own publishes.
CELERY_BROKER_TRANSPORT_OPTIONS = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2}
# Conversation imports have a worker of their own (ctx/runtime/launcher.py, compose.yaml): the
# client waits for them, and they must not queue behind the embedding of earlier batches.
CELERY_TASK_ROUTES = {"ingest.run_import": {"queue": "ingest"}}
CELERY_BEAT_SCHEDULE = {
    "embedding-backfill": {"task": "retrieval.backfill", "schedule": 60.0},
    "term-stats": {"task": "retrieval.term_stats", "schedule": 300.0},
    "storage": {"task": "ctx.measure_storage", "schedule": 3600.0},  # each scope's size
    # dream/: fans out cycle tasks, backfills dream state, rebuilds overdue digests
    "dream-feed": {"task": "dream.feed", "schedule": CTX["CTX_DREAM_FEED_SECONDS"]},
    # profiles/: signals whose processing task was lost (a broker outage) are processed late
    "profiles-sweep": {"task": "profiles.sweep", "schedule": CTX["CTX_PROFILES_SWEEP_SECONDS"]},
    # ingest/: import jobs a lost message or a stopped worker left behind, old finished jobs
    "ingest-sweep": {"task": "ingest.sweep_jobs", "schedule": 120.0},
}

LANGUAGE_CODE = "en-us"
TIME_ZONE = CTX["CTX_TIME_ZONE"] or config.machine_time_zone()
USE_I18N = False
USE_TZ = True
STATIC_URL = "static/"
# Collected by `manage.py collectstatic` (the launcher before the web server starts, the
# Dockerfile at build time): a derived artifact, never in git; CTX_STATIC_ROOT moves it out of
# the data directory (the image keeps it apart from a mounted data volume).
_static_root = CTX["CTX_STATIC_ROOT"]
STATIC_ROOT = (BASE_DIR / _static_root).resolve() if _static_root else DATA_DIR / "static"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Content-hashed names (cached for a year by browsers and proxies) plus .gz and .br
    # variants written once at collect time, so WhiteNoise never compresses per request.
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    # Blobs (blobs/): the filesystem under the data directory unless CTX_BLOB_STORAGE names
    # another class (S3 through django-storages: docs/settings.md, "Blob storage"). Never a URL
    # of its own: the bytes leave only through /api/blob/{id} after the tenant check.
    "blobs": blob_storage(CTX, DATA_DIR),
}

# Bodies over CTX_MAX_BODY_BYTES are refused before Django reads them (ctx.guards.BodyLimit);
# Django's own check, at the same size, never fires first.
DATA_UPLOAD_MAX_MEMORY_SIZE = CTX["CTX_MAX_BODY_BYTES"]

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["ctx.auth.ApiKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["ctx.auth.HasApiKey"],
    "DEFAULT_PARSER_CLASSES": ["ctx.api.parsers.BoundedJSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "EXCEPTION_HANDLER": "ctx.errors.exception_handler",
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_SCHEMA_CLASS": "ctx.api.schema.OperationSchema",
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "ctx.api.negotiation.Negotiation",
    # Per-key read/write token buckets in Redis (ctx/ratelimit.py; CTX_RATE_*).
}

SPECTACULAR_SETTINGS = {
    "TITLE": "ctx",
    "DESCRIPTION": "A multi-tenant memory server for LLM agents (docs/api.md).",
    "VERSION": "0.1.0",
    "OAS_VERSION": "3.1.0",  # pydantic's JSON Schema (nullable fields are `"type": "null"`)
    "SCHEMA_PATH_PREFIX": "/api",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": False,
    "POSTPROCESSING_HOOKS": [],  # the enum hook is for DRF serializers; ours are pydantic
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "loggers": {
        "ctx": {"handlers": ["console"], "level": CTX["CTX_LOG_LEVEL"].upper()},
        "django.request": {"handlers": ["console"], "level": "ERROR"},
    },
}

# --- MCP endpoint and OAuth 2.1 (ctx/mcp, ctx/oauth, docs/mcp.md) ------------------------------
from ctx.oauth.config import provider_settings  # noqa: E402

INSTALLED_APPS += ["oauth2_provider", "ctx.oauth.apps.OAuthConfig"]
OAUTH2_PROVIDER = provider_settings(CTX)
if CTX["CTX_PUBLIC_URL"]:
    CSRF_TRUSTED_ORIGINS = [CTX["CTX_PUBLIC_URL"].rstrip("/")]  # the consent form behind a proxy
if CTX["CTX_TRUST_PROXY"]:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    USE_X_FORWARDED_HOST = True
# --- end MCP/OAuth ------------------------------------------------------------------------------
