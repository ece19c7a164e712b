"""docs/RULES.md §10: the offer board is public, so which offer card went into which hand is public.

`GameState.known` records, per seat, the cards it took face up and still holds; the view shows
them to every seat (`PlayerView.known_hands`), the observation encodes them (`known_hand{r}`),
and `determinize` keeps them in those hands.
"""

import random

import numpy as np
import pytest
from engine_checks import check_card_places

from lastwill_env.encoding import encode_observation, encode_state, piece_slices
from lastwill_env.engine import (
    apply_action,
    determinize,
    legal_actions,
    new_game,
    player_view,
)
from lastwill_env.engine.actions import ERRAND, ERRAND_EXTENSION
from lastwill_env.engine.builders import card_id, do, set_hand, turn_state
from lastwill_env.engine.game import ERRAND_PHASE, GAME_OVER


def _to_first_errand(n: int, seed: int):
    s = new_game(n, seed)
    rnd = random.Random(seed)
    while s.phase != ERRAND_PHASE:
        apply_action(s, rnd.choice(legal_actions(s)))
    return s


def test_taking_an_offer_card_is_seen_by_every_seat():
    s = _to_first_errand(4, 3)
    seat = s.cur
    space = next(i for i, c in enumerate(s.offer) if c >= 0)
    card = s.offer[space]
    apply_action(s, ERRAND[space])
    assert s.known[seat] == [card]
    for viewer in range(4):
        rel = (seat - viewer) % 4
        v = player_view(s, viewer)
        assert v.known_hands[rel] == (card,)
        assert all(not k for r, k in enumerate(v.known_hands) if r != rel)
        obs = encode_state(s, viewer)
        sl = piece_slices()[f"known_hand{rel}"]
        assert np.flatnonzero(obs[sl]).tolist() == [card]
        np.testing.assert_array_equal(obs, encode_observation(v))


def test_a_known_card_leaves_the_record_when_played():
    s = turn_state(4, 0, hand=["Dinner_1", "Dinner_2"], money=30, actions=2)
    set_hand(s, 0, ["Dinner_1", "Dinner_2"], known=["Dinner_1"])
    do(s, "play Dinner_1")
    assert s.known[0] == []
    assert player_view(s, 1).known_hands[3] == ()


def test_companions_leave_the_record_by_type():
    """Identical companions: using a dog removes one known dog whichever copy the engine took,
    so the record never depends on which copy was hidden (Dog_1 private, Dog_3 known)."""
    s = turn_state(4, 0, hand=["Dog_1", "Dog_3"], board=["Farm_2"], money=30, actions=2)
    set_hand(s, 0, ["Dog_1", "Dog_3"], known=["Dog_3"])
    do(s, "attach_card Farm_2")  # Farm_2's first slot takes a dog: the engine discards Dog_1
    assert card_id("Dog_1") not in s.hands[0]
    assert s.known[0] == []  # one dog left the hand: the table cannot tell which


def test_jokers_back_to_the_supply_leave_the_record():
    s = turn_state(4, 0, hand=["Joker_1"], money=30, actions=0)
    set_hand(s, 0, ["Joker_1"], known=["Joker_1"])
    while s.phase != ERRAND_PHASE and s.phase != GAME_OVER:  # finish the round
        apply_action(s, legal_actions(s)[0])
    assert card_id("Joker_1") not in s.known[0]


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_record_stays_a_subset_of_the_hand_in_playouts(n):
    """Seeded random games: every recorded card is in that hand, none twice, and every card
    is still in exactly one place."""
    taken = 0
    for seed in range(6):
        s = new_game(n, 500 + seed)
        rnd = random.Random(seed)
        while not s.is_over:
            a = rnd.choice(legal_actions(s))
            apply_action(s, a)
            for p in range(n):
                assert len(set(s.known[p])) == len(s.known[p])
                assert set(s.known[p]) <= set(s.hands[p]), (seed, len(s.history), p)
            taken += sum(len(k) for k in s.known)
        check_card_places(s, f"{n}p seed {seed}")
    assert taken > 0


def test_determinize_keeps_known_cards_in_their_hands():
    s = _to_first_errand(4, 8)
    rnd = random.Random(1)
    while s.phase == ERRAND_PHASE:  # every errand boy takes an offer card when it can
        legal = legal_actions(s)
        offers = [a for a in legal if a in ERRAND.values() and a < ERRAND[ERRAND_EXTENSION]]
        apply_action(s, offers[0] if offers else rnd.choice(legal))
    viewer = 0
    view = player_view(s, viewer)
    assert any(view.known_hands[r] for r in range(1, 4))
    for k in range(20):
        d = determinize(view, viewer, random.Random(k), template=s)
        check_card_places(d, f"determinized {k}")
        for p in range(1, 4):
            assert set(s.known[p]) <= set(d.hands[p])
            assert d.known[p] == s.known[p]
            assert len(d.hands[p]) == len(s.hands[p])
        assert player_view(d, viewer) == view
