"""The all-seat training loop (`mode = "all_seat"`): rollout, masked PPO update, pool,
evaluation, checkpoints and resume, with the same run directory, checkpoint files, TensorBoard
tags and `state.json` schedule as the single-seat SB3 path (`training.train`).

A checkpoint is `step_N.npz` (the actor as dense arrays, what `ppo:PATH` plays) with its JSON
sidecar `step_N.json` and `step_N.pt` (actor, critic and optimiser state, what `--resume` needs).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np

from agents.policy import (
    CheckpointError,
    NumpyPolicy,
    check_compatible,
    env_signature,
    read_sidecar,
)

from .allseat import Rollout, build_model, flatten, make_optimizer, ppo_update
from .config import TrainConfig
from .pool import PoolRegistry, SnapshotInfo

SUFFIXES = (".npz", ".json", ".pt")


def _atomic_json(path: Path, data: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1))
    tmp.replace(path)


def _rel(path: Path, run: Path) -> str:
    return str(path.relative_to(run))


def save_checkpoint(model, optimizer, path: Path, cfg: TrainConfig, step: int, extra=None):
    """`path` (.npz) + `.pt` learner state + `.json` sidecar; the sidecar is renamed last, so
    a checkpoint whose sidecar exists is whole."""
    import torch

    path = path.with_suffix(".npz")
    path.parent.mkdir(parents=True, exist_ok=True)
    pt_tmp = path.with_name(path.stem + ".tmp.pt")
    torch.save(
        {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step}, pt_tmp
    )
    model.actor_numpy().save_npz(path)
    pt_tmp.replace(path.with_suffix(".pt"))
    meta = {
        **env_signature(),
        "step": step,
        "seed": cfg.seed,
        "learner": "all_seat",
        "config": cfg.to_dict(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        **(extra or {}),
    }
    _atomic_json(path.with_suffix(".json"), meta)
    return path


def copy_checkpoint(src: Path, dst: Path) -> None:
    """Copy a checkpoint's files; the sidecar goes last."""
    for suffix in (".npz", ".pt", ".json"):
        s = src.with_suffix(suffix)
        if s.exists():
            tmp = dst.with_name(dst.stem + ".tmp" + suffix)
            shutil.copyfile(s, tmp)
            tmp.replace(dst.with_suffix(suffix))


def _layout(cfg: TrainConfig) -> dict[str, Any]:
    bots = list(cfg.eval_bots)
    counts = cfg.eval_counts()
    if len(counts) > 1:
        return {
            "eval": {
                f"{n}p win rate vs bots": [
                    "Multiline",
                    [f"eval/{n}p/vs_{b}/win_rate$" for b in bots],
                ]
                for n in counts
            }
        }
    return {
        "eval": {
            "win rate vs bots": ["Multiline", [f"eval/vs_{b}/win_rate$" for b in bots]],
            "mean rank vs bots": ["Multiline", [f"eval/vs_{b}/mean_rank$" for b in bots]],
            "win rate with 95% interval": [
                "Margin",
                [
                    f"eval/vs_{bots[0]}/win_rate",
                    f"eval/vs_{bots[0]}/win_rate_lo",
                    f"eval/vs_{bots[0]}/win_rate_hi",
                ],
            ],
        }
    }


