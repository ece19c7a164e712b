"""Helpers the Money! tests share (arranged positions, bids played through the actions, random
playouts), and the tests that keep the helpers honest."""

from __future__ import annotations

import random

import pytest

from money_env.engine import (
    ADD,
    COMMIT,
    KIND,
    VALUE,
    GameState,
    StateError,
    apply_action,
    is_over,
    legal_actions,
    new_game,
)
from money_env.engine.cards import NOTES_PER_CURRENCY, bluff_of, in_play

NOTE_VALUES = (20, 20, 20, 30, 30, 30, 40, 50, 60)


def note(cur: int, value: int, copy: int = 0) -> int:
    """The card id of copy `copy` (0-based) of the `value` note of currency `cur`."""
    return cur * NOTES_PER_CURRENCY + NOTE_VALUES.index(value) + copy


def coin(i: int = 0) -> int:
    return 63 + i


def arrange(
    n: int,
    hands: dict[int, list[int]] | None = None,
    right: list[int] | None = None,
    left: list[int] | None = None,
    pile: list[int] | None = None,
    round: int = 1,
    rest_to: int | None = None,
) -> GameState:
    """A position at the start of a round's bids, every card where asked: the named hands
    (each seat's bluff added), the groups (as given; 4 other cards when None) and the pile (its
    end is the top); every other note and coin goes to the hands not named (6 each) and then to
    the bottom of the pile (or, with `rest_to`, into that seat's hand). Checked by
    `GameState.from_dict` (seed None, no history)."""
    hands = {p: list(h) for p, h in (hands or {}).items()}
    used = {c for h in hands.values() for c in h}
    used |= set(right or []) | set(left or []) | set(pile or [])
    rest = [c for c in in_play(n) if c not in used]
    right = list(right) if right is not None else [rest.pop() for _ in range(4)]
    left = list(left) if left is not None else [rest.pop() for _ in range(4)]
    s = new_game(n, 0)
    s.seed = None
    s.history = []
    s.round = round
    s.cur = (round - 1) % n
    for p in range(n):
        h = hands[p] if p in hands else [rest.pop() for _ in range(6)]
        s.hands[p] = sorted(h + [bluff_of(p)])
        s.known[p] = [bluff_of(p)]
    s.right, s.left = sorted(right), sorted(left)
    if rest_to is not None:
        s.hands[rest_to] = sorted(s.hands[rest_to] + rest)
        rest = []
    s.pile = rest + list(pile or [])
    return GameState.from_dict(s.to_dict())


def bid(s: GameState, cards: list[int]) -> None:
    """The seat to act bids exactly `cards` (each the lowest copy of its kind left) and commits."""
    seat = s.cur
    for c in sorted(cards):
        apply_action(s, ADD + KIND[c])
    assert s.sel[seat] == sorted(cards), (s.sel[seat], cards)
    apply_action(s, COMMIT)


def bid_all(s: GameState, bids: dict[int, list[int]]) -> None:
    """Every seat bids, in the round's bidding order, the cards `bids` names for it."""
    for _ in range(s.n):
        bid(s, bids[s.cur])


def random_game(n: int, seed: int, policy_seed: int | None = None, states: bool = False):
    """Play a uniformly random game; returns the final state (and every state when asked)."""
    rng = random.Random(seed if policy_seed is None else policy_seed)
    s = new_game(n, seed)
    seen = [s.clone()] if states else None
    while not is_over(s):
        apply_action(s, rng.choice(legal_actions(s)))
        if states:
            seen.append(s.clone())
    return (s, seen) if states else s


def test_note_ids_follow_the_data() -> None:
    assert VALUE[note(1, 20, 2)] == 20 and note(1, 20, 2) == 11
    assert VALUE[note(6, 60)] == 60 and note(6, 60) == 62
    assert VALUE[coin(5)] == 10 and coin(5) == 68


def test_arrange_places_the_cards_asked_and_checks_them() -> None:
    s = arrange(3, hands={0: [note(0, 60)]}, right=[note(1, 50)], pile=[note(2, 40)])
    assert s.hands[0] == [note(0, 60), bluff_of(0)]
    assert s.right == [note(1, 50)] and len(s.left) == 4
    assert s.pile[-1] == note(2, 40)
    with pytest.raises(StateError):
        arrange(3, hands={0: [note(6, 60)]})  # Peso is not in a 3-player game
