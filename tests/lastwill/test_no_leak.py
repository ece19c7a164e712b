"""Hidden information (docs/RULES.md §10): a view must never leak a hidden card.

Unknown to a seat: the deck orders, the other hands, the face-down starting discards and the
generator state. So changing any of them must leave `player_view(s, seat)` unchanged, and also
`legal_actions(s)` when `seat` is the one to act (the action mask is part of the observation).
Checked at many random positions of seeded random games for every player count.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from lastwill_env.engine import (
    GameState,
    PlayerView,
    apply_action,
    legal_actions,
    make_config,
    new_game,
    player_view,
)

PLAYER_COUNTS = (2, 3, 4, 5)
GAMES = 10  # per player count
CHECK_PROB = 0.15  # share of positions checked


def _fresh(s: GameState) -> GameState:
    """A clone whose cached legal set is dropped, so it is recomputed after a change."""
    c = s.clone()
    c._legal = None
    return c


def _hidden_in_hand(s: GameState, p: int) -> list[int]:
    """Indices of seat p's hand cards nobody else saw: not kept-so-far (keep phase) and not
    taken face up from the offer board (`GameState.known`, public by docs/RULES.md §10)."""
    kept = s.keep_sel if p == s.cur else ()
    return [i for i, c in enumerate(s.hands[p]) if c not in kept and c not in s.known[p]]


def swap_other_hand(s: GameState, seat: int, rnd: random.Random) -> GameState | None:
    """Swap a hidden card of another seat's hand with a card of a normal deck."""
    others = [p for p in range(s.n) if p != seat and _hidden_in_hand(s, p)]
    decks = [d for d in range(4) if s.decks[d]]
    if not others or not decks:
        return None
    t = _fresh(s)
    p = rnd.choice(others)
    hand = t.hands[p]
    i = rnd.choice(_hidden_in_hand(t, p))
    deck = t.decks[rnd.choice(decks)]
    j = rnd.randrange(len(deck))
    hand[i], deck[j] = deck[j], hand[i]
    return t


def swap_between_other_hands(s: GameState, seat: int, rnd: random.Random) -> GameState | None:
    others = [p for p in range(s.n) if p != seat and _hidden_in_hand(s, p) and p != s.cur]
    if 0 <= s.cur != seat and _hidden_in_hand(s, s.cur) and not s.keep_sel:
        others.append(s.cur)
    if len(others) < 2:
        return None
    t = _fresh(s)
    p, q = rnd.sample(others, 2)
    i, j = rnd.choice(_hidden_in_hand(t, p)), rnd.choice(_hidden_in_hand(t, q))
    t.hands[p][i], t.hands[q][j] = t.hands[q][j], t.hands[p][i]
    return t


def shuffle_deck(s: GameState, seat: int, rnd: random.Random) -> GameState | None:
    decks = [d for d in range(4) if len(set(s.decks[d])) > 1]
    if not decks:
        return None
    t = _fresh(s)
    deck = t.decks[rnd.choice(decks)]
    old = deck[:]
    while deck == old:
        rnd.shuffle(deck)
    return t


def shuffle_special(s: GameState, seat: int, rnd: random.Random) -> GameState | None:
    if len(s.special) < 2:
        return None
    t = _fresh(s)
    old = t.special[:]
    while t.special == old:
        rnd.shuffle(t.special)
    return t


def change_rng(s: GameState, seat: int, rnd: random.Random) -> GameState | None:
    t = _fresh(s)
    t.rng = (t.rng + 1 + rnd.getrandbits(40)) % (1 << 64)
    t.seed = t.seed + 1 + rnd.getrandbits(20)
    return t


def swap_hidden_discard(s: GameState, seat: int, rnd: random.Random) -> GameState | None:
    """Swap a face-down starting discard with a card of the same deck."""
    piles = [d for d in range(4) if s.hidden[d] and s.decks[d]]
    if not piles:
        return None
    t = _fresh(s)
    d = rnd.choice(piles)
    i = rnd.randrange(t.hidden[d])
    j = rnd.randrange(len(t.decks[d]))
    t.discards[d][i], t.decks[d][j] = t.decks[d][j], t.discards[d][i]
    return t


PERTURBATIONS = (
    swap_other_hand,
    swap_between_other_hands,
    shuffle_deck,
    shuffle_special,
    change_rng,
    swap_hidden_discard,
)


