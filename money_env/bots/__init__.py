"""Scripted Money! bots (standard library only), one plan of play per module.

- `value.ValueBot` (``value``): bids to win the group worth most to its hand, exchanges for
  the best hand by the engine's scoring.
- `collector.CollectorBot` (``collector``): chases trios and full sets of the currencies it
  already holds.
- `bluffer.BlufferBot` (``bluffer``): mixes its bids at random (the bluff alone, low bids,
  value bids), exchanges as the value bidder.

The shared estimate, planner and base class live in `common`.
"""

from .bluffer import BlufferBot
from .collector import CollectorBot
from .common import MoneyBot
from .value import ValueBot

__all__ = ["BlufferBot", "CollectorBot", "MoneyBot", "ValueBot"]
