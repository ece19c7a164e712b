"""How often a policy's arg-max choice is a bot's own choice, on the bot's own games, by phase.

Games are played by `--teacher` at every seat (player counts cycling through `--players`); at
each decision with more than one legal action the policy (`ppo:PATH`, arg-max) is asked too,
from the same view, and the two choices are compared; the teacher's move is the one played.
This is the held-out imitation accuracy of a warm start or a kickstarted policy on the
teacher's state distribution, split by player count and by decision phase (docs/RULES.md), so
it shows which kinds of decision the network has not learnt to copy.

    python -m labreports.teacher_agreement --policy ppo:agents/policies/reference.npz \\
        --teacher racer --games 200 --json
"""

from __future__ import annotations

import argparse
import collections
import json
import sys

import labreports.onethread  # noqa: F401  (first: one BLAS thread, before numpy loads)
from agents.registry import PlayerSpecError, make_agent
from lastwill_env.engine import (
    PHASE_NAMES,
    GameConfig,
    legal_actions,
    new_game,
    player_view,
)
from lastwill_env.engine.config import allowed_counts, is_player_count
from lastwill_env.engine.game import GAME_OVER


def agreement(policy, teacher, counts: list[int], games: int, seed: int) -> dict:
    hit: collections.Counter = collections.Counter()
    tot: collections.Counter = collections.Counter()
    for g in range(games):
        n = counts[g % len(counts)]
        s = new_game(GameConfig(num_players=n), seed + g)
        while s.phase != GAME_OVER:
            legal = legal_actions(s)
            if len(legal) == 1:
                s.apply_action(legal[0])
                continue
            view = player_view(s, s.cur)
            a = teacher.act(view, legal)
            key = (n, PHASE_NAMES[s.phase])
            tot[key] += 1
            hit[key] += int(policy.act(view, legal) == a)
            s.apply_action(a)

    def share(keys) -> dict:
        t = sum(tot[k] for k in keys)
        return {"decisions": t, "agreement": round(sum(hit[k] for k in keys) / t, 4) if t else None}

    return {
        "overall": share(list(tot)),
        "by_players": {str(n): share([k for k in tot if k[0] == n]) for n in counts},
        "by_phase": {
            ph: share([k for k in tot if k[1] == ph])
            for ph in PHASE_NAMES
            if any(k[1] == ph for k in tot)
        },
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--policy", default="ppo:agents/policies/reference.npz")
    ap.add_argument("--teacher", default="racer")
    ap.add_argument("--players", default="2,3,4,5")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    try:
        counts = [int(x) for x in args.players.split(",")]
        if not counts or not all(is_player_count(n) for n in counts):
            raise ValueError
    except ValueError:
        print(f"error: --players {args.players!r}: use counts, each one of {allowed_counts()}, "
              f"e.g. 2,3,4,5", file=sys.stderr)  # fmt: skip
        return 2
    if args.games < 1:
        print("error: --games must be at least 1", file=sys.stderr)
        return 2
    try:
        policy = make_agent(args.policy, 0)
        teacher = make_agent(args.teacher, 0)
    except PlayerSpecError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    out = {"policy": args.policy, "teacher": args.teacher, "games": args.games}
    out.update(agreement(policy, teacher, counts, args.games, args.seed))
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{args.policy} vs {args.teacher}: {100 * out['overall']['agreement']:.1f}% of "
          f"{out['overall']['decisions']} decisions")  # fmt: skip
    for name, part in (("players", out["by_players"]), ("phase", out["by_phase"])):
        for k, v in part.items():
            print(f"  {name} {k:<28} {100 * v['agreement']:5.1f}%  ({v['decisions']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
