"""The fast Money! observation encoder (`money_env.encoding`) against the first, plain one
(`tests/support/money_reference_encoder.py`), bit for bit: the same float32 vector
(`np.array_equal`) for thousands of views of seeded random games at 3, 4 and 5 players, every
phase, the end of the game and determinized states included; `encode_state` (straight from the
state, no view) against `encode_observation(player_view(...))`; the `out` buffer; the score
tables against the engine's `score_hand`. Correctness only: the speed is measured by
`benchmarks/game_speed.py`."""

from __future__ import annotations

import random

import money_reference_encoder as ref
import numpy as np
import pytest
from test_money_support import arrange, bid_all, coin, note

from money_env import encoding
from money_env.engine import (
    GAME_OVER,
    apply_action,
    determinize,
    is_over,
    legal_actions,
    new_game,
    player_view,
)
from money_env.engine.cards import FIRST_BLUFF, NOTES_PER_CURRENCY, in_play
from money_env.engine.score import score_hand
from money_env.lab import MoneyGame

GAME = MoneyGame()


def _same(state, seat: int, out: np.ndarray) -> np.ndarray:
    """Check every encoding path of `seat`'s observation of `state` against the reference and
    return the reference vector."""
    view = player_view(state, seat)
    want = ref.encode_observation(view)
    assert want.dtype == np.float32 and want.shape == (encoding.OBS_SIZE,)
    got = encoding.encode_observation(view)
    assert got.dtype == np.float32 and np.array_equal(got, want), _diff(got, want)
    fast = encoding.encode_state(state, seat)
    assert fast.dtype == np.float32 and np.array_equal(fast, want), _diff(fast, want)
    out.fill(np.nan)  # a used buffer: every entry must be written
    assert encoding.encode_state(state, seat, out) is out
    assert np.array_equal(out, want), _diff(out, want)
    out.fill(-7.0)
    assert encoding.encode_observation(view, out) is out
    assert np.array_equal(out, want), _diff(out, want)
    assert np.array_equal(GAME.encode_state(state, seat), want)
    assert np.array_equal(GAME.encode_observation(view), want)
    return want


def _diff(got: np.ndarray, want: np.ndarray) -> str:
    names = [name for name, size in encoding.OBS_PIECES for _ in range(size)]
    bad = np.flatnonzero(got != want)
    return "; ".join(f"{names[i]} [{i}]: {got[i]!r} != {want[i]!r}" for i in bad[:10])


def _games(n: int, games: int, seed: int):
    """Every state (clones) of `games` seeded random games at `n` players."""
    for g in range(games):
        rng = random.Random(seed + g)
        s = new_game(n, rng.getrandbits(64))
        yield s.clone()
        while not is_over(s):
            apply_action(s, rng.choice(legal_actions(s)))
            yield s.clone()


@pytest.mark.parametrize("n", [3, 4, 5])
def test_the_fast_encoder_matches_the_reference_bit_for_bit(n: int) -> None:
    out = np.empty(encoding.OBS_SIZE, dtype=np.float32)
    rng = random.Random(n)
    phases = {0: 0, 1: 0, 2: 0}
    checked = determinized = 0
    for i, s in enumerate(_games(n, 6, 9000 + 100 * n)):
        # the seat to act every time, every seat every few states and at the end
        seats = range(n) if i % 5 == 0 or s.phase == GAME_OVER else [max(s.cur, 0)]
        for seat in seats:
            _same(s, seat, out)
            checked += 1
            phases[s.phase] += 1
        if i % 11 == 0 or s.phase == GAME_OVER:  # a determinized state seen by every seat
            seat = rng.randrange(n)
            t = determinize(player_view(s, seat), random.Random(i))
            want = _same(t, seat, out)
            assert np.array_equal(want, ref.encode_state(s, seat))  # the same view
            for p in range(n):
                _same(t, p, out)
            determinized += 1
    assert checked > 1000 and determinized > 50
    assert all(phases.values()), phases  # bids, exchanges and finished games all seen


def test_arranged_hands_match_the_reference() -> None:
    """Hands random play seldom makes: full sets, trios, many coins, one huge hand."""
    out = np.empty(encoding.OBS_SIZE, dtype=np.float32)
    full = [c for c in range(NOTES_PER_CURRENCY)]  # every Dollar note
    trios = [note(1, 20, i) for i in range(3)] + [note(1, 30, i) for i in range(3)]
    coins = [coin(i) for i in range(6)]
    positions = [
        arrange(3, hands={0: full, 1: trios, 2: coins}),
        arrange(4, hands={1: full + coins}, rest_to=3),
        arrange(5, hands={2: trios + [note(2, 60)]}, rest_to=0, round=7),
    ]
    for s in positions:
        for p in range(s.n):
            _same(s, p, out)
        # the round played through: bids of everything but the bluff, then the exchanges
        bid_all(s, {p: [c for c in s.hands[p] if c < FIRST_BLUFF][:5] for p in range(s.n)})
        while s.phase != 0 and not is_over(s):
            for p in range(s.n):
                _same(s, p, out)
            apply_action(s, legal_actions(s)[-1])
        for p in range(s.n):
            _same(s, p, out)


def test_the_score_tables_are_the_engines_score() -> None:
    rng = random.Random(5)
    cards = list(in_play(5)) + list(range(FIRST_BLUFF, FIRST_BLUFF + 5))
    hands = [tuple(sorted(rng.sample(cards, rng.randrange(0, 60)))) for _ in range(3000)]
    hands += [tuple(range(k * NOTES_PER_CURRENCY, (k + 1) * NOTES_PER_CURRENCY)) for k in range(7)]
    hands += [tuple(cards), (), (FIRST_BLUFF,), (0, 0), (3, 3, 4), (63, 63, 64)]  # a card twice
    for k in range(7):  # every set of one currency's notes, with two coins and a bluff
        notes = range(k * NOTES_PER_CURRENCY, (k + 1) * NOTES_PER_CURRENCY)
        hands += [
            tuple(c for j, c in enumerate(notes) if m >> j & 1) + (63, 64, FIRST_BLUFF)
            for m in range(1 << NOTES_PER_CURRENCY)
        ]
    for hand in hands:
        assert encoding._score(hand) == score_hand(list(hand))["total"], hand


def test_out_may_be_a_row_of_a_batch() -> None:
    s = new_game(4, 77)
    batch = np.full((4, encoding.OBS_SIZE), np.nan, dtype=np.float32)
    for p in range(4):
        encoding.encode_state(s, p, batch[p])
    for p in range(4):
        assert np.array_equal(batch[p], ref.encode_state(s, p))


def test_sparse_forms_match_the_dense_vector() -> None:
    for s in list(_games(4, 1, 31))[::9]:
        for p in range(4):
            want = ref.encode_state(s, p)
            nz = np.flatnonzero(want)
            for idx, vals in (
                GAME.encode_state_sparse(s, p),
                GAME.encode_observation_sparse(player_view(s, p)),
                GAME.encode_seats_sparse(s, [p])[0],
            ):
                assert np.array_equal(idx, nz) and np.array_equal(vals, want[nz])
                assert vals.dtype == np.float32


@pytest.mark.parametrize("seat", [-1, 4, 1.0, "0", True])
def test_a_seat_not_at_the_table_is_refused_as_the_view_refuses_it(seat) -> None:
    s = new_game(4, 3)
    with pytest.raises(ValueError, match="not at this table"):
        encoding.encode_state(s, seat)
