"""The set collector."""

from __future__ import annotations

from collections import Counter

from gamecore.options import check_number
from money_env.engine import PlayerView
from money_env.engine.cards import CURRENCY, FIRST_COIN, VALUE

from .common import (
    CLIFF,
    NOTES_PER_CURRENCY,
    PENALTY,
    TRIO_BONUS,
    TRIO_VALUES,
    MoneyBot,
    best_exchange,
    estimate,
    future_weight,
    plan_value_bid,
)


def focus_currencies(hand, k: int) -> tuple[int, ...]:
    """The `k` currencies the hand holds most of (notes, then face sum; at least two notes
    each, or the single best one when none has two)."""
    count: Counter = Counter()
    total: Counter = Counter()
    for c in hand:
        if c < FIRST_COIN:
            count[CURRENCY[c]] += 1
            total[CURRENCY[c]] += VALUE[c]
    ranked = sorted(count, key=lambda cur: (-count[cur], -total[cur], cur))
    chosen = [cur for cur in ranked if count[cur] >= 2][:k]
    return tuple(chosen or ranked[:1])


class CollectorBot(MoneyBot):
    """Set collector: chases trios and full sets of the currencies it already holds.

    Plan of play:
    - focus: the `focus` currencies (default 2) it holds most notes of, chosen again each
      decision from the cards it held at the round's start (its hand and its revealed bid).
    - its estimate of a hand: the value bidder's (the engine's score plus the hand's promise),
      plus for each focus currency most of the cliff's penalty as if already passed, a quarter
      of its face sum, most of a trio bonus for two notes of a trio (some for one) and a
      growing bonus from five notes towards the full set of nine; so the notes of other
      currencies and the coins are what it bids with, and a group holding its currencies is
      what it bids for. In the last round only the engine's score counts.
    - bid: the value planner over that estimate, bidding harder (`target` default 45) for a
      group that holds its currencies.
    - exchange: the option whose hand that estimate rates highest.
    """

    name = "collector"

    def __init__(
        self, seed: int | None = None, eps: float = 0.0, focus: int = 2, target: float = 45.0
    ) -> None:
        super().__init__(seed, eps)
        self.focus = check_number("focus", focus, 1, 7, integer=True)
        self.target = check_number("target", target, 1, 10000)

    def estimator(self, view: PlayerView):
        focus = focus_currencies(list(view.hand) + list(view.revealed[0]), self.focus)
        future = future_weight(view)
        hope = 0.4 + 0.6 * future

        def est(hand: list[int]) -> float:
            total = estimate(hand, future)
            if future <= 0.0:
                return total
            for cur in focus:
                notes = [c for c in hand if c < FIRST_COIN and CURRENCY[c] == cur]
                s = sum(VALUE[c] for c in notes)
                if s < CLIFF:
                    total += hope * min(s, PENALTY)
                total += 0.25 * s
                values = Counter(VALUE[c] for c in notes)
                for v in TRIO_VALUES:
                    if values[v] == 2:
                        total += hope * 0.6 * TRIO_BONUS
                    elif values[v] == 1:
                        total += hope * 0.15 * TRIO_BONUS
                if 5 <= len(notes) < NOTES_PER_CURRENCY:
                    total += hope * 30.0 * (len(notes) - 4)
            return total

        return est

    def win_chance(self, view: PlayerView):
        t = self.target * (view.num_players - 1) / 2.0
        return lambda v: v / (v + t)

    def plan_bid(self, view: PlayerView) -> list[int]:
        return plan_value_bid(view, self.estimator(view), self.win_chance(view))

    def exchange(self, view: PlayerView, legal: list[int]) -> int:
        return best_exchange(view, legal, self.estimator(view), self.rng)
