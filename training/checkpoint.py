"""Checkpoints: saving, verifying, loading and promoting the best one, each as one unit.

A checkpoint `NAME` is a set of companions beside one JSON sidecar:

    NAME.zip    the SB3 model (weights, optimizer state, schedule), for resuming
    NAME.pt     or, from the all-seat trainer, its learner state (`training.allseat.loop`)
    NAME.npz    the policy's weights as plain arrays (`agents.policy.NumpyPolicy`), for playing
    NAME.json   the sidecar: the game ("game"; a sidecar without it is Last Will's), its env
                name and version, action-table hash, observation size and action count
                (`agents.policy.env_signature`), the lab's version ("lab_version"), step, seed,
                configuration, kind, and under "files" the size and sha256 of every companion

Companions are written first, each to a temporary name, fsynced and renamed; the sidecar is
written last (`agents.safeio.write_bundle`). Every load checks the companions against the
sidecar (`agents.policy.verify_files`), so a checkpoint interrupted part-way, or a companion
replaced by another checkpoint's file, is refused with a `CheckpointError` naming the file;
`ppo:PATH` players load through the same check.

`best.*` of a run is a copy of one checkpoint (`promote_best`), written the same way and
recording which checkpoint it copies ("promoted_from"). If a run was killed while `best.*`
was being replaced, `repair_best` rebuilds it from the checkpoint that the run's state names.

Any trainer can use this module: `save_checkpoint(base, meta, writers)` takes one writer per
companion suffix (a callable that writes the file at the temporary path it is given);
`save_model_checkpoint` is the SB3 case.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from agents.policy import (
    CheckpointError,
    CheckpointMismatchError,
    NumpyPolicy,
    check_compatible,
    env_signature,
    read_sidecar,
    verify_files,
)
from agents.safeio import BundleError, bundle_base, write_bundle
from gamecore import DEFAULT_GAME, GameNotFound, load_game

__all__ = [
    "CheckpointError",
    "check_game",
    "checkpoint_base",
    "checkpoint_game",
    "checkpoint_meta",
    "load_checkpoint",
    "promote_best",
    "repair_best",
    "save_checkpoint",
    "save_model_checkpoint",
]

SUFFIXES = (".zip", ".npz", ".pt")  # SB3 model, policy arrays, all-seat learner state


def checkpoint_base(path: str | Path) -> Path:
    """`dir/step_512`, `dir/step_512.zip`, `.npz` and `.json` all name one checkpoint."""
    return bundle_base(path)


def new_checkpoint_problem(out: Path) -> str | None:
    """Why ``out`` cannot be a new checkpoint (its `.npz`, `.pt` or `.json` exists, or it does not
    end in `.npz`), as the `--out` error says it; None when it can."""
    if out.suffix != ".npz":
        return f"--out {out}: give a path ending in .npz"
    taken = [str(p) for p in (out, out.with_suffix(".pt"), out.with_suffix(".json")) if p.exists()]
    if taken:
        return f"--out {out}: {', '.join(taken)} exists; choose a new path"
    return None


@lru_cache(maxsize=1)
def lab_version() -> str:
    """The lab's version: the installed `lastwill-lab` package's (its one home is
    `lastwill_env.__version__`, which the package metadata reads; tests/core/test_version.py keeps
    the two equal), "unknown" where the lab is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("lastwill-lab")
    except PackageNotFoundError:
        return "unknown"


def checkpoint_game(meta: Mapping[str, Any]) -> str:
    """The game a sidecar (or a run's settings) records; none recorded: Last Will."""
    return str(meta.get("game", DEFAULT_GAME))


def check_game(meta: Mapping[str, Any], where: str, game: str = DEFAULT_GAME) -> None:
    """The checkpoint `where` (its sidecar `meta`) is a policy of the game `game` made for this
    lab (`agents.policy.check_compatible`: another game's policy, or one of another env version,
    action table or observation layout, is a `CheckpointMismatchError` saying what differs)."""
    try:
        rules = load_game(game)
    except GameNotFound as e:
        raise CheckpointMismatchError(f"checkpoint {where}: {e}") from None
    check_compatible(dict(meta), where, rules)


