"""Output: rich tables and panels on a terminal, the server's JSON (pretty) when piped or --json.

rich is imported only when something is rendered for a terminal.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console


def dumps(payload: Any) -> str:
    return json.dumps(payload, indent=2, ensure_ascii=False)


class Output:
    def __init__(self, *, json_flag: bool) -> None:
        self.json_explicit = json_flag
        self.as_json = json_flag or not sys.stdout.isatty()

    @cached_property
    def console(self) -> Console:
        from rich.console import Console  # lazy: the CLI starts in every hook; load on use

        return Console(highlight=False)

    @cached_property
    def err_console(self) -> Console:
        from rich.console import Console  # lazy: the CLI starts in every hook; load on use

        return Console(stderr=True, highlight=False)

    def emit(self, payload: Any, render: Callable[[Console, Any], None]) -> None:
        """The payload as JSON when piped, else whatever `render` draws on the terminal."""
        if self.as_json:
            self.json(payload)
        else:
            render(self.console, payload)

    def json(self, payload: Any) -> None:
        sys.stdout.write(dumps(payload) + "\n")

    def text(self, line: str) -> None:
        sys.stdout.write(line + "\n")

    def error(self, message: str) -> None:
        sys.stderr.write(f"error: {message}\n")

    def warn(self, message: str) -> None:
        sys.stderr.write(f"warning: {message}\n")


def table(
    console: Console, columns: Sequence[str], rows: Iterable[Sequence[Any]], title: str = ""
) -> None:
    from rich.table import Table  # lazy: the CLI starts in every hook; load on use
    from rich.text import Text  # lazy: the CLI starts in every hook; load on use

    grid = Table(*columns, title=title or None, title_justify="left", show_lines=False)
    for row in rows:  # Text, not markup: titles like "[draft]" are data
        grid.add_row(*(Text("" if cell is None else str(cell)) for cell in row))
    console.print(grid)


def fields(console: Console, pairs: Iterable[tuple[str, Any]], title: str = "") -> None:
    """A two-column key/value panel."""
    from rich.panel import Panel  # lazy: the CLI starts in every hook; load on use
    from rich.table import Table  # lazy: the CLI starts in every hook; load on use
    from rich.text import Text  # lazy: the CLI starts in every hook; load on use

    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    for name, value in pairs:
        grid.add_row(name, Text(_cell(value)))
    console.print(Panel(grid, title=title or None, title_align="left", expand=False))


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value) or "—"
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items()) or "—"
    return str(value)


def escape(text: str) -> str:
    from rich.markup import escape as rich_escape  # lazy: the CLI starts in every hook; load on use

    return rich_escape(text)


def hits(console: Console, items: Sequence[dict[str, Any]], meta: Callable[[Any], str]) -> None:
    """Blocks found or listed, three lines each, readable at any width: the title; the id
    (whole, where a table cut it at 80 columns: `ctx get` takes it) and `meta(item)`; one line
    of the preview, cut to the terminal with an ellipsis."""
    from rich.text import Text  # lazy: the CLI starts in every hook; load on use

    for n, item in enumerate(items, 1):
        head = Text(f"{n:>2}. ", style="dim")
        head.append(str(item.get("title") or ""), style="bold")  # Text: "[draft]" is data
        console.print(head, overflow="fold")
        console.print(Text(f"    {item.get('id')}  {meta(item)}", style="dim"), overflow="fold")
        preview = " ".join(str(item.get("preview") or "").split())
        if preview:
            line = Text(f"    {preview}")
            console.print(line, no_wrap=True, overflow="ellipsis")


@contextmanager
def progress(out: Output, total: int, label: str) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr when it is a terminal; a no-op advance otherwise."""
    console = out.err_console
    if not console.is_terminal or total == 0:
        yield lambda n: None
        return
    from rich.progress import Progress  # lazy: the CLI starts in every hook; load on use

    with Progress(console=console, transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda n: bar.advance(task, n)
