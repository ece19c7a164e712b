"""What the scripted Money! bots share: hand estimates over the engine's own scoring, the bid
planner and `MoneyBot`, the base class that plays a planned bid card by card.

Everything here reads only the seat's `PlayerView` and the card tables, with the standard library
alone, so a bot decides in well under a millisecond. Scores come from the engine
(`money_env.engine.score.score_hand`), never from a copy of the rules: an estimate is the score
the hand would have if the game ended now, plus, while rounds remain, a part of what it may
still become (a currency under the cliff may still pass it, two notes of a trio may be joined by
the third).

A bid is chosen whole at the seat's first bid decision of a round (`plan_bid`, a list of card
ids from the hand, never empty) and then played one `add` action per card and a `commit`; the
plan is kept per (seat, round, hand), so a new game, a new round or an unexpected bid simply
plans again.
"""

from __future__ import annotations

from abc import abstractmethod
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from gamecore.agent import BaseAgent
from gamecore.options import check_number
from money_env.engine import (
    ADD,
    BID_PHASE,
    COMMIT,
    EXCHANGE_PHASE,
    KEEP,
    TAKE_BID,
    TAKE_LEFT,
    TAKE_RIGHT,
    PlayerView,
)
from money_env.engine.cards import CARDS, CURRENCY, FIRST_BLUFF, FIRST_COIN, KIND, VALUE
from money_env.engine.score import score_hand

CLIFF = CARDS.cliff
PENALTY = CARDS.cliff_penalty
TRIO_VALUES = frozenset(CARDS.trio_values)
TRIO_BONUS = CARDS.trio_bonus
NOTES_PER_CURRENCY = len(CARDS.note_values)

Estimate = Callable[[list[int]], float]


def future_weight(view: PlayerView) -> float:
    """How much of a hand's promise still counts: 0 in the last round (only the real score
    matters then), up to 1 while the pile is long."""
    if view.last_round or view.phase not in (BID_PHASE, EXCHANGE_PHASE):
        return 0.0
    return min(1.0, 0.25 + view.pile_size / 16.0)


def near_trios(hand: Sequence[int]) -> Counter:
    """Per (currency, trio value) the number of such notes in `hand`."""
    return Counter(
        (CURRENCY[c], VALUE[c]) for c in hand if c < FIRST_COIN and VALUE[c] in TRIO_VALUES
    )


def estimate(hand: Sequence[int], future: float, trio_weight: float = 0.4) -> float:
    """The engine's score of `hand` plus `future` times its promise: for each currency under the
    cliff, the part of the cliff's penalty it may still win back (more the closer it is), and
    `trio_weight` of a trio bonus for each trio missing one note."""
    total = float(score_hand(list(hand))["total"])
    if future <= 0.0:
        return total
    sums = [0] * len(CARDS.currencies)
    for c in hand:
        if c < FIRST_COIN:
            sums[CURRENCY[c]] += VALUE[c]
    for s in sums:
        if 0 < s < CLIFF:
            total += future * min(s, PENALTY) * s / CLIFF
    for k in near_trios(hand).values():
        if k == 2:
            total += future * trio_weight * TRIO_BONUS
    return total


def without(hand: Sequence[int], cards: Sequence[int]) -> list[int]:
    out = set(cards)
    return [c for c in hand if c not in out]


def bid_value(cards: Sequence[int]) -> int:
    return sum(VALUE[c] for c in cards)


def bluff_card(view: PlayerView) -> int:
    """The viewer's bluff (always in its hand)."""
    return next(c for c in view.hand if c >= FIRST_BLUFF)


def exchange_options(view: PlayerView, legal: Sequence[int]) -> dict[int, tuple[int, ...]]:
    """Per legal exchange action, the cards it brings into the hand."""
    out = {}
    for a in legal:
        if a == KEEP:
            out[a] = view.table[0]
        elif a == TAKE_RIGHT:
            out[a] = view.right
        elif a == TAKE_LEFT:
            out[a] = view.left
        elif TAKE_BID <= a < KEEP:
            out[a] = view.table[a - TAKE_BID + 1]
    return out


