"""Money!'s shaping potential (money_env/shaping.py): zero-sum over a table, the hand score's
sign, zero at the end, and the one the trainer reads through the game."""

from __future__ import annotations

import random

import pytest

from gamecore import load_game
from money_env.engine import apply_action, is_over, legal_actions, new_game
from money_env.engine.score import score_hand
from money_env.shaping import SCALE, potential


def _play(n: int, seed: int, steps: int):
    s = new_game(n, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if is_over(s):
            break
        apply_action(s, rng.choice(legal_actions(s)))
    return s


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("steps", [0, 7, 40, 120])
def test_potentials_of_a_table_sum_to_zero(n, steps):
    s = _play(n, seed=n * 100 + steps, steps=steps)
    assert sum(potential(s, p) for p in range(n)) == pytest.approx(0.0, abs=1e-9)


def test_the_richer_hand_has_the_higher_potential():
    s = _play(3, seed=5, steps=60)
    totals = [score_hand(h)["total"] for h in s.hands]
    best = max(range(3), key=totals.__getitem__)
    worst = min(range(3), key=totals.__getitem__)
    assert totals[best] > totals[worst]
    assert potential(s, best) > potential(s, worst)
    others = (totals[1] + totals[2]) / 2
    assert potential(s, 0) == pytest.approx((totals[0] - others) / SCALE)


def test_zero_once_the_game_is_over():
    s = _play(4, seed=9, steps=10_000)
    assert is_over(s)
    assert [potential(s, p) for p in range(4)] == [0.0] * 4


def test_the_game_gives_the_trainer_this_potential():
    game = load_game("money")
    s = _play(4, seed=3, steps=30)
    assert [game.potential(s, p) for p in range(4)] == [potential(s, p) for p in range(4)]
    fast = game.fast_functions()
    assert fast["potential"](s, 2) == potential(s, 2)
