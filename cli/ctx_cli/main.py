"""`ctx`: argparse wiring only. Handlers live in ctx_cli.commands.* and load on dispatch.

Nothing here imports httpx, rich or the server: `ctx --help` and `ctx version` stay fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ctx_cli import EXIT_ERROR, SERVER_MAX_BATCH, CliError

DESCRIPTION = "Command-line client for a ctx knowledge server."
EPILOG = """\
configuration: $XDG_CONFIG_HOME/ctx/config (default ~/.config/ctx/config), written by
`ctx init`; CTX_BASE_URL and CTX_KEY in the environment override it.
output: tables on a terminal, JSON when piped or with --json.
exit codes: 0 ok, 1 error (server, network, configuration), 2 usage."""

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
PLANNED: dict[str, str] = {}  # commands listed before their server side exists

if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]


# --- argument types -----------------------------------------------------------------------


def meta_pair(text: str) -> tuple[str, str]:
    """`--meta key=value`."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected key=value, got {text!r}")
    return name.strip(), value


def bounded_int(low: int, high: int | None = None) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < low or (high is not None and value > high):
            bound = f"between {low} and {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"must be {bound}")
        return value

    return parse


def unit_float(text: str) -> float:
    """A number between 0 and 1 (`--min-confidence 0.5`)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 <= value <= 1.0:  # NaN fails this too
        raise argparse.ArgumentTypeError("must be between 0 and 1")
    return value


# --- wiring -------------------------------------------------------------------------------


def _common() -> argparse.ArgumentParser:
    """--json after the command too (`ctx search x --json`); SUPPRESS keeps the global one."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")
    return parent


def _add(sub: Subparsers, name: str, handler: str, text: str) -> argparse.ArgumentParser:
    parser = sub.add_parser(name, help=text, description=text, parents=[_common()])
    parser.set_defaults(handler=handler)
    return parser


def _filters(parser: argparse.ArgumentParser, default_limit: int | None = None) -> None:
    parser.add_argument("--limit", type=bounded_int(1), default=default_limit, help="most results")
    parser.add_argument("--category", help="only this category")
    parser.add_argument("--tag", action="append", help="only blocks with all these tags (a,b)")
    parser.add_argument("--type", action="append", help="only these block types (a,b)")
    parser.add_argument("--scope", action="append", help="only these scopes (a,b)")


def _setup_commands(sub: Subparsers) -> None:
    init = _add(sub, "init", "setup:init", "write the config file and check the connection")
    init.add_argument("--url", help="server base URL, e.g. https://ctx.example.com")
    init.add_argument("--key", help="API key (prompted with hidden input when omitted)")
    init.add_argument("--no-check", action="store_true", help="do not contact the server")
    _add(sub, "health", "setup:health", "is the server up (no key needed)")
    version = _add(sub, "version", "setup:version", "client and server version")
    version.add_argument("--client", action="store_true", help="client only, no request")
    _add(sub, "whoami", "setup:whoami", "the key, tenant and scopes you are using")
    _add(sub, "doctor", "doctor:doctor", "check the set-up: config, server, key, exec, logs, hooks")


def _block_fields(parser: argparse.ArgumentParser, *, tags: str) -> None:
    parser.add_argument("--tag", action="append", help=tags)
    parser.add_argument("--type", help="block type (knowledge, decision, note, …)")
    parser.add_argument("--meta", action="append", type=meta_pair, help="metadata key=value")


