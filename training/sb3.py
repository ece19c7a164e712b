"""The single-seat trainer (`mode = "single_seat"`): sb3-contrib MaskablePPO on the self-play
env (`training.selfplay_env`: the single-seat env of the run's game, `TrainConfig.game`), one
learner seat per game, opponents from the pool.

SB3 owns the training loop (`model.learn`), so the run loop's hooks (`training.runloop`) are
called from an SB3 callback (`SelfPlayCallback`): the start of training, the end of every
rollout (after which PPO updates) and the end. The callback also keeps the env workers' pool in
step with the learner (the latest weights at each rollout start, the snapshots when they
change), records the head-to-head results for PFSP, and logs `rollout/invalid_action_rate`,
`time/sps`, `time/opponent_share`, `selfplay/pool_size` and `selfplay/snapshots` beside SB3's
own scalars. Checkpoints are `step_N.zip` (the SB3 model, what `--resume` reads) with
`step_N.npz` (the policy's arrays) and the sidecar (`training.checkpoint`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import TensorBoardOutputFormat

from agents.policy import NumpyPolicy
from gamecore import load_game

from .bc import warm_start
from .checkpoint import checkpoint_meta, save_checkpoint
from .config import TrainConfig
from .pool import PoolRegistry
from .progress import TrainProgress
from .rundir import TrainError
from .runloop import RunLoop, run
from .seeds import vec_env_seed

__all__ = ["SB3Trainer", "SelfPlayCallback", "train_single_seat"]


def train_single_seat(
    cfg: TrainConfig,
    resume: bool = False,
    notify: Callable[[str], None] | None = None,
    force: bool = False,
) -> dict[str, Any]:
    """Run (or with `resume` continue) a single-seat run in `cfg.run_dir` through the run loop
    (`training.runloop.run`); returns state.json."""
    return run(cfg, SB3Trainer(cfg), resume, notify, force)


class SB3Trainer:
    """MaskablePPO's hooks of the run loop (`training.runloop.Trainer`)."""

    label = "training"
    checkpoint_suffix = ".zip"
    suffix = ".zip"
    uses_pool = True
    league_rng = None  # no exploiters in single-seat runs (TrainConfig refuses them)

    def __init__(self, cfg: TrainConfig) -> None:
        self.cfg = cfg
        self.game = load_game(cfg.game)
        self.run_dir = Path(cfg.run_dir)
        self.model: Any = None
        self.vec: Any = None
        self.resumed = False

    def settings(self) -> dict[str, Any]:
        return {}

    def build(self, loop: RunLoop, checkpoint: Path | None) -> None:
        import torch
        from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

        from .selfplay_env import make_env_fn

        cfg = self.cfg
        torch.set_num_threads(1)
        fns = [make_env_fn(cfg, i) for i in range(cfg.n_envs)]
        subproc = cfg.vec_env == "subproc" and cfg.n_envs > 1
        vec = SubprocVecEnv(fns) if subproc else DummyVecEnv(fns)
        self.vec = VecMonitor(vec)  # episode returns and lengths for SB3's rollout/ep_* scalars
        self.vec.seed(vec_env_seed(cfg.seed, loop.step))
        self.resumed = checkpoint is not None
        self.model = self._load(checkpoint) if checkpoint is not None else self._new_model()

    def _load(self, checkpoint: Path) -> Any:
        from sb3_contrib import MaskablePPO

        try:
            return MaskablePPO.load(
                str(checkpoint), env=self.vec, device="cpu", tensorboard_log=str(self._tb())
            )
        except Exception as e:  # noqa: BLE001 - an unreadable model file, reported once
            raise TrainError(
                f"cannot resume {self.run_dir}: the model {checkpoint} cannot be loaded "
                f"({type(e).__name__}: {e})"
            ) from None

    def _new_model(self) -> Any:
        import torch
        from sb3_contrib import MaskablePPO

        cfg = self.cfg
        act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[cfg.activation]
        return MaskablePPO(
            "MlpPolicy",
            self.vec,
            learning_rate=cfg.learning_rate,
            n_steps=cfg.n_steps,
            batch_size=cfg.batch_size,
            n_epochs=cfg.n_epochs,
            gamma=cfg.gamma,
            gae_lambda=cfg.gae_lambda,
            clip_range=cfg.clip_range,
            ent_coef=cfg.ent_coef,
            vf_coef=cfg.vf_coef,
            policy_kwargs={
                "net_arch": {"pi": list(cfg.net_arch), "vf": list(cfg.net_arch)},
                "activation_fn": act,
            },
            tensorboard_log=str(self._tb()),
            seed=cfg.seed,
            device="cpu",
            verbose=0,
        )

    def _tb(self) -> Path:
        return self.run_dir / "tb"

    def warm_start(self, progress: TrainProgress) -> dict[str, Any]:
        return warm_start(self.model, self.cfg, progress)

    def train(self, loop: RunLoop) -> int:
        remaining = self.cfg.total_steps - self.model.num_timesteps
        if remaining > 0:
            self.model.learn(
                total_timesteps=remaining,
                callback=SelfPlayCallback(self, loop),
                reset_num_timesteps=not self.resumed,
                tb_log_name="PPO",
            )
        return int(self.model.num_timesteps)

    def save(self, path: Path, step: int, kind: str) -> None:
        """The SB3 model (`.zip`), the policy's arrays for the run's game (`.npz`) and the
        sidecar, as one unit (`training.checkpoint`)."""
        cfg, model = self.cfg, self.model
        npz = NumpyPolicy.from_sb3(model, self.game)
        meta = checkpoint_meta(step, cfg.seed, cfg.to_dict(), kind=kind)
        writers = {".zip": lambda tmp: model.save(str(tmp)), ".npz": npz.write_npz}
        save_checkpoint(path, meta, writers)

    def set_pool(self, registry: PoolRegistry) -> None:
        self.vec.env_method(
            "set_snapshots",
            {s.id: str(self.run_dir / s.path) for s in registry.active()},
            registry.weights(self.cfg.pfsp),
        )

    def push_latest(self) -> None:
        """The learner's current weights into every env worker (the pool's `latest`)."""
        self.vec.env_method("set_latest", NumpyPolicy.from_sb3(self.model, self.game).state())

    def finish(self, loop: RunLoop) -> None:
        pass

    def close(self) -> None:
        if self.vec is not None:
            self.vec.close()


