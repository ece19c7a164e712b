"""training.expert.targets: the completed-Q policy target (Gumbel MuZero's), checked by hand."""

from __future__ import annotations

import math

import pytest

from training.expert.targets import completed_q, improved_policy


def test_completed_q_mixes_the_value_into_the_unvisited_moves():
    # three moves, the first visited 3 times (scores summing to 1.5), the second once (-0.5)
    legal, visits, sums = [4, 7, 9], [3, 1, 0], [1.5, -0.5, 0.0]
    prior = {4: 0.5, 7: 0.3, 9: 0.2}
    q = completed_q(legal, visits, sums, prior, value=0.2, lo=-1.0, hi=1.0)
    # visited: the mean scores 0.5 and -0.5; unvisited: (0.2 + 4 * (0.5*0.5 + 0.3*-0.5) / 0.8) / 5
    mixed = (0.2 + 4 * (0.5 * 0.5 + 0.3 * -0.5) / 0.8) / 5
    assert q == pytest.approx([0.75, 0.25, (mixed + 1) / 2])
    # nothing visited: every move reads the critic's value
    assert completed_q(legal, [0, 0, 0], [0.0] * 3, prior, 0.2, -1.0, 1.0) == [0.6] * 3
    with pytest.raises(ValueError, match="increasing"):
        completed_q(legal, visits, sums, prior, 0.2, 1.0, 1.0)


def test_the_improved_policy_moves_towards_the_better_scored_moves():
    legal, prior = [4, 7, 9], {4: 0.5, 7: 0.3, 9: 0.2}
    visits, sums = [3, 1, 0], [1.5, -0.5, 0.0]
    pi = improved_policy(legal, visits, sums, prior, 0.2, -1.0, 1.0)
    q = completed_q(legal, visits, sums, prior, 0.2, -1.0, 1.0)
    scale = (50 + 3) * 0.1
    z = [math.log(prior[a]) + scale * qa for a, qa in zip(legal, q, strict=True)]
    want = [math.exp(x) / sum(math.exp(y) for y in z) for x in z]
    assert pi == pytest.approx(want) and sum(pi) == pytest.approx(1.0)
    assert pi[0] > prior[4] and pi[1] < prior[7]  # the better-scored move gains
    # equal scores everywhere (the critic's value too): the prior itself
    same = improved_policy(legal, [2, 2, 0], [0.4, 0.4, 0.0], prior, 0.2, -1.0, 1.0)
    assert same == pytest.approx([prior[a] for a in legal])
    # scores beyond the range are read at its ends; a zero prior stays finite
    edge = improved_policy([1, 2], [1, 1], [5.0, -5.0], {1: 0.0, 2: 1.0}, 0.0, -1.0, 1.0)
    assert all(math.isfinite(p) for p in edge) and sum(edge) == pytest.approx(1.0)
