"""Money!'s shaping potential (potential-based shaping, Ng et al. 1999), in one place.

With `shaping` > 0 a learner's step from one of its decisions to its next earns
`shaping * (gamma * phi(next) - phi(now))` on top of the terminal reward, where

    phi(state, seat) = (the seat's hand score - the mean hand score of the other seats) / 300

(a hand score is what the hand would score if the game ended now, docs/games/MONEY.md §6,
cards in a bid still being built counted in the hand) and phi = 0 once the game is over. The
potentials of a table sum to 0. It leaves the optimal policy unchanged and gives a learner a
signal between the sparse terminal rewards: at 5 players a first place is rare.
"""

from __future__ import annotations

from .engine import GAME_OVER, GameState
from .engine.score import score_hand

SCALE = 300.0


def potential(state: GameState, seat: int) -> float:
    """phi of `seat`: (own hand score - mean of the others') / 300; 0 at the end."""
    if state.phase == GAME_OVER:
        return 0.0
    totals = [score_hand(h)["total"] for h in state.hands]
    me = totals[seat]
    return (me - (sum(totals) - me) / (state.n - 1)) / SCALE
