"""The value bidder."""

from __future__ import annotations

from gamecore.options import check_number
from money_env.engine import PlayerView

from .common import MoneyBot, best_exchange, estimate, future_weight, plan_value_bid


class ValueBot(MoneyBot):
    """Value bidder: every choice maximises the engine's score of its hand, plus its promise.

    Plan of play:
    - bid: rank the notes and coins by what giving each away costs (by the estimate: the
      engine's score now, plus the part of a cliff or a trio still within reach), cheapest per
      point of bid value first; bid the prefix of that ranking whose expected gain is best, the
      chance of acting first (and so taking the better group) rising with the bid's value;
      sit out with the bluff alone when no bid gains.
    - exchange: score every legal option (a group, another seat's bid, keeping) by the
      estimate of the hand it gives and take the best.

    `target` (default 60) sets how much bid value it takes to act first: a bid of value v acts
    first with estimated chance v / (v + target * (n - 1) / 2) at n players.
    """

    name = "value"

    def __init__(self, seed: int | None = None, eps: float = 0.0, target: float = 60.0) -> None:
        super().__init__(seed, eps)
        self.target = check_number("target", target, 1, 10000)

    def estimator(self, view: PlayerView):
        future = future_weight(view)
        return lambda hand: estimate(hand, future)

    def win_chance(self, view: PlayerView):
        t = self.target * (view.num_players - 1) / 2.0
        return lambda v: v / (v + t)

    def plan_bid(self, view: PlayerView) -> list[int]:
        return plan_value_bid(view, self.estimator(view), self.win_chance(view))

    def exchange(self, view: PlayerView, legal: list[int]) -> int:
        return best_exchange(view, legal, self.estimator(view), self.rng)
