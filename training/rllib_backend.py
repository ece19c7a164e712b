"""RLlib training backend: `lastwill train --mode rllib` (`--backend rllib` is its earlier,
deprecated spelling).

RLlib PPO (new API stack: RLModule, Learner, EnvRunners) on the turn-based `MultiAgentEnv` of
the run's game (`TrainConfig.game`): the game's own when it gives one (`Game.rllib_env_class`,
Last Will's `lastwill_env.rllib`), else the generic `gameenv.rllib.GameMultiAgentEnv` (its env
config names the game; a game registered in-process alone, not by an entry point, is known to
EnvRunner actors only with `env_runners = 0`). One shared policy (module id `shared`) plays
every seat and every player count, with action masking (`MaskedPPOTorchRLModule`: the logits
of illegal actions are pushed to the float minimum before sampling, in training and in the PPO
loss). Every seat is the learner: there is no opponent pool, so the pool settings of
`TrainConfig` do not apply.

Ray: a local instance by default (or the one `RAY_ADDRESS` names), a cluster with
`ray_address` (`ray start --head` on the head node prints the address). Sampling runs on
`env_runners` EnvRunner actors (0: in the driver), `envs_per_runner` envs each; the PPO update
runs in the driver.

Settings from `TrainConfig` that map onto RLlib PPO: `total_steps` (env steps sampled, i.e.
decisions of any seat), `n_steps * n_envs` (samples per iteration,
`train_batch_size_per_learner`), `batch_size` (minibatch), `n_epochs`, `learning_rate`,
`gamma`, `gae_lambda`, `clip_range`, `ent_coef`, `vf_coef`, `net_arch` and `activation` (the
MLP of the actor and of the critic, separate), `num_players`, `player_weights`, `reward`,
`seed`, and the evaluation and checkpoint settings. `bc_teacher` and `shaping` are refused.
Its `mode` is "rllib" (`rllib_config`: a configuration that says "single_seat", as one did
before `mode` chose RLlib, is read as "rllib").

The run goes through the lab's run loop (`training.runloop`), like the lab's trainers: the
refusal of a used run directory (`--force` replaces the run there), `--resume`, the schedule,
the evaluation against the panel, the rule of `best.*` and fsynced writes. Checkpoints are
exported to the lab's format (`training.rllib_export`): the actor (encoder layers + the linear
policy head) as `NAME.npz` with its `NAME.json` sidecar (`training.checkpoint`), so `ppo:PATH`,
the arena, the evaluation and the opponent pool play it unchanged; beside each, `NAME.rllib/`
is RLlib's own checkpoint of the Algorithm, which `--resume` restores (older ones are removed
as new ones are saved: the one state.json names and the newest are kept). Run directory:

    config.json, state.json      settings (with the RLlib ones), step, checkpoint, best, evals
    progress.jsonl               one line per iteration: env steps, samples/s overall
                                 (sps: sampling and PPO update) and while sampling
                                 (rollout_sps), episodes, mean episode length
    tb/RLlib_1/                  TensorBoard: time/fps overall, time/sps sampling, the
                                 learner's train/* and rollout/ep_rew_mean (`result_scalars`),
                                 and the lab trainer's evaluation scalars, layout and HParams
                                 (`training.tblog`: sub-runs vs_<bot>/ and chance/; evaluated
                                 at step 0, every eval_every steps and at the end)
    checkpoints/step_N.{npz,json}   exported policies (step_N.rllib/: RLlib's, for --resume)
    best.{npz,json}              best by evaluation score against the panel
    eval/step_N.jsonl            the evaluation games (arena rows)
    rllib/                       RLlib's own checkpoint of the last state (Algorithm)
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from agents.raystart import init_ray
from gamecore import load_game
from gamecore.plain import is_int

from . import checkpoint as ckpt_io
from .config import TrainConfig, TrainConfigError
from .pool import PoolRegistry
from .progress import TrainProgress
from .rllib_export import (  # the last two also from here, their earlier home
    MODULE_ID,
    export_policy,
    export_rllib_checkpoint,  # noqa: F401
    numpy_policy_from_state,  # noqa: F401
)
from .rundir import TrainError, load_state, resume_config
from .runloop import RunLoop, run, run_mode

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


class RLlibBackendError(RuntimeError):
    """A run the RLlib backend cannot start; the message says why and what to do."""


@dataclass
class RLlibSettings:
    """The settings only the RLlib backend has (TOML table `[rllib]`, or flags)."""

    env_runners: int = 1  # EnvRunner actors sampling in parallel (0: sample in the driver)
    envs_per_runner: int = 1  # envs stepped by each EnvRunner
    ray_address: str = ""  # "" : RAY_ADDRESS, else a local Ray; or host:port of a cluster
    num_cpus: int = 0  # local Ray only: logical CPUs (0: enough for the env runners)

    def __post_init__(self) -> None:
        for name in ("env_runners", "num_cpus"):
            v = getattr(self, name)
            if not is_int(v) or v < 0:
                raise TrainConfigError(f"{name}={v!r} is not allowed; use an integer >= 0")
        v = self.envs_per_runner
        if not is_int(v) or v < 1:
            raise TrainConfigError(f"envs_per_runner={v!r} is not allowed; use an integer >= 1")
        if not isinstance(self.ray_address, str):
            raise TrainConfigError(
                f"ray_address={self.ray_address!r} is not allowed; use host:port or ''"
            )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RLlibSettings:
        names = list(cls.__dataclass_fields__)
        unknown = sorted(set(data) - set(names))
        if unknown:
            raise TrainConfigError(
                f"unknown rllib setting(s) {unknown}; allowed: {', '.join(names)}"
            )
        return cls(**data)


def load_settings(
    path: str | Path | None, overrides: dict[str, Any], rllib_overrides: dict[str, Any]
) -> tuple[TrainConfig, RLlibSettings]:
    """Defaults, then the TOML file (`[train]` or top level, and `[rllib]`), then flags; the
    mode is "rllib"."""
    data: dict[str, Any] = {}
    rl: dict[str, Any] = {}
    if path is not None:
        p = Path(path)
        try:
            raw = tomllib.loads(p.read_text())
        except FileNotFoundError:
            raise TrainConfigError(f"config file {p} does not exist") from None
        except tomllib.TOMLDecodeError as e:
            raise TrainConfigError(f"config file {p} is not valid TOML: {e}") from None
        rl.update(raw.pop("rllib", {}))
        data.update(raw.get("train", raw))
    data.update({k: v for k, v in overrides.items() if v is not None})
    rl.update({k: v for k, v in rllib_overrides.items() if v is not None})
    cfg = TrainConfig.from_dict({**data, "mode": "rllib"})  # this trainer, whatever the file says
    settings = RLlibSettings.from_dict(rl)
    check_supported(cfg)
    return cfg, settings


def rllib_config(cfg: TrainConfig) -> TrainConfig:
    """`cfg` as the RLlib trainer's (`mode` "rllib"); one that says "single_seat" (the default
    before `mode` chose RLlib, as older RLlib runs recorded it) is read as "rllib", another
    mode is refused."""
    if cfg.mode == "rllib":
        return cfg
    if cfg.mode != "single_seat":
        raise TrainConfigError(
            f'mode={cfg.mode!r} is another trainer; RLlib PPO is mode = "rllib" (one shared '
            f"policy over all seats)"
        )
    return replace(cfg, mode="rllib")


def check_supported(cfg: TrainConfig) -> None:
    if cfg.mode != "rllib":
        raise TrainConfigError(f'mode={cfg.mode!r} is not the RLlib trainer; use mode = "rllib"')
    if cfg.bc_teacher:
        raise TrainConfigError(
            f"bc_teacher={cfg.bc_teacher!r} is not supported by the rllib backend; "
            f"set it to '' or train with the lab's trainer (--mode all_seat)"
        )
    if cfg.shaping:
        raise TrainConfigError(
            f"shaping={cfg.shaping!r} is not supported by the rllib backend; "
            f"set it to 0 or train with the lab's trainer (--mode all_seat)"
        )
    if (cfg.n_steps * cfg.n_envs) < cfg.batch_size:
        raise TrainConfigError(
            f"batch_size={cfg.batch_size} exceeds the samples per iteration "
            f"n_steps*n_envs={cfg.n_steps * cfg.n_envs}"
        )


# ---------------------------------------------------------------------------------------------
# Training


def _init_ray(settings: RLlibSettings) -> bool:
    """Connect to (or start) Ray, usage telemetry off unless the user set
    `RAY_USAGE_STATS_ENABLED` (`agents.raystart`); True when this call started it (and must
    shut it down)."""
    try:
        import ray
    except ImportError as e:
        raise RLlibBackendError(
            "--mode rllib needs Ray with RLlib, which is not installed: pip install -e '.[ray]'"
        ) from e
    if ray.is_initialized():
        return False
    address = settings.ray_address or os.environ.get("RAY_ADDRESS") or None
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
    if address is None:
        # a local Ray: logical CPUs enough for the driver plus every env runner
        kwargs["num_cpus"] = settings.num_cpus or max(os.cpu_count() or 1, settings.env_runners + 1)
    try:
        init_ray(ray, address=address, **kwargs)
    except (ConnectionError, ValueError, RuntimeError) as e:
        raise RLlibBackendError(f"cannot connect to the Ray cluster at {address}: {e}") from e
    return True


def build_algorithm(cfg: TrainConfig, settings: RLlibSettings):
    """The RLlib PPO Algorithm for `cfg` (Ray must be initialized)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from .rllib_module import MaskedPPOTorchRLModule

    module = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        model_config={
            "fcnet_hiddens": list(cfg.net_arch),
            "fcnet_activation": cfg.activation,
            "vf_share_layers": False,
            "head_fcnet_hiddens": [],
        },
    )
    batch = cfg.n_steps * cfg.n_envs
    env, env_config = env_spec(cfg)
    config = (
        PPOConfig()
        .environment(
            env=env,
            env_config=env_config,
            # RLlib's checker samples unmasked random actions, which the game refuses
            disable_env_checking=True,
        )
        .multi_agent(policies={MODULE_ID}, policy_mapping_fn=_to_shared)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MODULE_ID: module}))
        .env_runners(
            num_env_runners=settings.env_runners,
            num_envs_per_env_runner=settings.envs_per_runner,
            rollout_fragment_length="auto",
        )
        .learners(num_learners=0)
        .training(
            lr=cfg.learning_rate,
            train_batch_size_per_learner=batch,
            minibatch_size=cfg.batch_size,
            num_epochs=cfg.n_epochs,
            gamma=cfg.gamma,
            lambda_=cfg.gae_lambda,
            clip_param=cfg.clip_range,
            entropy_coeff=cfg.ent_coef,
            vf_loss_coeff=cfg.vf_coef,
            use_kl_loss=False,
            grad_clip=0.5,
            grad_clip_by="global_norm",
        )
        .debugging(seed=cfg.seed, log_level="ERROR")
        .reporting(metrics_num_episodes_for_smoothing=20)
    )
    return config.build_algo()