class SelfPlayCallback(BaseCallback):
    """SB3's callback: the run loop's hooks at SB3's moments, the pool sync and the rollout's
    own scalars."""

    def __init__(self, trainer: SB3Trainer, loop: RunLoop) -> None:
        super().__init__()
        self.trainer = trainer
        self.loop = loop
        self.steps = 0
        self.invalid = 0
        self.opp_seconds = 0.0
        self.t_rollout = time.perf_counter()

    def _on_training_start(self) -> None:
        self.trainer.push_latest()
        writer = None
        for fmt in self.logger.output_formats:
            if isinstance(fmt, TensorBoardOutputFormat):
                writer = fmt.writer
        self.loop.begin(self.num_timesteps, writer)

    def _on_training_end(self) -> None:
        self.loop.end(self.num_timesteps)

    def _on_rollout_start(self) -> None:
        self.trainer.push_latest()
        self.t_rollout = time.perf_counter()

    def _on_step(self) -> bool:
        for info, done in zip(self.locals["infos"], self.locals["dones"], strict=True):
            self.steps += 1
            self.opp_seconds += info.get("opponent_seconds", 0.0)
            if "illegal_action" in info:
                self.invalid += 1
            if done:
                for pid in info.get("pool_ids", ()):
                    self.loop.registry.record(pid, info.get("learner_score", 0.0))
        return True

    def _on_rollout_end(self) -> None:
        registry, cfg = self.loop.registry, self.trainer.cfg
        dt = max(time.perf_counter() - self.t_rollout, 1e-9)
        n_envs = self.training_env.num_envs
        self.logger.record("rollout/invalid_action_rate", self.invalid / max(1, self.steps))
        self.logger.record("time/sps", self.steps / dt)
        # env time summed over workers: n_envs * wall time of the rollout
        self.logger.record("time/opponent_share", self.opp_seconds / (n_envs * dt))
        self.logger.record("selfplay/pool_size", len(registry.active()) + len(cfg.bots) + 1)
        self.logger.record("selfplay/snapshots", len(registry.snapshots))
        state = self.loop.state
        state["invalid_actions"] = state.get("invalid_actions", 0) + self.invalid
        self.steps = self.invalid = 0
        self.opp_seconds = 0.0
        step = self.num_timesteps
        # a snapshot is a milestone when it passed a multiple of milestone_every since the
        # snapshot before it, snapshot_every steps back
        self.loop.after_update(step, step - cfg.snapshot_every)
