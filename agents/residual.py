"""The residual rule of a policy over a prior bot, in one place.

A policy trained with a prior (``prior``, a scripted bot's name, and ``prior_weight``) is a
residual over that bot: at every decision ``prior_weight`` is added to the logit of the action
the bot would choose, then the masked softmax (or arg-max) runs as usual. Play
(`agents.policy.NumpyPolicy`), the search's leaves (`agents.leafeval`) and training
(`training.allseat`) all raise the prior's choice through `raise_prior`; a policy's file, a
training run's settings and `lastwill exploit` all check the weight with `check_prior_weight`.
"""

from __future__ import annotations

import math
from typing import Any

from gamecore.options import check_number

# a logit bonus, bounded: 1000 is far past making the prior's choice certain, and the float32
# logits cannot hold much larger weights (1e39 is inf there)
MAX_PRIOR_WEIGHT = 1000.0
PRIOR_WEIGHTS = f"a number from 0 to {MAX_PRIOR_WEIGHT:g} (0 with no prior)"


def check_prior_weight(value: Any) -> float:
    """`value` as a float if it is a prior weight: a Python int or float (not a bool) from 0 to
    `MAX_PRIOR_WEIGHT`; otherwise a `ConfigError` naming ``prior_weight``, the value and
    `PRIOR_WEIGHTS` (`gamecore.options.check_number`). Other number types (a numpy float32,
    a fraction) are refused too, as a setting never holds one."""
    hi = MAX_PRIOR_WEIGHT if isinstance(value, (int, float)) else -math.inf
    return check_number("prior_weight", value, 0.0, hi, allowed=PRIOR_WEIGHTS)


def raise_prior(logits: Any, at: Any, weight: float) -> None:
    """Add `weight` to ``logits[at]`` in place: `at` is the prior bot's choice (an index into a
    vector of legal logits, or a (rows, actions) pair into a batch). Works on numpy arrays and
    torch tensors alike."""
    logits[at] += weight
