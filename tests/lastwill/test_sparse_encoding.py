"""The sparse observation writer against the dense reference (tests/support/obs_reference.py).

Over bot games at 2-5 players (uniform random play, the scripted bots, debt seekers that reach
bankruptcy; several game options), at every decision and for every seat (the acting one and the
observers, up to the final position), the sparse form of both readers (`encode_state_sparse`,
`encode_observation_sparse`) must be exactly the non-zeros of the reference's dense vector:
same indices in ascending order (`np.flatnonzero`), the same float32 values bit for bit; the
unordered forms (`ordered=False`, `encode_seats_sparse`) the same pairs in some order. The
library's dense vectors and the global state must equal the reference byte for byte. Every check
runs for each writer of the state path that this install has: the Python one, and the compiled
one (`lastwill_env._cwriter`) where it was built.
"""

from __future__ import annotations

import random

import numpy as np
import obs_reference as ref
import pytest
from playout_policies import choosers

from lastwill_env import sparse
from lastwill_env.encoding import (
    OBS_SIZE,
    encode_global_state,
    encode_observation,
    encode_observation_sparse,
    encode_seats_sparse,
    encode_state,
    encode_state_sparse,
)
from lastwill_env.engine import legal_actions, make_config, new_game, player_view
from lastwill_env.engine.config import PLAYER_COUNTS

# (policy, game options) per game; each player count plays every one of them
GAMES = (
    ("random", {}),
    ("bots", {}),
    ("debt", {}),
    ("random", {"starting_money": "will-each", "board_spaces": 2}),
    ("bots", {"starting_money": "will-shared", "board_spaces": 9}),
)


STATE_WRITERS = ["python"] + (["compiled"] if sparse.WRITER == "compiled" else [])


@pytest.fixture(params=STATE_WRITERS)
def writer(request, monkeypatch):
    """The state path's writer for one test: Python (`sparse._C` unset) or compiled."""
    if request.param == "python":
        monkeypatch.setattr(sparse, "_C", None)
    return request.param


def _check_sparse(sparse: tuple[np.ndarray, np.ndarray], dense: np.ndarray, where: str) -> None:
    idx, vals = sparse
    assert idx.dtype == np.intp and vals.dtype == np.float32, where
    assert idx.ndim == 1 and vals.shape == idx.shape, where
    want = np.flatnonzero(dense)
    np.testing.assert_array_equal(idx, want, err_msg=where)
    assert vals.tobytes() == dense[want].tobytes(), where
    assert (vals != 0).all(), where


def _check_unordered(pairs: tuple[np.ndarray, np.ndarray], dense: np.ndarray, where: str) -> None:
    """`ordered=False`: the same pairs as the ordered form, in any order."""
    idx, vals = pairs
    assert idx.dtype == np.intp and vals.dtype == np.float32, where
    order = np.argsort(idx, kind="stable")
    assert len(np.unique(idx)) == len(idx), where
    _check_sparse((idx[order], vals[order]), dense, where + " (unordered)")


def _check_position(s, n: int, where: str, with_view: bool) -> None:
    buf = np.full(OBS_SIZE, 7.0, dtype=np.float32)  # stale contents must be overwritten
    rows = encode_seats_sparse(s, range(n), ordered=False)  # the shared pieces written once
    assert len(rows) == n, where
    for seat in range(n):
        at = f"{where} seat {seat}"
        dense = ref.encode_state(s, seat)
        _check_sparse(encode_state_sparse(s, seat), dense, at)
        _check_unordered(encode_state_sparse(s, seat, ordered=False), dense, at)
        _check_unordered(rows[seat], dense, at + " (seats)")
        assert encode_state(s, seat).tobytes() == dense.tobytes(), at
        assert encode_state(s, seat, buf).tobytes() == dense.tobytes(), at
        if with_view:
            view = player_view(s, seat)
            _check_sparse(encode_observation_sparse(view), dense, at + " (view)")
            assert encode_observation(view).tobytes() == dense.tobytes(), at
    assert encode_global_state(s).tobytes() == ref.encode_global_state(s).tobytes(), where


def _play(n: int, game: int) -> int:
    """One game checked at every decision; returns the number of decisions."""
    policy, options = GAMES[game]
    rnd = random.Random(9000 + 31 * n + game)
    seats = choosers(policy, n, game, rnd)
    s = new_game(make_config(n, **options), 500 + 10 * n + game)
    k = 0
    while not s.is_over:
        _check_position(s, n, f"{n}p game {game} ({policy}) step {k}", with_view=k % 4 == 0)
        legal = legal_actions(s)
        s.apply_action(seats[s.cur](s, legal))
        k += 1
    _check_position(s, n, f"{n}p game {game} ({policy}) game over", with_view=True)
    return k


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_sparse_equals_dense_reference_over_bot_games(n, writer):
    decisions = sum(_play(n, game) for game in range(len(GAMES)))
    assert decisions >= 500  # thousands over the four player counts


def test_sparse_form_scatters_to_the_dense_vector(writer):
    s = new_game(make_config(3), 5)
    idx, vals = encode_state_sparse(s, 1)
    dense = np.zeros(OBS_SIZE, dtype=np.float32)
    dense[idx] = vals
    assert dense.tobytes() == encode_state(s, 1).tobytes()
    assert np.all(np.diff(idx) > 0)
