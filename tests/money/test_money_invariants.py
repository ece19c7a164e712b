"""Invariants over random Money! games at 3-5 players, and property tests (hypothesis)."""

from __future__ import annotations

import random

import pytest
from test_money_support import random_game

from money_env.engine import (
    EXCHANGE_PHASE,
    MAX_DECISIONS_PER_GAME,
    MAX_ROUNDS,
    NUM_ACTIONS,
    VALUE,
    GameState,
    apply_action,
    current_player,
    is_over,
    legal_actions,
    new_game,
    player_view,
    replay,
    results,
)
from money_env.engine.cards import bluff_of, in_play
from money_env.engine.tables import DECISIONS_PER_ROUND

try:
    from hypothesis import given, settings
    from hypothesis import strategies as st
except ImportError:  # pragma: no cover - hypothesis is in the test extra
    given = None


def check_invariants(s: GameState) -> None:
    """Every card in one place, value conserved, bids and knowledge inside hands."""
    n = s.n
    places = [c for h in s.hands for c in h] + [c for t in s.table for c in t]
    places += s.right + s.left + s.pile
    assert len(places) == len(set(places)), "a card is in two places"
    assert sorted(places) == sorted(in_play(n) + tuple(bluff_of(p) for p in range(n)))
    assert sum(VALUE[c] for c in places) == sum(VALUE[c] for c in in_play(n))
    for p in range(n):
        assert bluff_of(p) in s.hands[p] and bluff_of(p) in s.known[p]
        assert set(s.sel[p]) <= set(s.hands[p]) and set(s.known[p]) <= set(s.hands[p])
        assert s.hands[p] == sorted(s.hands[p])
    assert s.right and s.left
    legal = legal_actions(s)
    if is_over(s):
        assert legal == [] and current_player(s) == -1
    else:
        assert legal and legal == sorted(set(legal)) and all(0 <= a < NUM_ACTIONS for a in legal)
        assert 0 <= current_player(s) < n
        if s.phase == EXCHANGE_PHASE:
            assert s.table[s.cur] and not s.acted[s.cur]


@pytest.mark.parametrize("n", [3, 4, 5])
def test_random_games_keep_every_invariant_and_end_in_time(n: int) -> None:
    for seed in range(8):
        s, states = random_game(n, seed * 31 + n, states=True)
        for st_ in states:
            check_invariants(st_)
        assert len(s.history) <= MAX_DECISIONS_PER_GAME and s.round <= MAX_ROUNDS
        res = results(s)
        assert [r["rank"] for r in res].count(0) >= 1
        assert abs(sum(r["win_share"] for r in res) - 1.0) < 1e-9


@pytest.mark.parametrize("n", [3, 4, 5])
def test_many_random_games_end_within_the_bounds(n: int) -> None:
    rng = random.Random(n)
    for seed in range(60):
        s = new_game(n, seed)
        per_round: dict[int, int] = {}
        while not is_over(s):
            per_round[s.round] = per_round.get(s.round, 0) + 1
            apply_action(s, rng.choice(legal_actions(s)))
        assert max(per_round.values()) <= DECISIONS_PER_ROUND
        assert len(s.history) <= MAX_DECISIONS_PER_GAME and s.round <= MAX_ROUNDS


def test_clone_is_independent() -> None:
    s = new_game(4, 5)
    c = s.clone()
    apply_action(c, legal_actions(c)[0])
    assert c.history and not s.history and c.sel != s.sel
    assert c.clone() == c


def test_view_hand_sizes_do_not_move_while_bids_are_built() -> None:
    s = new_game(5, 11)
    before = [player_view(s, p).hand_sizes for p in range(5)]
    rng = random.Random(0)
    while s.phase != EXCHANGE_PHASE:
        apply_action(s, rng.choice(legal_actions(s)))
        if s.phase != EXCHANGE_PHASE:
            assert [player_view(s, p).hand_sizes for p in range(5)] == before


if given is not None:

    @settings(max_examples=25, deadline=None, database=None)
    @given(
        n=st.integers(3, 5),
        seed=st.integers(0, 2**64 - 1),
        policy=st.integers(0, 2**32),
        cut=st.integers(0, 1000),  # per mille (floats trip on a process with flush-to-zero)
    )
    def test_property_any_game_replays_round_trips_and_keeps_invariants(
        n: int, seed: int, policy: int, cut: int
    ) -> None:
        s, states = random_game(n, seed, policy, states=True)
        for st_ in states[:: max(1, len(states) // 20)]:
            check_invariants(st_)
        mid = states[cut * (len(states) - 1) // 1000]
        assert GameState.from_dict(mid.to_dict()) == mid
        assert replay(n, seed, mid.history) == mid
        assert replay(n, seed, s.history) == s and is_over(s)