def train_all_seat(cfg: TrainConfig, resume: bool = False) -> dict[str, Any]:
    """Run (or with `resume` continue) an all-seat run in `cfg.run_dir`; returns state.json."""
    import torch
    from torch.utils.tensorboard import SummaryWriter

    from .train import TrainError, eval_scalars, evaluate

    torch.set_num_threads(cfg.torch_threads or os.cpu_count() or 1)
    torch.set_flush_denormal(True)
    run = Path(cfg.run_dir)
    state_file = run / "state.json"
    model = build_model(cfg, cfg.seed)
    optimizer = make_optimizer(model, cfg)
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
        saved = torch.load(ckpt.with_suffix(".pt"), weights_only=False)
        model.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        state["config"] = cfg.to_dict()
        registry = (
            PoolRegistry.load(run / "pool.json")
            if (run / "pool.json").exists()
            else PoolRegistry(window=cfg.snapshot_window)
        )
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
        if cfg.init_policy:
            try:
                model.load_actor_numpy(_load_init(cfg.init_policy))
            except (CheckpointError, ValueError) as e:
                raise TrainError(f"init_policy {cfg.init_policy}: {e}") from None
            state["init_policy"] = cfg.init_policy
        if cfg.bc_teacher:
            from types import SimpleNamespace

            from .bc import collect, pretrain

            t0 = time.perf_counter()
            data = collect(cfg, cfg.bc_games, cfg.seed)
            fit = pretrain(SimpleNamespace(policy=_BCView(model)), data, cfg.bc_epochs, cfg.seed)
            state["bc"] = {
                "teacher": cfg.bc_teacher,
                **fit,
                "seconds": round(time.perf_counter() - t0, 1),
            }
            del data
    _atomic_json(run / "config.json", cfg.to_dict())

    step = int(state["step"])
    writer = SummaryWriter(str(run / "tb" / "PPO_1"))
    if not resume:
        writer.add_custom_scalars(_layout(cfg))
    rollout = Rollout(cfg, seed=cfg.seed * 1_000_003 + step)
    rng = np.random.default_rng(cfg.seed * 7919 + step)
    progress = _Progress(cfg, step)

    def push_snapshots() -> None:
        act = registry.active()
        pols = {}
        for s in act:
            pols[s.id] = rollout.snapshots.get(s.id) or NumpyPolicy.load_npz(
                (run / s.path).with_suffix(".npz")
            )
        rollout.set_snapshots(pols, registry.weights(cfg.pfsp))

    def write_state(path: Path) -> None:
        state["step"] = step
        state["checkpoint"] = _rel(path, run)
        _atomic_json(state_file, state)

    push_snapshots()
    try:
        while step < cfg.total_steps:
            t0 = time.perf_counter()
            rollout.stats["bot_seconds"] = 0.0
            trajs, games = rollout.collect(model, cfg.n_steps * cfg.n_envs)
            t1 = time.perf_counter()
            if not trajs:
                raise TrainError("a rollout produced no learner samples")
            buf = flatten(trajs)
            n = len(buf["actions"])
            model.train()
            warm = state.get("critic_warmup_done", 0) < cfg.critic_warmup
            upd = ppo_update(model, optimizer, buf, cfg, rng, policy=not warm)
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
            for k, v in log.items():
                writer.add_scalar(k, v, step)
            if step >= state["next_snapshot"]:
                path = run / "snapshots" / f"step_{step}.npz"
                save_checkpoint(model, optimizer, path, cfg, step, {"kind": "snapshot"})
                milestone = step // cfg.milestone_every > (step - n) // cfg.milestone_every
                registry.add(SnapshotInfo(f"step_{step}", _rel(path, run), step, milestone))
                registry.save(run / "pool.json")
                push_snapshots()
                state["next_snapshot"] = step + cfg.snapshot_every
            if step >= state["next_eval"]:
                path = run / "checkpoints" / f"step_{step}.npz"
                save_checkpoint(model, optimizer, path, cfg, step, {"kind": "checkpoint"})
                progress.note(step, "evaluating")
                res = evaluate(path, cfg, step, run / "eval" / f"step_{step}.jsonl")
                for tag, value in eval_scalars(res, cfg).items():
                    writer.add_scalar(tag, value, step)
                res["seconds"] = round(time.perf_counter() - t2, 1)
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
                write_state(path)
                state["next_eval"] = step + cfg.eval_every
            if step >= state["next_checkpoint"]:
                path = run / "checkpoints" / f"step_{step}.npz"
                if not path.exists():
                    save_checkpoint(model, optimizer, path, cfg, step, {"kind": "checkpoint"})
                registry.save(run / "pool.json")
                write_state(path)
                state["next_checkpoint"] = step + cfg.checkpoint_every
            if cfg.exploiter_every and step >= state.setdefault(
                "next_exploiter", cfg.exploiter_every
            ):
                progress.note(step, "training an exploiter")
                path = run / "checkpoints" / f"step_{step}.npz"
                if not path.exists():
                    save_checkpoint(model, optimizer, path, cfg, step, {"kind": "checkpoint"})
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
                write_state(path)
                state["next_exploiter"] = step + cfg.exploiter_every
            writer.flush()
            progress.update(step, state)
        final = run / "checkpoints" / f"step_{step}.npz"
        if not final.exists():
            save_checkpoint(model, optimizer, final, cfg, step, {"kind": "checkpoint"})
        registry.save(run / "pool.json")
        write_state(final)
    finally:
        writer.close()
        progress.stop()
    return state


def train_exploiter(run: Path, main: Path, cfg: TrainConfig, step: int, rng) -> dict[str, Any]:
    """A main exploiter (AlphaStar's league, in small): a best response to the current policy
    `main`, started from its weights, trained only against it; it joins the pool when its win
    rate against `main` on fresh deals is above chance."""
    from .exploit import exploit

    n = rng.choices(cfg.num_players, weights=cfg.player_weights)[0]
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


def _load_init(path: str) -> NumpyPolicy:
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


class _Progress:
    def __init__(self, cfg: TrainConfig, step: int) -> None:
        self.bar = None
        if not cfg.progress:
            return
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        self.bar = Progress(
            TextColumn("training (all seats)"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            TextColumn("{task.fields[note]}"),
        )
        self.bar.start()
        self.task = self.bar.add_task("train", total=cfg.total_steps, completed=step, note="")

    def note(self, step: int, text: str) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=step, note=text)

    def update(self, step: int, state: dict[str, Any]) -> None:
        if self.bar is not None:
            best = state.get("best")
            note = f"best {best['mean_win_rate']:.2f}" if best else ""
            self.bar.update(self.task, completed=step, note=note)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
