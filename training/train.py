"""Self-play training: sb3-contrib MaskablePPO on the single-seat env with an opponent pool.

With `bc_teacher` set, a fresh run first imitates that scripted bot (`training.bc`); its fit
is recorded in state.json under "bc". One policy plays every player count (`num_players` with
`player_weights`); the learner's seat is drawn per game. Opponents come from the pool
(`training.pool`): the latest weights, frozen snapshots (PFSP) and a floor of scripted bots.
At the start (step 0, before the first update), every `eval_every` steps and at the last step
the current policy plays the fixed bot panel (`agents.evaluate`, at each of
`eval_num_players`) on paired deals (the same deal seeds at every evaluation), and TensorBoard
gets, at the learner's global step (`training.tblog`):

- in each bot's sub-run `tb/PPO_1/vs_<bot>/`: `eval/win_rate/<n>p` with `eval/win_rate_lo/<n>p`
  and `eval/win_rate_hi/<n>p` (Wilson 95%), `eval/mean_rank/<n>p` (tables of the learner and
  `n - 1` copies of the bot), and the chance rates under the same tags in `tb/PPO_1/chance/`,
  so each bot has its own colour on one chart,
- in the run: `eval/mean_win_rate/<n>p`, `eval/score`, `rating/openskill_ordinal` (Plackett-Luce
  over the evaluation games, anchored to `random`) and `rating/openskill_ordinal/<n>p`,
- `selfplay/pool_size`, `selfplay/snapshots`, `rollout/invalid_action_rate` (0 with masking),
  `time/sps`, `time/opponent_share` (share of env time spent in opponent decisions),
- the warm start's fit as the text `bc/fit` at step 0,
- besides SB3's own (`rollout/ep_rew_mean`, `train/*`, ...). The "Custom Scalars" tab shows
  the win rates against every bot on one chart with the chance line, and with their 95%
  intervals; the settings are in the "HParams" (with `eval/mean_win_rate/<n>p` per count as
  metrics) and "Text" tabs.

Run directory (`run_dir`):

    config.json            the resolved configuration
    trainer.lock           held while a trainer runs here (training.runlock; removed at its end)
    state.json             step, last checkpoint, best, schedule (what --resume reads)
    pool.json              the snapshot registry (ids, checkpoint paths, head-to-head record)
                           (paths in both are relative to the run directory)
    tb/PPO_1/              TensorBoard event files (vs_<bot>/, chance/: the evaluation's)
    checkpoints/step_N.{zip,json,npz}   model, sidecar, numpy policy weights
    snapshots/step_N.{zip,json,npz}     frozen pool members (also valid `ppo:PATH` players)
    best.{zip,json,npz}    the best checkpoint by mean win rate against the panel
    eval/step_N.jsonl      the evaluation games (arena rows)

Every file is written to a temporary name, fsynced and renamed (`agents.safeio`); a checkpoint
and its companions change as one unit (`training.checkpoint`), and the run directory is
checked and read with validation (`training.rundir`).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.deals import VALIDATION, for_choosing
from agents.policy import CheckpointError, NumpyPolicy
from agents.safeio import write_json
from agents.stats import openskill_ratings

from . import tblog
from .checkpoint import promote_best, repair_best, save_model_checkpoint
from .config import TrainConfig
from .pool import PoolRegistry, SnapshotInfo
from .progress import TrainProgress
from .rundir import (
    TrainError,
    check_new_run,
    load_pool,
    load_state,
    new_state,
    rel,
    resume_checkpoint,
    resume_config,
    write_state,
)
from .runlock import run_lock

__all__ = ["TrainError", "eval_scalars", "evaluate", "resume_config", "train"]


def evaluate(
    checkpoint: Path,
    cfg: TrainConfig,
    step: int,
    out: Path | None = None,
    progress: TrainProgress | None = None,
    deals: str = VALIDATION,
) -> dict[str, Any]:
    """The panel evaluation of a checkpoint (`agents.evaluate`) at each count of
    `eval_num_players`: the learner vs `n-1` copies of each bot, plus a mixed table with
    `random` for the rating anchor. Paired deals (the same at every evaluation), seats rotated.
    `vs` holds the first count's tables, `by_players[n]` every
    count's (its tables, mean win rate and OpenSkill ordinal over that count's games);
    `mean_win_rate` is the first count's; `score` is the mean win rate over chance
    (n x win rate) across every table, which picks `best.*`; `openskill_ordinal` is over all
    the games. `out` (the games as JSONL) is replaced when it exists: a re-evaluation at the
    same step after a resume. It chooses `best.*`, so it plays validation deals
    (`agents.deals`); test deals are refused."""
    from agents.evaluate import evaluate as evaluate_panel

    for_choosing(deals, "training's evaluation")

    counts = cfg.eval_counts()
    me = f"ppo:{checkpoint}"
    if out is not None and out.exists():
        out.unlink()
    hooks = {}
    if progress is not None:
        what = ", ".join(cfg.eval_bots) + f" at {'/'.join(map(str, counts))} players"
        hooks = {
            "on_start": lambda total: progress.eval_start(step, total, what),
            "on_game": lambda row: progress.advance(),
        }
    ev = evaluate_panel(
        me,
        panel=cfg.eval_bots,
        num_players=counts,
        games=cfg.eval_games,
        seed=cfg.seed + 17,
        deals=deals,
        anchor="random",
        workers=cfg.eval_workers,
        out=out,
        **hooks,
    )
    result: dict[str, Any] = {"step": step, "vs": {}, "by_players": {}}
    result["errors"] = sum(1 for r in ev.rows if (r.get("error") or {}).get("player") == me)
    lifts: list[float] = []
    for n in counts:
        vs: dict[str, Any] = {}
        for table in ev.tables:
            if table.num_players != n or table.name == "mixed":
                continue
            s = ev.table_summary(table)
            vs[table.name[len("vs_") :]] = {
                "win_rate": s["win_rate"] or 0.0,
                "win_rate_lo": s["ci_lo"],
                "win_rate_hi": s["ci_hi"],
                "mean_rank": s["mean_rank"] or float(n),
                "games": s["games"],
            }
            lifts.append(vs[table.name[len("vs_") :]]["win_rate"] * n)
        result["by_players"][str(n)] = {
            "vs": vs,
            "mean_win_rate": sum(v["win_rate"] for v in vs.values()) / max(1, len(vs)),
            "openskill_ordinal": ev.ratings[n]["ratings"].get(me, {}).get("ordinal", 0.0),
        }
    first = result["by_players"][str(counts[0])]
    result["vs"] = first["vs"]
    result["mean_win_rate"] = first["mean_win_rate"]
    result["score"] = sum(lifts) / max(1, len(lifts))
    ratings = openskill_ratings(ev.rows, anchor="random")
    result["openskill_ordinal"] = ratings["ratings"].get(me, {}).get("ordinal", 0.0)
    return result


def eval_scalars(res: dict[str, Any], cfg: TrainConfig) -> dict[str, dict[str, float]]:
    """TensorBoard scalars of an evaluation by sub-run (`training.tblog.eval_scalars`):
    `eval/win_rate/<n>p`, ... in each bot's `vs_<bot>` sub-run, the means, score and ratings
    in the run itself (sub-run "")."""
    return tblog.eval_scalars(res, cfg.eval_counts())


def _make_callback(
    cfg: TrainConfig,
    run: Path,
    state: dict[str, Any],
    registry: PoolRegistry,
    progress: TrainProgress | None = None,
):
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import TensorBoardOutputFormat

    class SelfPlayCallback(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.steps = 0
            self.invalid = 0
            self.opp_seconds = 0.0
            self.t_rollout = time.perf_counter()
            self.saved: set[Path] = set()  # checkpoints written by this process
            self.board: tblog.EvalBoard | None = None  # the evaluation's per-bot sub-runs

        def save(self, path: Path, step: int, kind: str) -> None:
            if path not in self.saved:  # a file of a killed run is replaced, not reused
                save_model_checkpoint(self.model, path, cfg, step, {"kind": kind})
                self.saved.add(path)

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
                    tblog.start_run(fmt.writer, cfg, state, self.num_timesteps)
                    self.board = tblog.EvalBoard(fmt.writer)
            if progress is not None:
                progress.training(self.num_timesteps)
            if not self._evaluated(self.num_timesteps):  # the start: no training draw used
                self._evaluate(self.num_timesteps)

        def _on_training_end(self) -> None:
            if not self._evaluated(self.num_timesteps):  # the end of the run
                self._evaluate(self.num_timesteps)
            if self.board is not None:
                self.board.close()

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
            if progress is not None:
                best = state.get("best")
                note = f"best {best['mean_win_rate']:.2f}" if best else ""
                progress.training(step, note)

        # -- snapshots, evaluation, checkpoints -------------------------------------------
        def _evaluated(self, step: int) -> bool:
            return any(e.get("step") == step for e in state.get("evals", ()))

        def _snapshot(self, step: int) -> None:
            path = run / "snapshots" / f"step_{step}.zip"
            self.save(path, step, "snapshot")
            milestone = step // cfg.milestone_every > (step - cfg.snapshot_every) // (
                cfg.milestone_every
            )
            registry.add(SnapshotInfo(f"step_{step}", rel(path, run), step, milestone))
            registry.save(run / "pool.json")
            self._push_snapshots()

        def _evaluate(self, step: int) -> None:
            path = run / "checkpoints" / f"step_{step}.zip"
            self.save(path, step, "checkpoint")
            t0 = time.perf_counter()
            res = evaluate(path, cfg, step, run / "eval" / f"step_{step}.jsonl", progress)
            if progress is not None:
                progress.eval_done(step, res, time.perf_counter() - t0)
            if self.board is not None:
                self.board.write(res, cfg.eval_counts(), step)
            state.setdefault("evals", []).append(res)
            best = state.get("best")
            if best is None or res["score"] > best.get("score", best["mean_win_rate"] * 4):
                promote_best(path, run / "best")
                state["best"] = {
                    "step": step,
                    "mean_win_rate": res["mean_win_rate"],
                    "score": res["score"],
                    "checkpoint": rel(path, run),
                }
            self._write_state(step, path)

        def _checkpoint(self, step: int) -> None:
            path = run / "checkpoints" / f"step_{step}.zip"
            self.save(path, step, "checkpoint")
            registry.save(run / "pool.json")
            self._write_state(step, path)

        def _write_state(self, step: int, path: Path) -> None:
            state["step"] = step
            state["checkpoint"] = rel(path, run)
            write_state(run, state)

    return SelfPlayCallback()


def _warm_start(model: Any, cfg: TrainConfig, progress: TrainProgress) -> dict[str, Any]:
    """Behaviour cloning of `bc_teacher` (`training.bc`); its fit for state.json and TB."""
    from .bc import collect, pretrain

    t0 = time.perf_counter()
    progress.bc_collect(cfg.bc_teacher, cfg.bc_games)
    data = collect(cfg, cfg.bc_games, cfg.seed, on_game=progress.advance)
    progress.bc_collected(len(data["actions"]), time.perf_counter() - t0)
    progress.bc_fit(cfg.bc_epochs)
    fit = pretrain(model, data, cfg.bc_epochs, cfg.seed, on_epoch=progress.advance)
    progress.bc_done(fit)
    return {"teacher": cfg.bc_teacher, **fit, "seconds": round(time.perf_counter() - t0, 1)}


def train(
    cfg: TrainConfig, resume: bool = False, notify: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Run a new training run, or with `resume` continue the one in `cfg.run_dir` (build `cfg`
    with `resume_config`); returns the final state dict. The run directory and, on resume,
    its state, pool and checkpoint are checked before anything starts; `notify` gets notes
    (a repaired `best.*`, a stale lock taken over), printed to stderr by default. The run
    directory is locked for the run (`training.runlock`): a second trainer on it is refused."""
    run = Path(cfg.run_dir)
    if resume:
        load_state(run)  # nothing to resume: refused before the directory is locked
    else:
        check_new_run(run)
    with run_lock(run, notify):  # the checks are made again under the lock
        if cfg.mode == "all_seat":
            from .allseat_train import train_all_seat

            return train_all_seat(cfg, resume, notify)
        return _train_single_seat(cfg, resume, notify)


