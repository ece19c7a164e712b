"""The lab's game seeds: an int (not a bool) from 0 to 2**64 - 1, for every game."""

from __future__ import annotations

from .plain import is_int

MASK64 = (1 << 64) - 1
SEED_RANGE = "0 to 2**64 - 1"


def check_seed(seed: object) -> int:
    """`seed` if it is a game seed: an int (not a bool) from 0 to 2**64 - 1. The generator
    state has 64 bits, so a seed outside that range would repeat the game of another seed
    (2**64 plays seed 0); it raises ValueError naming the range instead."""
    if not is_int(seed):
        raise ValueError(
            f"seed must be an int from {SEED_RANGE}, not {type(seed).__name__} {seed!r}"
        )
    if not 0 <= seed <= MASK64:
        raise ValueError(f"seed {seed} is outside the supported range {SEED_RANGE}")
    return int(seed)
