"""The run loop every trainer shares: the run directory, the schedule, `best.*` and the state.

A trainer (SB3 single-seat `training.sb3`, the all-seat `training.allseat.loop`, the RLlib
backend `training.rllib_backend`, expert iteration `training.expert.trainer`, each run with
its settings, a `training.config.RunConfig`) supplies only what differs between them, the
`Trainer` hooks: build its learner (fresh, or from the checkpoint a resumed run continues),
train until `total_steps` (calling `RunLoop.begin`, `after_update` and `end` as it goes), save a
checkpoint to a path, and take the pool's snapshots. Everything else is written here, once:

- start or resume (`run`): a new run is refused in a directory that holds one unless `force`
  (its files are then removed, `training.rundir.clear_run`); `resume` reads and checks the
  state, the pool and the checkpoint (`training.rundir`) and repairs `best.*`; the directory is
  locked for the run (`training.runlock`). `state.json` is written as soon as the learner is
  built (bad settings are refused before that), and a step-0 checkpoint before the first
  evaluation, so a run stopped at any moment after that (Ctrl+C) is one that `--resume`
  continues: from its last checkpoint, or, stopped before the first one, from the start with
  its own settings.
- the schedule, after each update: a pool snapshot every `snapshot_every` steps, an
  evaluation every `eval_every` (and at the start and at the end; `eval_every = 0`: only
  there), a checkpoint every `checkpoint_every`, an exploiter every `exploiter_every`
  (`training.league`, passed in by the front door `training.train`);
- the evaluation (`training.evaluation.evaluate`) with its TensorBoard scalars
  (`training.tblog.EvalBoard`) and the one rule of `best.*`: the highest score so far,
  promoted as one unit (`training.checkpoint.promote_best`);
- the state: step, checkpoint, schedule, evaluations, best, wall-clock seconds, and from a
  trainer that keeps it (`random_state()`, the all-seat trainer's `training.allseat.draws`)
  the training's random state, so that a resumed run goes on exactly as it would have gone on;
  written atomically and fsynced (`agents.safeio`), like every other file of the run. A
  resumed run first does what a stop cut off of the schedule at its step, and removes the
  snapshots written after the state it resumes from (`training.rundir`). The state names the
  trainer that made the run ("mode", `run_mode`): a run is resumed by that trainer only.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from agents.policy import CheckpointError
from agents.safeio import write_json

from .checkpoint import promote_best, repair_best
from .config import RunConfig, TrainConfig
from .evaluation import evaluate
from .pool import PoolRegistry, SnapshotInfo
from .progress import TrainProgress
from .rundir import (
    CONFIG,
    RANDOM_STATE,
    TrainError,
    check_new_run,
    check_same_game,
    clear_run,
    load_pool,
    load_state,
    new_state,
    rel,
    remove_later_snapshots,
    resume_checkpoint,
    write_state,
)
from .runlock import run_lock
from .tblog import EvalBoard, start_run

__all__ = ["League", "RunLoop", "Trainer", "is_better", "run", "run_mode"]


class Trainer(Protocol):
    """What a trainer gives the run loop (module docstring). A trainer may also have

    - `random_state()`: its training's random state as JSON (None before training starts),
      written with every state and restored by the trainer itself on `--resume`;
    - `step_name`: the stem of its checkpoint and evaluation files, `<step_name>_N` ("step"
      without it; expert iteration's "iter": `checkpoints/iter_3.npz`);
    - `checkpoint_step(step)`: the step whose checkpoint holds the learner at `step` (without
      it, `step` itself). A learner that does not change (a collecting expert-iteration run)
      names step 0 at every step: that one checkpoint is saved, resumed from and evaluated;
    - `on_evaluation(step, result)`: told each evaluation's result (`training.evaluation`)
      before the state that records it is written (expert iteration logs it its own way).
    """

    label: str  # the progress bar's label
    checkpoint_suffix: str  # the suffix of the checkpoint paths it is given (".zip", ".npz")
    suffix: str  # the learner file of a checkpoint, which --resume reads (".zip", ".pt", ...)
    uses_pool: bool  # it plays snapshots of itself (pool.json); False: no snapshots
    league_rng: Any  # the random source of a league's draws (an exploiter's player count)

    def settings(self) -> dict[str, Any]:
        """Entries of config.json and of a new state.json beyond the settings (`to_dict`)."""
        ...

    def build(self, loop: RunLoop, checkpoint: Path | None) -> None:
        """Make the learner: fresh (`checkpoint` None), or from a resumed run's checkpoint."""
        ...

    def warm_start(self, progress: TrainProgress) -> dict[str, Any]:
        """Imitate `bc_teacher` before the first update; its fit (state.json "bc")."""
        ...

    def train(self, loop: RunLoop) -> int:
        """Train until `total_steps`: `loop.begin(...)` first, `loop.after_update(...)` after
        every update, `loop.end(...)` last (when it trains at all); returns the final step."""
        ...

    def save(self, path: Path, step: int, kind: str) -> None:
        """The learner as the checkpoint `path` (kind: "checkpoint" or "snapshot")."""
        ...

    def set_pool(self, registry: PoolRegistry) -> None:
        """The pool's active snapshots changed: play them from now on."""
        ...

    def finish(self, loop: RunLoop) -> None:
        """After the final checkpoint, before the last state write (entries of its own)."""
        ...

    def close(self) -> None:
        """Release what `build` made (env workers, Ray); called however the run ends."""
        ...


class League(Protocol):
    """The exploiters of a league run (`training.league.League`)."""

    def train_exploiter(
        self, run: Path, main: Path, cfg: TrainConfig, step: int, rng: Any
    ) -> dict[str, Any]:
        """A best response to the checkpoint `main` of the run at `step`; its record."""
        ...

    def admit(self, registry: PoolRegistry, info: dict[str, Any]) -> bool:
        """Put the exploiter into the pool if it earned its place; True when it did."""
        ...


def is_better(result: dict[str, Any], best: dict[str, Any] | None) -> bool:
    """The rule of `best.*`: a higher evaluation score than the best so far (a best recorded
    before scores existed counts as four times its mean win rate)."""
    return best is None or result["score"] > best.get("score", best["mean_win_rate"] * 4)


def run_mode(state: dict[str, Any]) -> str:
    """The trainer that made the run of `state` (a `training.config.MODES` entry): its "mode",
    else what a state from before the run loop recorded it tells: "backend" rllib, an expert
    iteration's "iteration", or its settings' mode (single-seat, the default then)."""
    if isinstance(state.get("mode"), str):
        return str(state["mode"])
    if state.get("backend") == "rllib":
        return "rllib"
    if "iteration" in state:
        return "expert"
    config = state.get("config")
    return str(config.get("mode", "single_seat")) if isinstance(config, dict) else "single_seat"


def run(
    cfg: RunConfig,
    trainer: Trainer,
    resume: bool = False,
    notify: Callable[[str], None] | None = None,
    force: bool = False,
    league: League | None = None,
) -> dict[str, Any]:
    """Run `trainer` in `cfg.run_dir`: a new run, or with `resume` the one there (build `cfg`
    with `training.rundir.resume_config`), or with `force` a new one in place of the one there;
    returns the final state. Checked before the directory is locked and again under the lock;
    `notify` gets notes (a repaired `best.*`, a stale lock, a run restarted), stderr by
    default."""
    if resume and force:
        raise TrainError(
            "--resume continues the run in --run-dir and --force starts a new one in its place; "
            "give one of them"
        )
    if cfg.exploiter_every and league is None:
        raise TrainError("exploiter_every needs the league: train through training.train.train")
    run_dir = Path(cfg.run_dir)
    _check_start(run_dir, resume, force)  # refused before the directory is locked
    with run_lock(run_dir, notify):
        _check_start(run_dir, resume, force)
        return RunLoop(cfg, trainer, resume, notify, force, league).run()


def _check_start(run_dir: Path, resume: bool, force: bool) -> None:
    if resume:
        load_state(run_dir)
    else:
        check_new_run(run_dir, force)


class RunLoop:
    """One run of one trainer in its (locked) run directory; `run` makes and runs it."""

    def __init__(
        self,
        cfg: RunConfig,
        trainer: Trainer,
        resume: bool,
        notify: Callable[[str], None] | None = None,
        force: bool = False,
        league: League | None = None,
    ) -> None:
        self.cfg = cfg
        self.trainer = trainer
        self.league = league
        self.dir = Path(cfg.run_dir)
        self.say = notify or (lambda text: print(text, file=sys.stderr))
        self.started = time.perf_counter()
        self.cpu_started = time.process_time()
        self.resumed = resume
        self.force = force
        self.step = 0
        self.state: dict[str, Any] = {}
        self.registry = PoolRegistry(window=cfg.snapshot_window)
        self.progress = TrainProgress(False, cfg.total_steps)
        self.board: EvalBoard | None = None
        self.written: set[Path] = set()  # checkpoints saved by this process (a killed run's
        # files are written again, not reused)
        self._t_update = self.started
        self._wall_before = 0.0
        self._cpu_before = 0.0

    # -- the run ----------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        """Open the run, build the learner, warm start, train, the final checkpoint."""
        checkpoint = self._open()
        try:
            self.trainer.build(self, checkpoint)  # bad settings are refused before any write
            self._record_start()
            self.progress = TrainProgress(
                self.cfg.progress, self.cfg.total_steps, self.step, self.trainer.label
            )
            with self.progress:
                if not self.resumed and self.cfg.bc_teacher:
                    self.state["bc"] = self.trainer.warm_start(self.progress)
                self.step = self.trainer.train(self)
                self._finish()
        finally:
            if self.board is not None:
                self.board.close()
            self.trainer.close()
        return self.state

    def _open(self) -> Path | None:
        """The state and pool of the run (new, or resumed and checked); the checkpoint a
        resumed run continues from."""
        checkpoint = None
        if self.force and (removed := clear_run(self.dir)):
            self.say(f"note: --force: removed the earlier run in {self.dir} ({', '.join(removed)})")
        if self.resumed:
            self.state = load_state(self.dir)
            self._check_mode()
            if self.state["checkpoint"] is None:
                self.say(
                    f"note: {self.dir} was stopped before its first checkpoint; it starts again "
                    f"from step 0 with its own settings"
                )
                self.resumed = False
            else:
                checkpoint = self._resume()
        if not self.resumed:
            self.dir.mkdir(parents=True, exist_ok=True)
            self.state = {**new_state(self.cfg), "mode": self.cfg.mode, **self.trainer.settings()}
        self.step = int(self.state["step"])
        self._wall_before = float(self.state.get("wall_seconds", 0.0)) if self.resumed else 0.0
        self._cpu_before = float(self.state.get("cpu_seconds", 0.0)) if self.resumed else 0.0
        return checkpoint

    def _record_start(self) -> None:
        """config.json, and a new run's first state.json: from here --resume continues it."""
        write_json(self.dir / CONFIG, {**self.cfg.to_dict(), **self.trainer.settings()})
        if not self.resumed:
            write_state(self.dir, self.state)

    def _check_mode(self) -> None:
        """The run being resumed was made by this trainer (`run_mode`)."""
        made_by = run_mode(self.state)
        if made_by != self.cfg.mode:
            raise TrainError(
                f"{self.dir} holds a run of mode {made_by} (not {self.cfg.mode}); resume it with "
                f"--mode {made_by}, or leave --mode out"
            )
        self.state["mode"] = made_by

    def _resume(self) -> Path:
        """The checked checkpoint, pool and `best.*` of the run being resumed (of the game it
        was started with)."""
        check_same_game(self.dir, self.state, self.cfg.game)
        self.state.setdefault("game", self.cfg.game)  # a run from before games were recorded
        # the checkpoint's own step: that of the learner at the state's step
        at = {**self.state, "step": self.learner_step(self.state["step"])}
        checkpoint = resume_checkpoint(self.dir, at, learner_suffix=self.trainer.suffix)
        self.written.add(self.dir / self.state["checkpoint"])  # the learner as it is resumed
        if self.trainer.uses_pool:
            self.registry = load_pool(self.dir, self.state, self.cfg.snapshot_window)
            for name in remove_later_snapshots(self.dir, self.state["step"]):
                self.say(f"note: removed {self.dir / name}, a snapshot made after the last state")
        try:
            fixed = repair_best(self.dir, self.state.get("best"))
        except CheckpointError as e:
            raise TrainError(f"cannot resume {self.dir}: best checkpoint: {e}") from None
        if fixed:
            self.say(f"note: {fixed}")
        self.state["config"] = self.cfg.to_dict()
        return checkpoint

    def _finish(self) -> None:
        """The last checkpoint and state (the learner at its final step)."""
        final = self.checkpoint_path(self.step)
        resumed_here = self.resumed and rel(final, self.dir) == self.state["checkpoint"]
        if not resumed_here:
            self.save(final, "checkpoint")
        self._save_pool()
        self.trainer.finish(self)
        self.write_state(final)

    # -- what trainers call -----------------------------------------------------------------
    def begin(self, step: int, writer: Any = None) -> None:
        """Training starts at `step`: TensorBoard's layout and settings (`writer`, a
        SummaryWriter; the evaluation's sub-runs beside it), the pool's snapshots, a step-0
        checkpoint for a new run, and the evaluation at the start (before any update); a run
        resumed after its start does instead what the schedule had left to do at `step`."""
        self.step = step
        if writer is not None:
            start_run(writer, self.cfg, self.state, step)
            self.board = EvalBoard(writer)
        self.progress.training(step)
        if self.trainer.uses_pool:
            self.trainer.set_pool(self.registry)
        if self.state["checkpoint"] is None:  # resumable from here, before the evaluation
            path = self.checkpoint_path(step)
            self.save(path, "checkpoint")
            self.write_state(path)
        if self.resumed and step > 0:  # what a stop cut off of the schedule at this step
            self._schedule(step, step)
        elif not self.evaluated(step):  # the start: no training draw is used
            self.evaluate(step, time.perf_counter())

    def after_update(self, step: int, previous: int) -> None:
        """The schedule after an update that reached `step` (`_schedule`)."""
        self._t_update = time.perf_counter()
        self.step = step
        self._schedule(step, previous)
        best = self.state.get("best")
        self.progress.training(step, f"best {best['mean_win_rate']:.2f}" if best else "")

    def _schedule(self, step: int, previous: int) -> None:
        """Snapshot, evaluation, checkpoint, exploiter, each when due at `step`. Each one's next
        step is set before its work writes the state, so a run resumed from that state does
        what was left at `step` and nothing twice. A snapshot is a milestone when a multiple
        of `milestone_every` lies in (`previous`, `step`]."""
        state, cfg = self.state, self.cfg
        if self.trainer.uses_pool and step >= state["next_snapshot"]:
            state["next_snapshot"] = step + cfg.snapshot_every
            self._snapshot(step, previous)
        if cfg.eval_every and step >= state["next_eval"]:
            state["next_eval"] = step + cfg.eval_every
            if not self.evaluated(step):
                self.evaluate(step, self._t_update)
        if step >= state["next_checkpoint"]:
            state["next_checkpoint"] = step + cfg.checkpoint_every
            self._checkpoint(step)
        if cfg.exploiter_every and step >= state.setdefault("next_exploiter", cfg.exploiter_every):
            state["next_exploiter"] = step + cfg.exploiter_every
            if not any(e.get("step") == step for e in state.get("exploiters", ())):
                self._exploiter(step)

    def end(self, step: int) -> None:
        """Training ended at `step`: the evaluation at the end of the run."""
        self.step = step
        if not self.evaluated(step):
            self.evaluate(step, time.perf_counter())

    # -- the schedule's steps ---------------------------------------------------------------
    def learner_step(self, step: int) -> int:
        """The step whose checkpoint holds the learner at `step` (`Trainer.checkpoint_step`)."""
        hook = getattr(self.trainer, "checkpoint_step", None)
        return step if hook is None else int(hook(step))

    def _name(self, step: int) -> str:
        """The stem of the files of `step` (`Trainer.step_name`): `step_N`, `iter_N`."""
        return f"{getattr(self.trainer, 'step_name', 'step')}_{step}"

    def checkpoint_path(self, step: int) -> Path:
        """The checkpoint that holds the learner at `step`."""
        name = self._name(self.learner_step(step))
        return self.dir / "checkpoints" / f"{name}{self.trainer.checkpoint_suffix}"

    def save(self, path: Path, kind: str) -> None:
        """The learner at the current step as `path`, once per process."""
        if path not in self.written:
            self.trainer.save(path, self.step, kind)
            self.written.add(path)

    def evaluated(self, step: int) -> bool:
        """The learner at `step` was evaluated (at its checkpoint's step)."""
        step = self.learner_step(step)
        return any(e.get("step") == step for e in self.state.get("evals", ()))

    def evaluate(self, step: int, t_from: float) -> None:
        """The checkpoint at `step` against the panel: its TensorBoard scalars, `best.*` and
        the state (`t_from`: when the time of this evaluation is counted from)."""
        path = self.checkpoint_path(step)
        self.save(path, "checkpoint")
        out = self.dir / "eval" / f"{self._name(step)}.jsonl"
        res = evaluate(path, self.cfg, step, out, self.progress)
        res["seconds"] = round(time.perf_counter() - t_from, 1)
        res["wall_seconds"] = self.wall_seconds()
        res["cpu_seconds"] = self.cpu_seconds()
        self.progress.eval_done(step, res, res["seconds"])
        if self.board is not None:
            self.board.write(res, self.cfg.eval_counts(), step)
        self.state.setdefault("evals", []).append(res)
        if is_better(res, self.state.get("best")):
            promote_best(path, self.dir / "best")
            self.state["best"] = {
                "step": step,
                "mean_win_rate": res["mean_win_rate"],
                "score": res["score"],
                "checkpoint": rel(path, self.dir),
            }
        told = getattr(self.trainer, "on_evaluation", None)
        if told is not None:
            told(step, res)
        self._save_pool()
        self.write_state(path)

    def _snapshot(self, step: int, previous: int) -> None:
        path = self.dir / "snapshots" / f"step_{step}{self.trainer.checkpoint_suffix}"
        self.save(path, "snapshot")
        every = self.cfg.milestone_every
        milestone = step // every > previous // every
        self.registry.add(SnapshotInfo(f"step_{step}", rel(path, self.dir), step, milestone))
        self._save_pool()
        self.trainer.set_pool(self.registry)

    def _checkpoint(self, step: int) -> None:
        path = self.checkpoint_path(step)
        self.save(path, "checkpoint")
        self._save_pool()
        self.write_state(path)

    def _exploiter(self, step: int) -> None:
        """A best response to the learner at `step` (`training.league`); it joins the pool
        when it beats the learner."""
        assert self.league is not None  # checked by `run`
        self.progress.training(step, "training an exploiter")
        path = self.checkpoint_path(step)
        self.save(path, "checkpoint")
        info = self.league.train_exploiter(self.dir, path, self.cfg, step, self.trainer.league_rng)
        self.state.setdefault("exploiters", []).append(info)
        if self.league.admit(self.registry, info):
            self.trainer.set_pool(self.registry)
        self._save_pool()
        self.write_state(path)

    # -- state ------------------------------------------------------------------------------
    def wall_seconds(self) -> float:
        """Wall-clock seconds of the run so far, warm start and evaluations included, summed
        over resumed sessions (a killed session's time after its last state write is lost)."""
        return round(self._wall_before + time.perf_counter() - self.started, 1)

    def cpu_seconds(self) -> float:
        """CPU seconds of the trainer's process so far (every thread, `time.process_time`; the
        workers of a multi-process rollout or evaluation not counted), summed over resumed
        sessions as `wall_seconds` is: the budget a from-scratch table is read against."""
        return round(self._cpu_before + time.process_time() - self.cpu_started, 1)

    def write_state(self, checkpoint: Path) -> None:
        """state.json at the current step, naming `checkpoint` (the one --resume reads)."""
        self.state["step"] = self.step
        self.state["wall_seconds"] = self.wall_seconds()
        self.state["cpu_seconds"] = self.cpu_seconds()
        self.state["checkpoint"] = rel(checkpoint, self.dir)
        draws = getattr(self.trainer, "random_state", None)  # a trainer that resumes exactly
        if draws is not None and (saved := draws()) is not None:
            self.state[RANDOM_STATE] = saved
        write_state(self.dir, self.state)

    def _save_pool(self) -> None:
        if self.trainer.uses_pool:
            self.registry.save(self.dir / "pool.json")
