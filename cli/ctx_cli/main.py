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


def _block_commands(sub: Subparsers) -> None:
    save = _add(sub, "save", "blocks:save", "store a block (content from stdin with - or none)")
    save.add_argument("--scope", help="scope to write (default: the key's home scope)")
    save.add_argument("--tag", action="append", help="tags, comma-separated or repeated")
    save.add_argument("--type", help="block type (knowledge, decision, note, …)")
    save.add_argument("--meta", action="append", type=meta_pair, help="metadata key=value")
    save.add_argument("category")
    save.add_argument("title")
    save.add_argument("content", nargs="?", help="the text, or - to read stdin")
    for name, text in (("get", "show a block"), ("delete", "archive a block")):
        _add(sub, name, f"blocks:{name}", text).add_argument("id", help="block id")
    cats = _add(sub, "categories", "blocks:categories", "categories with block counts")
    cats.add_argument("--scope", action="append", help="only these scopes (a,b)")
    stats = _add(sub, "stats", "blocks:stats", "block counts by scope and type")
    stats.add_argument("--scope", action="append", help="only these scopes (a,b)")


def _search_commands(sub: Subparsers) -> None:
    search = _add(sub, "search", "search:search", "full-text search")
    search.add_argument("query")
    _filters(search)
    query = _add(sub, "query", "search:query", "ask a question; retrieval or a synthesised answer")
    query.add_argument("question")
    _filters(query)
    query.add_argument("--synthesize", action="store_true", help="answer from the sources")
    query.add_argument("--explain", action="store_true", help="show how results were ranked")
    query.add_argument("--now", help="reference time for relative dates (ISO 8601)")
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
    imp.add_argument("--since", help="only sessions active since this date (YYYY-MM-DD)")
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
    listing.add_argument("--since", help="only sessions active since (YYYY-MM-DD)")
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


def _hook_commands(sub: Subparsers) -> None:
    brief = _add(sub, "brief", "hooks:brief", "project briefing as Markdown (SessionStart hook)")
    brief.add_argument("--hook", action="store_true", help="read hook JSON, print hook JSON")
    brief.add_argument("--project", help="project name (default: basename of the cwd)")
    brief.add_argument("--limit", type=bounded_int(1), default=8, help="most blocks")
    persist = _add(sub, "persist", "hooks:persist", "store [PERSIST:category:title] sections")
    persist.add_argument("--hook", action="store_true", help="read SubagentStop hook JSON")
    persist.add_argument("--project", help="project name (default: basename of the cwd)")
    persist.add_argument("--scope", help="scope to write (default: the key's home scope)")
    _add(sub, "statusline", "hooks:statusline", "one line for Claude Code's status bar")


def _group(sub: Subparsers, name: str, text: str) -> Subparsers:
    """`ctx <name> <action>`: a command whose actions are subcommands of their own."""
    parser = sub.add_parser(name, help=text, description=text, parents=[_common()])
    return parser.add_subparsers(dest=f"{name}_command", metavar="<action>", required=True)


def _scoped(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--scope", action="append", help="only these scopes (a,b)")
    return parser


def _dream_commands(sub: Subparsers) -> None:
    dream = _group(sub, "dream", "background consolidation: queue, links to review, mode")
    _scoped(_add(dream, "stats", "dream:dream_stats", "mode, queue and link counts"))
    review = _scoped(_add(dream, "review", "dream:dream_review", "links that want a look"))
    review.add_argument("--class", dest="link_class", help="only this link class")
    review.add_argument("--limit", type=bounded_int(1, 500), help="most links (default 50)")
    resolve = _add(dream, "resolve", "dream:dream_resolve", "confirm (pin) or delete a link")
    resolve.add_argument("link", help="link id")
    resolve.add_argument("action", choices=("confirm", "delete"))
    for name, text in (("enable", "on"), ("disable", "off"), ("throttle", "throttled")):
        _add(dream, name, "dream:dream_mode", f"set the mode to {text} (server admins)")
    guard = _group(sub, "guard", "near-duplicates found by the background guard")
    listing = _scoped(_add(guard, "list", "dream:guard_list", "flags to review"))
    listing.add_argument("--status", choices=("open", "archived", "kept"), help="default open")
    listing.add_argument("--limit", type=bounded_int(1, 500), help="most flags (default 50)")
    _scoped(_add(guard, "stats", "dream:guard_stats", "flag counts by kind and status"))
    fix = _add(guard, "resolve", "dream:guard_resolve", "archive the flagged block or keep both")
    fix.add_argument("flag", help="flag id")
    fix.add_argument("action", choices=("archive", "keep"))
    digest = _add(sub, "digest", "dream:digest", "rebuild the scope's topic map (a digest block)")
    digest.add_argument("--scope", help="scope to digest (default: the key's home scope)")
    graph = _add(sub, "graph", "dream:graph", "the links around a block (ego graph)")
    graph.add_argument("id", help="block id")
    graph.add_argument("--hops", type=bounded_int(1, 3), help="link steps (1-3, default 1)")
    graph.add_argument("--limit", type=bounded_int(1, 500), help="most nodes (default 50)")
    graph.add_argument("--min-confidence", type=unit_float, help="weakest link shown (0-1)")
    graph.add_argument("--class", dest="link_class", help="only this link class")


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
    _add(
        sub, "mcp-stdio", "mcp_stdio:mcp_stdio", "stdio MCP server forwarding to the server's /mcp"
    )


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
    create.add_argument("name")
    create.add_argument("--role", choices=("member", "admin", "owner"), default="member")
    create.add_argument("--home", help="home scope (default: first --write or <tenant>:main)")
    create.add_argument("--read", action="append", help="extra readable scopes (a,b)")
    create.add_argument("--write", action="append", help="writable scopes (default: the home)")
    create.add_argument("--read-only", action="store_true", help="no writable scope at all")
    create.add_argument("--admin", action="store_true", help="server admin (server admins only)")
    listing = _add(keys, "list", "keys:keys_list", "keys with role, scopes and last use")
    for parser in (create, listing):
        parser.add_argument("--tenant", help="another tenant (server admins only)")
    revoke = _add(keys, "revoke", "keys:keys_revoke", "revoke a key at once")
    revoke.add_argument("prefix", help="the key's prefix (or the whole key)")
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


def _planned_commands(sub: Subparsers) -> None:
    for name, text in PLANNED.items():
        parser = _add(sub, name, "future:unavailable", text)
        parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)


# Each group and the commands it registers (a test checks this table against the parsers).
GROUPS: tuple[tuple[Callable[[Subparsers], None], tuple[str, ...]], ...] = (
    (_setup_commands, ("init", "health", "version", "whoami")),
    (_block_commands, ("save", "get", "delete", "categories", "stats")),
    (_search_commands, ("search", "query", "api")),
    (_ingest_command, ("ingest",)),
    (_sessions_commands, ("sessions",)),
    (_hook_commands, ("brief", "persist", "statusline")),
    (_dream_commands, ("dream", "guard", "digest", "graph")),
    (_secrets_commands, ("secrets", "mcp-stdio")),
    (_settings_commands, ("settings",)),
    (_manage_commands, ("keys", "mcp")),
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
