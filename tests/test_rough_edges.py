"""Rough edges of the engine and environment APIs get clear errors of the lab's kinds.

One row per bad input: the call, the exception type it must raise and a piece of the message
naming what was wrong (and, where it helps, what is allowed). Calls that act on a game also
check that the refused call left the state unchanged.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from lastwill_env import raw_env
from lastwill_env.engine import (
    ConfigError,
    GameState,
    IllegalActionError,
    apply_action,
    legal_actions,
    new_game,
    replay,
)
from lastwill_env.single_seat import SingleSeatEnv


def _raises(call, kind: type[BaseException], text: str) -> BaseException:
    with pytest.raises(kind) as info:
        call()
    assert type(info.value) is kind, type(info.value)
    assert text in str(info.value), str(info.value)
    return info.value


# ---------------------------------------------------------------------------------------------
# Constructor options and calls out of order

CONSTRUCTION = [
    ("env-penalty-nan", lambda: raw_env(illegal_penalty=math.nan), "illegal_penalty=nan"),
    ("env-penalty-inf", lambda: raw_env(illegal_penalty=-math.inf), "give a finite number"),
    ("env-penalty-text", lambda: raw_env(illegal_penalty="x"), "illegal_penalty='x'"),
    ("env-penalty-bool", lambda: raw_env(illegal_penalty=True), "give a finite number"),
    (
        "single-weights-nan",
        lambda: SingleSeatEnv(player_weights=(math.nan, 1, 1, 1)),
        "must be 4 finite non-negative numbers",
    ),
    (
        "single-weights-text",
        lambda: SingleSeatEnv(player_weights=("a", 1, 1, 1)),
        "player_weights=('a', 1, 1, 1)",
    ),
    (
        "single-weights-inf",
        lambda: SingleSeatEnv(num_players=(2, 3), player_weights=(math.inf, 1)),
        "finite non-negative",
    ),
    ("single-penalty-text", lambda: SingleSeatEnv(illegal_penalty="x"), "illegal_penalty='x'"),
    ("single-penalty-nan", lambda: SingleSeatEnv(illegal_penalty=math.nan), "finite number"),
]


@pytest.mark.parametrize(("name", "call", "text"), CONSTRUCTION, ids=[c[0] for c in CONSTRUCTION])
def test_bad_environment_options_raise_config_error(name, call, text):
    _raises(call, ConfigError, text)


def test_finite_penalties_are_kept_as_floats():
    assert raw_env(illegal_penalty=-2).illegal_penalty == -2.0
    assert SingleSeatEnv(illegal_penalty=np.float32(-0.5)).illegal_penalty == -0.5


def test_step_before_reset_names_reset():
    e = raw_env()
    _raises(lambda: e.step(0), RuntimeError, "call reset()")


@pytest.mark.parametrize("method", ["observe", "observation_space", "action_space"])
def test_an_unknown_agent_is_refused_naming_the_agents(method):
    e = raw_env(num_players=3)
    e.reset(seed=1)
    err = _raises(lambda: getattr(e, method)("player_9"), ValueError, "'player_9'")
    assert "['player_0', 'player_1', 'player_2']" in str(err)
    assert e.observation_space("player_2").contains(e.observe("player_2"))


# ---------------------------------------------------------------------------------------------
# Actions: Python and numpy integers only


def _not_integers(a: int) -> list:
    return [np.bool_(True), np.float64(a), float(a), np.float32(a), True, str(a), None]


def test_apply_action_refuses_values_that_are_not_integers_naming_the_type():
    s = new_game(3, 7)
    a = legal_actions(s)[0]
    before = s.to_dict()
    for bad in _not_integers(a):
        err = _raises(
            lambda bad=bad: apply_action(s, bad), IllegalActionError, "an action is an int"
        )
        assert f"of type {type(bad).__name__}" in str(err)
        assert s.to_dict() == before
    apply_action(s, np.int16(a))  # numpy integers are integers
    assert s.history == [a] and type(s.history[0]) is int


@pytest.mark.parametrize("mode", ["raise", "penalize"])
def test_aec_step_refuses_values_that_are_not_integers_in_either_mode(mode):
    e = raw_env(num_players=2, illegal_action=mode)
    e.reset(seed=3)
    a = legal_actions(e.game)[0]
    before = e.game.to_dict()
    for bad in _not_integers(a):
        _raises(lambda bad=bad: e.step(bad), IllegalActionError, f"of type {type(bad).__name__}")
        assert e.game.to_dict() == before and not any(e.terminations.values())
    e.step(np.int64(a))
    assert e.game.history == [a]


@pytest.mark.parametrize("mode", ["raise", "penalize"])
def test_single_seat_step_refuses_values_that_are_not_integers_in_either_mode(mode):
    e = SingleSeatEnv(num_players=2, illegal_action=mode)
    e.reset(seed=3)
    a = int(np.flatnonzero(e.action_masks())[0])
    before = e.game.to_dict()
    for bad in _not_integers(a):
        _raises(lambda bad=bad: e.step(bad), IllegalActionError, f"of type {type(bad).__name__}")
        assert e.game.to_dict() == before
    e.step(np.uint16(a))  # numpy integers are integers
    assert e.game.history[len(before["history"])] == a


# ---------------------------------------------------------------------------------------------
# replay and seeds


@pytest.mark.parametrize(
    ("actions", "text"),
    [
        (None, "not NoneType None"),
        ("123", "not str '123'"),
        ({"a": 1}, "not dict"),
        (7, "not int 7"),
    ],
)
def test_replay_refuses_actions_that_are_not_a_list(actions, text):
    err = _raises(lambda: replay(4, 0, actions), ValueError, text)
    assert "actions must be a list of action ints" in str(err)


def test_replay_accepts_a_tuple_of_actions():
    s = new_game(2, 5)
    for _ in range(6):
        apply_action(s, legal_actions(s)[-1])
    assert replay(2, 5, tuple(s.history)) == s


@pytest.mark.parametrize(
    ("seed", "text"),
    [
        (2**64, "seed 18446744073709551616 is outside the supported range 0 to 2**64 - 1"),
        (-1, "seed -1 is outside the supported range 0 to 2**64 - 1"),
        (True, "not bool True"),
        (1.0, "not float 1.0"),
        ("3", "not str '3'"),
    ],
)
def test_new_game_refuses_seeds_outside_the_range(seed, text):
    _raises(lambda: new_game(4, seed), ValueError, text)
    _raises(lambda: replay(4, seed, []), ValueError, text)


def test_the_largest_seed_deals_its_own_game():
    top = new_game(4, 2**64 - 1)
    assert top.seed == 2**64 - 1
    assert top.rng != new_game(4, 0).rng and top.hands != new_game(4, 0).hands
    assert GameState.from_dict(top.to_dict()) == top
