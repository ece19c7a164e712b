"""One definition of what a seat sees (docs/RULES.md §10): `lastwill_env.engine.view`.

Its rules (`errand_boys_left`, `actions_left`, `to_act`, `plan_order_known`, `keeps_shown`,
`face_up_discards`) and their constants (`_c_consts()`) have one home each, which every path
follows: the Python view, the observation's view path and state path (`lastwill_env.sparse`),
and the two compiled modules (`_cview`, `_cwriter`, sharing `lastwill_env/_lwview.h`).

- Over seeded random games at 2-5 players, at every decision and for every seat, the four paths
  agree: the compiled view is the Python view field for field, the compiled writer the Python
  writer entry for entry, and the observation of the view is the state path's.
- Patching a rule in view.py changes the view and the Python state path alike; changing one of
  its constants (the plans' errand boys, a phase set) and reconfiguring changes all four alike.
- The sources hold no copy: sparse.py reads no errand sequence or plan table; both C modules
  include the shared header; the writer's layout takes the view's constants unchanged.
- A compiled module built before a change to the shared header is reported.
"""

from __future__ import annotations

import os
import random
import warnings

import numpy as np
import pytest

from lastwill_env import sparse
from lastwill_env.engine import GameState, PlayerView, make_config, new_game
from lastwill_env.engine import view as V
from lastwill_env.engine.config import PLAYER_COUNTS
from lastwill_env.engine.game import (
    DISCARD_PHASE,
    ERRAND_PHASE,
    GAME_OVER,
    KEEP_PHASE,
    MARKET_PHASE,
    PLAN_PHASE,
    TURN_PHASE,
    UNKNOWN_PHASE,
)

both_compiled = pytest.mark.skipif(
    V.VIEW != "compiled" or sparse.WRITER != "compiled",
    reason="the compiled view and writer were not both built (or not chosen)",
)


def _games(n: int, games: int, seed: int):
    """Every decision of `games` uniformly random games (and each final position)."""
    for g in range(games):
        s = new_game(make_config(n), seed + g)
        rnd = random.Random(seed + g)
        while True:
            yield s
            if s.is_over:
                break
            s.apply_action(rnd.choice(s.legal_actions()))


def _py_state(s: GameState, seat: int):
    return sparse._result(*sparse.state_entries(s, seat))


def _py_view(s: GameState, seat: int):
    return sparse._result(*sparse.view_entries(V._py_player_view(s, seat)))


def _same_arrays(a, b, where: str) -> None:
    np.testing.assert_array_equal(a[0], b[0], err_msg=where)
    assert a[1].tobytes() == b[1].tobytes(), where


def _python_paths_agree(s: GameState, where: str) -> None:
    for seat in range(s.n):
        _same_arrays(_py_view(s, seat), _py_state(s, seat), f"{where} seat {seat}")


def _all_paths_agree(s: GameState, where: str) -> None:
    """The four paths at every seat of `s` (the compiled ones where built)."""
    for seat in range(s.n):
        at = f"{where} seat {seat}"
        want = _py_state(s, seat)
        _same_arrays(_py_view(s, seat), want, at + " (Python view path)")
        if sparse._C is not None:
            got = sparse._C.entries(s, seat, True, np.empty)
            _same_arrays(got, want, at + " (compiled writer)")
        if V._C is not None and s.results is None:
            got, py = V._C.view(s, seat), V._py_player_view(s, seat)
            for name in V._FIELDS:
                assert getattr(got, name) == getattr(py, name), f"{at}: {name}"


# ---- the paths agree -------------------------------------------------------------------------


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_every_path_sees_the_same_over_random_games(n):
    phases = set()
    for k, s in enumerate(_games(n, 3, 4100 + 10 * n)):
        _all_paths_agree(s, f"{n}p state {k} phase {s.phase}")
        phases.add(s.phase)
    assert k >= 400
    # the rules' every branch was met: planning, errands, the market, actions, the end
    assert {KEEP_PHASE, PLAN_PHASE, ERRAND_PHASE, MARKET_PHASE, TURN_PHASE, GAME_OVER} <= phases


# ---- a rule patched in view.py: the view and the state path follow it ------------------------


def _more_boys(s):
    return [1 + (p % 2) for p in range(s.n)]


def _four_actions(s):
    return 4


def _acts_next(s, seat):
    return 1


def _order_flipped(s):
    return s.phase not in V._ORDER_PHASES


def _keeps_to_all(s, seat):
    return True


def _all_discards(s):
    return tuple(tuple(pile) for pile in s.discards)


