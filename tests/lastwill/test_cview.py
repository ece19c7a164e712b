"""The compiled seat view (`lastwill_env.engine._cview`) against the Python one.

Where the module was built: over whole games at 2-5 players (random and bot play, every seat at
every decision) it gives the very `PlayerView` of `view.py`'s Python code, field for field and
type for type; a finished game's view still comes from the Python code (its `results`); it
refuses what it cannot read (another class, an unset slot, a seat off the table) with a clear
error; `configure` refuses a view class whose fields it does not build. Everywhere:
`LASTWILL_VIEW` takes only its allowed values.
"""

from __future__ import annotations

import dataclasses
import os
import random
import subprocess
import sys

import pytest

from agents.registry import make_agent
from lastwill_env.engine import GameState, make_config, new_game
from lastwill_env.engine import view as V
from lastwill_env.engine.config import PLAYER_COUNTS

compiled = pytest.mark.skipif(
    V.VIEW != "compiled", reason="lastwill_env.engine._cview was not built in this install"
)


def _random_states(n: int, games: int, seed: int):
    """Every decision of `games` uniformly random games (and each final position)."""
    for g in range(games):
        s = new_game(make_config(n), seed + g)
        rnd = random.Random(seed + g)
        while True:
            yield s
            if s.is_over:
                break
            s.apply_action(rnd.choice(s.legal_actions()))


def _bot_states(n: int, games: int, seed: int):
    """Every decision of `games` games of sprinters against greedy bots."""
    for g in range(games):
        s = new_game(make_config(n), seed + g)
        bots = [make_agent("sprinter" if p % 2 else "greedy", seed=seed + p) for p in range(n)]
        while True:
            yield s
            if s.is_over:
                break
            view = V._py_player_view(s, s.cur)
            s.apply_action(bots[s.cur].act(view, s.legal_actions()))


def _same(a, b, where: str) -> None:
    assert type(a) is type(b), where
    if isinstance(a, tuple):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{i}]")
    else:
        assert a == b, where


def _check(s: GameState) -> int:
    for seat in range(s.n):
        want = V._py_player_view(s, seat)
        got = V.player_view(s, seat)
        assert type(got) is V.PlayerView
        for name in V._FIELDS:
            _same(getattr(got, name), getattr(want, name), name)
        assert got == want and hash(got) == hash(want) if s.results is None else got == want
    return s.n


@compiled
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_compiled_view_is_the_python_view(n):
    checked = sum(_check(s) for s in _random_states(n, 4, 900 + n))
    checked += sum(_check(s) for s in _bot_states(n, 2, 950 + n))
    assert checked > 1000


@compiled
def test_a_finished_games_view_comes_from_the_python_code():
    s = next(s for s in _random_states(3, 1, 5) if s.is_over)
    v = V.player_view(s, 1)
    assert v.results is not None and v.results["winner"] == (s.results["winner"] - 1) % 3
    with pytest.raises(ValueError, match="not at this table"):
        V._C.view(s, 3)


@compiled
def test_compiled_view_refuses_what_it_cannot_read():
    s = new_game(make_config(2), 1)
    with pytest.raises(TypeError, match="takes a GameState"):
        V._C.view(object(), 0)
    with pytest.raises(ValueError, match="seat 2 is not at this table"):
        V._C.view(s, 2)
    with pytest.raises(ValueError, match="seat -1 is out of range"):
        V._C.view(s, -1)
    broken = s.clone()
    del broken.known
    with pytest.raises(AttributeError, match="GameState.known is not set"):
        V._C.view(broken, 0)
    broken = s.clone()
    broken.hidden = [0, 0]  # too few piles
    with pytest.raises(IndexError, match="fewer than 4 piles"):
        V._C.view(broken, 0)
    assert V._C.view(s, 0) == V._py_player_view(s, 0)  # the module still works


@compiled
def test_configure_refuses_a_view_class_it_does_not_build():
    bigger = dataclasses.make_dataclass(
        "Bigger",
        [(f.name, f.type) for f in dataclasses.fields(V.PlayerView)] + [("extra", int)],
        frozen=True,
        slots=True,
    )
    with pytest.raises(ValueError, match="Bigger has 48 fields; this module builds the 47"):
        V._C.configure(GameState, bigger, V._c_consts())
    with pytest.raises(TypeError, match="is not an object slot"):
        V._C.configure(GameState, dict, V._c_consts())
    consts = V._c_consts()
    del consts["game_over"]
    with pytest.raises(KeyError, match="consts: game_over missing"):
        V._C.configure(GameState, V.PlayerView, consts)
    s = new_game(make_config(4), 2)
    assert V._C.view(s, 3) == V._py_player_view(s, 3)  # a refused configure changed nothing


def test_view_choice_takes_only_its_values():
    with pytest.raises(ValueError, match="LASTWILL_VIEW='fast': allowed values are auto, pyth"):
        V._load_compiled("fast")
    assert V._load_compiled("python") is None
    env = dict(os.environ, LASTWILL_VIEW="python")
    out = subprocess.run(
        [sys.executable, "-c", "from lastwill_env.engine import view; print(view.VIEW)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "python"
