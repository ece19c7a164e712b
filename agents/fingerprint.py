"""A player spec's behaviour fingerprint: what it plays on a few fixed deals, hashed.

`play_fingerprint(spec)` builds the spec through the registry and plays it in self-play on
`agents.behaviour.DEALS` (the games and the hash are `agents.behaviour`'s). A policy file over a
prior records its bot's fingerprint, and loading the file checks that the bot still plays the
same moves (`agents.registry.RegistryPriors`); the same number for any spec pins what a player
plays (tests/training/test_no_behaviour_change.py pins the shipped reference's).
"""

from __future__ import annotations

from .behaviour import DEALS, spec_fingerprint
from .registry import make_agent

__all__ = ["DEALS", "play_fingerprint"]


def play_fingerprint(spec: str) -> str:
    """16 hex digits of a hash of every action `spec` plays in self-play on `DEALS` (cached
    per process; ``play_fingerprint.cache_clear()`` forgets them)."""
    return spec_fingerprint(spec, make_agent)


play_fingerprint.cache_clear = spec_fingerprint.cache_clear  # type: ignore[attr-defined]
