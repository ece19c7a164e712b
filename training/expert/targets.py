"""Expert iteration's policy targets from one search: the visit counts, or the policy improved
by the search's completed Q-values (Gumbel MuZero's target).

`visits`: the root's visit counts (AlphaZero's target), normalised by the update. With a sharp
prior the most visited move is the prior's own at almost every decision, so the targets differ
from the network only where the search overturns it (docs/EXPERIMENTS.md, "Expert iteration").

`completed_q` (Danihelka et al., "Policy improvement by planning with Gumbel", ICLR 2022):

    pi'(a) = softmax(log pi(a) + sigma(q^(a))),  sigma(q) = (c_visit + max_b N(b)) c_scale q

over the legal actions, with pi the network's priors at the root (its prior bot included, before
root noise), q^(a) the root seat's mean score after a where a was visited and, where it was not,
the mixed value v_mix = (v + sum_b N(b) * sum_{a visited} pi(a) q(a) / sum_{a visited} pi(a)) /
(1 + sum_b N(b)) (v: the critic's score of the root). Scores are read on [0, 1] by the terminal
reward's own range (`lo`, `hi`), not by the node's own minimum and maximum as in `mctx`: a small
difference between two noisy means is then not stretched over the whole scale. Every decision's
target then moves towards the moves the search scored higher, by how much higher, even where
its most visited move is the prior's. c_visit = 50 and c_scale = 0.1 are the paper's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

POLICY_TARGETS = ("visits", "completed_q")
C_VISIT = 50.0
C_SCALE = 0.1
_FLOOR = 1e-12  # the smallest prior read, so that log pi stays finite


def _floored(legal: Sequence[int], prior: dict[int, float]) -> list[float]:
    """The priors of `legal` (same order), none below the floor."""
    return [max(prior.get(a, 0.0), _FLOOR) for a in legal]


def completed_q(
    legal: Sequence[int],
    visits: Sequence[int],
    score_sums: Sequence[float],
    prior: dict[int, float],
    value: float,
    lo: float,
    hi: float,
) -> list[float]:
    """q^ per legal action (same order), on [0, 1]: the mean score where visited, the mixed
    value where not (module docstring)."""
    if not hi > lo:
        raise ValueError(f"the score range must be increasing, got [{lo}, {hi}]")
    total = sum(visits)
    seen = [i for i, n in enumerate(visits) if n > 0]
    p = _floored(legal, prior)
    if seen:
        weighted = sum(p[i] * score_sums[i] / visits[i] for i in seen)
        mixed = (value + total * weighted / sum(p[i] for i in seen)) / (1 + total)
    else:
        mixed = value
    raw = [score_sums[i] / n if n > 0 else mixed for i, n in enumerate(visits)]
    return [min(1.0, max(0.0, (q - lo) / (hi - lo))) for q in raw]


def improved_policy(
    legal: Sequence[int],
    visits: Sequence[int],
    score_sums: Sequence[float],
    prior: dict[int, float],
    value: float,
    lo: float,
    hi: float,
    c_visit: float = C_VISIT,
    c_scale: float = C_SCALE,
) -> list[float]:
    """pi' over `legal` (same order, summing to 1): the completed-Q target (module docstring).
    `visits` and `score_sums` are the root's count and summed score of each legal action for
    the seat to act, `prior` the network's priors, `value` the critic's score of the root."""
    q = completed_q(legal, visits, score_sums, prior, value, lo, hi)
    scale = (c_visit + max(visits, default=0)) * c_scale
    z = [math.log(p) + scale * qa for p, qa in zip(_floored(legal, prior), q, strict=True)]
    top = max(z)
    e = [math.exp(x - top) for x in z]
    total = sum(e)
    return [x / total for x in e]