def _block_commands(sub: Subparsers) -> None:
    save = _add(sub, "save", "blocks:save", "store a block (content from stdin with - or none)")
    save.add_argument("--scope", help="scope to write (default: the key's home scope)")
    _block_fields(save, tags="tags, comma-separated or repeated")
    save.add_argument(
        "words",
        nargs="+",
        metavar="CATEGORY TITLE [CONTENT | - [CONTENT…]]",
        help="a lone - ends the title; the content follows it, or comes from stdin",
    )
    for name, text in (
        ("get", "show a block"),
        ("delete", "archive a block"),
        ("restore", "bring an archived block back"),
    ):
        _add(sub, name, f"blocks:{name}", text).add_argument("id", help="block id or its start")
    update = _add(sub, "update", "blocks:update", "change a block's fields (only those given)")
    update.add_argument("id", help="block id or its start")
    update.add_argument("--title", help="new title")
    update.add_argument("--category", help="new category")
    update.add_argument("--content", help="new text, or - to read stdin")
    _block_fields(update, tags="replaces all tags (comma-separated or repeated)")
    listing = _add(sub, "list", "listing:list_blocks", "blocks newest first, a page at a time")
    _filters(listing)
    listing.add_argument(
        "--since", help="changed since: ISO date or time, '2 hours ago', 'yesterday'"
    )
    listing.add_argument("--cursor", help="next_cursor of the page before")
    listing.add_argument("--all", action="store_true", help="follow the pages to the end")
    recent = _add(sub, "recent", "listing:recent", "the most recently changed blocks")
    recent.add_argument("--limit", type=bounded_int(1), help="most blocks (default 10)")
    recent.add_argument("--scope", action="append", help="only these scopes (a,b)")
    cats = _add(sub, "categories", "blocks:categories", "categories with block counts")
    cats.add_argument("--scope", action="append", help="only these scopes (a,b)")
    stats = _add(sub, "stats", "blocks:stats", "block counts by scope and type")
    stats.add_argument("--scope", action="append", help="only these scopes (a,b)")
    stats.add_argument(
        "--session",
        nargs="?",
        const="",
        metavar="ID",
        help="this machine's session figures instead: bytes produced vs returned by local tools",
    )


MIN_SCORE = "leave out results scoring below this share of the best one's score (0-1)"


def _search_commands(sub: Subparsers) -> None:
    search = _add(sub, "search", "search:search", "full-text search, or browse a category")
    search.add_argument(
        "words",
        nargs="*",
        metavar="[CATEGORY] [QUERY…]",
        help="a first word naming a category filters by it; no query lists the newest blocks",
    )
    _filters(search)
    search.add_argument("--min-score", type=unit_float, help=MIN_SCORE)
    query = _add(sub, "query", "search:query", "ask a question; an answer when there is an LLM")
    query.add_argument("question", nargs="+", help="the question (quotes optional)")
    _filters(query)
    query.add_argument("--min-score", type=unit_float, help=MIN_SCORE)
    query.add_argument(
        "--synthesize",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="write an answer from the sources (default: when the server has an LLM)",
    )
    query.add_argument("--explain", action="store_true", help="show how results were ranked")
    query.add_argument("--now", help="reference time for relative dates (ISO 8601)")
    query.add_argument("--since", help="only blocks said or dated on or after this day")
    query.add_argument("--until", help="only blocks said or dated on or before this day")
    query.add_argument("--as-of", help="memory as it stood at this time (ISO 8601)")
    api = _add(sub, "api", "api:api", "raw API call with your key; prints the JSON answer")
    api.add_argument("method", type=str.upper, choices=METHODS)
    api.add_argument("path", help="e.g. /api/whoami")
    api.add_argument("body", nargs="?", help="JSON body (default: stdin when piped)")


def _ingest_command(sub: Subparsers) -> None:
    ingest = _add(sub, "ingest", "ingest:ingest", "import a folder of Markdown / Obsidian vault")
    ingest.add_argument("folder")
    ingest.add_argument("--scope", help="scope to write (default: the key's home scope)")
    ingest.add_argument("--category", help="category for every note (default: top folder)")
    ingest.add_argument("--dry-run", action="store_true", help="show what would be sent")
    ingest.add_argument(
        "--keep-deleted",
        action="store_true",
        help="leave the blocks of notes deleted from the folder (default: archive them)",
    )
    ingest.add_argument(
        "--batch",
        type=bounded_int(1, SERVER_MAX_BATCH),
        default=SERVER_MAX_BATCH,
        help="blocks per request",
    )


TOOLS = ("claude-code", "codex", "gemini", "cursor", "copilot", "chatgpt", "claude-ai")


def _import_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tool", choices=TOOLS, help="only this tool (default: all)")
    parser.add_argument("--path", help="a log file or export, or a home folder to search")
    parser.add_argument("--scope", help="scope to write (default: the key's home scope)")


