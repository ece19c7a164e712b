"""The game's own random number generator (docs/DESIGN.md, "Engine habits").

All randomness of a game (deck shuffles at setup, reshuffles of discard piles, the start
player, the market tiles, will cards) comes from one SplitMix64 stream whose whole state is a
single 64-bit integer stored in the game state. That makes cloning and JSON round trips exact
and cheap, and keeps the engine away from the `random` and `numpy.random` globals.
"""

from __future__ import annotations

from gamecore.seeds import MASK64, check_seed

_GOLDEN = 0x9E3779B97F4A7C15


def seed_state(seed: int) -> int:
    """Turn a game seed (`check_seed`: 0 to 2**64 - 1) into a generator state; distinct seeds
    give distinct states."""
    state, _ = next64((check_seed(seed) ^ 0x5DEECE66D) & MASK64)
    return state


def next64(state: int) -> tuple[int, int]:
    """Advance the state; return (new_state, 64-bit output)."""
    state = (state + _GOLDEN) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def below(state: int, n: int) -> tuple[int, int]:
    """Return (new_state, an integer uniform in [0, n)) for 0 < n < 2**32."""
    state, z = next64(state)
    return state, (z * n) >> 64


def shuffle(state: int, items: list) -> int:
    """Fisher-Yates shuffle of `items` in place; returns the new state."""
    for i in range(len(items) - 1, 0, -1):
        state = (state + _GOLDEN) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        j = ((z ^ (z >> 31)) * (i + 1)) >> 64
        items[i], items[j] = items[j], items[i]
    return state
