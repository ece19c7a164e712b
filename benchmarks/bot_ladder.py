"""Bot ladder: each scripted bot against three random players, and the bots against each other.

Usage: `PYTHONPATH=. python benchmarks/bot_ladder.py [--games 400] [--players 4] [--workers 2]
[--mc 0]`. Seats rotate (game g puts the bot on seat g % n). Win rates come with Wilson 95%
intervals; with n players chance is 1/n. `--mc K` also plays K games of `mc` against 3 randoms.
"""

from __future__ import annotations

import argparse
import itertools
import math
import time
from multiprocessing import Pool

from agents.registry import make_agent
from lastwill_env.engine import apply_action, legal_actions, new_game, player_view

BOTS = ("greedy", "speculator", "planner", "combiner")


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def play(job: tuple[tuple[str, ...], int]) -> list[int]:
    """Play one game; return the ranks per seat."""
    specs, seed = job
    s = new_game(len(specs), seed)
    agents = [make_agent(sp, seed * 17 + i) for i, sp in enumerate(specs)]
    while not s.is_over:
        legal = legal_actions(s)
        a = agents[s.cur].act(player_view(s, s.cur), legal)
        if a not in legal:
            raise RuntimeError(f"{specs[s.cur]} chose an illegal action {a}")
        apply_action(s, a)
    return s.results["ranks"]


def row(name: str, wins: int, n: int, extra: str = "") -> str:
    lo, hi = wilson(wins, n)
    return f"| {name:<11} | {n:5d} | {wins / n:6.1%} | [{lo:5.1%}, {hi:5.1%}] |{extra}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--mc", type=int, default=0, help="games of mc vs randoms (slow)")
    args = ap.parse_args()
    n = args.players
    t0 = time.time()
    with Pool(args.workers) as pool:
        print(f"## Each bot vs {n - 1} random players ({args.games} games, seats rotate)")
        print("| bot | games | win rate | Wilson 95% |")
        print("|---|---|---|---|")
        lineup = list(BOTS) + (["mc"] if args.mc else [])
        for bot in lineup:
            games = args.mc if bot == "mc" else args.games
            jobs = []
            for g in range(games):
                specs = ["random"] * n
                specs[g % n] = bot
                jobs.append((tuple(specs), 1000 + g))
            ranks = pool.map(play, jobs)
            wins = sum(1 for g, r in enumerate(ranks) if r[g % n] == 1)
            print(row(bot, wins, games), flush=True)
        print()
        print(f"## Bots only ({args.games} games, {n} seats, every seating order in turn)")
        bots = list(BOTS)
        orders = list(itertools.permutations(range(len(bots)), n))
        jobs = [
            (tuple(bots[i] for i in orders[g % len(orders)]), 5000 + g) for g in range(args.games)
        ]
        ranks = pool.map(play, jobs)
        wins = dict.fromkeys(bots, 0)
        seated = dict.fromkeys(bots, 0)
        rank_sum = dict.fromkeys(bots, 0)
        for (specs, _), r in zip(jobs, ranks, strict=True):
            for seat, b in enumerate(specs):
                seated[b] += 1
                rank_sum[b] += r[seat]
                wins[b] += r[seat] == 1
        print("| bot | games | win rate | Wilson 95% | mean rank |")
        print("|---|---|---|---|---|")
        for b in bots:
            print(row(b, wins[b], seated[b], f" {rank_sum[b] / seated[b]:.2f} |"))
    print(f"\n({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
