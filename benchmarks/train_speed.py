"""Learner samples per second of the two training modes, in one run on the same machine.

(a) `single_seat`: the existing recipe, sb3-contrib MaskablePPO on the self-play single-seat env
    (one in-process env, the faster layout on 2 cores: README "Training"), one learner seat per
    game, opponents from the pool (bots, latest weights and snapshots as numpy policies).
(b) `all_seat`: `training.allseat`, every seat the current policy plays learns, `n_games` games
    stepped together with batched inference, the compact masked PPO.

Both use the same network (actor and critic MLPs `--net`, tanh), the same PPO epochs and
minibatch size, the same pool mix (`p_latest`, `p_bots_min`, the default bots, shaping 1.0) and
the same player count. Each measurement runs in a fresh process for `--seconds` of wall time
(rollout and update included; only whole iterations count), the two modes alternate, and each
figure is the median over `--repeat` runs. Samples are learner decisions that enter a PPO update.

    python benchmarks/train_speed.py --players 4 --seconds 60 --repeat 3 --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from lastwill_env.engine.config import PLAYER_COUNTS

ROOT = Path(__file__).resolve().parent.parent
# numpy's BLAS runs the batch-1 opponent forward passes of (a) and the frozen snapshots of (b):
# one thread each, as in an env worker process (a second BLAS thread only spins on 2 cores)
BLAS_ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


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
    runs: dict[str, list[dict]] = {"single_seat": [], "all_seat": []}
    passthrough = _drop_repeat(sys.argv[1:])
    for r in range(args.repeat):
        for mode in ("single_seat", "all_seat"):
            out = subprocess.run(
                [sys.executable, "-m", "training.speed", mode, *passthrough],
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