def best_exchange(
    view: PlayerView, legal: Sequence[int], est: Estimate, rng: Any, tie: float = 1e-6
) -> int:
    """The exchange whose resulting hand `est` rates highest; ties broken at random (`rng`),
    keeping first among equals."""
    hand = list(view.hand)
    scored = [(est(hand + list(cards)), a) for a, cards in exchange_options(view, legal).items()]
    if not scored:
        return legal[0]
    top = max(s for s, _ in scored)
    best = [a for s, a in scored if s >= top - tie]
    if KEEP in best:
        return KEEP
    return best[0] if len(best) == 1 else best[rng.randrange(len(best))]


def plan_value_bid(
    view: PlayerView,
    est: Estimate,
    win_chance: Callable[[int], float],
    fallback: float = 0.5,
) -> list[int]:
    """The bid that is worth most by `est`: the notes and coins of the hand are ranked by what
    giving each away costs per point of bid value (cheapest first), and among the prefixes of
    that ranking the one with the best expected gain wins: with chance `win_chance(value)` the
    bid acts first and takes the better group, otherwise `fallback` of the other group's gain
    (it may be gone by then) or nothing (keep). The bluff alone (sitting out) when no bid
    gains."""
    hand = list(view.hand)
    base = est(hand)
    money = [c for c in hand if VALUE[c] > 0]
    cost = {c: base - est(without(hand, [c])) for c in money}
    order = sorted(money, key=lambda c: (cost[c] / VALUE[c], -VALUE[c], c))
    groups = [list(view.right), list(view.left)]
    best_u, best_k = 0.0, 0
    bid: list[int] = []
    for k, c in enumerate(order, 1):
        bid.append(c)
        rest = without(hand, bid)
        nets = sorted((est(rest + g) - base for g in groups), reverse=True)
        p = win_chance(bid_value(bid))
        u = p * max(nets[0], 0.0) + (1.0 - p) * max(0.0, fallback * nets[-1])
        if u > best_u + 1e-9:
            best_u, best_k = u, k
    if best_k == 0:
        return [bluff_card(view)]
    return order[:best_k]


class MoneyBot(BaseAgent):
    """Base of the scripted bots: plays the bid `plan_bid` chooses card by card, and the
    exchange `exchange` chooses. With `eps` > 0 a decision is a uniformly random legal action
    with that chance (the playouts' noise)."""

    name = "money"

    def __init__(self, seed: int | None = None, eps: float = 0.0) -> None:
        super().__init__(seed)
        self.eps = check_number("eps", eps, 0, 1, allowed="a probability from 0 to 1")
        self._plan: tuple[Any, Counter] | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._plan = None

    def act(self, view: PlayerView, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        if self.eps and self.rng.random() < self.eps:
            return legal[self.rng.randrange(len(legal))]
        legal = sorted(legal)
        if view.phase == BID_PHASE:
            return self._bid_step(view, legal)
        return self.exchange(view, legal)

    # -- bids ---------------------------------------------------------------------------------
    def _bid_step(self, view: PlayerView, legal: list[int]) -> int:
        key = (view.seat, view.round, view.hand)
        in_bid = Counter(KIND[c] for c in view.bid)
        if self._plan is None or self._plan[0] != key or in_bid - self._plan[1]:
            cards = self.plan_bid(view)
            self._plan = (key, Counter(KIND[c] for c in cards))
        need = self._plan[1] - in_bid
        for k in sorted(need):
            if ADD + k in legal:
                return ADD + k
        if COMMIT in legal:
            return COMMIT
        return legal[0]  # only when the plan cannot be played: never for a plan from the hand

    @abstractmethod
    def plan_bid(self, view: PlayerView) -> list[int]:
        """The whole bid for this round: card ids from the hand, not empty."""

    # -- exchanges ----------------------------------------------------------------------------
    @abstractmethod
    def exchange(self, view: PlayerView, legal: list[int]) -> int:
        """One of the exchange actions of ``legal``."""