def _sessions_commands(sub: Subparsers) -> None:
    group = _group(sub, "sessions", "AI-tool conversations: import, watch, list, show, search")
    imp = _add(group, "import", "sessions:sessions_import", "upload what is new in the logs")
    _import_options(imp)
    imp.add_argument(
        "--since", help="only sessions active since: YYYY-MM-DD, 'yesterday', '3 days ago', '2h'"
    )
    imp.add_argument("--dry-run", action="store_true", help="read and count, send nothing")
    imp.add_argument("--full", action="store_true", help="read every file from the start")
    imp.add_argument(
        "--restore-deleted", action="store_true", help="import sessions deleted on the server"
    )
    imp.add_argument("--hook", action="store_true", help="Claude Code hook JSON on stdin")
    watch = _add(group, "watch", "sessions:sessions_watch", "poll the logs and upload as they grow")
    _import_options(watch)
    watch.add_argument("--interval", type=bounded_int(1), default=30, help="seconds between polls")
    watch.add_argument("--rounds", type=bounded_int(1), help="stop after this many polls")
    watch.set_defaults(hook=False, restore_deleted=False)
    listing = _add(group, "list", "sessions:sessions_list", "sessions, newest activity first")
    listing.add_argument("--tool", choices=TOOLS, help="only this tool")
    listing.add_argument("--project", help="only this project (path or folder name)")
    listing.add_argument("--branch", help="only this git branch")
    listing.add_argument("--since", help="only sessions active since: ISO date, 'yesterday', …")
    listing.add_argument("--limit", type=bounded_int(1, 100), help="most sessions (default 10)")
    listing.add_argument("--offset", type=bounded_int(0), help="sessions to skip")
    listing.add_argument("--scope", action="append", help="only these scopes (a,b)")
    show = _add(group, "show", "sessions:sessions_show", "a session and a page of its messages")
    show.add_argument("id", help="session id (from ctx sessions list)")
    show.add_argument("--limit", type=bounded_int(1, 500), help="most messages (default 50)")
    show.add_argument("--offset", type=bounded_int(0), help="messages to skip")
    show.add_argument("--latest", action="store_true", help="the last messages instead")
    search = _add(group, "search", "sessions:sessions_search", "find past conversations")
    search.add_argument("query")
    search.add_argument("--tool", choices=TOOLS, help="only this tool")
    search.add_argument("--project", help="only this project")
    search.add_argument("--limit", type=bounded_int(1, 20), help="most sessions (default 5)")
    search.add_argument("--scope", action="append", help="only these scopes (a,b)")
    delete = _add(group, "delete", "sessions:sessions_delete", "delete a session for good")
    delete.add_argument("id", help="session id")


AGENTS = ("general", "code", "meeting", "task")


def _memory_commands(sub: Subparsers) -> None:
    history = _add(sub, "history", "memory:history", "a block's earlier versions; restore one")
    history.add_argument("id", help="block id or its start")
    history.add_argument("--limit", type=bounded_int(1, 100), help="most versions (default 20)")
    history.add_argument("--before", type=bounded_int(1), help="only versions older than this")
    history.add_argument(
        "--restore", type=bounded_int(1), metavar="VERSION", help="bring this version back"
    )
    changes = _add(sub, "changes", "memory:changes", "what changed since a moment, one line each")
    changes.add_argument(
        "--since",
        required=True,
        help="ISO date or time, '2 hours ago', or words: yesterday, last week, …",
    )
    changes.add_argument("--limit", type=bounded_int(1, 200), help="most changes (default 50)")
    changes.add_argument("--cursor", help="next_cursor of the page before")
    changes.add_argument("--scope", action="append", help="only these scopes (a,b)")
    facts = _add(sub, "facts", "memory:facts", "facts extracted from notes and conversations")
    facts.add_argument("id", nargs="?", help="one fact (its block id or its start)")
    facts.add_argument("--subject", help="only about this subject (the user, a person, …)")
    facts.add_argument("--kind", choices=("fact", "preference", "decision", "task"))
    facts.add_argument("--attribute", help="only this attribute (deploy_day, editor, …)")
    facts.add_argument("--as-of", help="the facts valid at this moment, superseded ones too")
    facts.add_argument("--history", action="store_true", help="every version, superseded too")
    facts.add_argument("--limit", type=bounded_int(1, 200), help="most facts (default 50)")
    facts.add_argument("--offset", type=bounded_int(0), help="facts to skip")
    facts.add_argument("--scope", action="append", help="only these scopes (a,b)")


