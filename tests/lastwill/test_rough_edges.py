"""Rough edges of the engine and environment APIs get clear errors of the lab's kinds.

One row per bad input: the call, the exception type it must raise and a piece of the message
naming what was wrong (and, where it helps, what is allowed). Calls that act on a game also
check that the refused call left the state unchanged.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from agents.registry import make_agent
from apps.cli import app
from lastwill_env import raw_env
from lastwill_env.engine import (
    GAME_OVER,
    ConfigError,
    GameConfig,
    GameState,
    IllegalActionError,
    StateError,
    apply_action,
    legal_actions,
    new_game,
    player_view,
    replay,
)
from lastwill_env.engine import builders as B
from lastwill_env.engine.determinize import determinize
from lastwill_env.engine.game import ROOM_PHASE
from lastwill_env.single_seat import SingleSeatEnv
from training.config import TrainConfig, TrainConfigError


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
    ("env-penalty-inf", lambda: raw_env(illegal_penalty=-math.inf), "use a finite number"),
    ("env-penalty-text", lambda: raw_env(illegal_penalty="x"), "illegal_penalty='x'"),
    ("env-penalty-bool", lambda: raw_env(illegal_penalty=True), "use a finite number"),
    ("env-penalty-complex", lambda: raw_env(illegal_penalty=np.complex128(1)), "complex128"),
    (
        "env-penalty-huge",
        lambda: raw_env(illegal_penalty=10**400),
        "illegal_penalty=10000000000000000000...00000000 (401 digits) is not allowed",
    ),
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


class _OldNumpyBool:
    """A bool as numpy 1.x has it: its ``__index__`` still answers 0 or 1 (with a warning)."""

    dtype = np.dtype(bool)

    def __init__(self, index: int) -> None:
        self.index = index

    def __index__(self) -> int:
        return self.index


def test_a_bool_of_any_kind_is_not_an_action_even_one_that_reads_as_an_index():
    s = new_game(2, 3)
    a = legal_actions(s)[0]
    before = s.to_dict()
    for bad in (_OldNumpyBool(a), np.array(True), np.bool_(a == 1)):
        _raises(lambda bad=bad: apply_action(s, bad), IllegalActionError, "an action is an int")
        assert s.to_dict() == before
    e = raw_env(num_players=2, illegal_action="penalize")
    e.reset(seed=3)
    a = legal_actions(e.game)[0]
    _raises(lambda: e.step(_OldNumpyBool(a)), IllegalActionError, "of type _OldNumpyBool")
    assert e.game.history == [] and not any(e.terminations.values())


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


@pytest.mark.parametrize(
    ("seed", "text"),
    [
        (-1, "seed=-1 is not allowed; use an integer from 0 to 2**64 - 1"),
        (1.5, "seed=1.5 is not allowed"),
        ("3", "seed='3' is not allowed"),
        (True, "seed=True is not allowed"),
        (np.array([1, 2]), "seed=array([1, 2]) is not allowed"),
        (2**64, "seed=18446744073709551616 is not allowed"),
        (10**400, "seed=10000000000000000000...00000000 (401 digits) is not allowed"),
    ],
)
def test_env_reset_refuses_a_bad_seed_naming_it_and_the_range(seed, text):
    e = raw_env(num_players=2)
    _raises(lambda: e.reset(seed=seed), ConfigError, text)
    e.reset(seed=np.uint64(7))  # a numpy integer is a seed
    first = e.game.to_dict()
    e.reset(seed=7)
    assert e.game.to_dict() == first


def test_the_largest_seed_deals_its_own_game():
    top = new_game(4, 2**64 - 1)
    assert top.seed == 2**64 - 1
    assert top.rng != new_game(4, 0).rng and top.hands != new_game(4, 0).hands
    assert GameState.from_dict(top.to_dict()) == top


# ---------------------------------------------------------------------------------------------
# determinize: the view's own seat, and every decision of real games loads


def test_determinize_refuses_a_seat_the_view_was_not_made_for():
    s = new_game(4, 11)
    view = player_view(s, 1)
    before = s.to_dict()
    _raises(lambda: determinize(view, 2, random.Random(1)), ValueError, "the view is seat 1's")
    for bad in (9, -1, True, "1", 1.0):
        _raises(
            lambda bad=bad: determinize(view, bad, random.Random(1)),
            ValueError,
            "is not at this table; seats are 0..3",
        )
    assert s.to_dict() == before
    d = determinize(view, 1, random.Random(1))
    assert player_view(d, 1) == view


def test_determinize_at_make_room_counts_the_bought_property():
    """docs/RULES.md §4.4, §5: at the make-room decision after buying onto a full board the
    buyer already owns the property, so it may not go below £0 (nprops counts it)."""
    s = B.turn_state(
        4,
        0,
        hand=["Farm_3", "BoatTrip_4"],
        board=["Carriage_2", "Reservation_1", "Reservation_2", "Carriage_5", "Waiter_1"],
        money=10,
        actions=4,
        modifiers=(0, 0, 0, 0),
    )
    B.do(s, "play Farm_3")
    assert s.phase == ROOM_PHASE and s.nprops[0] == 1
    g = determinize(player_view(s, 0), 0, random.Random(1))
    assert g.nprops == s.nprops
    loaded = GameState.from_dict(json.loads(json.dumps(g.to_dict())))
    assert loaded == g and sorted(legal_actions(loaded)) == sorted(legal_actions(s))


def _determinize_every_decision(games: int) -> int:
    """Play `games` bot games at 2-5 players; at every decision determinize the current seat's
    view and load the result through `GameState.from_dict`. Returns the decisions checked."""
    checked = 0
    specs = ("greedy", "racer", "random")
    for g in range(games):
        n = 2 + g % 4
        bots = [make_agent(specs[(g + i) % 3], seed=100 * g + i) for i in range(n)]
        s = new_game(n, 7000 + g)
        rng = random.Random(g)
        while s.phase != GAME_OVER:
            seat = s.cur
            view = player_view(s, seat)
            legal = legal_actions(s)
            d = determinize(view, seat, rng)
            loaded = GameState.from_dict(d.to_dict())
            assert player_view(loaded, seat) == view, f"game {g} decision {len(s.history)}"
            assert sorted(legal_actions(loaded)) == sorted(legal), f"game {g}"
            apply_action(s, bots[seat].act(view, legal))
            checked += 1
    return checked


def test_determinize_loads_at_every_decision_of_bot_games():
    assert _determinize_every_decision(48) > 10_000


@pytest.mark.slow
def test_determinize_loads_at_every_decision_of_many_bot_games():
    assert _determinize_every_decision(400) > 100_000


# ---------------------------------------------------------------------------------------------
# GameState.from_dict replays the history from the deal


def _played(n: int = 3, steps: int = 90) -> GameState:
    s = new_game(n, 21)
    rnd = random.Random(2)
    for _ in range(steps):
        apply_action(s, rnd.choice(legal_actions(s)))
    return s


def _other_legal_first_move(d: dict) -> None:
    s = new_game(GameConfig.from_dict(d["config"]), d["seed"])
    d["history"][0] = next(a for a in legal_actions(s) if a != d["history"][0])


HISTORY_CASES = [
    ("one-decision-dropped", lambda d: d["history"].pop(), "history", "lead to another state"),
    ("first-decision-changed", _other_legal_first_move, "history", "decision "),
    ("illegal-decision", lambda d: d["history"].insert(0, 0), "history", "decision 0 (0)"),
    ("other-seed", lambda d: d.update(seed=d["seed"] + 1), "history", "seed 22"),
    ("seed-too-large", lambda d: d.update(seed=2**64), "seed", "0..2**64 - 1 or null"),
    ("seed-negative", lambda d: d.update(seed=-1), "seed", "got -1"),
    ("seed-bool", lambda d: d.update(seed=True), "seed", "got True"),
]


@pytest.mark.parametrize(
    ("name", "damage", "field", "text"), HISTORY_CASES, ids=[c[0] for c in HISTORY_CASES]
)
def test_from_dict_refuses_a_history_that_does_not_reach_the_state(name, damage, field, text):
    data = json.loads(json.dumps(_played().to_dict()))
    assert GameState.from_dict(data).to_dict() == data  # sound first
    damage(data)
    with pytest.raises(StateError) as info:
        GameState.from_dict(data)
    assert info.value.field == field, str(info.value)
    assert text in str(info.value), str(info.value)


def test_from_dict_checks_each_position_of_a_game_in_any_order():
    s = _played(4, 0)
    states = []
    rnd = random.Random(5)
    while s.phase != GAME_OVER and len(states) < 60:
        apply_action(s, rnd.choice(legal_actions(s)))
        states.append(s.to_dict())
    for d in states[::-1] + states[::7]:  # backwards and forwards: the replay is not stale
        assert GameState.from_dict(d).to_dict() == d
    d = states[30]
    d["money"][0] += 1  # every relation holds (nobody owns a property yet), the history not
    with pytest.raises(StateError, match="'history'.*differs in \\['money'\\]"):
        GameState.from_dict(d)


def test_an_arranged_position_has_no_seed_and_loads_with_its_later_decisions():
    s = B.turn_state(board=["Farm_3"], money=10, actions=3)
    assert s.seed is None
    B.do(s, "use Farm_3")
    assert GameState.from_dict(s.to_dict()) == s
    data = s.to_dict()
    data["seed"] = 0  # the deal of seed 0 does not lead here
    with pytest.raises(StateError, match="'history'"):
        GameState.from_dict(data)
    d = determinize(player_view(s, 0), 0, random.Random(3))
    assert d.seed is None and GameState.from_dict(d.to_dict()) == d


# ---------------------------------------------------------------------------------------------
# Command-line settings: the rating anchor and the prior weight


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _refused(tmp_path: Path, argv: list[str], text: str) -> None:
    """`lastwill ARGV` exits with code 2 and `text` on stderr, no traceback, no file changed."""
    before = _files(tmp_path)
    res = CliRunner().invoke(app, argv)
    assert res.exit_code == 2, res.output
    assert text in " ".join(res.stderr.split()), res.stderr
    assert "Traceback" not in res.output
    assert _files(tmp_path) == before


REFERENCE = "ppo:agents/policies/reference.npz"  # plays over the sprinter, weight 3

CLI_CASES = [
    (
        "play-seed-negative",
        ["play", "--opponents", "greedy", "--seed", "-1"],
        "--seed: seed -1 is outside the supported range 0 to 2**64 - 1",
    ),
    (
        "play-seed-too-large",
        ["play", "--opponents", "greedy", "--seed", str(2**64)],
        "is outside the supported range 0 to 2**64 - 1",
    ),
    (
        "arena-anchor-not-an-entrant",
        ["arena", "--players", "random,greedy", "--games", "2", "--anchor", "nosuch"],
        "--anchor 'nosuch' is not an entrant; name one of the --players specs: random, greedy",
    ),
    (
        "eval-anchor-unknown",
        ["eval", "greedy@me", "--panel", "random", "--games", "2", "--anchor", "nosuch"],
        "unknown player 'nosuch'",
    ),
    (
        "eval-anchor-plays-no-game",
        ["eval", "greedy@me", "--panel", "random", "--games", "2", "--anchor", "racer"]
        + ["--no-mixed"],
        "the anchor 'racer' would play no game",
    ),
    (
        "exploit-prior-weight-nan-with-a-policy-target",
        ["exploit", "--target", REFERENCE, "--steps", "10", "--prior-weight", "nan"],
        "prior_weight=nan is not allowed; use a number from 0 to 1000",
    ),
    (
        "exploit-prior-weight-too-large",
        ["exploit", "--target", "racer", "--steps", "10", "--prior", "racer"]
        + ["--prior-weight", "1e39"],
        "prior_weight=1e+39 is not allowed",
    ),
    (
        "exploit-prior-weight-not-the-start-policy-s",
        ["exploit", "--target", REFERENCE, "--steps", "10", "--prior-weight", "5"],
        "plays over 'sprinter' (weight 3.0)",
    ),
]


@pytest.mark.parametrize(("name", "argv", "text"), CLI_CASES, ids=[c[0] for c in CLI_CASES])
def test_cli_refuses_settings_that_would_be_ignored(tmp_path, name, argv, text):
    out = ["--run-dir", str(tmp_path / "run")] if argv[0] == "exploit" else []
    out = out or ["--out", str(tmp_path / "log.jsonl")]
    _refused(tmp_path, argv + out, text)


def test_arena_anchor_by_display_name_pins_that_entrant(tmp_path):
    argv = ["arena", "--players", "random@R,greedy", "--games", "2", "--anchor", "R"]
    res = CliRunner().invoke(app, argv + ["--out", str(tmp_path / "a.jsonl"), "-f", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["ratings"]["anchor"] == "random@R"


@pytest.mark.parametrize("weight", [math.nan, math.inf, 1e39, 1000.5, -1.0])
def test_train_config_bounds_the_prior_weight(weight):
    settings = {"mode": "all_seat", "prior": "racer", "prior_weight": weight}
    with pytest.raises(TrainConfigError, match="use a number from 0 to 1000"):
        TrainConfig.from_dict(settings)
    assert TrainConfig.from_dict({**settings, "prior_weight": 1000.0}).prior_weight == 1000.0


@pytest.mark.parametrize("answer", [lambda a: np.float64(a), lambda a: float(a), lambda a: True])
def test_play_refuses_a_bot_move_that_is_not_an_integer(monkeypatch, answer):
    from apps import play as pl
    from lastwill_env.bots import GreedyBot

    monkeypatch.setattr(GreedyBot, "act", lambda self, view, legal: answer(legal[-1]))
    game = pl.new_play(["greedy"], seed=3)
    problems = []
    while game.state.phase != GAME_OVER and not problems:
        if game.state.cur == game.human_seat:
            pl.human_step(game, legal_actions(game.state)[0])
        else:
            legal = legal_actions(game.state)
            action, problem = pl.bot_step(game)
            if problem is not None:
                problems.append(problem)
                assert action == legal[0]  # the seat plays the first legal action instead
    assert problems and "not an integer" in problems[0]


# ---------------------------------------------------------------------------------------------
# Numeric options: one check (gamecore.options.check_number)


@pytest.mark.parametrize(
    ("value", "integer", "text"),
    [
        (10**400, True, "n=10000000000000000000...00000000 (401 digits) is not allowed"),
        (10**400, False, "n=10000000000000000000...00000000 (401 digits) is not allowed"),
        (-(10**400), False, "n=-1000000000000000000...00000000 (401 digits) is not allowed"),
        (math.inf, False, "n=inf is not allowed; use a number from 0 to 10"),
        (math.nan, False, "n=nan is not allowed"),
        (np.float64("nan"), False, "n=np.float64(nan) is not allowed"),
        (True, True, "n=True is not allowed; use an integer from 0 to 10"),
        (np.bool_(True), False, "n=np.True_ is not allowed"),
        (2.0, True, "n=2.0 is not allowed; use an integer"),
        ("5", False, "n='5' is not allowed"),
        ("9" * 400, False, "n='99999999999999999999...99999999' (400 characters) is not"),
        (1j, False, "n=1j is not allowed"),
        (np.array([1.0]), False, "n=array([1.]) is not allowed"),
        (11, True, "n=11 is not allowed; use an integer from 0 to 10"),
    ],
)
def test_check_number_refuses_what_is_not_a_number_in_its_range(value, integer, text):
    from gamecore.options import check_number

    err = _raises(lambda: check_number("n", value, 0, 10, integer=integer), ConfigError, text)
    assert len(str(err)) < 120


def test_check_number_returns_plain_numbers_and_shows_any_integer():
    from gamecore.options import check_number, shown

    assert check_number("n", np.int64(3), 0, 10, integer=True) == 3
    assert type(check_number("n", np.int64(3), 0, 10, integer=True)) is int
    assert type(check_number("n", 3, 0, 10)) is float and check_number("n", np.float32(2.5)) == 2.5
    assert check_number("p", 0.5, 0, 1, allowed="a probability from 0 to 1") == 0.5
    assert shown(-(10**5000)) == "an integer of about 5001 digits"  # beyond str()'s digit limit
    assert shown("ab") == "'ab'"
