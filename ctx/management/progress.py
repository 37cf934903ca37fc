"""A live row counter for long management commands (a tenant's export or restore)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn


@contextmanager
def rows(verb: str) -> Iterator[Callable[[int], None]]:
    """`exported 12,000 rows  0:00:04` on stderr while it runs, gone when it ends; at a
    terminal only (stdout stays the command's result, which scripts read)."""
    columns = (
        SpinnerColumn(),
        TextColumn(f"{verb} {{task.completed:,.0f}} rows"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(verb, total=None)
        yield lambda done: bar.update(task, completed=done)
