"""Hidden information stays hidden (docs/games/MONEY.md §9): a seat's view and legal actions do
not depend on another seat's hidden bid or hidden hand cards or on the pile's order, and
determinization keeps everything the view shows."""

from __future__ import annotations

import random

import pytest
from test_money_support import random_game

from money_env.engine import (
    ADD,
    BID_PHASE,
    COMMIT,
    EXCHANGE_PHASE,
    GAME_OVER,
    KIND,
    DeterminizeError,
    GameState,
    PlayerView,
    apply_action,
    determinize,
    is_over,
    legal_actions,
    new_game,
    player_view,
)
from money_env.engine.cards import bluff_of


def _views(s: GameState, but: int) -> list:
    return [player_view(s, p) for p in range(s.n) if p != but]


def _bid_with(s: GameState, cards: list[int]) -> GameState:
    s = s.clone()
    for c in sorted(cards):
        apply_action(s, ADD + KIND[c])
    return s


@pytest.mark.parametrize("n", [3, 4, 5])
def test_no_view_changes_while_another_seat_builds_or_commits_its_bid(n: int) -> None:
    s = new_game(n, 40 + n)
    hand = s.hands[0]
    base = _views(s, 0)
    variants = [[hand[0]], hand[:3], hand, [bluff_of(0)], hand[2:5]]
    committed = []
    for cards in variants:
        t = _bid_with(s, cards)
        assert _views(t, 0) == base  # a bid being built shows nothing, not its size
        apply_action(t, COMMIT)
        committed.append(t)
    # once committed, the others' views are one and the same whatever the bid
    first = _views(committed[0], 0)
    assert all(_views(t, 0) == first for t in committed[1:])
    # and seat 1, to bid now, has the same legal actions whatever seat 0 bid
    assert all(legal_actions(t) == legal_actions(committed[0]) for t in committed)
    assert first != base  # the turn did move on (the check can fail)


def _hidden_cards(s: GameState, seat: int) -> list[int]:
    return [c for c in s.hands[seat] if c not in s.known[seat] and c not in s.sel[seat]]


def _swap_hidden(s: GameState, seat: int, rng: random.Random) -> GameState | None:
    """A copy where one hidden card of `seat` changed places with a pile card, and the pile
    was shuffled; None when there is nothing hidden to swap."""
    hidden = _hidden_cards(s, seat)
    if not hidden or not s.pile:
        return None
    t = s.clone()
    a = rng.choice(hidden)
    i = rng.randrange(len(t.pile))
    b = t.pile[i]
    t.pile[i] = a
    t.hands[seat] = sorted([c for c in t.hands[seat] if c != a] + [b])
    rng.shuffle(t.pile)
    return t


@pytest.mark.parametrize("n", [3, 4, 5])
def test_views_and_legal_actions_ignore_other_hidden_hands_and_the_pile_order(n: int) -> None:
    rng = random.Random(n)
    _, states = random_game(n, 70 + n, states=True)
    checked = 0
    for s in states[::3]:
        if is_over(s):
            continue
        for other in range(n):
            t = _swap_hidden(s, other, rng)
            if t is None:
                continue
            for p in range(n):
                if p != other:
                    assert player_view(t, p) == player_view(s, p)
            if s.cur != other:
                assert legal_actions(t) == legal_actions(s)
            assert player_view(t, other) != player_view(s, other)  # its own view did change
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("n", [3, 4, 5])
def test_determinize_keeps_the_view_and_gives_a_consistent_playable_state(n: int) -> None:
    rng = random.Random(n)
    _, states = random_game(n, 90 + n, states=True)
    phases = set()
    exchange = [x for x in states if x.phase == EXCHANGE_PHASE][:3]
    for s in states[:: max(1, len(states) // 15)] + exchange + [states[-1]]:
        for seat in range(n):
            v = player_view(s, seat)
            d = determinize(v, rng)
            assert player_view(d, seat) == v
            assert GameState.from_dict(d.to_dict()) == d  # every relation of the rules holds
            if s.cur == seat:
                assert legal_actions(d) == legal_actions(s)
            phases.add(s.phase)
        d = determinize(player_view(s, 0), rng)
        while not is_over(d):
            apply_action(d, rng.choice(legal_actions(d)))
    assert phases == {BID_PHASE, EXCHANGE_PHASE, GAME_OVER}


def test_determinize_depends_on_the_view_only() -> None:
    s = new_game(4, 8)
    apply_action(s, ADD + KIND[s.hands[0][0]])
    apply_action(s, COMMIT)
    t = _swap_hidden(s, 2, random.Random(1))
    assert t is not None and t != s
    a = determinize(player_view(s, 1), random.Random(5))
    b = determinize(player_view(t, 1), random.Random(5))
    assert a == b and a.seed is None and a.history == []
    # the other hands are sampled: another generator state deals them differently
    c = determinize(player_view(s, 1), random.Random(6))
    assert c.hands[1] == a.hands[1] and (c.hands != a.hands or c.pile != a.pile)


def test_determinize_samples_hidden_bids_of_seats_that_committed() -> None:
    s = new_game(3, 8)
    apply_action(s, ADD + KIND[s.hands[0][0]])
    apply_action(s, COMMIT)
    apply_action(s, ADD + KIND[s.hands[1][-1]])  # seat 1 builds its bid: bluff
    v = player_view(s, 2)
    for k in range(10):
        d = determinize(v, random.Random(k))
        assert d.sel[0] and set(d.sel[0]) <= set(d.hands[0]) and d.sel[2] == []
        assert d.nbid == 1 and d.cur == 1


def test_determinize_refuses_an_impossible_view() -> None:
    v = player_view(new_game(3, 1), 0)
    sizes = (v.hand_sizes[0], v.hand_sizes[1] + 1, v.hand_sizes[2])
    bad = PlayerView(**{**{f: getattr(v, f) for f in v.__slots__}, "hand_sizes": sizes})
    with pytest.raises(DeterminizeError):
        determinize(bad, random.Random(0))
    with pytest.raises(TypeError):
        determinize(new_game(3, 1), random.Random(0))


def test_the_view_holds_only_what_the_seat_may_know() -> None:
    s = new_game(4, 21)
    v = player_view(s, 2)
    assert v.hand == tuple(s.hands[2]) and v.seat == 2 and v.to_act == 2  # seat 0 = relative 2
    assert v.known_hands[0] == (bluff_of(2),) and v.known_hands[2] == (bluff_of(0),)
    assert v.pile_size == len(s.pile) and v.final_hands == () and v.results is None
    shown = set(v.hand) | set(v.bid) | set(v.right) | set(v.left)
    for per_seat in (v.known_hands, v.table, v.revealed, v.final_hands):
        for cards in per_seat:
            shown |= set(cards)
    for p in (0, 1, 3):  # no hidden card of another hand appears anywhere in the view
        assert not (set(s.hands[p]) - {bluff_of(p)}) & shown
    end = random_game(4, 21)
    v = player_view(end, 1)  # at the end every hand is shown, with the results
    assert v.final_hands[1] == tuple(end.hands[2]) and v.results[3]["score"] >= 0
    with pytest.raises(ValueError):
        player_view(s, 4)
