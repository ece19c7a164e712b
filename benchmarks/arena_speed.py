"""Arena throughput vs raw engine speed, measured in the same run.

    python benchmarks/arena_speed.py --games 400 --workers 2 --players 4 --json

Three measurements over the same deals (the arena schedule's deal seeds):

- ``raw``: in-process loop of new_game / legal_actions / apply_action with random choices,
  no agents, no views, no log;
- ``arena_1``: ``run_tournament`` of ``random`` bots with 1 worker (in-process), writing the
  JSONL log (agents built per game, views for agents that read them, errors, JSON rows);
- ``arena_W``: the same with ``--workers W`` spawn processes (includes pool start-up).

Reports decisions/s and games/s of each, ``arena_1 / raw`` (target >= 0.8) and the speedup
``arena_W / arena_1``. Decisions differ slightly between raw and arena (different random
choices), so compare decisions/s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path

from agents.arena import Schedule, run_tournament
from lastwill_env.engine import GameConfig, apply_action, legal_actions, new_game
from lastwill_env.engine.game import GAME_OVER


def raw_speed(config: GameConfig, deal_seeds: list[int], seed: int) -> dict:
    rng = random.Random(seed)
    decisions = 0
    t0 = time.perf_counter()
    for ds in deal_seeds:
        s = new_game(config, ds)
        while s.phase != GAME_OVER:
            legal = legal_actions(s)
            apply_action(s, legal[rng.randrange(len(legal))])
            decisions += 1
    dt = time.perf_counter() - t0
    n = len(deal_seeds)
    return {
        "games": n,
        "decisions": decisions,
        "seconds": dt,
        "decisions_per_s": decisions / dt,
        "games_per_s": n / dt,
    }


def arena_speed(config: GameConfig, games: int, seed: int, workers: int, tmp: str) -> dict:
    out = Path(tmp) / f"arena-w{workers}-{os.getpid()}-{time.time_ns()}.jsonl"
    t0 = time.perf_counter()
    res = run_tournament(
        ["random"] * config.num_players, config, games, seed=seed, out=out, workers=workers
    )
    dt = time.perf_counter() - t0
    decisions = sum(r["decisions"] for r in res.rows)
    assert res.errors == 0
    return {
        "games": len(res.rows),
        "decisions": decisions,
        "seconds": dt,
        "decisions_per_s": decisions / dt,
        "games_per_s": len(res.rows) / dt,
        "workers": workers,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="one JSON line instead of text")
    args = ap.parse_args()
    cfg = GameConfig(num_players=args.players)
    sched = Schedule(("random",) * args.players, cfg, args.seed)
    deal_seeds = [t.deal_seed for t in sched.tasks(args.games)]
    with tempfile.TemporaryDirectory() as tmp:
        raw_speed(cfg, deal_seeds[: max(1, len(deal_seeds) // 10)], args.seed)  # warm-up
        raw = raw_speed(cfg, deal_seeds, args.seed)
        one = arena_speed(cfg, args.games, args.seed, 1, tmp)
        many = (
            arena_speed(cfg, args.games, args.seed, args.workers, tmp) if args.workers > 1 else None
        )
    doc = {
        "players": args.players,
        "games": args.games,
        "cpus": os.cpu_count(),
        "raw": raw,
        "arena_1": one,
        **({f"arena_{args.workers}": many} if many else {}),
        "arena_1_vs_raw": one["decisions_per_s"] / raw["decisions_per_s"],
        "speedup_workers": (many["games_per_s"] / one["games_per_s"]) if many else None,
    }
    if args.json:
        print(json.dumps(doc))
        return
    print(
        f"raw engine : {raw['decisions_per_s']:>10,.0f} decisions/s "
        f"{raw['games_per_s']:8.1f} games/s"
    )
    print(
        f"arena w=1  : {one['decisions_per_s']:>10,.0f} decisions/s "
        f"{one['games_per_s']:8.1f} games/s"
        f"  ({doc['arena_1_vs_raw']:.0%} of raw)"
    )
    if many:
        print(
            f"arena w={args.workers}  : {many['decisions_per_s']:>10,.0f} decisions/s "
            f"{many['games_per_s']:8.1f} games/s  (x{doc['speedup_workers']:.2f} vs 1 worker)"
        )


if __name__ == "__main__":
    main()
