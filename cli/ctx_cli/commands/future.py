"""Commands whose server side does not exist yet: listed in `ctx --help`, exit 1 when run.

main.PLANNED names them; docs/cli.md keeps the to-do list.
"""

from __future__ import annotations

import argparse

from ctx_cli import CliError
from ctx_cli.commands import App


def unavailable(args: argparse.Namespace, app: App) -> int:
    raise CliError(f"`ctx {args.command}` is not available on this server yet")
