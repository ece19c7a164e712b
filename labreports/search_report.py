"""Why the search gains what it gains over the policy it searches: the critic's quality against
outcomes, and where the search disagrees with the policy's own choice.

    python -m labreports.search_report --policy reference --players 2,4 --games 100 \\
        --sims 64,256 --every 10 --json

At each player count, `--games` games in which every seat plays the policy's arg-max move (as
`ppo:POLICY` plays), on validation deals of `--seed` (a diagnosis, not a figure to report):

- **Value quality.** At every decision with more than one legal action, the critic's score of
  every seat (`agents.leafeval`: the value with the training's shaping undone, on the scale of
  the terminal reward), read as a win chance (`agents.winchance`), against whether that seat
  won. Printed: the Brier score, the Brier score of the constant 1/n, their skill
  (1 - Brier / constant's; 0 = no better than chance, 1 = perfect), the correlation, a
  five-bin calibration table, and the skill in each third of the game (by round).
- **Disagreement.** At every `--every`-th of those decisions, a search of `--sims`
  simulations (`agents.mcts`) from the acting seat's view: the share of decisions where the
  most visited move is not the policy's arg-max, the policy's mean probability of its own
  top move (how sharp the prior is), the mean visit share of the most visited move, and,
  where they differ, the policy's mean probability of the move the search chose. With
  `--below F` only the decisions where the policy's top move has probability below F count
  (those `mcts:...:sure=F` searches). With `--twin`, a second search of the same budget and
  another seed chooses at each of them too: the share where the two choose the same move
  (`seeds_agree`) says how much of the disagreement is the search's own noise, the ceiling
  of what a network learning one search's moves can agree with.

Prints a summary per count (`--json`: one JSON object).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys

import labreports.onethread  # noqa: F401  (first: one BLAS thread, before numpy loads)
from agents.deals import VALIDATION, deal_seed
from agents.mcts import MCTSAgent
from agents.registry import PlayerSpecError, make_agent
from agents.winchance import win_chance
from labreports.search_curve import int_list
from lastwill_env.engine import GameConfig, new_game, player_view
from lastwill_env.engine.config import allowed_counts, is_player_count
from lastwill_env.engine.game import GAME_OVER, NUM_ROUNDS


def play_game(
    n: int,
    seed: int,
    players: list,
    search: list[tuple[MCTSAgent, MCTSAgent | None]],
    every: int,
    tick: list,
    below: float = 1.0,
):
    """One game of arg-max policy play. Returns (value rows, disagreement rows): a value row is
    (round, predicted win chance, won) for one seat at one decision; a disagreement row is
    (budget, searched move differs, policy's top probability, top visit share, policy's
    probability of the searched move, the twin search's move is the same or None without a
    twin) at every `every`-th decision where the policy's top probability is below `below`
    (every decision at `below` = 1; `tick` counts those decisions across games)."""
    s = new_game(GameConfig(num_players=n), seed)
    ev = search[0][0].evaluator
    pending: list[tuple[int, int, float]] = []
    disagree: list[tuple] = []
    while s.phase != GAME_OVER:
        legal = s.legal_actions()
        if len(legal) == 1:
            s.apply_action(legal[0])
            continue
        prior, scores = ev.evaluate(s, legal)
        pending += [(s.round, p, win_chance(scores[p], n)) for p in range(n)]
        view = player_view(s, s.cur)
        move = players[s.cur].act(view, legal)
        top = max(legal, key=lambda a: prior[a])
        unsure = below >= 1.0 or prior[top] < below  # below = 1: every decision
        tick[0] += unsure
        if every and unsure and tick[0] % every == 0:
            for agent, twin in search:
                root = agent.search(view)
                chosen = agent._choose(root, sorted(legal))
                visits = sum(root.edge_n.values()) or 1
                same = None if twin is None else twin.act(view, sorted(legal)) == chosen
                disagree.append(
                    (
                        agent.sims,
                        chosen != move,
                        prior[top],
                        root.edge_n.get(chosen, 0) / visits,
                        prior[chosen],
                        same,
                    )
                )
        s.apply_action(move)
    winner = s.results["winner"]
    values = [(r, q, 1.0 if p == winner else 0.0) for r, p, q in pending]
    return values, disagree


def _rounds(first: int, last: int) -> str:
    return f"round {first}" if first == last else f"rounds {first}-{last}"


def value_quality(rows: list[tuple], n: int) -> dict:
    """Brier score, skill over the constant 1/n, correlation, calibration and skill by thirds."""

    def skill(rs):
        if not rs:
            return None
        brier = statistics.fmean((q - y) ** 2 for _, q, y in rs)
        base = statistics.fmean((1.0 / n - y) ** 2 for _, _, y in rs)
        return {"brier": brier, "brier_const": base, "skill": 1.0 - brier / base, "rows": len(rs)}

    out = skill(rows)
    qs, ys = [q for _, q, _ in rows], [y for _, _, y in rows]
    out["correlation"] = statistics.correlation(qs, ys) if len(set(qs)) > 1 else 0.0
    bins = []
    for k in range(5):
        lo, hi = k / 5, (k + 1) / 5
        b = [(q, y) for q, y in zip(qs, ys, strict=True) if lo <= q < hi or (k == 4 and q == 1.0)]
        if b:
            bins.append(
                {
                    "bin": f"{lo:.1f}-{hi:.1f}",
                    "rows": len(b),
                    "mean_predicted": statistics.fmean(q for q, _ in b),
                    "won": statistics.fmean(y for _, y in b),
                }
            )
    out["calibration"] = bins
    third = math.ceil(NUM_ROUNDS / 3)
    out["by_round"] = {
        _rounds(1 + t * third, min(NUM_ROUNDS, (t + 1) * third)): skill(
            [r for r in rows if t * third < r[0] <= (t + 1) * third]
        )
        for t in range(3)
    }
    return out


def disagreement(rows: list[tuple], sims: int) -> dict:
    mine = [r for r in rows if r[0] == sims]
    differ = [r for r in mine if r[1]]
    return {
        "sims": sims,
        "decisions": len(mine),
        "differs": len(differ) / len(mine) if mine else None,
        "policy_top_probability": statistics.fmean(r[2] for r in mine) if mine else None,
        "top_visit_share": statistics.fmean(r[3] for r in mine) if mine else None,
        "policy_probability_of_searched_move_where_they_differ": (
            statistics.fmean(r[4] for r in differ) if differ else None
        ),
        "seeds_agree": (
            statistics.fmean(r[5] for r in twins)
            if (twins := [r for r in mine if r[5] is not None])
            else None
        ),
    }


def report(
    policy: str,
    n: int,
    games: int,
    budgets: list[int],
    every: int,
    seed: int,
    below: float = 1.0,
    twin: bool = False,
) -> dict:
    players = [make_agent(f"ppo:{policy}", seed=seed + p) for p in range(n)]
    search = [
        (
            MCTSAgent(policy=policy, sims=b, seed=seed),
            MCTSAgent(policy=policy, sims=b, seed=seed + 1) if twin else None,
        )
        for b in budgets
    ]
    values: list[tuple] = []
    disagree: list[tuple] = []
    tick = [0]
    for g in range(games):
        for p in players:
            p.reset()
        v, d = play_game(n, deal_seed(seed, VALIDATION, g), players, search, every, tick, below)
        values += v
        disagree += d
    return {
        "num_players": n,
        "games": games,
        "value": value_quality(values, n),
        "below": below,
        "disagreement": [disagreement(disagree, b) for b in budgets],
    }


def _print(r: dict) -> None:
    v = r["value"]
    print(
        f"{r['num_players']}p, {r['games']} games: critic Brier {v['brier']:.3f} "
        f"(constant 1/n {v['brier_const']:.3f}, skill {v['skill']:+.3f}), "
        f"correlation {v['correlation']:.3f}, {v['rows']} seat-decisions"
    )
    for b in v["calibration"]:
        print(
            f"  predicted {b['bin']}: {b['rows']:>6} rows, mean {b['mean_predicted']:.3f}, "
            f"won {b['won']:.3f}"
        )
    for k, s in v["by_round"].items():
        if s:
            print(f"  {k}: skill {s['skill']:+.3f} ({s['rows']} rows)")
    for d in r["disagreement"]:
        if d["decisions"]:
            where = d["policy_probability_of_searched_move_where_they_differ"]
            print(
                f"  sims={d['sims']}: {d['decisions']} searches, differs from the policy at "
                f"{100 * d['differs']:.1f}%, policy's top move "
                f"p={d['policy_top_probability']:.3f}, top visit share {d['top_visit_share']:.3f}"
                + (
                    f", policy's p of the searched move where they differ {where:.3f}"
                    if where
                    else ""
                )
                + (
                    f", two seeds choose the same move at {100 * d['seeds_agree']:.1f}%"
                    if d["seeds_agree"] is not None
                    else ""
                )
            )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--policy", default="reference")
    ap.add_argument("--players", default="2,4", help="player counts, comma-separated")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--sims", default="64,256", help="search budgets, comma-separated")
    ap.add_argument("--every", type=int, default=10, help="search every k-th decision (0: none)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--below", type=float, default=1.0, help="search only where the top move is below F"
    )
    ap.add_argument("--twin", action="store_true", help="a second search with another seed")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    try:
        counts = int_list(args.players, "--players")
        budgets = int_list(args.sims, "--sims")
    except ValueError as e:
        ap.error(str(e))
    if min(budgets) < 1:
        ap.error(f"--sims {args.sims!r}: give positive integers")
    if not all(is_player_count(n) for n in counts):
        ap.error(f"--players {args.players!r}: each one of {allowed_counts()}")
    if args.games < 1 or args.every < 0:
        ap.error("--games must be at least 1 and --every at least 0")
    if not 0.0 < args.below <= 1.0:
        ap.error(f"--below {args.below}: give a probability in (0, 1]")
    try:
        out = [
            report(
                args.policy, n, args.games, budgets, args.every, args.seed, args.below, args.twin
            )
            for n in counts
        ]
    except (PlayerSpecError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(
            json.dumps(
                {"policy": args.policy, "seed": args.seed, "deals": VALIDATION, "counts": out}
            )
        )
    else:
        for r in out:
            _print(r)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
