"""Who chooses the actions in the invariant playouts (tests/lastwill/test_engine_invariants.py).

Uniform random play almost never goes into debt or ends before round 7, so the playouts also
seat the scripted bots (the racer among them) and a debt seeker, which reach docs/RULES.md §5 (debt,
bankruptcy), §7 (the game ends after the round of a bankruptcy) and the debt branch of §8.

A chooser is `choose(state, legal) -> action`, built per game by `choosers(policy, ...)`.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from agents.registry import make_agent
from lastwill_env.bots.common import CAT, owns_property
from lastwill_env.bots.planner import PlannerBot
from lastwill_env.engine import ACTION_TABLE, GameState, player_view

Chooser = Callable[[GameState, list[int]], int]
BOTS = ("greedy", "speculator", "planner", "combiner", "racer")
POLICIES = ("random", "bots", "debt")


class DebtSeeker(PlannerBot):
    """Sells every property from round `sellout` on (so no payment is capped at £0, §5) and
    then spends whatever is legal, the planner's way; never buys a property after that."""

    name = "debt_seeker"

    def __init__(self, seed: int | None = None, eps: float = 0.0, sellout: int = 4) -> None:
        super().__init__(seed, eps)
        self.sellout = sellout

    def turn_burn(self, v, a: int) -> tuple[float, float]:
        kind, c = ACTION_TABLE[a]
        if kind == "play" and CAT[c] == "property" and v.round >= self.sellout:
            return -5.0, 1
        return super().turn_burn(v, a)

    def turn_rule(self, v, legal: list[int]) -> int:
        if v.round >= self.sellout and owns_property(v):
            sells = [a for a in legal if ACTION_TABLE[a][0] == "sell"]
            if sells:
                return min(sells)
        return super().turn_rule(v, legal)


def _agent_chooser(agent) -> Chooser:
    def choose(s: GameState, legal: list[int]) -> int:
        return agent.act(player_view(s, s.cur), legal)

    return choose


def choosers(policy: str, n: int, game: int, rnd: random.Random) -> list[Chooser]:
    """One chooser per seat for one game, all seeded from `game` and `rnd`.

    - `random`: uniform over the legal actions;
    - `bots`: the scripted bots around the table, in turn (with a little noise, eps 0.05);
    - `debt`: debt seekers (selling out from round 2 to 5) at every seat in even games, at
      seat 0 against scripted bots in odd ones.
    """
    if policy == "random":
        return [lambda s, legal: rnd.choice(legal)] * n
    out = []
    for seat in range(n):
        seed = rnd.randrange(1 << 30)
        if policy == "debt" and (game % 2 == 0 or seat == 0):
            agent = DebtSeeker(seed, eps=0.05, sellout=rnd.randint(2, 5))
        elif policy in ("bots", "debt"):
            agent = make_agent(f"{BOTS[(seat + game) % len(BOTS)]}:eps=0.05", seed)
        else:
            raise ValueError(f"unknown playout policy {policy!r}; choose one of {POLICIES}")
        out.append(_agent_chooser(agent))
    return out
