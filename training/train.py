"""Self-play training: sb3-contrib MaskablePPO on the single-seat env with an opponent pool.

With `bc_teacher` set, a fresh run first imitates that scripted bot (`training.bc`); its fit
is recorded in state.json under "bc". One policy plays every player count (`num_players` with
`player_weights`); the learner's seat is drawn per game. Opponents come from the pool
(`training.pool`): the latest weights, frozen snapshots (PFSP) and a floor of scripted bots.
Every `eval_every` steps the current policy plays the fixed bot panel through the arena
harness on paired deals (the same deal seeds at every evaluation), and TensorBoard gets, at
the learner's global step:

- `eval/vs_<bot>/win_rate`, `eval/vs_<bot>/win_rate_lo`, `eval/vs_<bot>/win_rate_hi` (Wilson
  95%), `eval/vs_<bot>/mean_rank` (tables of the learner and `num_players - 1` copies of the bot),
- `rating/openskill_ordinal` (Plackett-Luce over the evaluation games, anchored to `random`),
- `selfplay/pool_size`, `selfplay/snapshots`, `rollout/invalid_action_rate` (0 with masking),
  `time/sps`, `time/opponent_share` (share of env time spent in opponent decisions),
- besides SB3's own (`rollout/ep_rew_mean`, `train/*`, ...). A custom-scalars layout puts all
  the win-rate curves on one chart ("Custom Scalars" tab).

Run directory (`run_dir`):

    config.json            the resolved configuration
    state.json             step, last checkpoint, best, schedule (what --resume reads)
    pool.json              the snapshot registry (ids, checkpoint paths, head-to-head record)
                           (paths in both are relative to the run directory)
    tb/PPO_1/              TensorBoard event files
    checkpoints/step_N.{zip,json,npz}   model, sidecar, numpy policy weights
    snapshots/step_N.{zip,json,npz}     frozen pool members (also valid `ppo:PATH` players)
    best.{zip,json,npz}    the best checkpoint by mean win rate against the panel
    eval/step_N.jsonl      the evaluation games (arena rows)

Every file is written to a temporary name and renamed, so an interrupted run never leaves a
half-written checkpoint or state file.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

from agents.arena import Schedule, run_task
from agents.policy import (
    CheckpointError,
    NumpyPolicy,
    check_compatible,
    env_signature,
    read_sidecar,
)
from agents.stats import openskill_ratings, summarize
from lastwill_env.engine import GameConfig

from .config import TrainConfig
from .pool import PoolRegistry, SnapshotInfo


class TrainError(RuntimeError):
    """A run that cannot start or resume; the message says why and what to do."""


def _atomic_json(path: Path, data: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1))
    tmp.replace(path)


def _rel(path: Path, run: Path) -> str:
    """Paths in state.json and pool.json are relative to the run directory (movable runs)."""
    return str(path.relative_to(run))


def save_checkpoint(model: Any, path: Path, cfg: TrainConfig, step: int, extra=None) -> Path:
    """`path` (.zip) + `.json` sidecar + `.npz` policy weights, each written atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.stem + ".tmp.zip")
    model.save(str(tmp))
    NumpyPolicy.from_sb3(model).save_npz(path.with_suffix(".npz"))
    meta = {
        **env_signature(),
        "step": step,
        "seed": cfg.seed,
        "config": cfg.to_dict(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        **(extra or {}),
    }
    _atomic_json(path.with_suffix(".json"), meta)
    tmp.replace(path)
    return path


def copy_checkpoint(src: Path, dst: Path) -> None:
    for suffix in (".npz", ".json", ".zip"):
        tmp = dst.with_name(dst.stem + ".tmp" + suffix)
        shutil.copyfile(src.with_suffix(suffix), tmp)
        tmp.replace(dst.with_suffix(suffix))


def evaluate(
    checkpoint: Path, cfg: TrainConfig, step: int, out: Path | None = None
) -> dict[str, Any]:
    """The panel evaluation of a checkpoint at each count of `eval_num_players`: learner vs
    `n-1` copies of each bot, plus a mixed table with `random` for the rating anchor. Paired
    deals, seats rotated. `vs` holds the first count's tables (the `eval/vs_<bot>/` tags),
    `by_players[n]` every count's; `score` is the mean win rate over chance (n x win rate)
    across every table, which picks `best.*`."""
    me = f"ppo:{checkpoint}"
    rows: list[dict[str, Any]] = []
    result: dict[str, Any] = {"step": step, "vs": {}, "by_players": {}, "errors": 0}
    lifts: list[float] = []
    for n in cfg.eval_counts():
        game_cfg = GameConfig(num_players=n)
        tables = {bot: (me, *([bot] * (n - 1))) for bot in cfg.eval_bots}
        mixed = (me, *(list(cfg.eval_bots) + ["random"] * n)[: n - 2], "random")
        tables["mixed"] = mixed[:n]
        per_table: dict[str, list[dict[str, Any]]] = {}
        for name, entrants in tables.items():
            sched = Schedule(entrants=tuple(entrants), config=game_cfg, seed=cfg.seed + 17)
            tasks = sched.tasks(cfg.eval_games)
            if cfg.eval_workers > 1:
                import multiprocessing as mp

                with mp.get_context("spawn").Pool(cfg.eval_workers) as pool:
                    got = pool.map(run_task, tasks)
            else:
                got = [run_task(t) for t in tasks]
            for r in got:
                r["table"] = f"{n}p:{name}"
            per_table[name] = got
            rows.extend(got)
        vs: dict[str, Any] = {}
        for bot in cfg.eval_bots:
            summ = {e["spec"]: e for e in summarize(per_table[bot])}[me]
            vs[bot] = {
                "win_rate": summ["win_rate"] or 0.0,
                "win_rate_lo": summ["ci_lo"],
                "win_rate_hi": summ["ci_hi"],
                "mean_rank": summ["mean_rank"] or float(n),
                "games": summ["games"],
            }
            result["errors"] += summ["errors"]
            lifts.append(vs[bot]["win_rate"] * n)
        result["by_players"][str(n)] = {
            "vs": vs,
            "mean_win_rate": sum(v["win_rate"] for v in vs.values()) / max(1, len(vs)),
        }
        if not result["vs"]:
            result["vs"] = vs
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(out.name + ".tmp")
        with tmp.open("w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
        tmp.replace(out)
    ratings = openskill_ratings(rows, anchor="random")
    result["openskill_ordinal"] = ratings["ratings"].get(me, {}).get("ordinal", 0.0)
    first = result["by_players"][str(cfg.eval_counts()[0])]
    result["mean_win_rate"] = first["mean_win_rate"]
    result["score"] = sum(lifts) / max(1, len(lifts))
    return result


def eval_scalars(res: dict[str, Any], cfg: TrainConfig) -> dict[str, float]:
    """TensorBoard scalars of an evaluation: `eval/vs_<bot>/...` for a single player count,
    `eval/<n>p/vs_<bot>/...` (and `eval/<n>p/mean_win_rate`) for each of several."""
    out: dict[str, float] = {}
    counts = cfg.eval_counts()
    for n in counts:
        block = res["by_players"][str(n)]
        prefix = "eval" if len(counts) == 1 else f"eval/{n}p"
        for bot, v in block["vs"].items():
            for k in ("win_rate", "win_rate_lo", "win_rate_hi", "mean_rank"):
                out[f"{prefix}/vs_{bot}/{k}"] = v[k]
        if len(counts) > 1:
            out[f"{prefix}/mean_win_rate"] = block["mean_win_rate"]
    out["eval/mean_win_rate"] = res["mean_win_rate"]
    out["eval/score"] = res["score"]
    out["rating/openskill_ordinal"] = res["openskill_ordinal"]
    return out


def _make_callback(cfg: TrainConfig, run: Path, state: dict[str, Any], registry: PoolRegistry):
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import TensorBoardOutputFormat

    class SelfPlayCallback(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.steps = 0
            self.invalid = 0
            self.opp_seconds = 0.0
            self.t_rollout = time.perf_counter()
            self.progress = None
            self.task = None

        # -- pool sync ---------------------------------------------------------------------
        def _push_latest(self) -> None:
            self.training_env.env_method("set_latest", NumpyPolicy.from_sb3(self.model).state())

        def _push_snapshots(self) -> None:
            act = registry.active()
            self.training_env.env_method(
                "set_snapshots",
                {s.id: str(run / s.path) for s in act},
                registry.weights(cfg.pfsp),
            )

        def _on_training_start(self) -> None:
            self._push_latest()
            self._push_snapshots()
            for fmt in self.logger.output_formats:
                if isinstance(fmt, TensorBoardOutputFormat):
                    panel = [f"eval/vs_{b}/win_rate" for b in cfg.eval_bots]
                    fmt.writer.add_custom_scalars(
                        {
                            "eval": {
                                "win rate vs bots": ["Multiline", panel],
                                "mean rank vs bots": [
                                    "Multiline",
                                    [f"eval/vs_{b}/mean_rank" for b in cfg.eval_bots],
                                ],
                                "win rate with 95% interval": [
                                    "Margin",
                                    [
                                        f"eval/vs_{cfg.eval_bots[0]}/win_rate",
                                        f"eval/vs_{cfg.eval_bots[0]}/win_rate_lo",
                                        f"eval/vs_{cfg.eval_bots[0]}/win_rate_hi",
                                    ],
                                ],
                            }
                        }
                    )
            if cfg.progress:
                from rich.progress import (
                    BarColumn,
                    MofNCompleteColumn,
                    Progress,
                    TextColumn,
                    TimeRemainingColumn,
                )

                self.progress = Progress(
                    TextColumn("training"),
                    BarColumn(),
                    MofNCompleteColumn(),
                    TimeRemainingColumn(),
                    TextColumn("{task.fields[note]}"),
                    transient=False,
                )
                self.progress.start()
                self.task = self.progress.add_task(
                    "train", total=cfg.total_steps, completed=self.num_timesteps, note=""
                )

        def _on_training_end(self) -> None:
            if self.progress is not None:
                self.progress.stop()

        def _on_rollout_start(self) -> None:
            self._push_latest()
            self.t_rollout = time.perf_counter()

        def _on_step(self) -> bool:
            infos = self.locals["infos"]
            dones = self.locals["dones"]
            for info, done in zip(infos, dones, strict=True):
                self.steps += 1
                self.opp_seconds += info.get("opponent_seconds", 0.0)
                if "illegal_action" in info:
                    self.invalid += 1
                if done:
                    for pid in info.get("pool_ids", ()):
                        registry.record(pid, info.get("learner_score", 0.0))
            return True

        def _on_rollout_end(self) -> None:
            dt = max(time.perf_counter() - self.t_rollout, 1e-9)
            n_envs = self.training_env.num_envs
            self.logger.record("rollout/invalid_action_rate", self.invalid / max(1, self.steps))
            self.logger.record("time/sps", self.steps / dt)
            # env time summed over workers: n_envs * wall time of the rollout
            self.logger.record("time/opponent_share", self.opp_seconds / (n_envs * dt))
            self.logger.record("selfplay/pool_size", len(registry.active()) + len(cfg.bots) + 1)
            self.logger.record("selfplay/snapshots", len(registry.snapshots))
            state["invalid_actions"] = state.get("invalid_actions", 0) + self.invalid
            self.steps = self.invalid = 0
            self.opp_seconds = 0.0
            step = self.num_timesteps
            if step >= state["next_snapshot"]:
                self._snapshot(step)
                state["next_snapshot"] = step + cfg.snapshot_every
            if step >= state["next_eval"]:
                self._evaluate(step)
                state["next_eval"] = step + cfg.eval_every
            if step >= state["next_checkpoint"]:
                self._checkpoint(step)
                state["next_checkpoint"] = step + cfg.checkpoint_every
            if self.progress is not None:
                best = state.get("best")
                note = f"best {best['mean_win_rate']:.2f}" if best else ""
                self.progress.update(self.task, completed=step, note=note)

        # -- snapshots, evaluation, checkpoints -------------------------------------------
        def _snapshot(self, step: int) -> None:
            path = run / "snapshots" / f"step_{step}.zip"
            save_checkpoint(self.model, path, cfg, step, {"kind": "snapshot"})
            milestone = step // cfg.milestone_every > (step - cfg.snapshot_every) // (
                cfg.milestone_every
            )
            registry.add(SnapshotInfo(f"step_{step}", _rel(path, run), step, milestone))
            registry.save(run / "pool.json")
            self._push_snapshots()

        def _evaluate(self, step: int) -> None:
            path = run / "checkpoints" / f"step_{step}.zip"
            save_checkpoint(self.model, path, cfg, step, {"kind": "checkpoint"})
            res = evaluate(path, cfg, step, run / "eval" / f"step_{step}.jsonl")
            for tag, value in eval_scalars(res, cfg).items():
                self.logger.record(tag, value)
            state.setdefault("evals", []).append(res)
            best = state.get("best")
            if best is None or res["score"] > best.get("score", best["mean_win_rate"] * 4):
                copy_checkpoint(path, run / "best.zip")
                state["best"] = {
                    "step": step,
                    "mean_win_rate": res["mean_win_rate"],
                    "score": res["score"],
                    "checkpoint": _rel(path, run),
                }
            self._write_state(step, path)

        def _checkpoint(self, step: int) -> None:
            path = run / "checkpoints" / f"step_{step}.zip"
            if not path.exists():
                save_checkpoint(self.model, path, cfg, step, {"kind": "checkpoint"})
            registry.save(run / "pool.json")
            self._write_state(step, path)

        def _write_state(self, step: int, path: Path) -> None:
            state["step"] = step
            state["checkpoint"] = _rel(path, run)
            _atomic_json(run / "state.json", state)

    return SelfPlayCallback()


def resume_config(run_dir: str | Path, total_steps: int | None = None) -> TrainConfig:
    """The configuration of an existing run (optionally with a new total step budget)."""
    state_file = Path(run_dir) / "state.json"
    if not state_file.exists():
        raise TrainError(f"nothing to resume in {run_dir}: {state_file} does not exist")
    data = json.loads(state_file.read_text())["config"]
    data["run_dir"] = str(run_dir)  # the run is where its state is, wherever it was made
    if total_steps is not None:
        data["total_steps"] = total_steps
    return TrainConfig.from_dict(data)


def train(cfg: TrainConfig, resume: bool = False) -> dict[str, Any]:
    """Run a new training run, or with `resume` continue the one in `cfg.run_dir` (build `cfg`
    with `resume_config`); returns the final state dict."""
    if cfg.mode == "all_seat":
        from .allseat_train import train_all_seat

        return train_all_seat(cfg, resume)
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    from .selfplay_env import make_env_fn

    run = Path(cfg.run_dir)
    state_file = run / "state.json"
    if resume:
        if not state_file.exists():
            raise TrainError(f"nothing to resume in {run}: {state_file} does not exist")
        state = json.loads(state_file.read_text())
        if not state.get("checkpoint"):
            raise TrainError(f"{run} has no checkpoint yet; start it again without --resume")
        ckpt = run / state["checkpoint"]
        try:
            check_compatible(read_sidecar(ckpt), str(ckpt))
        except CheckpointError as e:
            raise TrainError(str(e)) from None
        state["config"] = cfg.to_dict()
        registry = (
            PoolRegistry.load(run / "pool.json")
            if (run / "pool.json").exists()
            else PoolRegistry(window=cfg.snapshot_window)
        )
        # snapshots written after the last saved state are dropped from the registry
        registry.snapshots = [s for s in registry.snapshots if s.step <= state["step"]]
    else:
        if state_file.exists():
            raise TrainError(
                f"{run} already holds a run (state.json); use --resume to continue it or "
                f"choose another --run-dir"
            )
        run.mkdir(parents=True, exist_ok=True)
        state = {
            "step": 0,
            "checkpoint": None,
            "config": cfg.to_dict(),
            "next_snapshot": cfg.snapshot_every,
            "next_eval": cfg.eval_every,
            "next_checkpoint": cfg.checkpoint_every,
            "best": None,
            "evals": [],
        }
        registry = PoolRegistry(window=cfg.snapshot_window)
    _atomic_json(run / "config.json", cfg.to_dict())

    torch.set_num_threads(1)
    fns = [make_env_fn(cfg, i) for i in range(cfg.n_envs)]
    vec = SubprocVecEnv(fns) if cfg.vec_env == "subproc" and cfg.n_envs > 1 else DummyVecEnv(fns)
    vec = VecMonitor(vec)  # episode returns and lengths for SB3's rollout/ep_* scalars
    vec.seed(cfg.seed + state["step"])
    try:
        if resume:
            model = MaskablePPO.load(
                str(run / state["checkpoint"]),
                env=vec,
                device="cpu",
                tensorboard_log=str(run / "tb"),
            )
        else:
            act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[cfg.activation]
            model = MaskablePPO(
                "MlpPolicy",
                vec,
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
                tensorboard_log=str(run / "tb"),
                seed=cfg.seed,
                device="cpu",
                verbose=0,
            )
        if not resume and cfg.bc_teacher:
            from .bc import collect, pretrain

            t0 = time.perf_counter()
            data = collect(cfg, cfg.bc_games, cfg.seed)
            state["bc"] = {
                "teacher": cfg.bc_teacher,
                **pretrain(model, data, cfg.bc_epochs, cfg.seed),
                "seconds": round(time.perf_counter() - t0, 1),
            }
            del data
        callback = _make_callback(cfg, run, state, registry)
        remaining = cfg.total_steps - model.num_timesteps
        if remaining > 0:
            model.learn(
                total_timesteps=remaining,
                callback=callback,
                reset_num_timesteps=not resume,
                tb_log_name="PPO",
            )
        final = run / "checkpoints" / f"step_{model.num_timesteps}.zip"
        if not final.exists():
            save_checkpoint(model, final, cfg, model.num_timesteps, {"kind": "checkpoint"})
        registry.save(run / "pool.json")
        state["step"] = model.num_timesteps
        state["checkpoint"] = _rel(final, run)
        _atomic_json(state_file, state)
    finally:
        vec.close()
    return state
