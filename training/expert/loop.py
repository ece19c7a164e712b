"""Expert iteration's run: search self-play, learn the search, repeat with the improved network.

The game is the settings' `game` (`ExpertConfig.game`, Last Will by default): the start policy,
every checkpoint and every samples file are that game's, and a file of another is refused.

Iteration k (1, 2, ...):

1. Self-play: `games` games (player counts drawn from `num_players` / `player_weights`) in which
   every seat plays the search player (`agents.mcts`, `sims` simulations per decision) over the
   network of iteration k-1 (iteration 1 searches over `init_policy` itself, with its own
   sidecar's reward settings). Every fully searched decision is a sample
   (`training.expert.selfplay`; with `full_share` < 1, or `full_below` < 1 where the network
   is sure of its move, the others get cheap searches of `fast_sims` that are not kept), saved
   to `samples/iter_k.npz`.
2. Update: the network learns the visit distributions and the final results of the last
   `buffer` iterations' samples (`training.expert.learn`), `epochs` passes.
3. The network is saved as `checkpoints/iter_k` (`.npz` policy with its critic, `.pt` learner
   state, `.json` sidecar: the same checkpoint format as the all-seat trainer's, so `ppo:` and
   `mcts:policy=` play it). Its sidecar's training config says `reward = "zero_sum"` and
   `shaping = 0`: the critic now predicts the final result, which
   `agents.winchance.win_chance` turns into a chance of winning. (`checkpoints/iter_0`, the
   start network itself, and every checkpoint of a run with `vf_coef = 0`, whose critic never
   learns, keep the start policy's own `reward` and `shaping`.)
4. Every `eval_every` iterations (0: none but these), and at the start and the end, the
   network alone (arg-max, no search) plays the panel `eval_bots` at `eval_num_players` on
   validation deals (`training.evaluation.evaluate`); the best score so far is copied to
   `best.*`.

The run goes through the run loop every trainer shares (`training.runloop`), as the trainer
`training.expert.trainer.ExpertTrainer`: an iteration is a step of it, so its start, its lock,
`--resume` and `--force`, the evaluation, the one rule of `best.*`, the checkpoints and
`state.json` are the other trainers' own. Its files keep their names (`checkpoints/iter_K.*`,
`eval/iter_K.jsonl`, `samples/iter_K.npz`), and its state keeps `iteration` (the last finished
one) and `history` (one row per iteration) beside the run loop's entries. A state written
before expert iteration ran in the run loop (`iteration`, `config`, `best`, `history` alone) is
rewritten in the run loop's form when the run is resumed (`upgrade_state`).

With `epochs = 0` the run only collects: the network never learns, every iteration's search
runs over the start network itself, no checkpoint but `iter_0` is written and only the start
is evaluated, so the samples of any number of iterations come from one teacher and can be
pooled by `lastwill expert-fit` (`training.expert.refit`), for example to see whether more of
them carry the search's gain.

`state.json` records the last finished iteration; `--resume` continues after it (an iteration
interrupted part-way is played again from its own seeds, so it gives the same samples). Before
anything is written, the start policy and, on `--resume`, the state, the settings (only
`iterations` and `progress` may change) and the samples the next update reads are checked;
every samples file is checked when it is read (`training.expert.samplefile`), and the run
directory, the state and the learner state by the run loop.
TensorBoard (`tb/`): the losses before and after each update, the search's disagreement with
the network, the entropy of its targets, self-play speed, and the panel's win rates.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agents.deals import derive_seed, training_seed
from agents.readfile import read_json
from agents.safeio import write_with
from gamecore import DEFAULT_GAME
from gamecore.plain import is_int

from ..rundir import STATE, TrainError
from ..seating import draw_player_count
from .config import ExpertConfig, ExpertConfigError
from .learn import fit
from .samplefile import SampleFileError, game_entry
from .selfplay import pack, play, read_samples


class ExpertError(TrainError):
    """A run directory that cannot be started or resumed as asked (a `TrainError`, as the run
    loop's own refusals are)."""


# -- the run's state -------------------------------------------------------------------------


# entry of state.json: (test, what is allowed)
_STATE_ENTRIES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "iteration": (
        lambda v: is_int(v) and v >= 0,
        "a non-negative integer (the last finished iteration)",
    ),
    "config": (lambda v: isinstance(v, dict), "the run's settings (a JSON object)"),
    "history": (lambda v: isinstance(v, list), "a list of the iterations' rows"),
    "best": (lambda v: v is None or isinstance(v, dict), "null or the best evaluation"),
}


