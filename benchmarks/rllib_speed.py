"""Training throughput: the lab's trainer (`lastwill train`, sb3) beside the RLlib backend
(`lastwill train --mode rllib`), same PPO settings, on this machine.

    python benchmarks/rllib_speed.py --steps 40960 --repeat 3 --runners 0,1 --json

Each run is a fresh `lastwill train` in a temporary run directory with the reference network
(128x128 tanh), 4096 samples per PPO update (minibatch 1024, 4 epochs) and the reference game
mix (2/3/4/5 players weighted 1/1/3/1); no warm start, no evaluation, no snapshots. Figures:

- sb3: TensorBoard `time/fps` at the end (learner steps per second since the start of
  learning, PPO updates included) and the mean `time/sps` (rollout only). Only the learner's
  decisions are samples; the opponents (50% scripted bots, 50% the latest weights) decide too.
- rllib: env steps per second of `algo.train()` (sampling and PPO updates) from `state.json`,
  and the mean rollout samples/s of `progress.jsonl`. Every decision of every seat is a sample
  (one shared policy plays all seats); `--runners` lists the EnvRunner counts to try.

Medians over `--repeat` runs. Needs the `ray` extra for the rllib runs.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMON = """
n_envs = 1
vec_env = "dummy"
num_players = [2, 3, 4, 5]
player_weights = [1.0, 1.0, 3.0, 1.0]
n_steps = 4096
batch_size = 1024
n_epochs = 4
net_arch = [128, 128]
learning_rate = 0.0003
gamma = 0.995
ent_coef = 0.01
eval_every = 100_000_000
checkpoint_every = 100_000_000
snapshot_every = 100_000_000
progress = false
"""
SB3 = """
mode = "single_seat"
p_latest = 0.5
p_bots_min = 0.5
bots = ["greedy", "speculator", "planner", "combiner", "random"]
"""


def _lastwill() -> str:
    exe = Path(sys.executable).parent / "lastwill"
    return str(exe) if exe.exists() else "lastwill"


def _tb_scalars(run: Path, tag: str) -> list[float]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    out: list[float] = []
    for events in sorted(run.glob("tb/**/events.out.tfevents.*")):
        acc = EventAccumulator(str(events))
        acc.Reload()
        if tag in acc.Tags().get("scalars", []):
            out.extend(e.value for e in acc.Scalars(tag))
    return out


def run_once(backend: str, steps: int, runners: int, workdir: Path) -> dict[str, float]:
    run = workdir / f"{backend}_{runners}_{time.monotonic_ns()}"
    cfg = workdir / f"{run.name}.toml"
    text = f"[train]\ntotal_steps = {steps}\n{COMMON}"
    cmd = [_lastwill(), "train", "--config", str(cfg), "--run-dir", str(run)]
    if backend == "sb3":
        text += SB3
    else:
        text += f"\n[rllib]\nenv_runners = {runners}\n"
        cmd += ["--mode", "rllib"]
    cfg.write_text(text)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
    if backend == "sb3":
        fps = _tb_scalars(run, "time/fps")
        sps = _tb_scalars(run, "time/sps")
        res = {"overall": fps[-1], "rollout": statistics.mean(sps), "wall_s": wall}
    else:
        state = json.loads((run / "state.json").read_text())
        lines = [json.loads(x) for x in (run / "progress.jsonl").read_text().splitlines()]
        rollout = [x["rollout_sps"] for x in lines if x.get("rollout_sps")]
        res = {
            "overall": state["samples_per_s"],
            "rollout": statistics.mean(rollout),
            "wall_s": wall,
        }
    shutil.rmtree(run, ignore_errors=True)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--steps", type=int, default=40960, help="samples per run")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--runners", default="0,1", help="RLlib EnvRunner counts, comma-separated")
    ap.add_argument("--skip-sb3", action="store_true")
    ap.add_argument("--skip-rllib", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    plans = [] if args.skip_sb3 else [("sb3", 0)]
    if not args.skip_rllib:
        plans += [("rllib", int(r)) for r in args.runners.split(",") if r.strip()]
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="rllib_speed_") as tmp:
        for backend, runners in plans:
            runs = [run_once(backend, args.steps, runners, Path(tmp)) for _ in range(args.repeat)]
            name = "sb3" if backend == "sb3" else f"rllib, {runners} env runners"
            results[name] = {
                k: round(statistics.median(r[k] for r in runs), 1) for k in runs[0]
            } | {"runs": len(runs)}
            if not args.json:
                print(f"{name}: {results[name]}", flush=True)
    if args.json:
        print(json.dumps({"steps": args.steps, "results": results}, indent=1))


if __name__ == "__main__":
    main()
