"""Deal sets: validation deals for choosing, test deals for reporting, disjoint by construction.

A figure measured on the deals that chose a checkpoint is biased upwards: choosing among many
stages and checkpoints on one fixed set of deals picks the one that was lucky on those deals.
So every arena deal belongs to one of two sets:

- **validation** deals (:data:`VALIDATION`): what training's evaluations, the promotion of
  ``best.*``, stage screening with ``lastwill arena``, ``lastwill exploit``'s evaluations and any
  tuning use. ``lastwill arena`` plays them unless told otherwise.
- **test** deals (:data:`TEST`): what ``lastwill eval``, ``labreports.reference_tables``,
  ``labreports.bot_ladder`` and every figure in ``docs/RESULTS.md`` use. The training and
  exploit code paths refuse them (:func:`for_choosing`).

A deal seed is a 53-bit integer (JSON-safe). Bit 52 is the set's tag: clear on every validation
deal, set on every test deal, so no validation deal is ever a test deal, whatever the
tournament seeds (:func:`deals_of` reads the tag back). The other 52 bits are a hash of the
tournament seed, the set's name and the deal's index (:func:`derive_seed`).
"""

from __future__ import annotations

import hashlib
from typing import Any

VALIDATION = "validation"
TEST = "test"
DEAL_SETS = (VALIDATION, TEST)

_TAG = 1 << 52
_LOW = _TAG - 1


class DealsError(ValueError):
    """A deal set that does not exist, or test deals asked for where a choice is made."""


def derive_seed(seed: int, *parts: Any) -> int:
    """A stable 53-bit seed from a tournament seed and labels (JSON-safe, platform-free)."""
    text = ":".join(str(p) for p in (seed, *parts)).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") & ((1 << 53) - 1)


def check_deals(deals: str) -> str:
    """``deals`` if it names a deal set, else a :class:`DealsError` naming the sets."""
    if deals not in DEAL_SETS:
        raise DealsError(f"unknown deal set {deals!r}; use one of: {', '.join(DEAL_SETS)}")
    return deals


def deal_seed(seed: int, deals: str, deal: int) -> int:
    """The seed of deal ``deal`` of the tournament seed ``seed`` in the set ``deals``."""
    low = derive_seed(seed, check_deals(deals), "deal", deal) & _LOW
    return low | _TAG if deals == TEST else low


def deals_of(seed: int) -> str:
    """The set a deal seed belongs to, read from its tag bit."""
    return TEST if seed & _TAG else VALIDATION


def training_seed(seed: int, *parts: Any) -> int:
    """The seed of a training game (self-play to learn from) of the run seed ``seed`` and labels:
    never a test deal (its tag bit clear)."""
    return derive_seed(seed, *parts) & _LOW


def for_choosing(deals: str, who: str) -> str:
    """``deals`` for a code path that chooses (training, exploit): test deals are refused."""
    if check_deals(deals) == TEST:
        raise DealsError(
            f"{who} chooses among players, so it plays validation deals only; test deals are "
            f"for reporting (lastwill eval, labreports.reference_tables), never for choosing"
        )
    return deals


def describe(deals: str, seed: int) -> str:
    """One line naming the deals a table used, e.g. ``test deals of seed 202``."""
    return f"{check_deals(deals)} deals of seed {seed}"