def _hook_commands(sub: Subparsers) -> None:
    brief = _add(sub, "brief", "hooks:brief", "project briefing as Markdown (SessionStart hook)")
    brief.add_argument("--hook", action="store_true", help="read hook JSON, print hook JSON")
    brief.add_argument("--project", help="project name (default: basename of the cwd)")
    brief.add_argument("--limit", type=bounded_int(1), default=8, help="most blocks")
    brief.add_argument(
        "--agent",
        choices=AGENTS,
        help="the token-budgeted context for this kind of agent (GET /api/context) instead",
    )
    brief.add_argument(
        "--max-tokens", type=bounded_int(30, 4000), help="the context's budget (default 500)"
    )
    brief.add_argument(
        "--preferences", action="store_true", help="put the active preference prompt first"
    )
    persist = _add(sub, "persist", "hooks:persist", "store [PERSIST:category:title] sections")
    persist.add_argument("--hook", action="store_true", help="read SubagentStop hook JSON")
    persist.add_argument("--project", help="project name (default: basename of the cwd)")
    persist.add_argument("--scope", help="scope to write (default: the key's home scope)")
    _add(sub, "statusline", "hooks:statusline", "one line for Claude Code's status bar")
    hook = _group(sub, "hook", "Claude Code hooks that keep a session's log on the server")
    record = _add(hook, "record", "hooks:record", "record the hook's event (JSON on stdin)")
    record.add_argument("--scope", help="scope to write (default: the key's home scope)")
    record.add_argument(
        "--max-bytes",
        type=bounded_int(256, 16384),
        default=2048,
        help="most bytes of the resume snapshot (default 2048)",
    )


def _group(sub: Subparsers, name: str, text: str) -> Subparsers:
    """`ctx <name> <action>`: a command whose actions are subcommands of their own."""
    parser = sub.add_parser(name, help=text, description=text, parents=[_common()])
    return parser.add_subparsers(dest=f"{name}_command", metavar="<action>", required=True)


