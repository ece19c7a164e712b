"""`GameState.from_dict` bounds every number of a saved state by what the rules can reach.

A value past its bound (2**63, -1, a huge count) is refused with a `StateError` naming the
field, the value and the allowed range, before any writer sees it; a real saved game still
loads; and at the largest allowed values the Python and the compiled observation writers agree.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from lastwill_env import sparse
from lastwill_env.engine import (
    GAME_OVER,
    GameConfig,
    GameState,
    StateError,
    apply_action,
    legal_actions,
    new_game,
    view,
)
from lastwill_env.engine import validate as v
from lastwill_env.engine.builders import turn_state
from lastwill_env.engine.tables import TURN_PHASE

HUGE = 2**63


def _played(n: int = 3, steps: int = 150, seed: int = 4, arranged: bool = True) -> dict:
    """A position after `steps` random decisions; `arranged`: with seed null, as a position
    arranged by hand is saved, so no replay of its history stands between a bad number and
    the writers (only the field checks do)."""
    s = new_game(GameConfig(n), seed)
    rnd = random.Random(seed)
    for _ in range(steps):
        if s.phase == GAME_OVER:
            break
        apply_action(s, rnd.choice(legal_actions(s)))
    if arranged:
        s.seed = None
    return json.loads(json.dumps(s.to_dict()))


def _set(field: str, value, index: int | None = None):
    def damage(d: dict) -> None:
        if index is None:
            d[field] = value
        elif field == "ledger":
            d["ledger"].append([0, value, "enjoy", -1])
        else:
            d[field][index] = value

    return damage


# (field, value, entry or None, the range the message must name)
OUT_OF_RANGE = [
    ("money", HUGE, 1, f"-{v.MONEY_LIMIT}..{v.MONEY_LIMIT}"),
    ("money", -HUGE, 0, f"-{v.MONEY_LIMIT}..{v.MONEY_LIMIT}"),
    ("money", v.MONEY_LIMIT + 1, 2, f"-{v.MONEY_LIMIT}..{v.MONEY_LIMIT}"),
    ("actions", HUGE, None, f"0..{v.MAX_ACTIONS}"),
    ("actions", -1, None, f"0..{v.MAX_ACTIONS}"),
    ("round", HUGE, None, "1..7"),
    ("nprops", 10**6, 0, f"0..{v.NUM_PROPERTIES}"),
    ("nprops", -1, 1, f"0..{v.NUM_PROPERTIES}"),
    ("ext", -1, 0, "0..12"),
    ("step", HUGE, 5, f"0..{v.MAX_STEP}"),
    ("filled", 10**9, 7, f"0..{v.MAX_SLOTS}"),
    ("priv", -1, 3, f"0..{v.MAX_PRIVILEGES}"),
    ("hidden", HUGE, 2, f"0..{v.MAX_HIDDEN}"),
    ("tokens", HUGE, 0, f"0..{v.MAX_TOKENS}"),
    ("mods", HUGE, 3, "-3..3"),
    ("mods", -4, 0, "-3..3"),
    ("plan_i", HUGE, None, "0..3"),
    ("errand_i", 10**6, None, "0..6"),
    ("turn_i", -1, None, "0..3"),
    ("discard_i", HUGE, None, "0..3"),
    ("res_spend", HUGE, None, f"0..{v.MAX_PAYMENT}"),
    ("res_addon", -1, None, f"0..{v.MAX_ADDONS}"),
    ("draw_mand", HUGE, None, f"0..{v.MAX_PLAN_DRAWS}"),
    ("draw_extra", 10**6, None, f"0..{v.MAX_EXTRA_DRAWS}"),
    ("ledger", HUGE, 0, f"1..{v.MAX_PAYMENT}"),
    ("rng", -1, None, "0..18446744073709551615"),
]


@pytest.mark.parametrize(
    ("field", "value", "index", "allowed"),
    OUT_OF_RANGE,
    ids=[f"{f}={val}" for f, val, _, _ in OUT_OF_RANGE],
)
def test_a_number_past_what_the_rules_reach_is_refused(field, value, index, allowed):
    data = _played()
    _set(field, value, index)(data)
    with pytest.raises(StateError) as info:
        GameState.from_dict(data)
    msg = str(info.value)
    assert info.value.field == field, msg
    assert f"game state field {field!r}" in msg
    assert str(value) in msg and allowed in msg, msg


@pytest.mark.parametrize(
    ("field", "value"),
    [("plan_seq", [0, 1, 2, 0, 1]), ("errand_seq", [0] * 7), ("draw_queue", [0] * 99)],
)
def test_a_sequence_longer_than_the_rules_allow_is_refused(field, value):
    data = _played()
    data[field] = value
    with pytest.raises(StateError, match=f"'{field}'.*at most") as info:
        GameState.from_dict(data)
    assert info.value.field == field


def test_every_bound_names_where_it_comes_from():
    for name in (
        "MONEY_LIMIT",
        "MAX_PAYMENT",
        "MAX_ACTIONS",
        "NUM_PROPERTIES",
        "MAX_STEP",
        "MAX_SLOTS",
        "MAX_PRIVILEGES",
        "MAX_HIDDEN",
        "MAX_TOKENS",
        "MAX_ADDONS",
        "MAX_PLAN_DRAWS",
        "MAX_EXTRA_DRAWS",
    ):
        value = getattr(v, name)
        assert isinstance(value, int) and value > 0, name
    # the derived bounds are those of the card data (docs/CARDS.md), not made-up numbers
    assert (v.NUM_PROPERTIES, v.MAX_STEP, v.MAX_SLOTS, v.MAX_TOKENS) == (24, 5, 3, 11)
    assert v.MAX_ACTIONS == 4 + 4 + 8  # best plan, four old friends, three hectic days
    assert 130 < v.MONEY_LIMIT < 2**31  # well inside a C long


@pytest.mark.parametrize("n", [2, 3, 5])
def test_real_games_load_at_every_player_count(n):
    mid = _played(n, 200, seed=10 + n, arranged=False)
    assert GameState.from_dict(mid).to_dict() == mid
    s = new_game(GameConfig(n, starting_money="will-each"), 3)
    rnd = random.Random(n)
    while s.phase != GAME_OVER:
        apply_action(s, rnd.choice(legal_actions(s)))
    assert GameState.from_dict(json.loads(json.dumps(s.to_dict()))) == s


def _largest() -> GameState:
    """A hand-made position at the top of every bound a turn can show: seat 0 owns a house worn
    to its last value with money at the top, seat 1 is as deep in debt as a game can go, every
    extension is on seat 0's board and the acting seat has every action it could hold."""
    s = turn_state(
        4,
        0,
        board=["TownHouse_2", "ManorHouse_1"],
        filled={"ManorHouse_1": 2},
        steps={"TownHouse_2": 5},
        actions=v.MAX_ACTIONS,
        modifiers=(3, 3, 3, 3),
    )
    s.money[0] = v.MONEY_LIMIT
    s.money[1] = -v.MONEY_LIMIT
    s.money[2] = v.MONEY_LIMIT
    s.ext[0], s.ext_left = 12, 0
    s.round = 7
    return GameState.from_dict(json.loads(json.dumps(s.to_dict())))