RULES = {
    "errand_boys_left": _more_boys,
    "actions_left": _four_actions,
    "to_act": _acts_next,
    "plan_order_known": _order_flipped,
    "keeps_shown": _keeps_to_all,
    "face_up_discards": _all_discards,
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_a_rule_patched_in_view_py_changes_the_view_and_the_state_path(rule, monkeypatch):
    states = [s.clone() for s in _games(3, 1, 77)]
    before = [[_py_state(s, p) for p in range(3)] for s in states]
    monkeypatch.setattr(V, rule, RULES[rule])
    changed = 0
    for k, s in enumerate(states):
        _python_paths_agree(s, f"{rule} state {k}")
        after = [_py_state(s, p) for p in range(3)]
        changed += any(
            not np.array_equal(a[0], b[0]) or a[1].tobytes() != b[1].tobytes()
            for a, b in zip(after, before[k], strict=True)
        )
    assert changed > 0, f"patching {rule} changed no observation"


def test_the_errand_boys_are_decided_in_view_py_only(monkeypatch):
    """The observation's state path reads the boys from `view.errand_boys_left`, so a patched
    rule shows in the seat blocks; the view shows it rotated to the viewer."""
    s = new_game(make_config(4), 3)
    monkeypatch.setattr(V, "errand_boys_left", lambda state: [0, 1, 2, 3])
    assert V._py_player_view(s, 1).errand_boys_left == (1, 2, 3, 0)
    idx, vals = _py_state(s, 1)
    boys = [sparse._SEAT0 + r * sparse.SEAT_BLOCK + sparse._S_BOYS for r in range(4)]
    got = dict(zip(idx.tolist(), vals.tolist(), strict=True))
    assert [got.get(i, 0.0) for i in boys] == [0.5, 1.0, 1.5, 0.0]


# ---- a constant changed in view.py: the compiled modules follow it too ----------------------


@pytest.fixture
def reconfigure():
    """Reconfigure both compiled modules from view.py's constants; put them back after."""

    def configure():
        if V._C is not None:
            V._C.configure(GameState, PlayerView, V._c_consts())
        if sparse._C is not None:
            sparse._C.configure(sparse._c_layout())

    yield configure
    # the monkeypatch fixture was set up first, so it is undone after this teardown: put the
    # constants back by hand before configuring
    for name, value in _ORIGINAL.items():
        setattr(V, name, value)
    configure()


_ORIGINAL = {
    name: getattr(V, name)
    for name in ("_ERRAND_BOYS", "_ERRAND_PHASES", "_ACTION_PHASES", "_ORDER_PHASES")
}
CONSTANTS = {
    "_ERRAND_BOYS": {n: tuple(b + 1 for b in row) for n, row in _ORIGINAL["_ERRAND_BOYS"].items()},
    "_ERRAND_PHASES": frozenset({ERRAND_PHASE}),  # not the market nor the unknown card
    "_ACTION_PHASES": _ORIGINAL["_ACTION_PHASES"] | {DISCARD_PHASE},
    "_ORDER_PHASES": frozenset({GAME_OVER}),
}
_C_KEY = {
    "_ERRAND_BOYS": "errand_boys",
    "_ERRAND_PHASES": "errand_phases",
    "_ACTION_PHASES": "action_phases",
    "_ORDER_PHASES": "order_phases",
}


@both_compiled
@pytest.mark.parametrize("name", sorted(CONSTANTS))
def test_a_constant_changed_in_view_py_changes_every_path(name, monkeypatch, reconfigure):
    states = [s.clone() for s in _games(4, 1, 31)]
    if name == "_ERRAND_PHASES":
        assert any(s.phase in (MARKET_PHASE, UNKNOWN_PHASE) for s in states)
    before = [V._py_player_view(s, 0) for s in states]
    monkeypatch.setattr(V, name, CONSTANTS[name])
    reconfigure()
    assert sparse._c_layout()[_C_KEY[name]] == V._c_consts()[_C_KEY[name]]
    for k, s in enumerate(states):
        _all_paths_agree(s, f"{name} state {k}")
    assert any(V._py_player_view(s, 0) != b for s, b in zip(states, before, strict=True))


# ---- one home in the sources -----------------------------------------------------------------


def _source(*parts: str) -> str:
    root = os.path.dirname(os.path.abspath(sparse.__file__))
    with open(os.path.join(root, *parts), encoding="utf-8") as f:
        return f.read()


def test_the_writer_keeps_no_copy_of_the_view_rules():
    text = _source("sparse.py")
    copies = ("errand_seq", "errand_boys for", "CATALOGUE", "ERRAND_PHASE", "TURN_PHASE")
    copies += ("GAME_OVER", "s.cur == seat", "hidden[d]")
    for copy in copies:
        assert copy not in text, copy
    layout, consts = sparse._c_layout(), V._c_consts()
    assert {k: layout[k] for k in consts} == consts


def test_both_compiled_modules_share_the_one_header():
    assert os.path.basename(V.C_HEADER) == "_lwview.h" and os.path.exists(V.C_HEADER)
    for parts in (("_cwriter.c",), ("engine", "_cview.c")):
        text = _source(*parts)
        assert '_lwview.h"' in text, parts
        assert "lw_boys_left(" in text and "lw_read_rules(" in text, parts
        assert "#define MAX_PLANS" not in text and "errand_phase" not in text, parts


# ---- a build older than its shared header ----------------------------------------------------


@both_compiled
@pytest.mark.parametrize("var", ["LASTWILL_VIEW", "LASTWILL_WRITER"])
def test_a_build_older_than_the_shared_header_is_reported(var, tmp_path, monkeypatch):
    header = tmp_path / "_lwview.h"
    header.write_text("/* changed */\n")
    module = (V._C if var == "LASTWILL_VIEW" else sparse._C).__file__
    later = os.path.getmtime(module) + 60
    os.utime(header, (later, later))
    monkeypatch.setattr(V, "C_HEADER", str(header))
    with pytest.warns(RuntimeWarning, match=r"is older than .*_lwview\.h: rebuild it"):
        assert V.load_accelerator(var, "compiled") is not None
    os.utime(header, (later - 120, later - 120))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert V.load_accelerator(var, "auto") is not None
    assert V.load_accelerator(var, "python") is None
