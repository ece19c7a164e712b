"""One timed training measurement, run by `benchmarks/train_speed.py` in a fresh process:
`python -m training.speed MODE [options]` prints one JSON line (samples, iterations, seconds,
overall / rollout / update samples per second). MODE is `single_seat` (sb3-contrib
MaskablePPO on the self-play single-seat env) or `all_seat` (`training.allseat`).
"""

from __future__ import annotations

import argparse
import json
import time

from lastwill_env.engine.config import PLAYER_COUNTS


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

    from .config import TrainConfig
    from .selfplay_env import make_env_fn

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

    from .allseat import Rollout, build_model, flatten, make_optimizer, ppo_update
    from .config import TrainConfig

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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=("single_seat", "all_seat"))
    ap.add_argument("--players", type=int, default=4, choices=PLAYER_COUNTS)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--net", type=int, default=128)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--rollout", type=int, default=2048)
    ap.add_argument("--rollout-all", type=int, default=16384)
    ap.add_argument("--games", type=int, default=64)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    res = run_single_seat(args) if args.mode == "single_seat" else run_all_seat(args)
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