def env_spec(cfg: TrainConfig) -> tuple[type, dict[str, Any]]:
    """The `MultiAgentEnv` class of the run's game and its env config: the game's own
    (`Game.rllib_env_class`), else `gameenv.rllib.GameMultiAgentEnv` with the game's name."""
    game = load_game(cfg.game)
    env_config: dict[str, Any] = {
        "num_players": list(cfg.num_players),
        "player_weights": list(cfg.player_weights),
        "reward": cfg.reward,
        "seed": cfg.seed,
    }
    own = game.rllib_env_class()
    if own is not None:
        return own, env_config
    from gameenv.rllib import GameMultiAgentEnv

    return GameMultiAgentEnv, {"game": game.name, **env_config}


def _to_shared(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    return MODULE_ID


def _get(d: dict[str, Any], *path: str, default: float = 0.0) -> float:
    for k in path:
        if not isinstance(d, dict) or k not in d:
            return default
        d = d[k]
    try:
        return float(d)
    except (TypeError, ValueError):
        return default


# RLlib's learner results (`result["learners"][MODULE_ID]`) under the lab trainer's tags
LEARNER_TAGS = {
    "policy_loss": "train/policy_loss",
    "vf_loss": "train/value_loss",
    "entropy": "train/entropy",
    "mean_kl_loss": "train/approx_kl",
    "vf_explained_var": "train/explained_variance",
    "total_loss": "train/loss",
}


def result_scalars(result: dict[str, Any]) -> dict[str, float]:
    """The TensorBoard scalars of one `algo.train()` result under the lab trainer's tags: the
    shared module's losses, entropy and KL (`LEARNER_TAGS`), `rollout/ep_rew_mean` (the mean
    episode return per seat: RLlib's per-agent means, averaged) and
    `rollout/episode_return_mean` (RLlib's, summed over the seats). A missing entry is left
    out, not written as 0."""
    out: dict[str, float] = {}
    learner = (result.get("learners") or {}).get(MODULE_ID) or {}
    for key, tag in LEARNER_TAGS.items():
        v = _number(learner.get(key))
        if v is not None:
            out[tag] = v
    runners = result.get("env_runners") or {}
    per_agent = runners.get("agent_episode_returns_mean")
    if isinstance(per_agent, dict):
        means = [v for v in map(_number, per_agent.values()) if v is not None]
        if means:
            out["rollout/ep_rew_mean"] = sum(means) / len(means)
    total = _number(runners.get("episode_return_mean"))
    if total is not None:
        out["rollout/episode_return_mean"] = total
    return out


def _number(v: Any) -> float | None:
    """`v` as a finite float, or None (RLlib reports NaN before the first episode ends)."""
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if np.isfinite(x) else None


def algorithm_path(checkpoint: Path) -> Path:
    """RLlib's own checkpoint (the Algorithm: learner, optimizer, env runners) beside the lab
    checkpoint `checkpoint`: `step_N.rllib/`, what `--resume` restores."""
    base = ckpt_io.checkpoint_base(checkpoint)
    return base.with_name(base.name + ".rllib")


def save_algorithm(algo: Any, dst: Path) -> None:
    """`algo.save_to_path` into a temporary directory, renamed to `dst` (an earlier `dst` is
    replaced), so `dst` is always a whole checkpoint."""
    tmp = dst.with_name(dst.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    algo.save_to_path(str(tmp.resolve()))
    if dst.exists():
        shutil.rmtree(dst)
    tmp.replace(dst)


def train_rllib(
    cfg: TrainConfig,
    settings: RLlibSettings,
    resume: bool = False,
    notify: Callable[[str], None] | None = None,
    force: bool = False,
) -> dict[str, Any]:
    """Run RLlib PPO self-play for `cfg.total_steps` env steps through the run loop
    (`training.runloop.run`: the run directory, its lock, the schedule, `best.*`, resume);
    returns the final state. `cfg.mode` is read by `rllib_config`."""
    cfg = rllib_config(cfg)
    check_supported(cfg)
    return run(cfg, RLlibTrainer(cfg, settings), resume, notify, force)


class RLlibTrainer:
    """RLlib PPO's hooks of the run loop (`training.runloop.Trainer`)."""

    label = "training (rllib)"
    checkpoint_suffix = ".npz"
    suffix = ".npz"
    uses_pool = False  # every seat is the learner
    league_rng = None

    def __init__(self, cfg: TrainConfig, settings: RLlibSettings) -> None:
        self.cfg = cfg
        self.settings_ = settings
        self.run_dir = Path(cfg.run_dir)
        self.algo: Any = None
        self.writer: Any = None
        self.loop: RunLoop | None = None
        self.started_ray = False
        self.train_seconds = 0.0
        self.t_start = time.perf_counter()
        self.start_step = 0

    def settings(self) -> dict[str, Any]:
        return {"backend": "rllib", "rllib": asdict(self.settings_)}

    def build(self, loop: RunLoop, checkpoint: Path | None) -> None:
        self.loop = loop
        if checkpoint is not None and not algorithm_path(checkpoint).is_dir():
            raise TrainError(
                f"cannot resume {self.run_dir}: RLlib's checkpoint {algorithm_path(checkpoint)} "
                f"of {checkpoint.name} does not exist; the run directory is damaged"
            )
        self.started_ray = _init_ray(self.settings_)
        self.algo = build_algorithm(self.cfg, self.settings_)
        if checkpoint is not None:
            try:
                self.algo.restore_from_path(str(algorithm_path(checkpoint).resolve()))
            except Exception as e:  # noqa: BLE001 - an unreadable RLlib checkpoint, reported once
                raise TrainError(
                    f"cannot resume {self.run_dir}: RLlib's checkpoint "
                    f"{algorithm_path(checkpoint)} cannot be restored ({type(e).__name__}: {e})"
                ) from None

    def warm_start(self, progress: TrainProgress) -> dict[str, Any]:
        raise TrainConfigError("bc_teacher is not supported by the rllib backend")

    def save(self, path: Path, step: int, kind: str) -> None:
        """The exported policy, and for a checkpoint RLlib's own beside it; RLlib's
        checkpoints other than this one and the one state.json names are removed."""
        export_policy(self.algo, path, self.cfg, step, kind)
        if kind != "checkpoint":
            return
        save_algorithm(self.algo, algorithm_path(path))
        assert self.loop is not None
        named = self.loop.state.get("checkpoint")
        keep = {algorithm_path(path)} | ({algorithm_path(self.run_dir / named)} if named else set())
        for old in path.parent.glob("*.rllib"):
            if old not in keep and old.is_dir():
                shutil.rmtree(old)

    def set_pool(self, registry: PoolRegistry) -> None:
        pass

    def train(self, loop: RunLoop) -> int:
        from torch.utils.tensorboard import SummaryWriter

        step = self.start_step = loop.step
        self.writer = SummaryWriter(str(self.run_dir / "tb" / "RLlib_1"))
        loop.begin(step, self.writer)
        offset = None  # RLlib's lifetime count of env steps restarts at 0 unless restored
        self.t_start = time.perf_counter()
        with (self.run_dir / "progress.jsonl").open("a") as lines:
            while step < self.cfg.total_steps:
                t0 = time.perf_counter()
                result = self.algo.train()
                dt = time.perf_counter() - t0
                self.train_seconds += dt
                lifetime = int(_get(result, "env_runners", "num_env_steps_sampled_lifetime"))
                sampled = _get(result, "env_runners", "num_env_steps_sampled")
                if offset is None:
                    offset = step - (lifetime - int(sampled))
                previous, step = step, lifetime + offset
                line = _iteration_line(result, step, dt)
                lines.write(json.dumps(line) + "\n")
                lines.flush()
                self._log(line, result, step)
                loop.after_update(step, previous)
        loop.end(step)
        return step

    def _log(self, line: dict[str, Any], result: dict[str, Any], step: int) -> None:
        self.writer.add_scalar("time/fps", line["sps"] or 0.0, step)
        self.writer.add_scalar("time/sps", line["rollout_sps"] or 0.0, step)
        self.writer.add_scalar("rollout/ep_len_mean", line["episode_len_mean"], step)
        for tag, value in result_scalars(result).items():
            self.writer.add_scalar(tag, value, step)
        assert self.loop is not None
        self.loop.progress.note(
            f"rllib iteration {line['iteration']}: {step}/{self.cfg.total_steps} steps, "
            f"{line['sps']} samples/s"
        )

    def finish(self, loop: RunLoop) -> None:
        """The run's time and speed, and RLlib's checkpoint of the last state in `rllib/`."""
        loop.state["seconds"] = round(time.perf_counter() - self.t_start, 1)
        # env steps per second of algo.train() (sampling and PPO updates, not evaluation)
        done = loop.step - self.start_step
        loop.state["samples_per_s"] = round(done / max(self.train_seconds, 1e-9), 1)
        save_algorithm(self.algo, self.run_dir / "rllib")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        if self.algo is not None:
            self.algo.stop()
        if self.started_ray:
            import ray

            ray.shutdown()


def _iteration_line(result: dict[str, Any], step: int, dt: float) -> dict[str, Any]:
    """One line of progress.jsonl: an iteration's env steps, speeds and episodes."""
    sampled = _get(result, "env_runners", "num_env_steps_sampled")
    sample_s = _get(result, "timers", "env_runner_sampling_timer")
    return {
        "iteration": int(_get(result, "training_iteration")),
        "step": step,
        "seconds": round(dt, 3),
        "sps": round(sampled / dt, 1) if dt > 0 else None,
        # RLlib's (smoothed) sampling time of the iteration: rollout-only samples/s
        "sample_seconds": round(sample_s, 3),
        "rollout_sps": round(sampled / sample_s, 1) if sample_s > 0 else None,
        "episodes": int(_get(result, "env_runners", "num_episodes")),
        "episode_len_mean": _get(result, "env_runners", "episode_len_mean"),
    }


def resume_settings(
    config: str | Path | None, overrides: dict[str, Any], rllib_given: dict[str, Any]
) -> tuple[TrainConfig, RLlibSettings]:
    """The settings of the RLlib run to resume (`--run-dir`): its own, with a new
    `--total-steps`; the Ray flags may change (another cluster), other settings may not."""
    from .config import read_config_file

    if "run_dir" not in overrides:
        raise TrainError("--resume needs --run-dir (the run to continue)")
    run_dir = overrides["run_dir"]
    state = load_state(run_dir)
    if run_mode(state) != "rllib":
        raise TrainError(
            f"{run_dir} holds a run of mode {run_mode(state)}, not of RLlib (--mode rllib); "
            f"resume it with --mode {run_mode(state)}, or leave --mode out"
        )
    given = read_config_file(config) if config is not None else {}
    given.pop("rllib", None)  # a file without [train]: its [rllib] table is in the top level
    given.update(overrides)
    given.pop("mode", None)  # the run's own: an older run's settings say single_seat
    cfg = resume_config(run_dir, overrides.get("total_steps"), given=given)
    saved = state.get("rllib") if isinstance(state.get("rllib"), dict) else {}
    settings = RLlibSettings.from_dict(
        {**saved, **{k: v for k, v in rllib_given.items() if v is not None}}
    )
    return cfg, settings
