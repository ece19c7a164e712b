"""The compiled writer of the state path (`lastwill_env._cwriter`) against the Python one.

Where the module was built: over playouts at 2-5 players it gives the very arrays of
`lastwill_env.sparse`'s Python writer (the same pairs in the same order, ordered or not, and the
same dense vector), it reads any object with the state's attributes, and bad input raises a
clear error instead of writing outside the buffer. Everywhere: `LASTWILL_WRITER` takes only its
allowed values. (tests/lastwill/test_sparse_encoding.py checks both writers against the independent
reference encoder.)
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import types

import numpy as np
import pytest

from gamecore.buildcheck import warn_if_stale
from lastwill_env import sparse
from lastwill_env.encoding import OBS_SIZE
from lastwill_env.engine import make_config, new_game
from lastwill_env.engine.config import PLAYER_COUNTS

compiled = pytest.mark.skipif(
    sparse.WRITER != "compiled", reason="lastwill_env._cwriter was not built in this install"
)


def _python(state, seat, ordered):
    return sparse._result(*sparse.state_entries(state, seat), ordered)


def _states(n: int, games: int, seed: int):
    """Every decision of `games` uniformly random games (and each final position)."""
    for g in range(games):
        s = new_game(make_config(n), seed + g)
        rnd = random.Random(seed + g)
        while True:
            yield s
            if s.is_over:
                break
            s.apply_action(rnd.choice(s.legal_actions()))


@compiled
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_compiled_entries_are_the_python_writers_arrays(n):
    c = sparse._C
    out = np.empty(OBS_SIZE, dtype=np.float32)
    checked = 0
    for s in _states(n, 4, 700 + n):
        for seat in range(n):
            for ordered in (True, False):
                ci, cv = c.entries(s, seat, ordered, np.empty)
                pi, pv = _python(s, seat, ordered)
                assert ci.dtype == np.intp and cv.dtype == np.float32
                assert ci.flags.writeable and cv.flags.writeable
                np.testing.assert_array_equal(ci, pi)
                assert cv.tobytes() == pv.tobytes()
            out.fill(3.0)  # stale values must go
            c.dense(s, seat, out)
            want = sparse.scatter(sparse.state_entries(s, seat), np.zeros(OBS_SIZE, np.float32))
            assert out.tobytes() == want.tobytes()
            checked += 1
    assert checked > 400 * n


@compiled
def test_compiled_writer_reads_any_object_with_the_state_attributes():
    """Not a GameState (no slots to read directly): the same entries through getattr."""
    s = new_game(make_config(4), 11)
    for _ in range(40):
        s.apply_action(random.Random(3).choice(s.legal_actions()))
    twin = types.SimpleNamespace(**{k: getattr(s, k) for k in type(s).__slots__})
    for seat in range(4):
        ci, cv = sparse._C.entries(twin, seat, True, np.empty)
        pi, pv = _python(s, seat, True)
        np.testing.assert_array_equal(ci, pi)
        assert cv.tobytes() == pv.tobytes()


@compiled
def test_compiled_writer_refuses_bad_input():
    c = sparse._C
    s = new_game(make_config(3), 2)
    with pytest.raises(ValueError, match="seat 3 is not a seat of a 3-player game"):
        c.entries(s, 3, True, np.empty)
    with pytest.raises(ValueError, match="seat -1"):
        c.dense(s, -1, np.empty(OBS_SIZE, np.float32))
    for out in (np.empty(OBS_SIZE, np.float64), np.empty(OBS_SIZE - 1, np.float32)):
        with pytest.raises(ValueError, match="float32 buffer of 4285 values"):
            c.dense(s, 0, out)
    with pytest.raises(AttributeError):
        c.entries(object(), 0, True, np.empty)
    # a card id far outside the table: an error naming the index, nothing written
    s.hands[0].append(100_000)
    out = np.full(OBS_SIZE, 9.0, np.float32)
    with pytest.raises(ValueError, match="observation index .* outside 0..4284"):
        c.dense(s, 0, out)
    assert (out == 9.0).all()
    s.hands[0].pop()
    s.boards[1].append(-7)
    with pytest.raises(ValueError, match="board card -7 out of range"):
        c.entries(s, 0, False, np.empty)


@compiled
def test_configure_names_a_missing_layout_key():
    layout = sparse._c_layout()
    del layout["box"]
    with pytest.raises(KeyError, match="layout: box missing"):
        sparse._C.configure(layout)
    sparse._C.configure(sparse._c_layout())  # the module still works with the full layout
    s = new_game(make_config(2), 1)
    assert np.array_equal(sparse._C.entries(s, 0, True, np.empty)[0], _python(s, 0, True)[0])


def test_writer_choice_takes_only_its_values():
    with pytest.raises(ValueError, match="LASTWILL_WRITER='fast': allowed values are auto, py"):
        sparse._load_compiled("fast")
    assert sparse._load_compiled("python") is None
    env = dict(os.environ, LASTWILL_WRITER="python")
    out = subprocess.run(
        [sys.executable, "-c", "from lastwill_env import sparse; print(sparse.WRITER)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "python"


def test_a_build_older_than_its_source_warns(tmp_path):
    built = tmp_path / "_cwriter.so"
    built.write_bytes(b"")
    source = os.path.join(os.path.dirname(sparse.__file__), "_cwriter.c")
    os.utime(built, (os.path.getmtime(source) - 60, os.path.getmtime(source) - 60))
    with pytest.warns(RuntimeWarning, match="is older than .*_cwriter.c: rebuild it"):
        warn_if_stale(str(built), source)
    os.utime(built, (os.path.getmtime(source) + 60, os.path.getmtime(source) + 60))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_if_stale(str(built), source)
