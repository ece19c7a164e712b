"""A network fitted again on an expert-iteration run's saved samples (`lastwill expert-fit`).

The search's targets cost minutes of self-play per thousand samples and seconds to learn from,
so a fit with other settings (learning rate, epochs, anchor, or the most visited move as a
one-hot target) needs no new self-play. The fit starts from the run's own start network
(`init_policy`), learns the samples of the chosen iterations (`samples/iter_k.npz`) with the
update of `training.expert.learn`, and writes one checkpoint in the run's format (`.npz` policy
with its critic, `.pt` learner state, `.json` sidecar naming the run, the iterations and the
settings), which `ppo:` and `mcts:policy=` play. It never writes into the run directory and
never replaces a file. The samples and the network are the run's game's (`ExpertConfig.game`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from gamecore import DEFAULT_GAME, Game, GameNotFound

from .config import ExpertConfig, ExpertConfigError
from .learn import fit
from .samplefile import SampleFileError, sample_iterations
from .selfplay import read_samples

TARGETS = ("visits", "best")  # the visit distribution, or its most visited move as a one-hot


class RefitError(RuntimeError):
    """Samples or an output path that a refit cannot use."""


def spans(numbers: list[int]) -> str:
    """`numbers` for a message, three or more in a row as a span: [1, 2, 5-9]."""
    runs: list[list[int]] = []
    for k in numbers:
        if runs and k == runs[-1][-1] + 1:
            runs[-1].append(k)
        else:
            runs.append([k])
    parts = [f"{r[0]}-{r[-1]}" if len(r) > 2 else ", ".join(map(str, r)) for r in runs]
    return f"[{', '.join(parts)}]"


def load_samples(
    run: Path, iterations: list[int], game: Game | str | None = None
) -> dict[str, np.ndarray]:
    """The packed samples of `iterations` of the run in `run`, joined in that order; every
    file is checked as samples of `game` (None: the run's own game, `_run_game`;
    `training.expert.samplefile`), and a name in the samples folder other than `iter_K.npz`
    is ignored."""
    if not iterations or len(set(iterations)) != len(iterations):
        raise RefitError(f"iterations {spans(iterations)}: give distinct iteration numbers")
    folder = run / "samples"
    have = set(sample_iterations(folder))
    missing = [k for k in iterations if k not in have]
    if missing:
        held = spans(sorted(have)) if have else "none"
        raise RefitError(
            f"{folder} holds no samples of iteration(s) {spans(missing)}; it holds {held}"
        )
    try:
        game = _run_game(run) if game is None else game
        data = read_samples([folder / f"iter_{k}.npz" for k in iterations], game)
    except (SampleFileError, GameNotFound) as e:
        raise RefitError(str(e)) from None
    if not len(data["n"]):
        raise RefitError(f"the iteration(s) {spans(iterations)} hold no samples; nothing to fit")
    return data


def best_move_targets(data: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """`data` with every sample's visits replaced by a one-hot of its most visited action (the
    first in the sample's legal order on a tie); a sample without visits keeps none."""
    from training.allseat.batch import segment_starts

    lens = np.asarray(data["legal_len"], dtype=np.int64)
    visits = np.zeros_like(data["visits"])
    for start, n in zip(segment_starts(lens), lens, strict=True):
        seg = data["visits"][start : start + n]
        if n and seg.max() > 0:
            visits[start + int(np.argmax(seg))] = 1.0
    return {**data, "visits": visits}


def _run_game(run: Path) -> str:
    """The game the run's state names (Last Will where it names none or cannot be read)."""
    from .loop import ExpertError, read_state

    try:
        return str(read_state(run)["config"].get("game", DEFAULT_GAME))
    except ExpertError:
        return DEFAULT_GAME


def _run_config(run: Path) -> ExpertConfig:
    from .loop import ExpertError, read_state

    try:
        saved = read_state(run)["config"]
        return ExpertConfig.from_dict({**saved, "progress": False})
    except (ExpertError, ExpertConfigError, TypeError) as e:
        raise RefitError(f"{run}: not an expert-iteration run whose settings load ({e})") from e


def _start(cfg: ExpertConfig, run: Path):
    """The network settings of the run's start policy, which the fit starts from."""
    from .loop import start_policy

    try:
        return start_policy(cfg)[1]
    except ExpertConfigError as e:
        raise RefitError(f"{run}: the run's {e}") from None


def _free(out: Path) -> Path:
    from training.checkpoint import new_checkpoint_problem

    problem = new_checkpoint_problem(out)
    if problem:
        raise RefitError(problem)
    return out


def _fit_settings(
    run: Path, out: Path, target: str, settings: dict[str, Any]
) -> tuple[Path, ExpertConfig]:
    """(the free output path, the run's settings with `settings` over them), or a
    `RefitError` naming what is not allowed."""
    if target not in TARGETS:
        raise RefitError(f"target {target!r} is not allowed; choose {' or '.join(TARGETS)}")
    allowed = {"learning_rate", "epochs", "batch_size", "anchor_coef", "vf_coef", "seed"}
    unknown = sorted(set(settings) - allowed)
    if unknown:
        raise RefitError(f"unknown setting(s) {unknown}; allowed: {sorted(allowed)}")
    out = _free(out)
    cfg = _run_config(run)
    try:
        cfg = replace(cfg, **{k: v for k, v in settings.items() if v is not None})
    except ExpertConfigError as e:
        raise RefitError(str(e)) from e
    if cfg.epochs == 0:
        raise RefitError(
            "epochs=0 would fit nothing (the run only collected samples); give the passes to "
            "make, e.g. --epochs 4 (1 to 1000)"
        )
    return out, cfg


def refit(
    run: Path,
    iterations: list[int],
    out: Path,
    target: str = "visits",
    **settings: Any,
) -> dict[str, float]:
    """Fit the run's start network on its samples of `iterations` and write the checkpoint
    `out`; `settings` override the run's `learning_rate`, `epochs`, `batch_size`,
    `anchor_coef`, `vf_coef` and `seed`. Returns the fit's losses (`learn.fit`)."""
    import torch

    from training.allseat import make_optimizer
    from training.allseat.loop import save_checkpoint

    from .loop import _critic_scale, _from_start, _start_network

    out, cfg = _fit_settings(run, out, target, settings)
    tcfg = _start(cfg, run)
    data = load_samples(run, iterations, cfg.rules)
    if target == "best":
        data = best_move_targets(data)
    if cfg.torch_threads:
        torch.set_num_threads(cfg.torch_threads)
    model = _from_start(cfg, tcfg)
    opt = make_optimizer(model, tcfg)
    anchor = _start_network(cfg, tcfg) if cfg.anchor_coef > 0 else None
    rng = np.random.default_rng(cfg.seed)
    losses = fit(
        model,
        opt,
        data,
        cfg.epochs,
        cfg.batch_size,
        cfg.vf_coef,
        rng,
        anchor,
        cfg.anchor_coef,
        game=cfg.rules,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    extra = {
        "trainer": "expert_refit",
        "samples": {"run": str(run), "iterations": list(iterations), "count": len(data["n"])},
        "target": target,
        "expert": cfg.to_dict(),
    }
    save_checkpoint(model, opt, out, _critic_scale(tcfg, cfg, 1), 0, extra)
    return losses
