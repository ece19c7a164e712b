"""The shaping potential (potential-based shaping, Ng et al. 1999), in one place.

With `shaping` > 0 a learner's step from one of its decisions to its next earns
`shaping * (gamma * phi(next) - phi(now))` on top of the terminal reward, where

    phi(state, seat) = (mean total of the other seats - the seat's own total) / 100

(a total is money plus property value, docs/RULES.md §8) and phi = 0 once the game is over.
It rewards spending faster than the table between the sparse terminal rewards and leaves the
optimal policy unchanged. The single-seat trainer's env (`training.selfplay_env`), the all-seat
rollout (`training.allseat.rollout`) and the search's leaf values (`agents.leafeval`, which adds
the potential back to a critic trained with shaping) all read phi from here.
"""

from __future__ import annotations

from lastwill_env.engine import GameState
from lastwill_env.engine.game import GAME_OVER, property_value


def potential(state: GameState, seat: int) -> float:
    """phi of `seat`: (mean total of the other seats - own total) / 100; 0 at the end."""
    if state.phase == GAME_OVER:
        return 0.0
    totals = [state.money[p] + property_value(state, p) for p in range(state.n)]
    me = totals[seat]
    return ((sum(totals) - me) / (state.n - 1) - me) / 100.0


def shaping_reward(shaping: float, gamma: float, phi: float, phi_next: float) -> float:
    """The shaping term of one step: `shaping * (gamma * phi_next - phi)`."""
    return shaping * (gamma * phi_next - phi)
