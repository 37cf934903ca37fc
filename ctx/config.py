"""Every CTX_* knob, declared once, parsed from the environment and validated as a whole.

Settings fail loudly: a malformed value stops the start, and every finding is listed at once
so an operator fixes them in one round trip. Django settings read the parsed values from here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

Parser = Callable[[str], Any]


class ConfigError(Exception):
    """Raised with every finding when the environment holds malformed settings."""

    def __init__(self, findings: list[str]) -> None:
        self.findings = findings
        super().__init__("Invalid configuration:\n" + "\n".join(f"  - {f}" for f in findings))


def parse_bool(raw: str) -> bool:
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ValueError("expected one of true/false/1/0/yes/no/on/off")


def parse_int(raw: str) -> int:
    try:
        return int(raw.strip())
    except ValueError:
        raise ValueError("expected an integer") from None


def parse_float(raw: str) -> float:
    try:
        return float(raw.strip())
    except ValueError:
        raise ValueError("expected a number") from None


def parse_str(raw: str) -> str:
    return raw.strip()


def parse_list(raw: str) -> list[str]:
    return [item.strip() for item in raw.split(",") if item.strip()]


def parse_url(raw: str) -> str:
    value = raw.strip()
    if "://" not in value:
        raise ValueError("expected a URL like scheme://host")
    return value


def parse_hex_key(raw: str) -> str:
    """A 256-bit key as 64 hex characters (sealed secrets); the value is never echoed."""
    value = raw.strip().lower()
    if len(value) != 64 or any(c not in "0123456789abcdef" for c in value):
        raise ValueError("expected 64 hex characters (32 random bytes)")
    return value


def choice(*options: str) -> Parser:
    def parse(raw: str) -> str:
        value = raw.strip().lower()
        if value not in options:
            raise ValueError(f"expected one of {', '.join(options)}")
        return value

    return parse


@dataclass(frozen=True)
class Knob:
    """One setting: its name, how to parse it, its default and how it may be changed."""

    name: str
    parse: Parser
    default: Any
    help: str
    secret: bool = False
    live: bool = False  # may change without a restart (database overrides, issue 7)
    tenant: bool = False  # tenants may override it
    bounds: tuple[float, float] | None = None
    type_name: str = field(default="str")


def _knob(name: str, kind: str, default: Any, doc: str, **kw: Any) -> Knob:
    parsers: dict[str, Parser] = {
        "bool": parse_bool,
        "int": parse_int,
        "float": parse_float,
        "str": parse_str,
        "list": parse_list,
        "url": parse_url,
    }
    parse = kw.pop("parse", None) or parsers[kind]
    return Knob(name=name, parse=parse, default=default, help=doc, type_name=kind, **kw)


KNOBS: tuple[Knob, ...] = (
    _knob(
        "DATABASE_URL",
        "url",
        "",
        "PostgreSQL URL; unset = the embedded server in CTX_DATA_DIR.",
        secret=True,
    ),
    _knob(
        "REDIS_URL",
        "url",
        "",
        "Redis URL (broker); unset = the embedded redis-server.",
        secret=True,
    ),
    _knob("CTX_DEBUG", "bool", False, "Django debug mode; never in production."),
    _knob(
        "CTX_SECRET_KEY",
        "str",
        "",
        "Django secret key and the pepper of API-key HMACs. Generated into ./.ctx/ when unset "
        "and CTX_DEBUG or the embedded mode is on; required otherwise.",
        secret=True,
    ),
    _knob("CTX_ALLOWED_HOSTS", "list", ["127.0.0.1", "localhost"], "Hosts Django answers."),
    _knob("CTX_PUBLIC_URL", "str", "", "Public origin behind a reverse proxy (https://host)."),
    _knob("CTX_DATA_DIR", "str", ".ctx", "Where the embedded PostgreSQL and Redis keep data."),
    _knob(
        "CTX_STATIC_ROOT",
        "str",
        "",
        "Where `collectstatic` writes the hashed, compressed static files the web process "
        "serves; unset = CTX_DATA_DIR/static.",
    ),
    _knob("CTX_HOST", "str", "127.0.0.1", "Address `make run` binds."),
    _knob(
        "CTX_PORT",
        "int",
        8000,
        "Port `make run` binds; a busy port falls back to a free one.",
        bounds=(0, 65535),
    ),
    _knob(
        "CTX_WORKERS", "int", 2, "Celery worker processes started by `make run`.", bounds=(0, 64)
    ),
    _knob("CTX_TIME_ZONE", "str", "Europe/Berlin", "Time zone for temporal expressions."),
    _knob(
        "CTX_DB_CONN_MAX_AGE",
        "int",
        60,
        "Seconds a database connection is reused. `make run` sets 0 for the web server: under "
        "ASGI each request may run on another thread and persistent connections pile up.",
        bounds=(0, 3600),
    ),
    _knob(
        "CTX_DB_POOL",
        "int",
        0,
        "Size of a per-process connection pool (0 = none; CTX_DB_CONN_MAX_AGE then applies). "
        "`make run` gives the web server one of 6: under ASGI each request runs on a thread "
        "of its own, so without a pool every request opened a new PostgreSQL backend, whose "
        "cold catalog caches made the search statement 30 ms slower (docs/architecture.md). "
        "With a pool, a comparison question's parts are searched on two more connections "
        "at once.",
        bounds=(0, 64),
    ),
    _knob(
        "CTX_MAX_CONTENT_BYTES",
        "int",
        51200,
        "Largest block content in bytes (UTF-8).",
        bounds=(1024, 1048576),
    ),
    _knob(
        "CTX_SEARCH_MAX_LIMIT",
        "int",
        50,
        "Largest `limit` a search or query may ask.",
        bounds=(1, 500),
    ),
    _knob(
        "CTX_LOG_LEVEL",
        "str",
        "INFO",
        "Log level of the ctx loggers.",
        parse=choice("debug", "info", "warning", "error"),
    ),
    _knob(
        "CTX_LLM_PROVIDER",
        "str",
        "none",
        "LLM for extraction, link typing, judging and synthesis; none = deterministic mode.",
        parse=choice("none", "openai", "ollama", "anthropic"),
    ),
    _knob(
        "CTX_LLM_BASE_URL",
        "url",
        "",
        "LLM endpoint; unset = the provider's public API (Ollama: http://127.0.0.1:11434).",
    ),
    _knob("CTX_LLM_MODEL", "str", "", "LLM model name; required when a provider is set."),
    _knob(
        "CTX_LLM_API_KEY",
        "str",
        "",
        "LLM API key (Anthropic, hosted OpenAI).",
        secret=True,
        live=True,
    ),
    _knob(
        "CTX_LLM_TIMEOUT",
        "float",
        60.0,
        "Seconds an LLM call may take (per endpoint).",
        bounds=(1, 600),
        live=True,
    ),
    _knob(
        "CTX_LLM_FALLBACK_PROVIDER",
        "str",
        "none",
        "Second LLM, asked when the first cannot be reached.",
        parse=choice("none", "openai", "ollama", "anthropic"),
    ),
    _knob("CTX_LLM_FALLBACK_BASE_URL", "url", "", "Fallback LLM endpoint."),
    _knob("CTX_LLM_FALLBACK_MODEL", "str", "", "Fallback LLM model name."),
    _knob("CTX_LLM_FALLBACK_API_KEY", "str", "", "Fallback LLM API key.", secret=True, live=True),
    _knob(
        "CTX_LLM_LOG_BODIES",
        "bool",
        False,
        "Keep prompts and answers in the LLM call log (they hold tenants' knowledge).",
    ),
    # --- sensitivity: the highest block level each provider kind may see (docs/security.md)
    _knob(
        "CTX_EMBED_TRUST",
        "str",
        "auto",
        "Highest sensitivity sent to the embedder; auto = credentials for local/e5, "
        "internal for remote providers.",
        parse=choice("auto", "public", "internal", "personal", "credentials"),
    ),
    _knob(
        "CTX_LLM_TRUST",
        "str",
        "internal",
        "Highest sensitivity sent to the LLM (synthesis, judge, translation, dream typing).",
        parse=choice("public", "internal", "personal", "credentials"),
    ),
    _knob(
        "CTX_RERANK_TRUST",
        "str",
        "auto",
        "Highest sensitivity sent to the rerank backend; auto = credentials for crossencoder, "
        "internal for http and llm.",
        parse=choice("auto", "public", "internal", "personal", "credentials"),
    ),
    _knob(
        "CTX_EMBED_PROVIDER",
        "str",
        "local",
        "Embedding provider: local (sentence-transformers), ollama, openai (/v1/embeddings), e5.",
        parse=choice("local", "ollama", "openai", "e5"),
    ),
    _knob(
        "CTX_EMBED_PRECISION",
        "str",
        "auto",
        "Local model arithmetic for stored texts: bf16 (bfloat16 matrix products, 1.6x the fp32 "
        "rate with AVX-512 BF16, 2.5x with AMX; cosine to the fp32 vectors >= 0.9999), fp32, or "
        "auto: bf16 where the CPU has native bfloat16, else fp32 (emulated bf16 is slower). "
        "Queries always run fp32. Measure yours: bench/embedding.py.",
        parse=choice("auto", "fp32", "bf16"),
    ),
    _knob(
        "CTX_EMBED_QUERY_RUNTIME",
        "str",
        "onnx-int8",
        "How the local model embeds questions: onnx-int8 (the model exported once into "
        "CTX_DATA_DIR/models, its matrix weights quantized to int8, run by ONNX Runtime: 3.0 "
        "ms per question on one thread, cosine 0.995 to fp32, the same LongMemEval_S figures), "
        "onnx (the same in fp32: 5.4 ms, the torch vectors) or torch (12.9 ms). Web workers "
        "never load torch with onnx*. Models other than a mean-pooled BERT encoder use torch.",
        parse=choice("onnx-int8", "onnx", "torch"),
    ),
    _knob("CTX_EMBED_BASE_URL", "url", "", "Remote embedding endpoint (ollama, openai)."),
    _knob(
        "CTX_EMBED_MODEL",
        "str",
        "",
        "Embedding model; unset = the packaged all-MiniLM-L6-v2 (local).",
    ),
    _knob("CTX_EMBED_API_KEY", "str", "", "Remote embedding API key.", secret=True),
    _knob(
        "CTX_EMBED_DIM",
        "int",
        384,
        "Embedding size; must match the provider (checked on every answer).",
        bounds=(1, 2000),
    ),
    _knob(
        "CTX_EMBED_TIMEOUT",
        "float",
        30.0,
        "Seconds a remote embedding call may take.",
        bounds=(0.1, 600),
    ),
    _knob(
        "CTX_RRF_W_SEMANTIC",
        "float",
        0.55,
        "Fusion weight of the semantic arm (score and RRF fusion).",
        bounds=(0, 1),
        live=True,
        tenant=True,
    ),
    _knob(
        "CTX_RRF_W_FTS_EN",
        "float",
        0.25,
        "Fusion weight of English full text (BM25).",
        bounds=(0, 1),
        live=True,
        tenant=True,
    ),
    _knob(
        "CTX_RRF_W_FTS_DE",
        "float",
        0.15,
        "Fusion weight of German full text (BM25).",
        bounds=(0, 1),
        live=True,
        tenant=True,
    ),
    _knob(
        "CTX_RRF_W_TITLE",
        "float",
        0.05,
        "Fusion weight of the title trigram arm.",
        bounds=(0, 1),
        live=True,
        tenant=True,
    ),
    _knob(
        "CTX_RRF_K",
        "int",
        60,
        "The k of reciprocal rank fusion (CTX_FUSION=rrf).",
        bounds=(1, 1000),
        live=True,
        tenant=True,
    ),
    _knob(
        "CTX_FUSION",
        "str",
        "score",
        "How the arms are fused: score (weighted z-scores) or rrf (weighted reciprocal rank).",
        parse=choice("score", "rrf"),
        live=True,
        tenant=True,
    ),
    _knob(
        "CTX_FTS_MATCH_BUDGET",
        "int",
        2000,
        "Full-text arms, in scopes of more blocks than this: candidates come from the rarest terms"
        " whose document counts add up to at most this (at least one); all terms score them.",
        bounds=(50, 1_000_000),
        live=True,
    ),
    _knob(
        "CTX_FTS_STATS_FROM",
        "int",
        20000,
        "Scopes of at least this many live blocks keep their full-text document frequencies,"
        " counted in the background (every 5 minutes when the size drifted 10%, daily anyway)"
        " instead of per query.",
        bounds=(1, 100_000_000),
        live=True,
    ),
    _knob(
        "CTX_QUERY_DECOMPOSE",
        "bool",
        True,
        "Comparison questions (A or B, between A and B, quoted names) also search each part.",
        live=True,
        tenant=True,
    ),
    _knob(
        "CTX_FEEDBACK_SEEDS",
        "int",
        3,
        "Query feedback stage: how many top blocks' best windows move the query vector.",
        bounds=(1, 10),
        live=True,
        tenant=True,
    ),
    _knob(
        "CTX_FEEDBACK_WEIGHT",
        "float",
        0.8,
        "Query feedback stage: weight of the seeds' mean window added to the query vector.",
        bounds=(0, 5),
        live=True,
        tenant=True,
    ),
    _knob(
        "CTX_GRAVITY_CAP",
        "float",
        2.0,
        "Largest total score multiplier of temporal gravity.",
        bounds=(1, 10),
        live=True,
        tenant=True,
    ),
    _knob(
        "CTX_QUERY_STAGES",
        "list",
        ["gravity_cyclic", "gravity_linear", "feedback", "graph", "rerank", "supersedes"],
        "Retrieval stages after fusion, in order; remove one to switch it off.",
        live=True,
        tenant=True,
    ),
    # Sealed secrets (secrets/, docs/secrets.md). Keys are 64 hex chars, set inline or by file.
    _knob(
        "CTX_SECRETS_KEY",
        "str",
        "",
        "Master key of sealed secrets (64 hex chars); required once a secret exists.",
        secret=True,
        parse=parse_hex_key,
    ),
    _knob(
        "CTX_SECRETS_KEY_FILE",
        "str",
        "",
        "File holding CTX_SECRETS_KEY (64 hex chars); set this or CTX_SECRETS_KEY, not both.",
    ),
    _knob(
        "CTX_SECRETS_KEY_PREV",
        "str",
        "",
        "The previous master key during a rotation; secrets sealed under it are re-sealed.",
        secret=True,
        parse=parse_hex_key,
    ),
    _knob(
        "CTX_SECRETS_KEY_PREV_FILE",
        "str",
        "",
        "File holding CTX_SECRETS_KEY_PREV; set this or CTX_SECRETS_KEY_PREV, not both.",
    ),
    # --- MCP endpoint and OAuth 2.1 (ctx/mcp, ctx/oauth, docs/mcp.md) ---------------------------
    _knob(
        "CTX_OAUTH_DCR_MODE",
        "str",
        "open",
        "Dynamic client registration: open (anyone, rate-limited; claude.ai needs it), "
        "admin (only with a ctx admin API key as Bearer), off.",
        parse=choice("off", "admin", "open"),
    ),
    _knob(
        "CTX_OAUTH_MAX_CLIENTS",
        "int",
        1000,
        "Most dynamically registered OAuth clients kept; stale unused ones are pruned at the cap.",
        bounds=(1, 1_000_000),
    ),
    _knob(
        "CTX_OAUTH_CIMD",
        "bool",
        False,
        "Accept OAuth client ID metadata documents (the server fetches the client's https URL).",
    ),
    _knob(
        "CTX_MCP_ALLOWED_ORIGINS",
        "list",
        [],
        "Browser origins allowed to call /mcp besides this server's own (https://app.example).",
    ),
    _knob(
        "CTX_TRUST_PROXY",
        "bool",
        False,
        "Trust X-Forwarded-Proto/-Host/-For from one reverse proxy in front of ctx.",
    ),
    # --- end MCP/OAuth --------------------------------------------------------------------------
    # --- rate limits (ctx/ratelimit.py, docs/api.md "Rate limits") ------------------------------
    _knob(
        "CTX_RATE_READ_PER_MIN",
        "int",
        600,
        "Reads (search, query, get, lists) per API key and minute; 0 = reads unlimited.",
        bounds=(0, 1_000_000),
        live=True,
    ),
    _knob(
        "CTX_RATE_WRITE_PER_MIN",
        "int",
        1200,
        "Blocks written (a batch counts each block) and other writes per API key and minute; "
        "0 = writes unlimited.",
        bounds=(0, 1_000_000),
        live=True,
    ),
    _knob(
        "CTX_RATE_BURST",
        "int",
        0,
        "Token-bucket size: requests a key may make at once before the per-minute rate applies; "
        "0 = rate limiting off.",
        bounds=(0, 1_000_000),
        live=True,
    ),
    # --- end rate limits ----------------------------------------------------------------------
    _knob(
        "CTX_RERANK_BACKEND",
        "str",
        "none",
        "Rerank stage backend.",
        parse=choice("none", "crossencoder", "http", "llm"),
        live=True,
    ),
    _knob(
        "CTX_RERANK_MODEL",
        "str",
        "",
        "Cross-encoder path or name, or the sidecar's model.",
        live=True,
    ),
    _knob(
        "CTX_RERANK_URL",
        "str",
        "",
        "Rerank sidecar URL, e.g. http://host:8080/v1/rerank.",
        live=True,
    ),
    _knob(
        "CTX_RERANK_API_KEY",
        "str",
        "",
        "Bearer token for the rerank sidecar.",
        secret=True,
        live=True,
    ),
    _knob(
        "CTX_RERANK_MAX_TOKENS",
        "int",
        96,
        "Longest query+document pair a cross-encoder reads, in tokens; cost grows with it "
        "(96 keeps a MiniLM-L6 cross-encoder on 30 documents near 150 ms on two cores).",
        bounds=(32, 512),
        live=True,
    ),
    _knob(
        "CTX_RERANK_QUANTIZE",
        "bool",
        True,
        "Run the cross-encoder with int8 dynamic quantization of its linear layers (CPU): "
        "about 1.6x faster, scores shift slightly.",
        live=True,
    ),
    _knob(
        "CTX_RERANK_TOP_N",
        "int",
        30,
        "How many top hits the rerank stage re-scores.",
        bounds=(2, 200),
        live=True,
        tenant=True,
    ),
    _knob(
        "CTX_RERANK_WEIGHT",
        "float",
        0.5,
        "Weight of the normalised rerank score in the blend with the normalised fusion score.",
        bounds=(0, 1),
        live=True,
        tenant=True,
    ),
    _knob(
        "CTX_RERANK_BUDGET_MS",
        "int",
        1500,
        "Time budget of the rerank stage per request; over it the fusion order stands.",
        bounds=(10, 120000),
        live=True,
    ),
    _knob(
        "CTX_TRANSLATE_QUERIES",
        "bool",
        True,
        "With an LLM configured, translate the query "
        "so each full-text arm also searches in its own language.",
        live=True,
        tenant=True,
    ),
    # --- Dream Mode, guard, digest, graph expansion (dream/, docs/dream.md) ---------------------
    _knob(
        "CTX_DREAM_INITIAL_MODE",
        "str",
        "on",
        "Dream mode until an admin sets one; the live mode is a database row "
        "(POST /api/dream/mode, `manage.py dream_mode`, Django admin).",
        parse=choice("on", "throttled", "off"),
    ),
    _knob(
        "CTX_DREAM_THROTTLE_SECONDS",
        "float",
        2.0,
        "Pause before each model call in throttled mode (once per cycle without an LLM).",
        bounds=(0, 3600),
    ),
    _knob(
        "CTX_DREAM_CLAIM_TTL",
        "int",
        300,
        "Seconds a worker's claim on a block lasts; a crashed worker's block is free after it.",
        bounds=(1, 86400),
    ),
    _knob(
        "CTX_DREAM_FEED_SECONDS",
        "float",
        30.0,
        "Celery beat interval of the dream feed (fans out cycle tasks, housekeeping).",
        bounds=(1, 86400),
    ),
    _knob("CTX_DREAM_FANOUT", "int", 2, "Most cycle tasks one feed enqueues.", bounds=(1, 64)),
    _knob("CTX_DREAM_BATCH", "int", 1000, "Most cycles one task runs.", bounds=(1, 100000)),
    _knob(
        "CTX_DREAM_CLAIM_SIZE",
        "int",
        16,
        "Blocks one claim takes at once and writes in one transaction "
        "(1 with an LLM or in throttled mode).",
        bounds=(1, 256),
    ),
    _knob(
        "CTX_DREAM_TASK_SECONDS",
        "float",
        50.0,
        "Time budget of one cycle task (below the Celery soft time limit).",
        bounds=(1, 3600),
    ),
    _knob(
        "CTX_DREAM_MAX_LINKS",
        "int",
        5,
        "Most links one cycle writes (type diversity breaks ties).",
        bounds=(1, 50),
    ),
    _knob(
        "CTX_DREAM_CANDIDATES",
        "int",
        10,
        "Candidates per source (neighbours, lexical, tags) a cycle considers.",
        bounds=(1, 100),
    ),
    _knob(
        "CTX_DREAM_LLM_CANDIDATES",
        "int",
        6,
        "Candidates the LLM types per cycle (the closest by embedding).",
        bounds=(1, 20),
    ),
    _knob(
        "CTX_DREAM_SUPERSEDE_MIN",
        "float",
        0.85,
        "Confidence at which a supersedes link turns its target into a snapshot.",
        bounds=(0, 1),
    ),
    _knob(
        "CTX_DREAM_REVIEW_BELOW",
        "float",
        0.8,
        "Dream links below this confidence (and every supersedes link) are listed for review.",
        bounds=(0, 1),
    ),
    _knob(
        "CTX_DREAM_CANONICAL_SUPPORT",
        "int",
        3,
        "Confident links from distinct blocks that promote a block to canonical.",
        bounds=(1, 100),
    ),
    _knob(
        "CTX_DREAM_BACKOFF",
        "str",
        "exp",
        "Back-off curve of a block's cooldown after cycles that change nothing.",
        parse=choice("exp", "log", "linear", "off"),
    ),
    _knob(
        "CTX_DREAM_BACKOFF_MIN_HOURS",
        "float",
        12.0,
        "Shortest cooldown between two cycles of one block.",
        bounds=(0, 8760),
    ),
    _knob(
        "CTX_DREAM_BACKOFF_FACTOR",
        "float",
        1.6,
        "Growth factor of the back-off curve.",
        bounds=(1, 10),
    ),
    _knob(
        "CTX_DREAM_BACKOFF_GRACE",
        "int",
        0,
        "Unproductive cycles before the cooldown starts to grow.",
        bounds=(0, 100),
    ),
    _knob("CTX_DREAM_BACKOFF_CAP_DAYS", "float", 45.0, "Longest cooldown.", bounds=(0, 3650)),
    _knob(
        "CTX_DREAM_INERT_OFFSET",
        "int",
        7,
        "Back-off levels added at once when a cycle finds no candidates at all.",
        bounds=(0, 100),
    ),
    _knob(
        "CTX_DREAM_RETRY_MINUTES",
        "float",
        5.0,
        "Retry delay after a transient failure (LLM or database unreachable); not counted.",
        bounds=(0, 1440),
    ),
    _knob(
        "CTX_GUARD_HINTS",
        "bool",
        True,
        "Embed a stored text synchronously and answer the store with near-duplicate hints.",
    ),
    _knob(
        "CTX_GUARD_REVIEW_AT",
        "float",
        0.92,
        "Cosine similarity from which a same-scope pair is a near-duplicate (hint, review).",
        bounds=(0, 1),
    ),
    _knob(
        "CTX_GUARD_ARCHIVE_AT",
        "float",
        0.98,
        "Cosine similarity from which the newer block of a same-scope pair is a near-copy.",
        bounds=(0, 1),
    ),
    _knob(
        "CTX_GUARD_ACTION",
        "str",
        "archive",
        "What the background guard does with a near-copy: archive it, or only flag it.",
        parse=choice("archive", "flag"),
    ),
    _knob(
        "CTX_DIGEST_DEBOUNCE_SECONDS",
        "float",
        120.0,
        "Quiet time after the last write before a scope's topic map is rebuilt.",
        bounds=(0, 86400),
    ),
    _knob(
        "CTX_GRAPH_SEEDS",
        "int",
        5,
        "Graph expansion: top results (scoring at least half the top score) used as seeds.",
        bounds=(0, 50),
        live=True,
        tenant=True,
    ),
    _knob(
        "CTX_GRAPH_PER_SEED",
        "int",
        3,
        "Graph expansion: most neighbours taken per seed.",
        bounds=(1, 50),
        live=True,
        tenant=True,
    ),
    _knob(
        "CTX_GRAPH_MIN_CONFIDENCE",
        "float",
        0.75,
        "Graph expansion: least confidence of a followed link (recurrent links: the next knob).",
        bounds=(0, 1),
        live=True,
        tenant=True,
    ),
    _knob(
        "CTX_GRAPH_MIN_RECURRENT",
        "float",
        0.8,
        "Graph expansion: least confidence of a followed recurrent link.",
        bounds=(0, 1),
        live=True,
        tenant=True,
    ),
    _knob(
        "CTX_GRAPH_BOOST",
        "float",
        0.2,
        "Graph expansion: largest relative boost of a neighbour already in the results.",
        bounds=(0, 1),
        live=True,
        tenant=True,
    ),
    _knob(
        "CTX_GRAPH_INJECTION",
        "float",
        0.6,
        "Graph expansion: a new neighbour enters at this x top score x link strength.",
        bounds=(0, 1),
        live=True,
        tenant=True,
    ),
    _knob(
        "CTX_GRAPH_MAX_NEW",
        "int",
        10,
        "Graph expansion: most new neighbours added to one query's results.",
        bounds=(0, 100),
        live=True,
        tenant=True,
    ),
    # --- end Dream -----------------------------------------------------------------------------
    # --- conversations ---------------------------------------------------------------------------
    _knob(
        "CTX_SESSION_WINDOW_SIZE",
        "int",
        8,
        "Messages per transcript window (the retrieval unit of imported sessions).",
        bounds=(1, 64),
    ),
    _knob(
        "CTX_SESSION_WINDOW_STRIDE",
        "int",
        4,
        "Messages between the starts of two windows (less than the size: they overlap).",
        bounds=(1, 64),
    ),
    _knob(
        "CTX_SESSION_WINDOW_MESSAGE_CHARS",
        "int",
        2000,
        "Most characters of a user or system message in a window's text (the message keeps all).",
        bounds=(100, 100000),
    ),
    _knob(
        "CTX_SESSION_WINDOW_ASSISTANT_CHARS",
        "int",
        2000,
        "Most characters of an assistant message in a window's text.",
        bounds=(0, 100000),
    ),
    _knob(
        "CTX_SESSION_WINDOW_TOOL_CHARS",
        "int",
        300,
        "Most characters of one tool result in a window's text.",
        bounds=(0, 100000),
    ),
    _knob(
        "CTX_SESSION_IMPORT_MAX_MESSAGES",
        "int",
        2000,
        "Most messages one import request may carry (more: 413).",
        bounds=(1, 100000),
    ),
    _knob(
        "CTX_SESSION_IMPORT_MAX_BYTES",
        "int",
        6_000_000,
        "Most bytes of message text one import request may carry (more: 413).",
        bounds=(1000, 100_000_000),
    ),
    _knob(
        "CTX_SESSION_SEARCH_PER_SESSION",
        "int",
        3,
        "Most windows one session contributes to a session search.",
        bounds=(1, 20),
    ),
    _knob(
        "CTX_KNOWLEDGE_REJECT_AT",
        "float",
        0.95,
        "save_decision/-error_solution/-insight: cosine from which a new text is a duplicate.",
        bounds=(0, 1),
    ),
    _knob(
        "CTX_KNOWLEDGE_SUPERSEDE_AT",
        "float",
        0.85,
        "save_decision/-error_solution/-insight: cosine from which a new text supersedes.",
        bounds=(0, 1),
    ),
    _knob(
        "CTX_KNOWLEDGE_EMBED_PENDING",
        "int",
        100,
        "Most not-yet-embedded blocks of a kind embedded at write time to compare a new one.",
        bounds=(0, 10000),
    ),
    # --- end conversations -----------------------------------------------------------------------
)

KNOBS_BY_NAME: Mapping[str, Knob] = {k.name: k for k in KNOBS}


def _check_bounds(knob: Knob, value: Any) -> str | None:
    if knob.bounds is None:
        return None
    low, high = knob.bounds
    if not low <= value <= high:
        return f"{knob.name}={value!r}: must be between {low:g} and {high:g}"
    return None


def load(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Return every knob's effective value; raise ConfigError listing all malformed ones."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    findings: list[str] = []
    for knob in KNOBS:
        raw = env.get(knob.name)
        if raw is None or raw == "":
            values[knob.name] = knob.default
            continue
        try:
            value = knob.parse(raw)
        except ValueError as exc:
            shown = "***" if knob.secret else repr(raw)
            findings.append(f"{knob.name}={shown}: {exc}")
            continue
        problem = _check_bounds(knob, value)
        if problem:
            findings.append(problem)
        values[knob.name] = value
    if findings:
        raise ConfigError(findings)
    return values


def mask(value: Any) -> Any:
    """A secret's mask: URLs keep their shape but lose the password; other values vanish."""
    if not value:
        return ""
    text = str(value)
    if "://" in text:
        parts = urlsplit(text)
        if parts.password is None:
            return text
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
        return urlunsplit(parts._replace(netloc=netloc))
    return "***"


def masked(values: Mapping[str, Any]) -> dict[str, Any]:
    """The values with every secret masked."""
    out: dict[str, Any] = {}
    for name, value in values.items():
        knob = KNOBS_BY_NAME.get(name)
        out[name] = mask(value) if knob and knob.secret else value
    return out