def check_position(s: GameState, rnd: random.Random, where: str) -> int:
    """Every seat's view (and the actor's legal set) survives every hidden change."""
    checked = 0
    for seat in range(s.n):
        view = player_view(s, seat)
        legal = list(legal_actions(s)) if seat == s.cur else None
        for perturb in PERTURBATIONS:
            t = perturb(s, seat, rnd)
            if t is None:
                continue
            other = player_view(t, seat)
            if other != view:
                diff = [
                    f.name
                    for f in dataclasses.fields(PlayerView)
                    if getattr(other, f.name) != getattr(view, f.name)
                ]
                raise AssertionError(f"{where}: {perturb.__name__} changes seat {seat}'s {diff}")
            if legal is not None:
                assert legal_actions(t) == legal, (
                    f"{where}: {perturb.__name__} changes the legal actions of seat {seat}"
                )
            checked += 1
    return checked


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_hidden_changes_leave_views_and_masks_unchanged(n):
    checked = 0
    for game in range(GAMES):
        options = ({}, {"starting_money": "will-each"}, {"board_spaces": 3})[game % 3]
        s = new_game(make_config(n, **options), 1000 * n + game)
        rnd = random.Random(f"leak-{n}-{game}")
        while not s.is_over:
            if s.history == [] or rnd.random() < CHECK_PROB:
                checked += check_position(s, rnd, f"{n}p game {game} step {len(s.history)}")
            apply_action(s, rnd.choice(legal_actions(s)))
        checked += check_position(s, rnd, f"{n}p game {game} at the end")
    assert checked > 100 * n


def _after_keep(n: int, seed: int) -> GameState:
    s = new_game(make_config(n), seed)
    rnd = random.Random(seed)
    while s.phase == 0:  # keep the starting cards
        apply_action(s, rnd.choice(legal_actions(s)))
    return s


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_face_down_starting_discards_are_not_revealed(n):
    for seed in range(10):
        s = _after_keep(n, seed)
        assert sum(s.hidden) == 4 * n
        hidden = {c for d in range(4) for c in s.discards[d][: s.hidden[d]]}
        assert len(hidden) == 4 * n
        for seat in range(n):
            v = player_view(s, seat)
            shown = {c for pile in v.discards for c in pile}
            assert not shown & hidden, f"seat {seat} sees face-down discards {shown & hidden}"
            assert v.hidden_discards == tuple(s.hidden)
            assert sum(len(p) for p in v.discards) == sum(len(p) for p in s.discards) - 4 * n
            # not through any other field either: the card ids are nowhere in the view
            for c in hidden - set(v.hand):
                assert c not in v.offer and all(c not in b for b in v.boards)
                assert c not in v.box
        # which cards lie face down does not matter to any view
        rnd = random.Random(seed)
        for _ in range(5):
            t = swap_hidden_discard(s, 0, rnd)
            assert t is not None
            for seat in range(n):
                assert player_view(t, seat) == player_view(s, seat)
            if s.cur >= 0:
                assert legal_actions(t) == legal_actions(s)


def test_hidden_discards_stay_hidden_during_play():
    """Until their pile is reshuffled, the face-down cards never appear in any view."""
    for n in PLAYER_COUNTS:
        for seed in range(4):
            s = _after_keep(n, seed)
            rnd = random.Random(seed)
            while not s.is_over:
                hidden = {c for d in range(4) for c in s.discards[d][: s.hidden[d]]}
                for seat in range(n):
                    v = player_view(s, seat)
                    assert not hidden & {c for pile in v.discards for c in pile}
                    assert v.discards == tuple(
                        tuple(s.discards[d][s.hidden[d] :]) for d in range(4)
                    )
                apply_action(s, rnd.choice(legal_actions(s)))


def test_view_holds_no_generator_state_or_hidden_fields():
    names = {f.name for f in dataclasses.fields(PlayerView)}
    assert not names & {"rng", "seed", "decks", "special", "hands", "history", "ledger"}
    s = _after_keep(4, 9)
    v = player_view(s, 0)
    for f in dataclasses.fields(PlayerView):
        value = getattr(v, f.name)
        assert value != s.rng and s.rng not in (value if isinstance(value, tuple) else ())
    t = change_rng(s, 0, random.Random(1))
    assert all(player_view(t, seat) == player_view(s, seat) for seat in range(4))
    # the view of a seat that is not acting does not show the actor's pending keep choice
    s = new_game(make_config(3), 5)
    apply_action(s, legal_actions(s)[0])
    actor = s.cur
    assert player_view(s, actor).keep_selected
    for seat in range(3):
        if seat != actor:
            assert player_view(s, seat).keep_selected == ()


def test_views_are_the_dataclass_built_field_by_field():
    """`player_view` sets the frozen dataclass's slots directly: the result is the object its
    own constructor builds from the same values (equal, same hash, still frozen), and every
    field holds the type the dataclass declares (a value shifted by one field would not)."""
    s = new_game(4, 11)
    rnd = random.Random(2)
    for _ in range(120):
        for seat in range(4):
            v = player_view(s, seat)
            values = {f.name: getattr(v, f.name) for f in dataclasses.fields(PlayerView)}
            built = PlayerView(**values)
            assert v == built and repr(v) == repr(built)
            assert hash(dataclasses.replace(v, results=None)) == hash(
                dataclasses.replace(built, results=None)
            )
            assert isinstance(v.money, tuple) and len(v.money) == 4
            assert isinstance(v.final_round, bool) and isinstance(v.used, tuple)
            assert len(v.used) == len(v.value_step) == len(s.used)
            assert v.seat == seat and v.num_players == 4
        with pytest.raises(dataclasses.FrozenInstanceError):
            v.money = ()  # type: ignore[misc]
        s.apply_action(rnd.choice(legal_actions(s)))