def checkpoint_meta(step: int, seed: int, config: Mapping[str, Any], **extra: Any) -> dict:
    """The sidecar fields a checkpoint carries (besides "files", added when it is saved): the
    game of `config` ("game", Last Will when it names none) and its signature.
    "lab_version" is informational: loading never requires it (older sidecars lack it)."""
    game = checkpoint_game(config)
    return {
        "game": game,
        **env_signature(load_game(game)),
        "lab_version": lab_version(),
        "step": step,
        "seed": seed,
        "config": dict(config),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        **extra,
    }


def save_checkpoint(
    base: str | Path, meta: Mapping[str, Any], writers: Mapping[str, Callable[[Path], Any]]
) -> Path:
    """Write the checkpoint `base` as one unit: `writers[suffix](tmp_path)` writes each
    companion, then the sidecar holding `meta` and the companions' digests. Returns the
    sidecar path. An existing checkpoint of that name is replaced (a reader never gets a mixed
    one: it is refused until the sidecar is written)."""
    return write_bundle(checkpoint_base(base), writers, meta)


def save_model_checkpoint(
    model: Any, path: str | Path, cfg: Any, step: int, extra: Mapping[str, Any] | None = None
) -> Path:
    """An SB3 model as the checkpoint `path` (`.zip` + `.npz` + sidecar); returns the `.zip`."""
    base = checkpoint_base(path)
    npz = NumpyPolicy.from_sb3(model)
    save_checkpoint(
        base,
        checkpoint_meta(step, cfg.seed, cfg.to_dict(), **(extra or {})),
        {".zip": lambda tmp: model.save(str(tmp)), ".npz": npz.write_npz},
    )
    return base.with_name(base.name + ".zip")


def load_checkpoint(
    path: str | Path, check: bool = True, game: str = DEFAULT_GAME
) -> dict[str, Any]:
    """The verified sidecar of a checkpoint: it exists and is a JSON object, it is a policy of
    `game` made for this lab (`check`, `check_game`), and every companion it lists matches.
    Raises CheckpointError."""
    base = checkpoint_base(path)
    side = base.with_name(base.name + ".json")
    meta = read_sidecar(side)
    if check:
        check_game(meta, str(path), game)
    verify_files(side, meta)
    return meta


def promote_best(src: str | Path, dst: str | Path) -> Path:
    """Copy the checkpoint `src` to `dst` (e.g. `run/best`) as one unit: the companions, then
    the sidecar with "promoted_from". `src` is verified first."""
    sb, db = checkpoint_base(src), checkpoint_base(dst)
    meta = load_checkpoint(sb, check=False)
    writers = {}
    for suffix in SUFFIXES:
        companion = sb.with_name(sb.name + suffix)
        if companion.exists():
            writers[suffix] = lambda tmp, c=companion: shutil.copyfile(c, tmp)
    meta = {k: v for k, v in meta.items() if k != "files"}
    meta["promoted_from"] = sb.name
    return save_checkpoint(db, meta, writers)


def repair_best(run: str | Path, best: Mapping[str, Any] | None) -> str | None:
    """Make `run/best.*` the copy of the checkpoint that the run's state names as best
    (`best["checkpoint"]`, relative to `run`); returns a note when it had to be rebuilt."""
    if not best:
        return None
    run = Path(run)
    dst = run / "best"
    src = checkpoint_base(run / str(best["checkpoint"]))
    try:
        meta = load_checkpoint(dst, check=False)
        wanted = [s for s in SUFFIXES if src.with_name(src.name + s).exists()]
        if meta.get("step") == best.get("step") and all(
            dst.with_name("best" + s).exists() for s in wanted
        ):
            return None
        why = f"it held step {meta.get('step')}, the run's best is step {best.get('step')}"
    except (CheckpointError, BundleError) as e:
        why = str(e)
    promote_best(src, dst)
    return f"rebuilt {dst}.* from {src.name} ({why})"
