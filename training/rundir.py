"""The run directory of a training run: checked before training starts, read with validation,
written atomically.

`check_new_run` refuses a `--run-dir` that is a file, cannot be created or written, or already
holds a run (its `state.json`, written as soon as a run starts) unless `force`; `clear_run`
then removes that run's own files (the names of the run layout, nothing else) so a new run
starts in its place. `load_state` and `load_pool` read `state.json` and `pool.json` of a run
to resume and refuse a damaged file (not JSON, a missing entry, a value of the wrong type) with a
`TrainError` naming the file and the entry. `resume_checkpoint` verifies the checkpoint the
state names (`training.checkpoint.load_checkpoint`), and `resume_config` rebuilds the run's
configuration and refuses settings given with `--resume` that differ from the run's: a resumed
run keeps its settings; only `total_steps` (to extend it) and `progress` may change, and
never the game (`state.json` records it as "game"; a state without it is Last Will's).
`remove_later_snapshots` removes the snapshots that a stopped run wrote after the state it
resumes from. `write_state` writes `state.json` atomically (`agents.safeio`).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agents.policy import CheckpointError
from agents.safeio import DestinationError, check_directory, write_json
from gamecore.plain import is_int

from .checkpoint import checkpoint_base, checkpoint_game, load_checkpoint
from .config import TrainConfig, TrainConfigError
from .pool import PoolRegistry

STATE = "state.json"
POOL = "pool.json"
CONFIG = "config.json"
RANDOM_STATE = "random_state"  # what an exact resume restores (`training.allseat.draws`)
# settings a resumed run may change; any other setting given with --resume must equal the run's
RESUME_MAY_CHANGE = ("run_dir", "total_steps", "progress")
# what a run writes in its directory: `clear_run` removes these and nothing else
RUN_FILES = (POOL, CONFIG, "progress.jsonl", STATE)  # state.json last: see clear_run
RUN_FOLDERS = ("tb", "checkpoints", "snapshots", "eval", "exploiters", "rllib", "rllib.tmp")
_SNAPSHOT_FILE = re.compile(r"step_([0-9]+)\.(npz|pt|zip|json)")  # a snapshot's files


class TrainError(RuntimeError):
    """A run that cannot start or resume; the message says why and what to do."""


def rel(path: Path, run: Path) -> str:
    """Paths in state.json and pool.json are relative to the run directory (movable runs)."""
    return str(path.relative_to(run))


def check_new_run(run: str | Path, force: bool = False) -> Path:
    """A fresh run may start in `run`: a writable directory (or one that can be made) that
    holds no run yet, or with `force` one whose run is to be replaced (`clear_run`)."""
    run = Path(run)
    try:
        check_directory(run)
    except DestinationError as e:
        raise TrainError(f"--run-dir: {e}") from None
    if (run / STATE).exists() and not force:
        raise TrainError(
            f"{run} already holds a run ({STATE}); use --resume to continue it, --force to "
            f"start a new run in its place (the old run's files are removed), or choose "
            f"another --run-dir"
        )
    return run


def clear_run(run: str | Path) -> list[str]:
    """Remove the files of the run in `run` (those of the run layout: `RUN_FILES`,
    `RUN_FOLDERS`, `best.*`), for a new run started there with `--force`; other files are
    left alone, and a directory that holds no run (no state.json) is not touched. Returns the
    names removed. The caller holds the run's lock."""
    run = Path(run)
    if not (run / STATE).is_file():
        return []
    removed = []
    for name in RUN_FOLDERS:
        if (run / name).is_dir() and not (run / name).is_symlink():
            shutil.rmtree(run / name)
            removed.append(name + "/")
    best = sorted(p.name for p in run.glob("best.*") if p.is_file())
    # state.json goes last: a clearing interrupted part-way still holds a run, which a second
    # --force clears (and --resume refuses as damaged, naming what is missing)
    for name in (*best, *RUN_FILES):
        if (run / name).is_file() or (run / name).is_symlink():
            (run / name).unlink()
            removed.append(name)
    return removed


def new_state(cfg: TrainConfig) -> dict[str, Any]:
    return {
        "game": cfg.game,
        "step": 0,
        "checkpoint": None,
        "config": cfg.to_dict(),
        "next_snapshot": cfg.snapshot_every,
        "next_eval": cfg.eval_every,
        "next_checkpoint": cfg.checkpoint_every,
        "best": None,
        "evals": [],
    }