def test_the_largest_allowed_values_load():
    s = _largest()
    assert s.phase == TURN_PHASE and s.money[:3] == [v.MONEY_LIMIT, -v.MONEY_LIMIT, v.MONEY_LIMIT]
    one_more = s.to_dict()
    one_more["money"][1] -= 1
    with pytest.raises(StateError, match="'money'.*out of range"):
        GameState.from_dict(one_more)


@pytest.mark.skipif(
    sparse.WRITER != "compiled", reason="the compiled writer is not built or not chosen"
)
def test_both_writers_agree_at_the_largest_allowed_values():
    s = _largest()
    for seat in range(4):
        for ordered in (True, False):
            ci, cv = sparse._C.entries(s, seat, ordered, np.empty)
            pi, pv = sparse._result(*sparse.state_entries(s, seat), ordered)
            np.testing.assert_array_equal(ci, pi)
            assert cv.tobytes() == pv.tobytes()


@pytest.mark.skipif(view.VIEW != "compiled", reason="the compiled view is not built or not chosen")
def test_both_views_agree_at_the_largest_allowed_values():
    s = _largest()
    for seat in range(4):
        got = view.player_view(s, seat)
        assert got == view._py_player_view(s, seat)
    top = v.MONEY_LIMIT
    assert view.player_view(s, 1).money == (-top, top, s.money[3], top)  # seats from seat 1
