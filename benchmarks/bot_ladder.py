"""Bot ladder through the arena harness (paired deals, seats rotated, Wilson 95% intervals).

    python benchmarks/bot_ladder.py [--games 400] [--players 4] [--workers 2] [--json]
        [--bots greedy,speculator,planner,combiner,racer]
        [--extra ppo:agents/policies/reference.npz] [--only-extra] [--skip-random]
        [--mixed SPEC,SPEC,...] [--ratings]

Tables: each bot (and each `--extra` entrant) against `players - 1` random players; each against
`players - 1` copies of every other bot; one mixed table of the bots (the first `players` of
them) and each `--mixed` table. `--only-extra` keeps the tables of the `--extra` entrants (and
the `--mixed` ones). Prints one line per table: the first entrant's win rate, Wilson interval,
mean rank (with `--json`, one JSON object per table); `--ratings` adds OpenSkill Plackett-Luce
ratings over the mixed tables' games.
"""

from __future__ import annotations

import argparse
import json
import sys
from multiprocessing import get_context
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.arena import Schedule, run_task  # noqa: E402
from agents.stats import summarize  # noqa: E402
from lastwill_env.engine import GameConfig  # noqa: E402


def table(entrants: tuple[str, ...], games: int, seed: int, pool, keep=None) -> dict:
    sched = Schedule(entrants=entrants, config=GameConfig(num_players=len(entrants)), seed=seed)
    tasks = sched.tasks(games)
    rows = pool.map(run_task, tasks) if pool is not None else [run_task(t) for t in tasks]
    if keep is not None:
        keep.extend(rows)
    out = {e["spec"]: e for e in summarize(rows)}
    head = out[entrants[0]]
    return {
        "table": list(entrants),
        "spec": entrants[0],
        "games": head["games"],
        "win_rate": head["win_rate"],
        "ci_lo": head["ci_lo"],
        "ci_hi": head["ci_hi"],
        "chance": head["chance"],
        "mean_rank": head["mean_rank"],
        "errors": sum(e["errors"] for e in out.values()),
        "all": {k: (v["win_rate"], v["ci_lo"], v["ci_hi"], v["mean_rank"]) for k, v in out.items()},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--players", type=int, default=4, choices=range(2, 6))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bots", default="greedy,speculator,planner,combiner,racer")
    ap.add_argument("--extra", action="append", default=[], help="more entrants (e.g. ppo:PATH)")
    ap.add_argument("--skip-random", action="store_true", help="no tables against random")
    ap.add_argument("--only-extra", action="store_true", help="only the --extra entrants' tables")
    ap.add_argument("--mixed", action="append", default=[], help="a mixed table: SPEC,SPEC,...")
    ap.add_argument("--ratings", action="store_true", help="OpenSkill over the mixed tables")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    bots = [b for b in args.bots.split(",") if b]
    n = args.players
    tables: list[tuple[str, ...]] = []
    for me in args.extra if args.only_extra else [*args.extra, *bots]:
        if not args.skip_random:
            tables.append((me, *["random"] * (n - 1)))
        tables += [(me, *[b] * (n - 1)) for b in bots if b != me]
    if len(bots) >= n and not args.only_extra:
        tables.append(tuple(bots[:n]))
    for m in args.mixed:
        t = tuple(x for x in m.split(",") if x)
        if len(t) != n:
            ap.error(f"--mixed {m!r} names {len(t)} players; give exactly {n}")
        tables.append(t)
    mixed_rows: list[dict] = []
    pool = get_context("spawn").Pool(args.workers) if args.workers > 1 else None
    try:
        for t in tables:
            mixed = len(set(t)) > 2
            res = table(t, args.games, args.seed, pool, mixed_rows if mixed else None)
            if args.json:
                print(json.dumps(res), flush=True)
            else:
                vs = "mixed" if mixed else f"vs {n - 1}x {t[1]}"
                print(
                    f"{res['spec']:<40} {vs:<18} games {res['games']:>5}  win "
                    f"{res['win_rate']:6.1%} [{res['ci_lo']:6.1%}, {res['ci_hi']:6.1%}]  "
                    f"mean rank {res['mean_rank']:.2f}  errors {res['errors']}",
                    flush=True,
                )
        if args.ratings and mixed_rows:
            from agents.stats import openskill_ratings

            rated = openskill_ratings(mixed_rows, anchor=None)
            if args.json:
                print(json.dumps({"ratings": rated}))
            else:
                for spec, r in rated["ratings"].items():
                    print(
                        f"rating {spec:<40} ordinal {r['ordinal']:7.2f}  mu {r['mu']:6.2f}  "
                        f"sigma {r['sigma']:.2f}  games {r['games']}"
                    )
    finally:
        if pool is not None:
            pool.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
