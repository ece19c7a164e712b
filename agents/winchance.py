"""A policy's value estimate as a chance of winning (or an expected rank), for people to read.

A critic's value is on the scale of its training return. :meth:`agents.leafeval.LeafEvaluator.score`
(the search's rule) puts it on the scale of the seat's terminal reward: the shaping the critic
was trained with is added back and the result clipped to the reward's range. That reward
estimate ``r`` is then read as what it measures (the reward modes of
:func:`gamecore.results.terminal_rewards`, which Last Will's `Game.terminal_rewards` gives):

- ``zero_sum`` (+1 for the winner, -1/(n-1) for every other seat) is an affine map of winning,
  ``r = win * n/(n-1) - 1/(n-1)``, so the chance of winning is ``((n-1) r + 1) / n``
  (:func:`win_chance`; 1/n is the even chance);
- ``rank`` (``2 (n - rank)/(n - 1) - 1``) is an affine map of the rank, so the expected rank is
  ``n - (r + 1)(n - 1)/2`` (:func:`expected_rank`).

The critic's discount is not undone (docs in :mod:`agents.leafeval`), so early in a game an
estimate leans towards the even chance.
"""

from __future__ import annotations

from typing import Any


def win_chance(reward: float, n: int) -> float:
    """A ``zero_sum`` reward estimate at ``n`` players as a chance of winning (0 to 1)."""
    return min(1.0, max(0.0, ((n - 1) * reward + 1.0) / n))


def expected_rank(reward: float, n: int) -> float:
    """A ``rank`` reward estimate at ``n`` players as an expected rank (1 to ``n``)."""
    return min(float(n), max(1.0, n - (reward + 1.0) * (n - 1) / 2.0))


def outcome(reward: float, n: int, mode: str) -> dict[str, Any]:
    """``{"reward", "win_chance", "expected_rank"}`` of a reward estimate in reward ``mode``
    (the one that mode does not measure is ``None``)."""
    return {
        "reward": reward,
        "win_chance": win_chance(reward, n) if mode == "zero_sum" else None,
        "expected_rank": expected_rank(reward, n) if mode == "rank" else None,
    }
