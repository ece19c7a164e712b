"""The residual rule of a policy over a prior bot, in one place.

A policy trained with a prior (``prior``, a scripted bot's name, and ``prior_weight``) is a
residual over that bot: at every decision ``prior_weight`` is added to the logit of the action
the bot would choose, then the masked softmax (or arg-max) runs as usual. Play
(`agents.policy.NumpyPolicy`), the search's leaves (`agents.leafeval`) and training
(`training.allseat`) all raise the prior's choice through `raise_prior`.
"""

from __future__ import annotations

from typing import Any


def raise_prior(logits: Any, at: Any, weight: float) -> None:
    """Add `weight` to ``logits[at]`` in place: `at` is the prior bot's choice (an index into a
    vector of legal logits, or a (rows, actions) pair into a batch). Works on numpy arrays and
    torch tensors alike."""
    logits[at] += weight
