"""The bluffer."""

from __future__ import annotations

from gamecore.options import check_number
from money_env.engine import PlayerView
from money_env.engine.cards import VALUE

from .common import bluff_card, without
from .value import ValueBot


class BlufferBot(ValueBot):
    """Bluffer: a seeded mix of bids, so its bids tell the table little.

    Plan of play, drawn afresh each round with its seeded generator:
    - with chance `bluff` (default 0.2) it bids the bluff card alone and sits the round out;
    - with chance `low` (default 0.3) a low bid: the one or two notes or coins that cost its
      hand least (lowest value first among equals), so it acts late and picks among what the
      others left, the bluff card added half the time;
    - otherwise the value bidder's bid, the bluff card added with chance `mask` (default 0.3).
    In the last round it always bids as the value bidder (a sat-out round cannot be made up).
    Exchange: the value bidder's (the best option by its estimate).
    """

    name = "bluffer"

    def __init__(
        self,
        seed: int | None = None,
        eps: float = 0.0,
        target: float = 60.0,
        bluff: float = 0.2,
        low: float = 0.3,
        mask: float = 0.3,
    ) -> None:
        super().__init__(seed, eps, target)
        prob = "a probability from 0 to 1"
        self.bluff = check_number("bluff", bluff, 0, 1, allowed=prob)
        self.low = check_number("low", low, 0, 1, allowed=prob)
        self.mask = check_number("mask", mask, 0, 1, allowed=prob)
        if self.bluff + self.low > 1:
            raise ValueError(f"bluff={self.bluff} and low={self.low} add up to more than 1")

    def plan_bid(self, view: PlayerView) -> list[int]:
        me = bluff_card(view)
        roll = self.rng.random()
        if view.last_round:
            roll = 1.0
        if roll < self.bluff:
            return [me]
        if roll < self.bluff + self.low:
            est = self.estimator(view)
            hand = list(view.hand)
            base = est(hand)
            money = [c for c in hand if VALUE[c] > 0]
            if not money:
                return [me]
            money.sort(key=lambda c: (base - est(without(hand, [c])), VALUE[c], c))
            bid = money[: 1 + self.rng.randrange(2)]
            return bid + [me] if self.rng.random() < 0.5 else bid
        bid = super().plan_bid(view)
        if me not in bid and self.rng.random() < self.mask:
            bid = bid + [me]
        return bid
