"""The all-seat training loop (`mode = "all_seat"`): rollout, masked PPO update, pool,
evaluation, checkpoints and resume, with the same run directory, checkpoint files, TensorBoard
tags and `state.json` schedule as the single-seat SB3 path (`training.train`).

A checkpoint is `step_N.npz` (the actor as dense arrays, what `ppo:PATH` plays) with its JSON
sidecar `step_N.json` and `step_N.pt` (actor, critic and optimiser state, what `--resume` needs),
saved, verified and promoted to `best.*` as one unit by `training.checkpoint`; the run
directory is checked and read by `training.rundir`, as in the single-seat path.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agents.policy import CheckpointError, NumpyPolicy
from agents.safeio import write_json

from . import checkpoint as ckpt_io
from . import tblog
from .allseat import Rollout, build_model, flatten, make_optimizer, ppo_update
from .config import TrainConfig
from .pool import PoolRegistry, SnapshotInfo
from .progress import TrainProgress
from .rundir import (
    TrainError,
    check_new_run,
    load_pool,
    load_state,
    new_state,
    resume_checkpoint,
    write_state,
)
from .rundir import rel as _rel
from .seating import draw_player_count

SUFFIXES = (".npz", ".json", ".pt")


def _atomic_json(path: Path, data: Any) -> None:
    write_json(path, data)


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


def _torch_save(torch, obj: Any, tmp: Path) -> None:
    """`torch.save` through an open file: the archive inside is then named `archive`, not
    after the temporary file, so the same state gives the same bytes."""
    with open(tmp, "wb") as f:
        torch.save(obj, f)


def copy_checkpoint(src: Path, dst: Path) -> None:
    """Copy a checkpoint as one unit (`training.checkpoint.promote_best`)."""
    ckpt_io.promote_best(src, dst)


def kickstart_weight(cfg: TrainConfig, step: int) -> float:
    """The kickstarting weight at `step`: `kickstart_coef`, decaying linearly to 0 at
    `kickstart_steps` (constant when that is 0); 0 without a teacher."""
    if not cfg.kickstart_teacher or cfg.kickstart_coef <= 0:
        return 0.0
    if cfg.kickstart_steps <= 0:
        return float(cfg.kickstart_coef)
    return float(cfg.kickstart_coef) * max(0.0, 1.0 - step / cfg.kickstart_steps)


def train_all_seat(
    cfg: TrainConfig, resume: bool = False, notify: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Run (or with `resume` continue) an all-seat run in `cfg.run_dir`; returns state.json.
    The run directory and, on resume, its state, pool and checkpoint are checked first."""
    run = Path(cfg.run_dir)
    say = notify or (lambda text: print(text, file=sys.stderr))
    started = time.perf_counter()
    if resume:
        state = load_state(run)
        ckpt = resume_checkpoint(run, state, learner_suffix=".pt")
        registry = load_pool(run, state, cfg.snapshot_window)
        try:
            fixed = ckpt_io.repair_best(run, state.get("best"))
        except CheckpointError as e:
            raise TrainError(f"cannot resume {run}: best checkpoint: {e}") from None
        if fixed:
            say(f"note: {fixed}")
    else:
        check_new_run(run)

    import torch
    from torch.utils.tensorboard import SummaryWriter

    from .train import evaluate

    torch.set_num_threads(cfg.torch_threads or os.cpu_count() or 1)
    torch.set_flush_denormal(True)
    model = build_model(cfg, cfg.seed)
    optimizer = make_optimizer(model, cfg)
    if resume:
        try:
            saved = torch.load(ckpt, weights_only=False)
            model.load_state_dict(saved["model"])
            optimizer.load_state_dict(saved["optimizer"])
        except Exception as e:  # noqa: BLE001 - an unreadable learner state, reported once
            raise TrainError(
                f"cannot resume {run}: the learner state {ckpt} cannot be loaded "
                f"({type(e).__name__}: {e})"
            ) from None
        state["config"] = cfg.to_dict()
    else:
        run.mkdir(parents=True, exist_ok=True)
        state = new_state(cfg)
        registry = PoolRegistry(window=cfg.snapshot_window)
        if cfg.init_policy:
            try:
                start = init_policy_path(cfg.init_policy)
                model.load_actor_numpy(
                    _load_init(start), new_prior=cfg.init_new_prior, critic=cfg.init_critic
                )
            except (CheckpointError, ValueError) as e:
                raise TrainError(f"init_policy {cfg.init_policy}: {e}") from None
            state["init_policy"] = cfg.init_policy
            state["init_checkpoint"] = str(start)
    progress = TrainProgress(
        cfg.progress, cfg.total_steps, int(state["step"]), "training (all seats)"
    )
    progress.__enter__()
    if not resume and cfg.bc_teacher:
        from types import SimpleNamespace

        from .train import _warm_start

        try:
            state["bc"] = _warm_start(SimpleNamespace(policy=_BCView(model)), cfg, progress)
        except BaseException:
            progress.__exit__(None, None, None)
            raise
    _atomic_json(run / "config.json", cfg.to_dict())

    step = int(state["step"])
    # wall-clock seconds of the run so far, warm start and evaluations included, summed over
    # resumed sessions (a killed session's time after its last state write is not counted)
    wall_before = float(state.get("wall_seconds", 0.0))

    def wall() -> float:
        return round(wall_before + time.perf_counter() - started, 1)

    writer = SummaryWriter(str(run / "tb" / "PPO_1"))
    board = tblog.EvalBoard(writer)  # the evaluation's per-bot sub-runs
    tblog.start_run(writer, cfg, state, step)
    rollout = Rollout(cfg, seed=cfg.seed * 1_000_003 + step)
    rng = np.random.default_rng(cfg.seed * 7919 + step)
    progress.training(step)

    def push_snapshots() -> None:
        act = registry.active()
        pols = {}
        for s in act:
            pols[s.id] = rollout.snapshots.get(s.id) or NumpyPolicy.load_npz(
                (run / s.path).with_suffix(".npz")
            )
        rollout.set_snapshots(pols, registry.weights(cfg.pfsp))

    written: set[Path] = set()  # checkpoints saved by this process (a killed run's are redone)

    def save(path: Path, kind: str) -> None:
        save_checkpoint(model, optimizer, path, cfg, step, {"kind": kind})
        written.add(path)

    def write_state_at(path: Path) -> None:
        state["step"] = step
        state["wall_seconds"] = wall()
        state["checkpoint"] = _rel(path, run)
        write_state(run, state)

    def evaluate_now(t_from: float) -> None:
        """Evaluate the weights at `step` (saved as a checkpoint) against the panel: its
        TensorBoard scalars, `best.*` and the state."""
        path = run / "checkpoints" / f"step_{step}.npz"
        if path not in written:
            save(path, "checkpoint")
        res = evaluate(path, cfg, step, run / "eval" / f"step_{step}.jsonl", progress)
        res["seconds"] = round(time.perf_counter() - t_from, 1)
        res["wall_seconds"] = wall()
        progress.eval_done(step, res, res["seconds"])
        board.write(res, cfg.eval_counts(), step)
        state.setdefault("evals", []).append(res)
        best = state.get("best")
        if best is None or res["score"] > best["score"]:
            copy_checkpoint(path, run / "best.npz")
            state["best"] = {
                "step": step,
                "mean_win_rate": res["mean_win_rate"],
                "score": res["score"],
                "checkpoint": _rel(path, run),
            }
        registry.save(run / "pool.json")
        write_state_at(path)

    def evaluated() -> bool:
        return any(e.get("step") == step for e in state.get("evals", ()))

    push_snapshots()
    try:
        if not evaluated():  # the start (before the first update): no training draw is used
            evaluate_now(time.perf_counter())
        while step < cfg.total_steps:
            t0 = time.perf_counter()
            rollout.stats["bot_seconds"] = 0.0
            kick = kickstart_weight(cfg, step)
            rollout.teaching = kick > 0
            trajs, games = rollout.collect(model, cfg.n_steps * cfg.n_envs)
            t1 = time.perf_counter()
            if not trajs:
                raise TrainError("a rollout produced no learner samples")
            buf = flatten(trajs)
            n = len(buf["actions"])
            model.train()
            warm = state.get("critic_warmup_done", 0) < cfg.critic_warmup
            upd = ppo_update(model, optimizer, buf, cfg, rng, policy=not warm, kickstart=kick)
            if warm:
                state["critic_warmup_done"] = state.get("critic_warmup_done", 0) + 1
            model.eval()
            t2 = time.perf_counter()
            step += n
            for g in games:
                for sid, score in g["vs"]:
                    registry.record(sid, score)
            invalid = int((~buf["masks"][np.arange(n), buf["actions"]]).sum())
            state["invalid_actions"] = state.get("invalid_actions", 0) + invalid
            finals = [t["final"] for t in trajs]
            log = {
                "rollout/ep_rew_mean": float(np.mean(finals)),
                "rollout/learner_win_rate": float(np.mean([g["learner_won"] for g in games])),
                "rollout/games": float(len(games)),
                "rollout/invalid_action_rate": invalid / n,
                "time/sps": n / max(t1 - t0, 1e-9),
                "time/update_sps": n / max(t2 - t1, 1e-9),
                "time/fps": n / max(t2 - t0, 1e-9),
                "time/opponent_share": rollout.stats["bot_seconds"] / max(t1 - t0, 1e-9),
                "selfplay/pool_size": float(len(registry.active()) + len(cfg.bots) + 1),
                "selfplay/snapshots": float(len(registry.snapshots)),
                **{f"train/{k}": v for k, v in upd.items()},
            }
            if cfg.kickstart_teacher:
                log["train/kickstart_coef"] = kick
                asked = buf["teacher"] >= 0
                if asked.any():  # how often the sampled action was the teacher's choice
                    agree = buf["teacher"][asked] == buf["actions"][asked]
                    log["rollout/teacher_agreement"] = float(agree.mean())
            for k, v in log.items():
                writer.add_scalar(k, v, step)
            if step >= state["next_snapshot"]:
                path = run / "snapshots" / f"step_{step}.npz"
                save(path, "snapshot")
                milestone = step // cfg.milestone_every > (step - n) // cfg.milestone_every
                registry.add(SnapshotInfo(f"step_{step}", _rel(path, run), step, milestone))
                registry.save(run / "pool.json")
                push_snapshots()
                state["next_snapshot"] = step + cfg.snapshot_every
            if step >= state["next_eval"]:
                evaluate_now(t2)
                state["next_eval"] = step + cfg.eval_every
            if step >= state["next_checkpoint"]:
                path = run / "checkpoints" / f"step_{step}.npz"
                if path not in written:
                    save(path, "checkpoint")
                registry.save(run / "pool.json")
                write_state_at(path)
                state["next_checkpoint"] = step + cfg.checkpoint_every
            if cfg.exploiter_every and step >= state.setdefault(
                "next_exploiter", cfg.exploiter_every
            ):
                progress.training(step, "training an exploiter")
                path = run / "checkpoints" / f"step_{step}.npz"
                if path not in written:
                    save(path, "checkpoint")
                info = train_exploiter(run, path, cfg, step, rollout.rng)
                state.setdefault("exploiters", []).append(info)
                if info["joined"]:
                    registry.add(
                        SnapshotInfo(
                            info["id"], info["checkpoint"], step, milestone=True, kind="exploiter"
                        )
                    )
                    push_snapshots()
                registry.save(run / "pool.json")
                write_state_at(path)
                state["next_exploiter"] = step + cfg.exploiter_every
            writer.flush()
            best = state.get("best")
            progress.training(step, f"best {best['mean_win_rate']:.2f}" if best else "")
        if not evaluated():  # the end of the run
            evaluate_now(time.perf_counter())
        final = run / "checkpoints" / f"step_{step}.npz"
        if final not in written and not (resume and _rel(final, run) == state["checkpoint"]):
            save(final, "checkpoint")
        registry.save(run / "pool.json")
        write_state_at(final)
    finally:
        board.close()
        writer.close()
        progress.__exit__(None, None, None)
    return state


