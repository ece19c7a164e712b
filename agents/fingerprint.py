"""A player's behaviour fingerprint: what it plays on a few fixed deals, hashed.

A policy over a prior bot (`agents.policy.NumpyPolicy`, `prior`) plays through that bot's code
at every decision, so a change to the bot changes the policy. The policy file records the
prior's fingerprint when it is written, and loading it checks that the bot still plays the same
moves on these deals (`agents.policy.NumpyPolicy.load_npz`).
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache

# (players, deal seed) of the fingerprint games; every seat is the player being fingerprinted
DEALS = ((2, 11), (4, 13))


@lru_cache(maxsize=32)
def play_fingerprint(spec: str) -> str:
    """16 hex digits of a hash of every action `spec` plays in self-play on `DEALS`."""
    from lastwill_env.engine import GameConfig

    from .arena import play_game

    h = hashlib.sha256()
    for n, seed in DEALS:
        row = play_game([spec] * n, GameConfig(num_players=n), seed)
        h.update(json.dumps([n, seed, row["actions"], row["error"]]).encode())
    return h.hexdigest()[:16]
