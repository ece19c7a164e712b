"""Win rates and their intervals as the report tools write them (shares in [0, 1] in, text out)."""

from __future__ import annotations


def pct(x: float | None) -> str:
    """A share as a percentage with one decimal, ``52.3%`` (empty for None)."""
    return "" if x is None else f"{100 * x:.1f}%"


def interval(lo: float, hi: float) -> str:
    """An interval of shares as percentages, ``[48.9%, 55.1%]``."""
    return f"[{100 * lo:.1f}%, {100 * hi:.1f}%]"


def rate_text(x: dict) -> str:
    """A table line's win rate and Wilson interval in fixed widths, `` 52.3% [ 48.9,  55.1]``
    (its ``win_rate``, ``ci_lo`` and ``ci_hi``)."""
    return f"{100 * x['win_rate']:5.1f}% [{100 * x['ci_lo']:5.1f}, {100 * x['ci_hi']:5.1f}]"