def read_state(run: Path) -> dict[str, Any]:
    """The expert-iteration entries of `run`'s state.json, checked (the run loop checks its
    own when it resumes the run); a state of before the run loop reads the same."""
    path = run / STATE
    if not path.is_file():
        raise ExpertError(f"--resume: {run} holds no expert-iteration run (no state.json)")
    st = read_json(path, "the run's state", error=ExpertError)
    if not isinstance(st, dict) or not isinstance(st.get("iteration"), int):
        raise ExpertError(f"{path} is not an expert-iteration state (no iteration number)")
    for name, (test, allowed) in _STATE_ENTRIES.items():
        if name not in st:
            raise ExpertError(f"{path} has no {name!r} entry; the run's state is damaged")
        if not test(st[name]):
            raise ExpertError(f"{path}: {name}={st[name]!r} is not allowed; use {allowed}")
    return st


def upgrade_state(run: Path, st: dict[str, Any], cfg: ExpertConfig) -> dict[str, Any]:
    """A state written before expert iteration ran in the run loop (`iteration`, `config`,
    `best`, `history`) in the run loop's form, the same run: its step is its iteration, its
    checkpoint the learner's (`iter_0` in a collecting run), its schedule what comes next, its
    best with a step and a mean win rate (from its iteration's row, else its score over the
    first evaluated count, which it equals at one count), its evaluations those its rows
    record (and the start's)."""
    it = int(st["iteration"])
    ckpt = f"checkpoints/iter_{0 if _collecting(cfg) else it}.npz"
    every = cfg.eval_every
    rows = {r.get("iteration"): r for r in st["history"] if isinstance(r, dict)}
    first = f"eval/win_rate/{cfg.eval_counts()[0]}p"
    evals: list[dict[str, Any]] = [{"step": 0}]
    for k, row in sorted((k, r) for k, r in rows.items() if is_int(k) and "eval/score" in r):
        evals.append({"step": k, "score": row["eval/score"], "mean_win_rate": row.get(first)})
    best = st["best"]
    if best is not None:
        row = rows.get(best.get("iteration"), {})
        mean = row.get(first, float(best["score"]) / cfg.eval_counts()[0])
        best = {"step": best.get("iteration", 0), "mean_win_rate": mean, **best}
    return {
        "game": st["config"].get("game", DEFAULT_GAME),
        "step": it,
        "checkpoint": ckpt if (run / ckpt).with_suffix(".json").is_file() else None,
        "config": st["config"],
        "next_snapshot": it + 1,
        "next_eval": (it // every + 1) * every if every else 0,
        "next_checkpoint": it + 1,
        "best": best,
        "evals": evals,
        "mode": ExpertConfig.mode,
        "iteration": it,
        "history": st["history"],
    }


# settings a resumed run may change: its length, its progress lines, where it is (a moved run)
_RESUME_MAY_CHANGE = ("iterations", "progress", "run_dir")


def _check_settings(st: dict[str, Any], cfg: ExpertConfig) -> None:
    """A resumed run keeps its settings but the number of iterations (a setting added since
    the run began is read at its default, which plays as before)."""
    saved = {
        k: v
        for k, v in {**ExpertConfig().to_dict(), **st.get("config", {})}.items()
        if k not in _RESUME_MAY_CHANGE
    }
    now = {k: v for k, v in cfg.to_dict().items() if k not in _RESUME_MAY_CHANGE}
    diff = sorted(k for k in set(saved) | set(now) if saved.get(k) != now.get(k))
    if diff:
        raise ExpertError(f"--resume: settings differ from the run's in {diff}; use the run's own")


def _check_start(run: Path, cfg: ExpertConfig, resume: bool) -> dict[str, Any] | None:
    """Refuse, before anything is written, a start policy the search cannot use and, on
    `resume`, a damaged state, other settings than the run's and damaged samples of the next
    update; the state of the run resumed (the run loop checks the directory)."""
    st = None
    if resume:
        st = read_state(run)
        _check_settings(st, cfg)
        _check_buffer(run, cfg, st["iteration"] + 1)
    start_policy(cfg)
    return st


def start_policy(cfg: ExpertConfig):
    """(the start policy, the network settings that fit it); an `ExpertConfigError` naming
    `init_policy` when the search cannot use it."""
    from agents.policy import CheckpointError, load_policy
    from training.config import TrainConfigError

    where = f"init_policy={cfg.init_policy!r}"
    try:
        pol, _ = load_policy(cfg.init_policy, need_value=True, game=cfg.rules)
    except CheckpointError as e:
        raise ExpertConfigError(f"{where} cannot be read: {e}") from None
    if not pol.has_value:
        raise ExpertConfigError(f"{where} has no critic; the search needs one")
    try:
        return pol, _train_config(cfg, pol)
    except TrainConfigError as e:
        raise ExpertConfigError(f"{where}: its network cannot be trained here ({e})") from None


def _check_buffer(run: Path, cfg: ExpertConfig, it: int) -> None:
    """The samples that the update of iteration `it` reads besides its own are sound."""
    if it <= cfg.iterations and not _collecting(cfg):
        first = max(1, it - cfg.buffer + 1)
        _read([run / "samples" / f"iter_{k}.npz" for k in range(first, it)], cfg)


def _read(paths: list[Path], cfg: ExpertConfig) -> dict[str, np.ndarray]:
    try:
        return read_samples(paths, cfg.rules)
    except SampleFileError as e:
        raise ExpertError(str(e)) from None


# -- the network -----------------------------------------------------------------------------


def _train_config(cfg: ExpertConfig, pol) -> Any:
    """The all-seat network settings that fit the start policy (and the sidecar's config)."""
    from training.config import TrainConfig

    arch = [int(w.shape[0]) for w in pol.weights[:-1]]
    return TrainConfig(
        mode="all_seat",
        game=cfg.game,
        run_dir=cfg.run_dir,
        seed=cfg.seed,
        net_arch=arch,
        activation=pol.activation,
        prior=pol.prior,
        prior_weight=float(pol.prior_weight),
        reward="zero_sum",
        shaping=0.0,
        learning_rate=float(cfg.learning_rate),
        batch_size=cfg.batch_size,
        n_epochs=max(1, cfg.epochs),  # a collecting run (epochs = 0) saves only the start
        num_players=list(cfg.num_players),
        player_weights=[float(w) for w in cfg.player_weights],
        eval_bots=list(cfg.eval_bots),
        eval_games=cfg.eval_games,
        eval_num_players=cfg.eval_counts(),
        torch_threads=cfg.torch_threads,
        progress=False,
        **_opponents(cfg),
    )


def _opponents(cfg: ExpertConfig) -> dict[str, Any]:
    """The trainer's opponents, which expert iteration never plays: Last Will's default (its
    sidecars as they were), the evaluation panel in another game (whose bots are its own)."""
    return {} if cfg.game == DEFAULT_GAME else {"bots": list(cfg.eval_bots)}


def _load_learner(path: Path, model, opt) -> None:
    """A resumed run's learner state, or an `ExpertError` naming the file."""
    import torch

    try:
        learner = torch.load(path, weights_only=True)
        model.load_state_dict(learner["model"])
        opt.load_state_dict(learner["optimizer"])
    except Exception as e:  # noqa: BLE001 - an unreadable learner state, reported once
        raise ExpertError(
            f"cannot resume: the learner state {path} cannot be loaded ({type(e).__name__}: {e})"
        ) from None


def _from_start(cfg: ExpertConfig, tcfg):
    """A network holding the start policy (its actor and critic)."""
    from agents.policy import load_policy
    from training.allseat import build_model

    pol, _ = load_policy(cfg.init_policy, need_value=True, game=cfg.rules)
    net = build_model(tcfg, cfg.seed)
    net.load_actor_numpy(pol, critic=True)
    return net


def _start_network(cfg: ExpertConfig, tcfg):
    """The start policy as a frozen network (the update's anchor)."""
    net = _from_start(cfg, tcfg)
    net.eval()
    for p in net.parameters():
        p.requires_grad_(False)
    return net


def _collecting(cfg: ExpertConfig) -> bool:
    """A run that only collects samples (`epochs = 0`, module docstring)."""
    return cfg.epochs == 0


def _ckpt(run: Path, it: int) -> Path:
    return run / "checkpoints" / f"iter_{it}.npz"


def _critic_scale(tcfg, cfg: ExpertConfig, it: int):
    """The training config a checkpoint's sidecar states. Its `reward` and `shaping` tell the
    search how to read the critic (`agents.leafeval`): the final result (`zero_sum`, no
    shaping) once the critic has learned the results, but the start policy's own while it has
    not, at iteration 0 (the start network itself) and in a run that never trains the critic
    (`vf_coef = 0`)."""
    if it > 0 and cfg.vf_coef > 0:
        return tcfg
    from dataclasses import replace

    from agents.policy import load_policy

    start = load_policy(cfg.init_policy, need_value=True, game=cfg.rules)[1].get("config") or {}
    return replace(
        tcfg,
        reward=str(start.get("reward", "zero_sum")),
        shaping=float(start.get("shaping", 0.0) or 0.0),
    )


def _save(path: Path, it: int, model, opt, tcfg, cfg: ExpertConfig) -> Path:
    """The network of iteration `it` as the checkpoint `path` (`checkpoints/iter_K.npz`)."""
    from training.allseat.loop import save_checkpoint

    tcfg = _critic_scale(tcfg, cfg, it)
    path.parent.mkdir(parents=True, exist_ok=True)
    extra = {"trainer": "expert_iteration", "iteration": it, "expert": cfg.to_dict()}
    return save_checkpoint(model, opt, path, tcfg, it, extra)


# -- one iteration ---------------------------------------------------------------------------


def _searcher_settings(cfg: ExpertConfig, run: Path, it: int) -> dict[str, Any]:
    path = cfg.init_policy if it == 1 or _collecting(cfg) else str(_ckpt(run, it - 1))
    return {
        "policy": path,
        "sims": cfg.sims,
        "c_puct": cfg.c_puct,
        "noise": cfg.noise,
        "alpha": cfg.alpha,
        "seed": cfg.seed,
        "game": cfg.game,  # by name: the settings travel to worker processes
    }


def _searcher(settings: dict[str, Any]):
    from agents.mcts import MCTSAgent
    from gamecore import load_game

    return MCTSAgent(**{**settings, "game": load_game(settings["game"])})


_WORKER: dict[str, Any] = {}  # a self-play worker process's searcher


def _init_worker(settings: dict[str, Any]) -> None:
    _WORKER["searcher"] = _searcher(settings)


def _play_batch(games: list[tuple]) -> list[Any]:
    """In a worker: the games (players, seed, explore, full share, fast sims, full below,
    policy target) with this process's searcher."""
    return [play(_WORKER["searcher"], *game) for game in games]


def _lost(game: tuple, why: str):
    raise ExpertError(f"self-play game (players {game[0]}, seed {game[1]}) failed: {why}")


def _play_all(cfg: ExpertConfig, settings: dict[str, Any], games: list[tuple]):
    """The records of `games` in their order. Each game reseeds the searcher from its own seed
    (`selfplay.play`), so its record does not depend on the process that played it: any number
    of workers gives the same samples."""
    if cfg.workers == 1 or len(games) < 2:
        searcher = _searcher(settings)
        return [play(searcher, *game) for game in games]
    from agents.workers import surviving_map

    out: list[Any] = [None] * len(games)
    for i, rec in surviving_map(
        _play_batch,
        games,
        min(cfg.workers, len(games)),
        1,
        _lost,
        initializer=_init_worker,
        initargs=(settings,),
    ):
        out[i] = rec
    return out


def self_play(
    cfg: ExpertConfig, run: Path, it: int
) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """Iteration `it`'s games as packed samples, and what they cost."""
    rng = random.Random(derive_seed(cfg.seed, "expert", it, "counts"))
    games = [
        (
            draw_player_count(rng, cfg),
            training_seed(cfg.seed, "expert", it, g),
            cfg.explore,
            cfg.full_share,
            cfg.fast_sims,
            cfg.full_below,
            cfg.policy_target,
        )
        for g in range(cfg.games)
    ]
    t0 = time.perf_counter()
    records = _play_all(cfg, _searcher_settings(cfg, run, it), games)
    samples = [s for rec in records for s in rec.samples]
    sims = sum(rec.sims for rec in records)
    fast = sum(rec.fast for rec in records)
    seconds = time.perf_counter() - t0
    data = pack(samples)
    return data, {
        "samples": len(samples),
        "fast_searches": fast,
        "games_per_s": cfg.games / seconds,
        "sims_per_s": sims / seconds,
        "seconds": seconds,
    }


def _save_samples(run: Path, it: int, data: dict[str, np.ndarray], cfg: ExpertConfig) -> None:
    def writer(tmp: Path) -> None:
        with open(tmp, "wb") as f:
            np.savez(f, **data, **game_entry(cfg.rules))

    write_with(run / "samples" / f"iter_{it}.npz", writer)


def _buffer(run: Path, it: int, cfg: ExpertConfig) -> dict[str, np.ndarray]:
    first = max(1, it - cfg.buffer + 1)
    return _read([run / "samples" / f"iter_{k}.npz" for k in range(first, it + 1)], cfg)


def _update(cfg: ExpertConfig, run: Path, it: int, model, opt, tcfg) -> dict[str, float]:
    """The network learns the last `buffer` iterations' samples; the losses."""
    rng = np.random.default_rng(derive_seed(cfg.seed, "expert", it, "update"))
    return fit(
        model,
        opt,
        _buffer(run, it, cfg),
        cfg.epochs,
        cfg.batch_size,
        cfg.vf_coef,
        rng,
        anchor=_start_network(cfg, tcfg) if cfg.anchor_coef > 0 else None,
        anchor_coef=cfg.anchor_coef,
        game=cfg.rules,
    )


def _line(row: dict[str, Any]) -> str:
    ev = ", ".join(f"{k[5:]} {v:.3f}" for k, v in row.items() if k.startswith("eval/"))
    learnt = (
        f"policy loss {row['policy_loss_before']:.3f} -> {row['policy_loss']:.3f}, value loss "
        f"{row['value_loss_before']:.3f} -> {row['value_loss']:.3f}, "
        if "policy_loss" in row
        else ""
    )
    return (
        f"iteration {row['iteration']}: {row['samples']} samples, {row['sims_per_s']:.0f} sims/s, "
        f"{learnt}search differs from the network at {row['disagreement']:.0%}"
        + (f"; {ev}" if ev else "")
    )
