"""What a tenant's export and restore commands share: a live row counter, their errors as
CommandError, and the rows per model they report."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from django.core.management.base import CommandError, OutputWrapper
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from ctx.errors import CtxError


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


@contextmanager
def command_errors(path: Path, doing: str) -> Iterator[None]:
    """A refusal or an unreadable/unwritable file as the command's one-line error."""
    try:
        yield
    except CtxError as exc:
        raise CommandError(exc.message) from None
    except OSError as exc:
        raise CommandError(f"cannot {doing} {path}: {exc.strerror}") from None


def report(out: OutputWrapper, headline: str, counts: dict[str, int]) -> None:
    """`<headline>: N rows`, then the rows of each model."""
    out.write(f"{headline}: {sum(counts.values())} rows")
    for label, n in sorted(counts.items()):
        out.write(f"  {label}: {n}")
