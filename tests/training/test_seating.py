"""The seating of a training table (training/seating.py): the kinds of table, the mix of a
seat, and the weighted player count, each the same draw of the table's own generator."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from training.seating import (
    BOT,
    BOT_TABLE,
    LEARNER,
    MIXED,
    REVERSE,
    SNAPSHOT,
    draw_player_count,
    draw_seat,
    draw_table,
    is_count_list,
    is_count_weights,
)


def test_player_count_follows_the_weights():
    cfg = SimpleNamespace(num_players=[2, 3, 4], player_weights=[0.0, 1.0, 0.0])
    rng = random.Random(0)
    assert {draw_player_count(rng, cfg) for _ in range(50)} == {3}


@pytest.mark.parametrize("counts", [[2], [5, 3], [2, 3, 4, 5]])
def test_a_mix_of_counts_is_a_list_of_distinct_player_counts(counts):
    assert is_count_list(counts)
    assert is_count_weights([1.0] * len(counts), counts)


@pytest.mark.parametrize("counts", [[], [2, 2], [1], [6], [True], [2.0], (2, 3), 2, None, ["2"]])
def test_other_counts_are_not_a_mix(counts):
    assert not is_count_list(counts)


@pytest.mark.parametrize(
    "weights",
    [[1.0], [1.0, 1.0, 1.0], [0.0, 0.0], [-1.0, 2.0], [1.0, float("nan")], [1.0, float("inf")]]
    + [[True, 1.0], [1.0, "1"], (1.0, 1.0), None],
)
def test_the_weights_are_one_finite_non_negative_number_per_count_with_a_positive_sum(weights):
    assert not is_count_weights(weights, [2, 3])
    assert is_count_weights([0.0, 2], [2, 3])


def test_a_seat_is_a_bot_the_learner_or_a_snapshot_by_its_mix():
    rng = random.Random(1)
    snaps = ["s1", "s2"]
    assert draw_seat(rng, 2, 1.0, 0.0, snaps, {})[0] == BOT
    assert draw_seat(rng, 2, 0.0, 1.0, snaps, {}) == (LEARNER, None)
    kinds = {draw_seat(rng, 2, 0.0, 0.0, snaps, {"s2": 1.0}) for _ in range(50)}
    assert kinds == {(SNAPSHOT, "s2")}  # only weighted snapshots are drawn


def test_without_snapshots_the_seat_is_the_learner_or_without_weights_a_bot():
    rng = random.Random(2)
    assert {draw_seat(rng, 1, 0.0, 0.0, [], {})[0] for _ in range(20)} == {LEARNER}
    seats = {draw_seat(rng, 3, 0.0, 0.0, [], {}, has_latest=False) for _ in range(50)}
    assert {k for k, _ in seats} == {BOT} and {i for _, i in seats} == {0, 1, 2}


def test_the_kinds_of_table():
    rng = random.Random(3)
    assert draw_table(rng, 2, 0.0).kind == MIXED
    t = draw_table(rng, 2, 1.0)
    assert t.kind == BOT_TABLE and t.bot in (0, 1)
    for _ in range(30):
        t = draw_table(rng, 2, 0.0, 1.0, others=[0, 2, 3])
        assert t.kind == REVERSE and t.bot_seat in (0, 2, 3) and t.bot in (0, 1)
    assert draw_table(rng, 0, 1.0).kind == MIXED  # no bot, no bot table


@pytest.mark.parametrize("seed", range(5))
def test_a_seat_draws_as_the_pool_drew_it(seed):
    """The pool's former rule, written out, gives the same seats from the same seed."""
    weights = {"a": 0.3, "b": 0.7}
    old, new = random.Random(seed), random.Random(seed)
    for _ in range(200):
        u = old.random()
        if u < 0.25:
            want = (BOT, old.randrange(3))
        elif u - 0.25 < 0.5:
            want = (LEARNER, None)
        else:
            want = (SNAPSHOT, old.choices(list(weights), weights=list(weights.values()))[0])
        assert draw_seat(new, 3, 0.25, 0.5, weights, weights) == want