def write_state(run: str | Path, state: Mapping[str, Any]) -> None:
    write_json(Path(run) / STATE, dict(state))


def _read_json(path: Path, what: str) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TrainError(f"{path} does not exist; {what}") from None
    except IsADirectoryError:
        raise TrainError(f"{path} is a directory, not a file; {what}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise TrainError(f"cannot read {path}: {e}") from None
    if not text.strip():
        raise TrainError(f"{path} is empty; the run directory is damaged")
    try:
        return json.loads(text)
    except ValueError as e:
        raise TrainError(
            f"{path} is not valid JSON ({e}); the file is damaged (truncated or edited)"
        ) from None


# entry: (test, what is allowed)
_STATE_ENTRIES: dict[str, tuple[Any, str]] = {
    "step": (lambda v: is_int(v) and v >= 0, "a non-negative integer"),
    "checkpoint": (lambda v: v is None or isinstance(v, str), "a checkpoint path or null"),
    "config": (lambda v: isinstance(v, dict), "the run's settings (a JSON object)"),
    "next_snapshot": (is_int, "an integer step"),
    "next_eval": (is_int, "an integer step"),
    "next_checkpoint": (is_int, "an integer step"),
}


def _check_best(v: Any) -> bool:
    return v is None or (
        isinstance(v, dict)
        and is_int(v.get("step"))
        and isinstance(v.get("checkpoint"), str)
        and isinstance(v.get("mean_win_rate"), (int, float))
        and not isinstance(v.get("mean_win_rate"), bool)
    )


def _is_seconds(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v < float("inf")


_OPTIONAL_ENTRIES: dict[str, tuple[Any, str]] = {
    "game": (lambda v: isinstance(v, str), "a game name such as lastwill"),
    "best": (_check_best, "null or {step, mean_win_rate, checkpoint}"),
    "evals": (lambda v: isinstance(v, list), "a list of evaluations"),
    "invalid_actions": (lambda v: is_int(v) and v >= 0, "a non-negative integer"),
    "bc": (lambda v: isinstance(v, dict), "the warm start's fit (a JSON object)"),
    RANDOM_STATE: (lambda v: isinstance(v, dict), "the training's random state (a JSON object)"),
    "wall_seconds": (_is_seconds, "a non-negative number of seconds"),
    "cpu_seconds": (_is_seconds, "a non-negative number of seconds"),
}


def load_state(run: str | Path) -> dict[str, Any]:
    """`run/state.json`, validated entry by entry (TrainError naming the entry)."""
    run = Path(run)
    path = run / STATE
    if run.exists() and not run.is_dir():
        raise TrainError(f"--run-dir {run} is a file, not a run directory")
    if not path.exists():
        raise TrainError(f"nothing to resume in {run}: {path} does not exist")
    state = _read_json(path, "nothing to resume")
    if not isinstance(state, dict):
        raise TrainError(f"{path} holds a JSON {type(state).__name__}, not the run's state")
    for name, (test, allowed) in _STATE_ENTRIES.items():
        if name not in state:
            raise TrainError(
                f"{path} has no {name!r} entry; the run's state is damaged ({name} must be "
                f"{allowed})"
            )
        if not test(state[name]):
            raise TrainError(f"{path}: {name}={state[name]!r} is not allowed; use {allowed}")
    for name, (test, allowed) in _OPTIONAL_ENTRIES.items():
        if name in state and not test(state[name]):
            raise TrainError(f"{path}: {name}={state[name]!r} is not allowed; use {allowed}")
    return state


def state_game(state: Mapping[str, Any]) -> str:
    """The game of a run's state: its "game", else its settings' (a run from before the lab
    recorded games: Last Will)."""
    if "game" in state:
        return str(state["game"])
    return checkpoint_game(state.get("config") or {})


def check_same_game(run: str | Path, state: Mapping[str, Any], game: str) -> None:
    """A run is resumed as the game it was started with; another game is a `TrainError`."""
    have = state_game(state)
    if have != game:
        raise TrainError(
            f"{Path(run) / STATE} holds a run of the game {have!r}; it cannot be resumed as "
            f"{game!r} (its learner, pool and checkpoints play {have!r}). Resume it without "
            f"setting game, or start a new run of {game!r} with another --run-dir"
        )


def resume_checkpoint(
    run: str | Path, state: Mapping[str, Any], learner_suffix: str = ".zip"
) -> Path:
    """The verified learner file (the SB3 `.zip`, or the all-seat `.pt`) of the checkpoint a
    resumed run continues from."""
    run = Path(run)
    if not state.get("checkpoint"):
        raise TrainError(f"{run} has no checkpoint yet; start it again without --resume")
    base = checkpoint_base(run / state["checkpoint"])
    zip_path = base.with_name(base.name + learner_suffix)
    if not zip_path.is_file():
        raise TrainError(
            f"{run / STATE} names the checkpoint {state['checkpoint']}, but {zip_path} does "
            f"not exist; the run directory is damaged"
        )
    try:
        meta = load_checkpoint(zip_path, game=state_game(state))
    except CheckpointError as e:
        raise TrainError(f"cannot resume {run}: {e}") from None
    if meta.get("step") not in (None, state["step"]):
        raise TrainError(
            f"{zip_path} holds step {meta.get('step')} but {run / STATE} says step "
            f"{state['step']}; the run directory is damaged"
        )
    return zip_path


def load_pool(run: str | Path, state: Mapping[str, Any], window: int) -> PoolRegistry:
    """`run/pool.json` (an empty pool when absent), without snapshots made after the saved
    state; every snapshot left in the pool must be a sound checkpoint."""
    run = Path(run)
    path = run / POOL
    if not path.exists():
        return PoolRegistry(window=window)
    try:
        registry = PoolRegistry.load(path)
    except ValueError as e:
        raise TrainError(f"cannot resume {run}: {e}") from None
    registry.snapshots = [s for s in registry.snapshots if s.step <= state["step"]]
    for s in registry.active():
        try:
            load_checkpoint(run / s.path, game=state_game(state))
        except CheckpointError as e:
            raise TrainError(f"cannot resume {run}: pool snapshot {s.id}: {e}") from None
    return registry


def remove_later_snapshots(run: str | Path, step: int) -> list[str]:
    """Remove the snapshots in `run/snapshots` of a step after `step`, the step of the state a
    run resumes from: a run stopped after writing a snapshot and before its state reached that
    step left them, whether or not `pool.json` recorded them, and the resumed pool never holds
    them (`load_pool`); the resumed run makes them again when it comes to their step. Returns
    the bundles removed (`snapshots/step_N.*`)."""
    run = Path(run)
    removed: dict[str, None] = {}
    for p in sorted((run / "snapshots").glob("step_*")):
        m = _SNAPSHOT_FILE.fullmatch(p.name)
        if m and int(m.group(1)) > step and p.is_file():
            p.unlink()
            removed[rel(checkpoint_base(p), run) + ".*"] = None
    return list(removed)


def resume_config(
    run_dir: str | Path,
    total_steps: int | None = None,
    given: Mapping[str, Any] | None = None,
) -> TrainConfig:
    """The configuration of an existing run, with a new total step budget if given.

    `given` holds the other settings the user passed with `--resume` (flags, a `--config`
    file); any that differs from the run's raises TrainError naming it."""
    state = load_state(run_dir)
    data = dict(state["config"])
    data["run_dir"] = str(run_dir)  # the run is where its state is, wherever it was made
    data.setdefault("game", state_game(state))
    if given and given.get("game") is not None:
        check_same_game(run_dir, state, given["game"])
    try:
        run_cfg = TrainConfig.from_dict(data)
    except TrainConfigError as e:
        raise TrainError(
            f"{Path(run_dir) / STATE}: the run's settings are not valid ({e}); the file is "
            f"damaged or was written by another version of the lab"
        ) from None
    given = {k: v for k, v in (given or {}).items() if v is not None}
    if given:
        asked = TrainConfig.from_dict({**run_cfg.to_dict(), **given}).to_dict()
        have = run_cfg.to_dict()
        diffs = [
            f"{k} (the run has {have[k]!r}, given {asked[k]!r})"
            for k in sorted(given)
            if k not in RESUME_MAY_CHANGE and asked[k] != have[k]
        ]
        if diffs:
            raise TrainError(
                "--resume continues a run with its own settings, and these differ from the "
                f"run's: {'; '.join(diffs)}. Leave them out (only --total-steps may change, "
                "to extend the run), or start a new run with another --run-dir"
            )
        if "progress" in given:
            run_cfg.progress = asked["progress"]
    if total_steps is not None:
        data = run_cfg.to_dict()
        data["total_steps"] = total_steps
        run_cfg = TrainConfig.from_dict(data)
    return run_cfg