def _train_single_seat(
    cfg: TrainConfig, resume: bool, notify: Callable[[str], None] | None
) -> dict[str, Any]:
    """The single-seat SB3 run of `train` (the run directory is locked by the caller)."""
    run = Path(cfg.run_dir)
    say = notify or (lambda text: print(text, file=sys.stderr))
    if resume:
        state = load_state(run)
        ckpt = resume_checkpoint(run, state)
        registry = load_pool(run, state, cfg.snapshot_window)
        try:
            fixed = repair_best(run, state.get("best"))
        except CheckpointError as e:
            raise TrainError(f"cannot resume {run}: best checkpoint: {e}") from None
        if fixed:
            say(f"note: {fixed}")
        state["config"] = cfg.to_dict()
    else:
        check_new_run(run)
        run.mkdir(parents=True, exist_ok=True)
        state = new_state(cfg)
        registry = PoolRegistry(window=cfg.snapshot_window)
    write_json(run / "config.json", cfg.to_dict())

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    from .selfplay_env import make_env_fn

    torch.set_num_threads(1)
    fns = [make_env_fn(cfg, i) for i in range(cfg.n_envs)]
    vec = SubprocVecEnv(fns) if cfg.vec_env == "subproc" and cfg.n_envs > 1 else DummyVecEnv(fns)
    vec = VecMonitor(vec)  # episode returns and lengths for SB3's rollout/ep_* scalars
    vec.seed(cfg.seed + state["step"])
    try:
        if resume:
            try:
                model = MaskablePPO.load(
                    str(ckpt), env=vec, device="cpu", tensorboard_log=str(run / "tb")
                )
            except Exception as e:  # noqa: BLE001 - an unreadable model file, reported once
                raise TrainError(
                    f"cannot resume {run}: the model {ckpt} cannot be loaded "
                    f"({type(e).__name__}: {e})"
                ) from None
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
        progress = TrainProgress(cfg.progress, cfg.total_steps, model.num_timesteps)
        with progress:
            if not resume and cfg.bc_teacher:
                state["bc"] = _warm_start(model, cfg, progress)
            callback = _make_callback(cfg, run, state, registry, progress)
            remaining = cfg.total_steps - model.num_timesteps
            if remaining > 0:
                model.learn(
                    total_timesteps=remaining,
                    callback=callback,
                    reset_num_timesteps=not resume,
                    tb_log_name="PPO",
                )
        final = run / "checkpoints" / f"step_{model.num_timesteps}.zip"
        if remaining > 0:
            callback.save(final, model.num_timesteps, "checkpoint")
        registry.save(run / "pool.json")
        state["step"] = model.num_timesteps
        state["checkpoint"] = rel(final, run)
        write_state(run, state)
    finally:
        vec.close()
    return state
