"""The all-seat trainer in the shared run loop (`mode = "all_seat"`): collect a rollout, run the
masked PPO update, log it; the schedule, evaluation, `best.*`, checkpoints, exploiters and
resume are `training.runloop`'s, as for every trainer.

A checkpoint is `step_N.npz` (the actor as dense arrays, what `ppo:PATH` plays) with its JSON
sidecar `step_N.json` and `step_N.pt` (actor, critic and optimiser state, what `--resume`
needs), saved, verified and promoted to `best.*` as one unit by `training.checkpoint`.
A fresh run may start from a policy (`init_policy`: a `.npz` or the run directory of an
earlier run) or imitate a bot first (`bc_teacher`, `training.bc`). The game is the config's
(`TrainConfig.game`): its checkpoints, snapshots and start policy are policies of that game,
and their sidecars say which (`training.checkpoint.checkpoint_meta`).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agents.policy import CheckpointError, NumpyPolicy, load_policy
from gamecore import DEFAULT_GAME, load_game

from .. import checkpoint as ckpt_io
from ..bc import warm_start
from ..config import TrainConfig
from ..pool import PoolRegistry
from ..progress import TrainProgress
from ..rundir import TrainError, load_state
from ..runloop import League, RunLoop, run
from ..seeds import rollout_seed, update_seed
from . import draws
from .batch import sparse_batch
from .network import build_model
from .ppo import flatten, make_optimizer, ppo_update
from .rollout import Rollout

__all__ = [
    "AllSeatTrainer",
    "init_policy_path",
    "kickstart_weight",
    "save_checkpoint",
    "train_all_seat",
]


def train_all_seat(
    cfg: TrainConfig,
    resume: bool = False,
    notify: Callable[[str], None] | None = None,
    force: bool = False,
    league: League | None = None,
) -> dict[str, Any]:
    """Run (or with `resume` continue) an all-seat run in `cfg.run_dir` through the run loop
    (`training.runloop.run`); returns state.json."""
    return run(cfg, AllSeatTrainer(cfg), resume, notify, force, league)


def _game(cfg: TrainConfig) -> dict[str, Any]:
    """The ``game=`` argument of a policy load for `cfg`'s game: none for Last Will (the call
    the trainer always made), the game otherwise."""
    return {} if cfg.game == DEFAULT_GAME else {"game": load_game(cfg.game)}


def save_checkpoint(model, optimizer, path: Path, cfg: TrainConfig, step: int, extra=None):
    """`path` (.npz) + `.pt` learner state + `.json` sidecar, as one unit
    (`training.checkpoint.save_checkpoint`: the sidecar with the digests is written last)."""
    import torch

    path = path.with_suffix(".npz")
    actor = model.actor_numpy(critic=True)  # the critic too: the viewer's value estimate
    learner = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step}
    meta = ckpt_io.checkpoint_meta(
        step, cfg.seed, cfg.to_dict(), learner="all_seat", **(extra or {})
    )
    ckpt_io.save_checkpoint(
        path, meta, {".npz": actor.write_npz, ".pt": lambda tmp: _torch_save(torch, learner, tmp)}
    )
    return path


def _interned(obj: Any) -> Any:
    """`obj` with every string key of its dicts interned. A loaded optimizer state's keys are
    then the very objects a fresh optimizer uses, so that `torch.save` (a pickle, which writes
    a string once per object) gives a resumed run's learner state the same bytes."""
    if isinstance(obj, dict):
        return {sys.intern(k) if isinstance(k, str) else k: _interned(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_interned(v) for v in obj]
    return obj


def _torch_save(torch, obj: Any, tmp: Path) -> None:
    """`torch.save` through an open file: the archive inside is then named `archive`, not
    after the temporary file, so the same state gives the same bytes."""
    with open(tmp, "wb") as f:
        torch.save(obj, f)


def kickstart_weight(cfg: TrainConfig, step: int) -> float:
    """The kickstarting weight at `step`: `kickstart_coef`, decaying linearly to 0 at
    `kickstart_steps` (constant when that is 0); 0 without a teacher."""
    if not cfg.kickstart_teacher or cfg.kickstart_coef <= 0:
        return 0.0
    if cfg.kickstart_steps <= 0:
        return float(cfg.kickstart_coef)
    return float(cfg.kickstart_coef) * max(0.0, 1.0 - step / cfg.kickstart_steps)


def init_policy_path(path: str) -> Path:
    """The `.npz` that `init_policy` names: the file itself, or for a run directory (one with a
    `state.json`) that run's last checkpoint, so a second stage can start where a first ended
    without knowing its final step."""
    p = Path(path)
    if not p.is_dir():
        return p
    try:
        state = load_state(p)
    except TrainError as e:
        raise CheckpointError(
            f"{p} is a directory but not a run to start from ({e}); name a .npz policy or "
            "the run directory of a `lastwill train` run"
        ) from None
    ckpt = state.get("checkpoint")
    if not ckpt:
        raise CheckpointError(f"the run {p} has no checkpoint yet (state.json names none)")
    return p / ckpt


class AllSeatTrainer:
    """The all-seat learner's hooks of the run loop (`training.runloop.Trainer`)."""

    label = "training (all seats)"
    checkpoint_suffix = ".npz"
    suffix = ".pt"
    uses_pool = True

    def __init__(self, cfg: TrainConfig) -> None:
        self.cfg = cfg
        self.model: Any = None
        self.optimizer: Any = None
        self.rollout: Rollout | None = None
        self.writer: Any = None
        self.run_dir = Path(cfg.run_dir)
        self.update_rng: np.random.Generator | None = None  # the update's minibatches
        self._kept_weights: dict[str, float] | None = None  # a resumed run's pool weights

    @property
    def league_rng(self) -> Any:
        """The rollout's random source: it also draws an exploiter's player count."""
        return self.rollout.rng if self.rollout is not None else None

    def settings(self) -> dict[str, Any]:
        return {}

    # -- the learner ------------------------------------------------------------------------
    def build(self, loop: RunLoop, checkpoint: Path | None) -> None:
        import torch

        cfg = self.cfg
        torch.set_num_threads(cfg.torch_threads or os.cpu_count() or 1)
        torch.set_flush_denormal(True)
        self.model = build_model(cfg, cfg.seed)
        self.optimizer = make_optimizer(self.model, cfg)
        if checkpoint is not None:
            self._load(checkpoint)
        elif cfg.init_policy:
            self._start_from(cfg.init_policy, loop.state)

    def _load(self, checkpoint: Path) -> None:
        import torch

        try:
            saved = torch.load(checkpoint, weights_only=False)
            self.model.load_state_dict(saved["model"])
            self.optimizer.load_state_dict(_interned(saved["optimizer"]))
        except Exception as e:  # noqa: BLE001 - an unreadable learner state, reported once
            raise TrainError(
                f"cannot resume {self.run_dir}: the learner state {checkpoint} cannot be loaded "
                f"({type(e).__name__}: {e})"
            ) from None

    def _start_from(self, init_policy: str, state: dict[str, Any]) -> None:
        cfg = self.cfg
        try:
            start = init_policy_path(init_policy)
            self.model.load_actor_numpy(
                load_policy(start, **_game(cfg))[0],
                new_prior=cfg.init_new_prior,
                critic=cfg.init_critic,
            )
        except (CheckpointError, ValueError) as e:
            raise TrainError(f"init_policy {init_policy}: {e}") from None
        state["init_policy"] = init_policy
        state["init_checkpoint"] = str(start)

    def warm_start(self, progress: TrainProgress) -> dict[str, Any]:
        from types import SimpleNamespace

        return warm_start(SimpleNamespace(policy=BCView(self.model)), self.cfg, progress)

    def save(self, path: Path, step: int, kind: str) -> None:
        save_checkpoint(self.model, self.optimizer, path, self.cfg, step, {"kind": kind})

    def set_pool(self, registry: PoolRegistry) -> None:
        assert self.rollout is not None
        pols = {}
        game = _game(self.cfg)
        for s in registry.active():
            pols[s.id] = self.rollout.snapshots.get(s.id) or NumpyPolicy.load_npz(
                (self.run_dir / s.path).with_suffix(".npz"), **game
            )
        weights, kept = registry.weights(self.cfg.pfsp), self._kept_weights
        if kept is not None and set(kept) == set(pols):  # as the stopped run last set them
            weights = kept
        self._kept_weights = None
        self.rollout.set_snapshots(pols, weights)

    def random_state(self) -> dict[str, Any] | None:
        """What an exact resume restores besides the learner (`training.allseat.draws`);
        None before training starts."""
        if self.rollout is None or self.update_rng is None:
            return None
        return draws.capture(self.rollout, self.update_rng)

    def _restore(self, loop: RunLoop) -> None:
        """A resumed run's random state, when its state.json holds one (a run saved before
        it was kept goes on from generators seeded by the step)."""
        saved = loop.state.get(draws.KEY) if loop.resumed else None
        if saved is None:
            return
        assert self.rollout is not None and self.update_rng is not None
        try:
            self._kept_weights = draws.restore(saved, self.rollout, self.update_rng)
        except ValueError as e:
            raise TrainError(
                f"cannot resume {self.run_dir}: {self.run_dir / 'state.json'}: {e}; the file "
                "is damaged"
            ) from None

    def finish(self, loop: RunLoop) -> None:
        pass

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()

    # -- training ---------------------------------------------------------------------------
    def train(self, loop: RunLoop) -> int:
        from torch.utils.tensorboard import SummaryWriter

        cfg = self.cfg
        step = loop.step
        self.rollout = Rollout(cfg, seed=rollout_seed(cfg.seed, step))
        self.update_rng = rng = np.random.default_rng(update_seed(cfg.seed, step))
        self._restore(loop)
        self.writer = SummaryWriter(str(self.run_dir / "tb" / "PPO_1"))
        loop.begin(step, self.writer)
        while step < cfg.total_steps:
            n, log = self._iteration(loop, step, rng)
            for k, v in log.items():
                self.writer.add_scalar(k, v, step + n)
            step += n
            loop.after_update(step, step - n)
            self.writer.flush()
        loop.end(step)
        return step

    def _iteration(
        self, loop: RunLoop, step: int, rng: np.random.Generator
    ) -> tuple[int, dict[str, float]]:
        """One rollout and PPO update from `step`: the samples it learned from and its
        TensorBoard scalars."""
        cfg, rollout, state = self.cfg, self.rollout, loop.state
        assert rollout is not None
        t0 = time.perf_counter()
        rollout.stats["bot_seconds"] = 0.0
        kick = kickstart_weight(cfg, step)
        rollout.teaching = kick > 0
        trajs, games = rollout.collect(self.model, cfg.n_steps * cfg.n_envs)
        t1 = time.perf_counter()
        if not trajs:
            raise TrainError("a rollout produced no learner samples")
        buf = flatten(trajs)
        n = len(buf["actions"])
        self.model.train()
        warm = state.get("critic_warmup_done", 0) < cfg.critic_warmup
        upd = ppo_update(self.model, self.optimizer, buf, cfg, rng, policy=not warm, kickstart=kick)
        if warm:
            state["critic_warmup_done"] = state.get("critic_warmup_done", 0) + 1
        self.model.eval()
        t2 = time.perf_counter()
        for g in games:
            for sid, score in g["vs"]:
                loop.registry.record(sid, score)
        invalid = int((~buf["masks"][np.arange(n), buf["actions"]]).sum())
        state["invalid_actions"] = state.get("invalid_actions", 0) + invalid
        log = {
            "rollout/ep_rew_mean": float(np.mean([t["final"] for t in trajs])),
            "rollout/learner_win_rate": float(np.mean([g["learner_won"] for g in games])),
            "rollout/games": float(len(games)),
            "rollout/invalid_action_rate": invalid / n,
            "time/sps": n / max(t1 - t0, 1e-9),
            "time/update_sps": n / max(t2 - t1, 1e-9),
            "time/fps": n / max(t2 - t0, 1e-9),
            "time/opponent_share": rollout.stats["bot_seconds"] / max(t1 - t0, 1e-9),
            "selfplay/pool_size": float(len(loop.registry.active()) + len(cfg.bots) + 1),
            "selfplay/snapshots": float(len(loop.registry.snapshots)),
            **{f"train/{k}": v for k, v in upd.items()},
        }
        if cfg.kickstart_teacher:
            log["train/kickstart_coef"] = kick
            asked = buf["teacher"] >= 0
            if asked.any():  # how often the sampled action was the teacher's choice
                agree = buf["teacher"][asked] == buf["actions"][asked]
                log["rollout/teacher_agreement"] = float(agree.mean())
        return n, log


class BCView:
    """What `training.bc.pretrain` needs of a policy, over the all-seat network."""

    def __init__(self, model) -> None:
        self.model = model

    def parameters(self):
        return self.model.parameters()

    def _batch(self, obs):
        x = obs.numpy()
        rows = []
        for r in x:
            i = np.flatnonzero(r)
            rows.append((i, r[i]))
        return sparse_batch(rows)

    def evaluate_actions(self, obs, actions, action_masks):
        return self.model.evaluate(*self._batch(obs), action_masks, actions)

    def get_distribution(self, obs, action_masks):
        import torch

        logits, _ = self.model(*self._batch(obs), action_masks)
        return _Categorical(torch.distributions.Categorical(logits=logits))


class _Categorical:
    """SB3's distribution wrapper, as far as `training.bc.accuracy` reads it."""

    def __init__(self, distribution) -> None:
        self.distribution = distribution

    def log_prob(self, a):
        return self.distribution.log_prob(a)