def _scoped(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--scope", action="append", help="only these scopes (a,b)")
    return parser


def _blob_commands(sub: Subparsers) -> None:
    blob = _group(sub, "blob", "files attached to the memory (bytes through the API only)")
    put = _add(blob, "put", "blobs:blob_put", "upload a file (type sniffed by the server)")
    put.add_argument("file", help="the file to upload")
    put.add_argument("--scope", help="scope to write (default: the key's home scope)")
    put.add_argument("--name", help="name to keep (default: the file's name)")
    put.add_argument("--tag", action="append", help="tags (a,b; repeatable)")
    put.add_argument("--block", help="id of a block to attach the file to")
    get = _add(blob, "get", "blobs:blob_get", "the file's bytes, to a file or stdout")
    get.add_argument("id", help="blob id")
    get.add_argument("-o", "--output", help="write to this file (default: stdout)")
    ls = _scoped(_add(blob, "ls", "blobs:blob_ls", "find files by name, text, type or tag"))
    ls.add_argument("query", nargs="*", help="words of the name or the text")
    ls.add_argument("--tag", action="append", help="only files with all these tags (a,b)")
    ls.add_argument("--type", help="a content type (image/png) or family (image/)")
    ls.add_argument("--limit", type=bounded_int(1, 100), help="most files (default 20)")
    rm = _add(blob, "rm", "blobs:blob_rm", "delete a file")
    rm.add_argument("id", help="blob id")


def _index_commands(sub: Subparsers) -> None:
    index = _group(sub, "index", "documents cut into searchable chunks (snippet search)")
    add = _add(index, "add", "index:index_add", "index a file, a folder's documents or a URL")
    add.add_argument(
        "target", help="a file or folder (Markdown, JSON, text, HTML) or an http(s) URL"
    )
    add.add_argument("--source", help="the label (default: the path or URL); again replaces")
    add.add_argument("--scope", help="scope to write (default: the key's home scope)")
    add.add_argument(
        "--type",
        choices=("markdown", "json", "text", "html"),
        help="how to cut it (default: guessed)",
    )
    add.add_argument(
        "--allow-private", action="store_true", help="a URL may name a private address"
    )
    search = _add(index, "search", "index:index_search", "snippets around the matched words")
    search.add_argument("query", nargs="+", help="one or more queries (quote each)")
    search.add_argument("--source", help="only this source label")
    search.add_argument("--scope", help="only this scope")
    search.add_argument("--limit", type=bounded_int(1, 20), help="snippets per query (default 5)")
    listing = _add(index, "list", "index:index_list", "indexed sources, newest first")
    listing.add_argument("--scope", help="only these scopes (a,b)")
    rm = _add(index, "rm", "index:index_rm", "delete a source and its chunks")
    rm.add_argument("label", help="the source label")
    rm.add_argument("--scope", help="the source's scope (when two scopes hold the label)")


def _dream_commands(sub: Subparsers) -> None:
    dream = _group(sub, "dream", "background consolidation: queue, links to review, mode")
    _scoped(_add(dream, "stats", "dream:dream_stats", "mode, queue and link counts"))
    review = _scoped(_add(dream, "review", "dream:dream_review", "links that want a look"))
    review.add_argument("--class", dest="link_class", help="only this link class")
    review.add_argument("--limit", type=bounded_int(1, 500), help="most links (default 50)")
    resolve = _add(dream, "resolve", "dream:dream_resolve", "confirm (pin) or delete a link")
    resolve.add_argument("link", help="link id")
    resolve.add_argument("action", choices=("confirm", "delete"))
    revert = _add(dream, "revert", "dream:dream_revert", "put back the links a cycle replaced")
    revert.add_argument("block", help="block id")
    for name, text in (("enable", "on"), ("disable", "off"), ("throttle", "throttled")):
        _add(dream, name, "dream:dream_mode", f"set the mode to {text} (server admins)")
    guard = _group(sub, "guard", "near-duplicates found by the background guard")
    listing = _scoped(_add(guard, "list", "dream:guard_list", "flags to review"))
    listing.add_argument("--status", choices=("open", "archived", "kept"), help="default open")
    listing.add_argument("--limit", type=bounded_int(1, 500), help="most flags (default 50)")
    _scoped(_add(guard, "stats", "dream:guard_stats", "flag counts by kind and status"))
    fix = _add(
        guard, "resolve", "dream:guard_resolve", "archive the flagged block, keep both or merge"
    )
    fix.add_argument("flag", help="flag id")
    fix.add_argument("action", choices=("archive", "keep", "merge"))
    digest = _add(sub, "digest", "dream:digest", "rebuild the scope's topic map (a digest block)")
    digest.add_argument("--scope", help="scope to digest (default: the key's home scope)")
    graph = _add(sub, "graph", "dream:graph", "the links around a block (ego graph)")
    graph.add_argument("id", help="block id")
    graph.add_argument("--hops", type=bounded_int(1, 3), help="link steps (1-3, default 1)")
    graph.add_argument("--limit", type=bounded_int(1, 5000), help="most nodes (default 500)")
    graph.add_argument(
        "--per-node-cap", type=bounded_int(1, 100), help="links kept per node (1-100, default 25)"
    )
    graph.add_argument(
        "--edge-limit", type=bounded_int(1, 20000), help="most edges (1-20000, default 2000)"
    )
    graph.add_argument("--min-confidence", type=unit_float, help="weakest link shown (0-1)")
    graph.add_argument("--class", dest="link_class", help="only these link classes (a,b)")
    graph.add_argument("--category", help="only neighbours in these categories (a,b)")
    graph.add_argument("--created-after", help="only neighbours created at or after (ISO date)")
    graph.add_argument("--created-before", help="only neighbours created before (ISO date)")


def _secrets_commands(sub: Subparsers) -> None:
    secrets = _group(sub, "secrets", "sealed secrets (values from stdin, never shown)")
    _scoped(_add(secrets, "list", "secrets:secrets_list", "names and metadata, no values"))
    for name, text in (("set", "create or replace"), ("rotate", "replace an existing")):
        parser = _add(secrets, name, f"secrets:secrets_{name}", f"{text} secret; value on stdin")
        parser.add_argument("name")
        parser.add_argument("value", nargs="?", help=argparse.SUPPRESS)  # refused: see handler
        parser.add_argument("--scope", help="scope (default: the key's home scope)")
    rm = _add(secrets, "rm", "secrets:secrets_rm", "delete a secret")
    rm.add_argument("name")
    rm.add_argument("--scope", help="scope (default: the key's home scope)")
    bridge = _add(
        sub, "mcp-stdio", "mcp_stdio:mcp_stdio", "stdio MCP server forwarding to the server's /mcp"
    )
    bridge.add_argument(
        "--no-local", action="store_true", help="relay only: no local tools (execute, …)"
    )
    bridge.add_argument(
        "--allow-private", action="store_true", help="fetch_and_index may fetch private addresses"
    )
    bridge.add_argument("--network", action="store_true", help="executed code keeps the network")


def _exec_commands(sub: Subparsers) -> None:
    run = _add(sub, "exec", "execute:execute", "run code in a local sandbox; large output indexed")
    run.add_argument("code", nargs="?", help="the program (default or -: stdin)")
    run.add_argument("--lang", "-l", help="shell (default), python, node, … (ctx runtimes)")
    run.add_argument("--file", help="run this script (language from its extension)")
    run.add_argument("--input", help="a data file: the program's stdin, its path in $INPUT_FILE")
    run.add_argument("--timeout", type=bounded_int(1, 600), default=30, help="seconds (30)")
    run.add_argument("--intent", help="what to look for: output over 5 KB is indexed and searched")
    run.add_argument("--network", action="store_true", help="keep the network (default: off)")
    _add(sub, "runtimes", "execute:runtimes", "languages ctx exec can run here, and the isolation")


def _settings_commands(sub: Subparsers) -> None:
    group = _group(sub, "settings", "live settings overrides (admins; docs/settings.md)")
    listing = _add(group, "list", "settings:settings_list", "every setting, value and source")
    get = _add(group, "get", "settings:settings_get", "one setting")
    get.add_argument("key")
    put = _add(group, "set", "settings:settings_set", "override a live setting")
    put.add_argument("key")
    put.add_argument("value", nargs="?", help="JSON (0.5, true) or text (graph,rerank)")
    put.add_argument("--secret", help="a credential: the sealed secret's name, never the value")
    put.add_argument("--scope", help="the secret's scope (default: the key's home scope)")
    unset = _add(group, "unset", "settings:settings_unset", "remove an override")
    unset.add_argument("key")
    for parser in (listing, get, put, unset):
        parser.add_argument("--tenant", help="a tenant's overrides (server admins: any tenant)")


def _manage_commands(sub: Subparsers) -> None:
    keys = _group(sub, "keys", "API keys of your tenant (tenant admins and up)")
    create = _add(keys, "create", "keys:keys_create", "mint a key; it is shown once")
    create.add_argument("name", help="a label for the key, e.g. laptop")
    create.add_argument("--role", choices=("member", "admin", "owner"), default="member")
    create.add_argument(
        "--home", required=True, help="home scope, e.g. acme:main; its tenant is the key's"
    )
    create.add_argument("--read", action="append", help="extra readable scopes (a,b)")
    create.add_argument("--write", action="append", help="writable scopes (default: the home)")
    create.add_argument("--read-only", action="store_true", help="no writable scope at all")
    create.add_argument("--admin", action="store_true", help="server admin (server admins only)")
    create.add_argument(
        "--max-sensitivity",
        choices=("public", "internal", "personal", "credentials"),
        help="highest block level it reads in clear (default personal; never above your key's)",
    )
    listing = _add(keys, "list", "keys:keys_list", "keys with role, scopes and last use")
    for parser in (create, listing):
        parser.add_argument("--tenant", help="another tenant (server admins only)")
    for name in ("revoke", "delete"):  # `delete`: what people type first
        revoke = _add(keys, name, "keys:keys_revoke", "revoke a key at once")
        revoke.add_argument("prefix", help="the key's prefix (or the whole key)")
    _tenant_commands(sub)
    mcp = _group(sub, "mcp", "OAuth clients for MCP connectors (tenant admins and up)")
    add = _add(mcp, "add", "oauth_clients:mcp_add", "create a client (public, PKCE)")
    add.add_argument("name")
    add.add_argument(
        "--redirect-uri", action="append", help="callback URI (repeat; default: claude.ai's)"
    )
    add.add_argument("--confidential", action="store_true", help="with a secret, shown once")
    _add(mcp, "list", "oauth_clients:mcp_list", "clients of your tenant")
    delete = _add(mcp, "delete", "oauth_clients:mcp_delete", "delete a client and its tokens")
    delete.add_argument("client_id")


SIGNAL_TYPES = ("like", "dislike", "tag", "note")
TEMPLATES = ("general", "coding", "writing", "meeting-notes")


def _profile_commands(sub: Subparsers) -> None:
    signal = _add(sub, "signal", "profiles:signal", "record feedback on an answer (a preference)")
    signal.add_argument("note", nargs="?", help='what you think, e.g. "be terser"')
    signal.add_argument("--type", choices=SIGNAL_TYPES, help="default: note (tag with --tag only)")
    signal.add_argument("--tag", action="append", help="labels, comma-separated or repeated")
    signal.add_argument("--context", help="the answer reacted to (- reads stdin)")
    signal.add_argument("--context-file", help="read the answer reacted to from a file")
    signal.add_argument("--profile", help="the profile's slug (default: the active one)")
    signal.add_argument("--source", help="the tool the answer came from (default ctx-cli)")
    signal.add_argument("--session", help="the conversation's id")
    pull = _add(sub, "pull", "profiles:pull", "print the active preference prompt")
    pull.add_argument("--profile", help="this profile instead of the active one")
    pull.add_argument("--hook", action="store_true", help="read hook JSON, print hook JSON")
    group = _group(sub, "profiles", "preference profiles: list, show, activate, the folder")
    _add(group, "list", "profiles:profiles_list", "profiles with versions; * marks the active")
    for name, text in (
        ("show", "a profile's rules, metrics and prompt"),
        ("activate", "pull this profile from now on (this key)"),
        ("delete", "delete a profile with its versions and signals"),
        ("publish", "publish read-only at /p/<hash> (no signals, no history)"),
        ("unpublish", "withdraw a profile's publications"),
    ):
        _add(group, name, f"profiles:profiles_{name}", text).add_argument("slug")
    create = _add(group, "create", "profiles:profiles_create", "a new profile from a template")
    create.add_argument("slug")
    create.add_argument("--name", help="display name (default: the slug)")
    create.add_argument("--template", choices=TEMPLATES, help="starter (default general)")
    create.add_argument("--context", help="what it is for, e.g. programming")
    create.add_argument("--hint", help="appended to what the LLM interpreter reads")
    create.add_argument("--scope", help="scope (default: the key's home scope)")
    history = _add(group, "history", "profiles:profiles_history", "versions and what changed")
    history.add_argument("slug")
    history.add_argument("--limit", type=bounded_int(1, 500), help="most versions (default 50)")
    diff = _add(group, "diff", "profiles:profiles_diff", "the prompt's diff between versions")
    diff.add_argument("slug")
    diff.add_argument("--from", dest="from_version", type=bounded_int(1), help="default: to - 1")
    diff.add_argument("--to", type=bounded_int(1), help="default: the latest version")
    _profile_folder_commands(group)


def _profile_folder_commands(group: Subparsers) -> None:
    export = _add(group, "export", "profiles:profiles_export", "write the profiles folder")
    sync = _add(group, "sync", "profiles:profiles_sync", "drain the folder's inbox, then export")
    sync.add_argument("--wait", type=float, default=10.0, help="seconds to wait for new versions")
    sync.add_argument("--every", type=bounded_int(1), help="repeat every N seconds (Ctrl-C stops)")
    imp = _add(group, "import", "profiles:profiles_import", "create profiles from a folder")
    imp.add_argument("--scope", help="scope (default: the key's home scope)")
    for parser in (export, sync, imp):
        parser.add_argument("--folder", required=True, help="the profiles folder")
    feedback = _add(
        group, "import-feedback", "profiles:profiles_import_feedback", "ChatGPT thumbs as signals"
    )
    feedback.add_argument("file", help="the export ZIP, its folder or message_feedback.json")
    feedback.add_argument("--profile", help="the profile's slug (default: the active one)")
    feedback.add_argument("--dry-run", action="store_true", help="read and count, send nothing")


def _tenant_commands(sub: Subparsers) -> None:
    text = "the server's tenants (server admins); no action: list"
    parser = sub.add_parser("tenants", help=text, description=text, parents=[_common()])
    parser.set_defaults(handler="tenants:tenants_list")
    group = parser.add_subparsers(dest="tenants_command", metavar="<action>")
    _add(group, "list", "tenants:tenants_list", "tenants with status, scopes and keys")
    create = _add(group, "create", "tenants:tenants_create", "a tenant and its owner key")
    create.add_argument("name")
    create.add_argument("--display-name", help="a longer name")
    create.add_argument("--scope", action="append", help="extra scopes besides <name>:main")
    for name, what in (("suspend", "refuse every key of"), ("resume", "reopen")):
        _add(group, name, "tenants:tenants_status", f"{what} a tenant").add_argument("name")


def _planned_commands(sub: Subparsers) -> None:
    for name, text in PLANNED.items():
        parser = _add(sub, name, "future:unavailable", text)
        parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)