def train_exploiter(run: Path, main: Path, cfg: TrainConfig, step: int, rng) -> dict[str, Any]:
    """A main exploiter (AlphaStar's league, in small): a best response to the current policy
    `main`, started from its weights, trained only against it; it joins the pool when its win
    rate against `main` on fresh deals is above chance."""
    from .exploit import exploit

    n = draw_player_count(rng, cfg)
    ex_id = f"exploiter_{step}_{n}p"
    rep = exploit(
        f"ppo:{main}",
        n,
        cfg.exploiter_steps,
        run / "exploiters" / ex_id,
        seed=cfg.seed + step,
        eval_games=cfg.exploiter_games,
        train_eval_games=max(cfg.exploiter_games // 4, 8),
        panel=[],
        progress=False,
        overrides={
            "n_games": cfg.n_games,
            "n_steps": cfg.n_steps,
            "n_envs": cfg.n_envs,
            "batch_size": cfg.batch_size,
            "n_epochs": cfg.n_epochs,
            "learning_rate": cfg.learning_rate,
            "ent_coef": cfg.ent_coef,
            "torch_threads": cfg.torch_threads,
        },
    )
    br = rep["best_response"]
    final = Path(br["checkpoint"])
    return {
        "id": ex_id,
        "step": step,
        "num_players": n,
        "win_rate": br["win_rate"],
        "wilson_95": br["wilson_95"],
        "chance": br["chance"],
        "joined": (br["win_rate"] or 0.0) > br["chance"] + cfg.exploiter_gate,
        "checkpoint": _rel(final, run),
    }


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


def _load_init(path: Path) -> NumpyPolicy:
    from agents.policy import load_policy

    return load_policy(path)[0]


class _BCView:
    """What `training.bc.pretrain` needs of a policy, over the all-seat network."""

    def __init__(self, model) -> None:
        self.model = model

    def parameters(self):
        return self.model.parameters()

    def _batch(self, obs):
        from .allseat import sparse_batch

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

        class _D:
            def __init__(self, lg):
                self.distribution = torch.distributions.Categorical(logits=lg)

            def log_prob(self, a):
                return self.distribution.log_prob(a)

        return _D(logits)
