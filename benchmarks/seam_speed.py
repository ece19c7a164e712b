"""Speed of two trees of the lab, side by side in one run: the env, the all-seat rollout and the
arena, each timed by the lab's own benchmark scripts in a fresh process per measurement.

A change that should cost nothing (the game seam: the harness calling the rules through a
`gamecore.Game` object) is measured against the commit before it. ``--before REV`` checks that
commit out into a temporary git worktree (removed at the end); the current tree is "after".
The old tree's compiled modules are built in place first, so each tree runs its own. Each round
times, for each tree in turn (before first, then after, alternating the order every
round so drift on a noisy machine falls on both):

- ``env``: ``benchmarks/env_speed.py --no-peer`` (the wrapped PettingZoo env's steps per second,
  random legal play, ``--players``);
- ``rollout``: ``benchmarks/train_speed.py --one all_seat`` (the all-seat trainer's rollout
  samples per second, one torch thread);
- ``arena``: ``benchmarks/arena_speed.py`` (its in-process tournament of random players,
  ``arena_1``, decisions per second).

The figures are medians over ``--repeat`` rounds and ``ratio`` is after / before (1.0: the same
speed; the issue's bound is 0.97). Prints one JSON line (``--json PATH`` also writes it)::

    python benchmarks/seam_speed.py --before HEAD~1 --repeat 5 --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(tree: Path, argv: list[str]) -> dict:
    """One measurement: a benchmark script of ``tree`` run with ``tree`` first on the path."""
    env = {**os.environ, "PYTHONPATH": str(tree), "OPENBLAS_NUM_THREADS": "1"}
    out = subprocess.run(
        [sys.executable, *argv], cwd=tree, env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _measures(args) -> dict[str, tuple[list[str], tuple[str, ...]]]:
    """Each measure's command line and the keys of its figure in the script's JSON line."""
    n, s = str(args.players), str(args.seconds)
    return {
        "env": (
            ["benchmarks/env_speed.py", "--players", n, "--seconds", s, "--no-peer"],
            ("steps_per_s",),
        ),
        "rollout": (
            ["benchmarks/train_speed.py", "--one", "all_seat", "--players", n, "--seconds", s],
            ("rollout_sps",),
        ),
        "arena": (
            # --workers 2: an older arena_speed.py lost its in-process figure with 1 worker
            [
                "benchmarks/arena_speed.py",
                "--workers",
                "2",
                "--games",
                "200",
                "--players",
                n,
                "--json",
            ],
            ("arena_1", "decisions_per_s"),
        ),
    }


def measure(before: Path, after: Path, args) -> dict:
    runs: dict[str, dict[str, list[float]]] = {}
    for r in range(args.repeat):
        order = [("before", before), ("after", after)]
        for name, (argv, keys) in _measures(args).items():
            for label, tree in order if r % 2 == 0 else order[::-1]:
                value = _run(tree, argv)
                for key in keys:
                    value = value[key]
                value = float(value)
                runs.setdefault(name, {}).setdefault(label, []).append(value)
                print(f"round {r + 1} {name} {label}: {value:,.1f}", file=sys.stderr)
    out = {}
    for name, by in runs.items():
        b, a = statistics.median(by["before"]), statistics.median(by["after"])
        out[name] = {"before": b, "after": a, "ratio": a / b, "runs": by}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="the git revision to compare against")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", nargs="?", const="-", help="also write the JSON line to PATH")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        before = Path(tmp) / "before"
        subprocess.run(
            ["git", "worktree", "add", "-q", "--detach", str(before), args.before],
            cwd=ROOT,
            check=True,
        )
        try:  # the old tree's own compiled modules, built in place (a C compiler is needed)
            subprocess.run(
                [sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
                cwd=before,
                check=True,
                capture_output=True,
            )
            figures = measure(before, ROOT, args)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT)
    rev = subprocess.run(
        ["git", "rev-parse", "--short", args.before], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    line = json.dumps({"before": rev, "players": args.players, "repeat": args.repeat, **figures})
    print(line)
    if args.json and args.json != "-":
        Path(args.json).write_text(line + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
