"""Results with shared places: ranks, win shares and terminal rewards, for every game.

Ranks are 1 for the best seat; seats that tie share a rank and the next rank skips, as in
sports tables (``[1, 1, 3]``: two seats share first place). A game without ties (Last Will
breaks every tie, docs/RULES.md §8) gives a permutation of ``1..n``; the functions below then
give exactly what a single-winner count gives.

- `win_shares(ranks)`: a shared first place among ``k`` seats is ``1/k`` of a win each, so
  every game hands out exactly one win and a win rate stays a fraction of games.
- `terminal_rewards(ranks, mode)`: ``zero_sum`` gives the ``k`` winners ``(n-k)/(k(n-1))``
  each and every other seat ``-1/(n-1)`` (``+1`` for a lone winner; the table sums to 0);
  ``rank`` maps the mean position a tied group occupies linearly onto ``[+1, -1]``.
"""

from __future__ import annotations

from collections.abc import Sequence

from .plain import is_int

REWARD_MODES = ("zero_sum", "rank")


def check_ranks(ranks: Sequence[int]) -> list[int]:
    """``ranks`` as a list of ints, or ValueError naming what is wrong: every rank in
    ``1..n``, and ``k`` seats sharing rank ``r`` leave ranks ``r+1..r+k-1`` empty."""
    n = len(ranks)
    if n < 1 or any(not is_int(r) or not 1 <= r <= n for r in ranks):
        raise ValueError(f"ranks {list(ranks)} must each be an int from 1 to {n}")
    out = [int(r) for r in ranks]
    for r in set(out):
        if sum(1 for q in out if q < r) != r - 1:
            raise ValueError(f"ranks {out}: rank {r} must follow exactly {r - 1} better seats")
    return out


def win_shares(ranks: Sequence[int]) -> list[float]:
    """Each seat's share of the game's one win: ``1/k`` for each of ``k`` seats ranked 1."""
    k = sum(1 for r in ranks if r == 1)
    if k == 1:
        return [1.0 if r == 1 else 0.0 for r in ranks]
    return [1.0 / k if r == 1 else 0.0 for r in ranks]


def terminal_rewards(ranks: Sequence[int], mode: str = "zero_sum") -> list[float]:
    """Per-seat terminal rewards from ranks (1 = best, ties shared); see the module text."""
    n = len(ranks)
    if mode == "zero_sum":
        lose = -1.0 / (n - 1)
        k = sum(1 for r in ranks if r == 1)
        win = 1.0 if k == 1 else (n - k) / (k * (n - 1))
        return [win if r == 1 else lose for r in ranks]
    if mode == "rank":
        mean = {r: r + (sum(1 for q in ranks if q == r) - 1) / 2 for r in set(ranks)}
        return [2.0 * (n - mean[r]) / (n - 1) - 1.0 for r in ranks]
    raise ValueError(f"reward={mode!r} is not allowed; choose one of {REWARD_MODES}")