# Each group and the commands it registers (a test checks this table against the parsers).
GROUPS: tuple[tuple[Callable[[Subparsers], None], tuple[str, ...]], ...] = (
    (_setup_commands, ("init", "health", "version", "whoami", "doctor")),
    (
        _block_commands,
        ("save", "get", "update", "delete", "restore", "list", "recent", "categories", "stats"),
    ),
    (_search_commands, ("search", "query", "api")),
    (_ingest_command, ("ingest",)),
    (_sessions_commands, ("sessions",)),
    (_hook_commands, ("brief", "persist", "statusline", "hook")),
    (_memory_commands, ("history", "changes", "facts")),
    (_dream_commands, ("dream", "guard", "digest", "graph")),
    (_secrets_commands, ("secrets", "mcp-stdio")),
    (_exec_commands, ("exec", "runtimes")),
    (_index_commands, ("index",)),
    (_blob_commands, ("blob",)),
    (_settings_commands, ("settings",)),
    (_manage_commands, ("keys", "mcp", "tenants")),
    (_profile_commands, ("signal", "pull", "profiles")),
    (_planned_commands, tuple(PLANNED)),
)


def _command_named(argv: Sequence[str] | None) -> str | None:
    """The command a command line runs, if it names a known one: the first argument that
    is not an option (the only global option, --json, takes no value)."""
    first = next((a for a in argv or () if not a.startswith("-")), None)
    return first if any(first in names for _, names in GROUPS) else None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser (no `argv`), or, for a command line that names a command, a parser
    with that command only: building all ~60 subparsers cost ~10 ms of every start (measured), and
    argparse needs only the one that runs. Help and errors see every command."""
    parser = argparse.ArgumentParser(
        prog="ctx",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--json", action="store_true", help="print JSON even on a terminal")
    sub = parser.add_subparsers(dest="command", metavar="<command>", required=True)
    wanted = _command_named(argv)
    for add, names in GROUPS:
        if wanted is None or wanted in names:
            add(sub)
    return parser


# --- dispatch -----------------------------------------------------------------------------


def _dispatch(args: argparse.Namespace) -> int:
    from ctx_cli.commands import App  # lazy: the CLI starts in every hook; load on use
    from ctx_cli.output import Output  # lazy: the CLI starts in every hook; load on use

    module_name, _, function = str(args.handler).partition(":")
    module = importlib.import_module(f"ctx_cli.commands.{module_name}")
    return int(getattr(module, function)(args, App(Output(json_flag=args.json))))


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(argv).parse_args(argv)
    try:
        return _dispatch(args)
    except CliError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return 130
    except BrokenPipeError:  # `ctx search x | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
