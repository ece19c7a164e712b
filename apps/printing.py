"""What the tournament commands (`lastwill arena`, `lastwill eval`) print alike: the progress
bar of games on stderr, a number in a table, and the note on games with a shared first place."""

from __future__ import annotations

from .command import note


def progress_bar(label: str, quiet: bool, *, total: int | None = None, errors: bool = False):
    """A rich progress bar of games on stderr and its task; ``errors``: a column that shows the
    task's ``errors`` field."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = [
        TextColumn(f"[bold]{label}[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("games"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    ]
    if errors:
        columns.append(TextColumn("{task.fields[errors]} errors"))
    progress = Progress(*columns, console=Console(stderr=True), disable=quiet, transient=False)
    fields = {"errors": 0} if errors else {}
    return progress, progress.add_task(label, total=total, **fields)


def figure(x: float | None, spec: str = ".3f") -> str:
    """``x`` as a table shows it (``-`` for no value)."""
    return "-" if x is None else format(x, spec)


def note_shared_wins(rows) -> None:
    """Say on stderr how the tables counted games that ended with a shared first place."""
    shared = sum(1 for r in rows if r.get("ranks") and r["ranks"].count(1) > 1)
    if shared:
        games = "game" if shared == 1 else "games"
        note(
            f"note: {shared} {games} ended with a shared first place; each of its k winners "
            f"counts 1/k of a win in the win rates (agents.stats)"
        )
