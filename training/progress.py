"""Progress on the terminal for `lastwill train` (rich, on stderr), as the arena shows it.

One live display for the whole run: the warm start (a bar of the teacher games collected, then
one of the fitting epochs, each followed by a one-line note with its result), the learner steps
(with the best evaluation so far), and every evaluation (a note when it starts, a bar of its
games, a note with its result). With `enabled=False` every method does nothing, so the trainer
calls them unconditionally.
"""

from __future__ import annotations

from typing import Any


class TrainProgress:
    def __init__(
        self, enabled: bool, total_steps: int, done_steps: int = 0, label: str = "training"
    ) -> None:
        self.enabled = enabled
        self.label = label
        self.total_steps = total_steps
        self.done_steps = done_steps
        self.progress = None
        self._train = None
        self._task = None

    # -- lifetime -------------------------------------------------------------------------------
    def __enter__(self) -> TrainProgress:
        if self.enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self.progress = Progress(
                TextColumn("[bold]{task.description}[/]"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                TextColumn("{task.fields[note]}"),
                console=Console(stderr=True),
                transient=False,
            )
            self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None

    def note(self, text: str) -> None:
        if self.progress is not None:
            self.progress.console.print(text, markup=False, highlight=False)

    # -- a bar for one step of the run ----------------------------------------------------------
    def _begin(self, description: str, total: int) -> None:
        if self.progress is not None:
            self._task = self.progress.add_task(description, total=total, note="")

    def advance(self, k: int = 1, note: str | None = None) -> None:
        if self.progress is not None and self._task is not None:
            fields = {} if note is None else {"note": note}
            self.progress.update(self._task, advance=k, **fields)

    def _end(self) -> None:
        if self.progress is not None and self._task is not None:
            self.progress.remove_task(self._task)
        self._task = None

    # -- the warm start -------------------------------------------------------------------------
    def bc_collect(self, teacher: str, games: int) -> None:
        self.note(f"warm start: collecting {games} games of the teacher {teacher}")
        self._begin("warm start: games", games)

    def bc_collected(self, samples: int, seconds: float) -> None:
        self._end()
        self.note(f"warm start: {samples} teacher decisions collected in {seconds:.0f}s")

    def bc_fit(self, epochs: int) -> None:
        self._begin("warm start: fitting", epochs)

    def bc_done(self, fit: dict[str, Any]) -> None:
        self._end()
        self.note(
            f"warm start: teacher's choice ranked first {fit['bc_accuracy_before']:.1%} -> "
            f"{fit['bc_accuracy']:.1%} (NLL {fit['bc_nll_before']:.3f} -> {fit['bc_nll']:.3f})"
        )

    # -- training and evaluations ---------------------------------------------------------------
    def training(self, step: int, note: str = "") -> None:
        if self.progress is None:
            return
        if self._train is None:
            self._train = self.progress.add_task(
                self.label, total=self.total_steps, completed=self.done_steps, note=note
            )
        # rollouts end on whole games, so the last one may pass total_steps: the bar's total
        # follows, and the bar ends full at the steps done
        total = max(self.total_steps, step)
        self.progress.update(self._train, completed=step, total=total, note=note)

    def eval_start(self, step: int, games: int, what: str) -> None:
        if self.progress is not None and self._train is not None:
            self.progress.update(self._train, note="evaluating")
        self.note(f"step {step}: evaluating against {what} ({games} games)")
        self._begin("evaluation", games)

    def eval_done(self, step: int, result: dict[str, Any], seconds: float) -> None:
        self._end()
        self.note(
            f"step {step}: mean win rate vs the panel {result['mean_win_rate']:.3f}, "
            f"rating {rating_text(result)} ({seconds:.0f}s)"
        )


def rating_text(result: dict[str, Any]) -> str:
    """An evaluation's rating (`training.evaluation.evaluate`: Elo scale, `random` = 0) for a
    note: `+48.3 ± 12.0 Elo`, without the ± when there was no bootstrap, `-` without a scored
    game."""
    if result.get("rating") is None:
        return "- (no scored game)"
    se = result.get("rating_se")
    spread = "" if se is None else f" ± {se:.1f}"
    return f"{result['rating']:+.1f}{spread} Elo"
