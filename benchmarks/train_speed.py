"""Learner samples per second of the two training modes, in one run on the same machine.

(a) `single_seat`: the existing recipe, sb3-contrib MaskablePPO on the self-play single-seat env
    (one in-process env, the faster layout on 2 cores: docs/TRAINING.md), one learner seat per
    game, opponents from the pool (bots, latest weights and snapshots as numpy policies).
(b) `all_seat`: `training.allseat`, every seat the current policy plays learns, `n_games` games
    stepped together with batched inference, the compact masked PPO.

Both use the same network (actor and critic MLPs `--net`, tanh), the same PPO epochs and
minibatch size, the same pool mix (`p_latest`, `p_bots_min`, the default bots, shaping 1.0) and
the same player count. Each measurement runs in a fresh process for `--seconds` of wall time
(rollout and update included; only whole iterations count), the two modes alternate, and each
figure is the median over `--repeat` runs. Samples are learner decisions that enter a PPO update.

    python benchmarks/train_speed.py --players 4 --seconds 60 --repeat 3 --json

`--one MODE` makes one measurement in this process and prints it as one JSON line (samples,
iterations, seconds, overall / rollout / update samples per second): the child that each run
starts.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from lastwill_env import sparse
from lastwill_env.engine.config import PLAYER_COUNTS
from lastwill_env.engine.view import VIEW

ROOT = Path(__file__).resolve().parent.parent

MODES = ("single_seat", "all_seat")
# numpy's BLAS runs the batch-1 opponent forward passes of (a) and the frozen snapshots of (b):
# one thread each, as in an env worker process (a second BLAS thread only spins on 2 cores)
BLAS_ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _common(args) -> dict:
    return {
        "num_players": [args.players],
        "player_weights": [1.0],
        "net_arch": [args.net, args.net],
        "n_epochs": 4,
        "batch_size": args.batch,
        "shaping": 1.0,
        "p_latest": 0.3,
        "p_bots_min": 0.5,
        "progress": False,
        "seed": args.seed,
    }


def run_single_seat(args) -> dict:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv

    from agents.policy import NumpyPolicy
    from training.config import TrainConfig
    from training.selfplay_env import make_env_fn

    torch.set_num_threads(1)
    cfg = TrainConfig(n_envs=1, vec_env="dummy", n_steps=args.rollout, **_common(args))
    vec = DummyVecEnv([make_env_fn(cfg, 0)])
    vec.seed(args.seed)
    model = MaskablePPO(
        "MlpPolicy",
        vec,
        n_steps=cfg.n_steps,
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        policy_kwargs={"net_arch": {"pi": cfg.net_arch, "vf": cfg.net_arch}},
        seed=args.seed,
        device="cpu",
        verbose=0,
    )
    times = {"rollout": 0.0, "update": 0.0, "iters": 0}
    t_start = time.perf_counter()

    class Clock(BaseCallback):
        def __init__(self):
            super().__init__()
            self.t = None
            self.end = None

        def _on_rollout_start(self):
            now = time.perf_counter()
            if self.end is not None:  # the update that followed the last rollout
                times["update"] += now - self.end
                times["iters"] += 1
                times["wall"] = now - t_start
            self.t = now
            self.training_env.env_method("set_latest", NumpyPolicy.from_sb3(self.model).state())

        def _on_rollout_end(self):
            self.end = time.perf_counter()
            times["rollout"] += self.end - self.t

        def _on_step(self):
            return not (times["iters"] >= 1 and time.perf_counter() - t_start > args.seconds)

    model.learn(10**9, callback=Clock())
    n = times["iters"] * cfg.n_steps
    # whole iterations only: the rollout cut short at the end is not counted
    rollout = times["wall"] - times["update"]
    return _report("single_seat", n, times["wall"], rollout, times["update"], times["iters"])


def run_all_seat(args) -> dict:
    import numpy as np
    import torch

    from training.allseat import Rollout, build_model, flatten, make_optimizer, ppo_update
    from training.config import TrainConfig

    torch.set_num_threads(args.threads)
    torch.set_flush_denormal(True)
    cfg = TrainConfig(
        mode="all_seat", n_envs=1, n_steps=args.rollout_all, n_games=args.games, **_common(args)
    )
    model = build_model(cfg, args.seed)
    model.eval()
    opt = make_optimizer(model, cfg)
    roll = Rollout(cfg, args.seed)
    rng = np.random.default_rng(args.seed)
    t_start = time.perf_counter()
    n = iters = 0
    t_roll = t_upd = 0.0
    while True:
        t0 = time.perf_counter()
        trajs, _ = roll.collect(model, cfg.n_steps)
        t1 = time.perf_counter()
        buf = flatten(trajs)
        model.train()
        ppo_update(model, opt, buf, cfg, rng)
        model.eval()
        t2 = time.perf_counter()
        n += len(buf["actions"])
        iters += 1
        t_roll += t1 - t0
        t_upd += t2 - t1
        if t2 - t_start > args.seconds:
            break
    return _report("all_seat", n, time.perf_counter() - t_start, t_roll, t_upd, iters)


def _bag_grad_kernel() -> str:
    """Which first-layer gradient the all-seat mode ran with (training.allseat.firstlayer)."""
    from training.allseat import firstlayer

    return firstlayer.KERNEL


def _report(mode: str, n: int, wall: float, rollout: float, update: float, iters: int) -> dict:
    return {
        "mode": mode,
        "samples": n,
        "iterations": iters,
        "seconds": round(wall, 2),
        "overall_sps": round(n / wall, 1),
        "rollout_sps": round(n / rollout, 1) if rollout else None,
        "update_sps": round(n / update, 1) if update else None,
    }


def _drop_repeat(argv: list[str]) -> list[str]:
    """The options the child takes: all but --json and --repeat (with its value)."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a == "--json":
            continue
        if a == "--repeat":
            skip = True
            continue
        if a.startswith("--repeat="):
            continue
        out.append(a)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--one", choices=MODES, help="make one measurement here, print it as JSON")
    ap.add_argument("--players", type=int, default=4, choices=PLAYER_COUNTS)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--net", type=int, default=128)
    ap.add_argument("--batch", type=int, default=1024, help="PPO minibatch (both modes)")
    ap.add_argument("--rollout", type=int, default=2048, help="single_seat: samples per update")
    ap.add_argument("--rollout-all", type=int, default=16384, help="all_seat: samples/update")
    ap.add_argument("--games", type=int, default=64, help="all_seat: games stepped together")
    ap.add_argument("--threads", type=int, default=1, help="all_seat: torch threads")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print one JSON line")
    args = ap.parse_args()
    if args.one:
        res = run_single_seat(args) if args.one == "single_seat" else run_all_seat(args)
        print(json.dumps(res))
        return 0
    runs: dict[str, list[dict]] = {mode: [] for mode in MODES}
    passthrough = _drop_repeat(sys.argv[1:])
    for r in range(args.repeat):
        for mode in MODES:
            out = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), "--one", mode, *passthrough],
                capture_output=True,
                text=True,
                cwd=ROOT,
                check=False,
                env={**os.environ, **BLAS_ONE_THREAD},
            )
            if out.returncode != 0:
                print(out.stderr, file=sys.stderr)
                return out.returncode
            res = json.loads(out.stdout.strip().splitlines()[-1])
            runs[mode].append(res)
            if not args.json:
                print(f"run {r + 1} {mode}: {res}", file=sys.stderr)

    def med(mode: str, key: str):
        vals = [x[key] for x in runs[mode] if x[key] is not None]
        return statistics.median(vals) if vals else None

    summary = {
        "players": args.players,
        "seconds": args.seconds,
        "repeat": args.repeat,
        "net": [args.net, args.net],
        "writer": sparse.WRITER,
        "bag_grad": _bag_grad_kernel(),
        "view": VIEW,
        **{
            mode: {k: med(mode, k) for k in ("overall_sps", "rollout_sps", "update_sps")}
            for mode in runs
        },
    }
    summary["ratio_overall"] = round(
        summary["all_seat"]["overall_sps"] / summary["single_seat"]["overall_sps"], 2
    )
    summary["runs"] = runs
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
