"""`ctx`: argparse wiring only. Handlers live in ctx.cli.commands.* and load on dispatch.

Nothing here imports httpx, rich or the server: `ctx --help` and `ctx version` stay fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ctx.cli import EXIT_ERROR, SERVER_MAX_BATCH, CliError

DESCRIPTION = "Command-line client for a ctx knowledge server."
EPILOG = """\
configuration: $XDG_CONFIG_HOME/ctx/config (default ~/.config/ctx/config), written by
`ctx init`; CTX_BASE_URL and CTX_KEY in the environment override it.
output: tables on a terminal, JSON when piped or with --json.
exit codes: 0 ok, 1 error (server, network, configuration), 2 usage."""

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
PLANNED = {
    "keys": "manage API keys (not available yet)",
    "guard": "check text before storing it (not available yet)",
    "dream": "background consolidation (not available yet)",
    "digest": "digests of what changed (not available yet)",
    "graph": "links between blocks (not available yet)",
    "secrets": "encrypted secrets (not available yet)",
    "settings": "server settings (not available yet)",
    "mcp": "MCP endpoint and client set-up (not available yet)",
    "mcp-stdio": "stdio MCP bridge to the server (not available yet)",
}

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
    _add(sub, "version", "setup:version", "client version")
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
        "--batch", type=bounded_int(1, SERVER_MAX_BATCH), default=200, help="blocks per request"
    )


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


def _planned_commands(sub: Subparsers) -> None:
    for name, text in PLANNED.items():
        parser = _add(sub, name, "future:unavailable", text)
        parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ctx",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--json", action="store_true", help="print JSON even on a terminal")
    sub = parser.add_subparsers(dest="command", metavar="<command>", required=True)
    for add in (
        _setup_commands,
        _block_commands,
        _search_commands,
        _ingest_command,
        _hook_commands,
        _planned_commands,
    ):
        add(sub)
    return parser


# --- dispatch -----------------------------------------------------------------------------


def _dispatch(args: argparse.Namespace) -> int:
    from ctx.cli.commands import App
    from ctx.cli.output import Output

    module_name, _, function = str(args.handler).partition(":")
    module = importlib.import_module(f"ctx.cli.commands.{module_name}")
    return int(getattr(module, function)(args, App(Output(json_flag=args.json))))


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
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
