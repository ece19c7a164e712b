"""Does self-play cycle? A league table of one run's checkpoints, played against each other.

    python -m labreports.checkpoint_league --game money --players 3 --games 300 --seed 7 \\
        --json runs/train/money/checkpoints/step_1028892.npz ...

Every group of ``--players`` distinct checkpoints plays one arena tournament (`lastwill arena`:
seat rotations, paired deals of ``--deals``, validation by default), ``--games`` games each.
From all the games together: each checkpoint's rating (`agents.stats.fit_ratings`, one
Plackett-Luce fit, Elo scale, the first checkpoint pinned at 0) and, for every pair, the paired
difference in win rate on the deals where both sat (`agents.stats.paired_comparison`). Self-play
that cycles shows as a later checkpoint losing to an earlier one, or a loop A > B > C > A among
the pairs whose intervals exclude 0; steady progress as ratings that rise with the step. Prints
ONE JSON object: ``game``, ``players``, ``checkpoints`` (spec and step), ``ratings``,
``pairs`` and ``cycles`` (each loop of three whose three differences all clear 0).
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
from pathlib import Path

from agents.arena import run_tournament
from agents.stats import fit_ratings, paired_comparison
from gamecore import DEFAULT_GAME, game_names, load_game


def step_of(path: str) -> int | None:
    found = re.findall(r"(\d+)", Path(path).stem)
    return int(found[-1]) if found else None


def play(specs: list[str], args) -> list[dict]:
    game = load_game(args.game)
    rows: list[dict] = []
    for group in itertools.combinations(specs, args.players):
        res = run_tournament(
            list(group),
            game.make_config(args.players),
            args.games,
            seed=args.seed,
            deals=args.deals,
            workers=args.workers,
            game_name=game.name,
            trusted=True,
        )
        offset = len(rows)
        rows += [{**r, "game": offset + r["game"]} for r in res.rows]
    return rows


def cycles(pairs: list[dict], specs: list[str]) -> list[list[str]]:
    """Loops a > b > c > a among the pairs whose interval excludes 0."""
    beats = {
        (p["better"], p["b"] if p["better"] == p["a"] else p["a"]) for p in pairs if p["better"]
    }
    return [
        [a, b, c]
        for a, b, c in itertools.permutations(specs, 3)
        if a == min(a, b, c) and {(a, b), (b, c), (c, a)} <= beats
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkpoints", nargs="+", help="policy files (.npz) of one run, in order")
    ap.add_argument("--game", default=DEFAULT_GAME, choices=game_names())
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--games", type=int, default=300, help="games per group")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--deals", default="validation", choices=("validation", "test"))
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    if len(args.checkpoints) < args.players:
        ap.error(f"give at least {args.players} checkpoints for {args.players}-player tables")
    specs = [f"ppo:{p}@step_{step_of(p)}" for p in args.checkpoints]
    rows = play(specs, args)
    pairs = [
        paired_comparison(rows, a, b, seed=args.seed) for a, b in itertools.combinations(specs, 2)
    ]
    out = {
        "game": args.game,
        "players": args.players,
        "games_per_group": args.games,
        "seed": args.seed,
        "deals": args.deals,
        "checkpoints": [
            {"spec": s, "step": step_of(p)} for s, p in zip(specs, args.checkpoints, strict=True)
        ],
        "ratings": fit_ratings(rows, anchor=specs[0], seed=args.seed),
        "pairs": [
            {k: p[k] for k in ("a", "b", "diff", "ci_lo", "ci_hi", "better", "deals")}
            for p in pairs
        ],
        "cycles": cycles(pairs, specs),
    }
    print(json.dumps(out) if args.json else json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
