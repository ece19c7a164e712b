"""Small state builders for scenario tests and worked examples.

They set up a position by moving named cards from wherever they are (deck, discard, hand,
offer board ...) to where the scenario needs them, so every card stays in exactly one place.
They are not rules: they bypass legality on purpose, like a person arranging a table. An
arranged table is no longer the game its seed deals, so every builder that moves cards or sets
a value marks the state's `seed` None: `GameState.from_dict` then does not replay its history
from a deal (the decisions taken after arranging it stay recorded).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .cards import CATALOGUE
from .config import GameConfig
from .game import (
    CARDS,
    K_PROPERTY,
    KIND,
    TURN_PHASE,
    GameState,
    _discard_card,
    apply_action,
    legal_actions,
    new_game,
)


def card_id(name: str) -> int:
    """Card id by catalogue name (e.g. 'Farm_3'); a clear error lists close names."""
    try:
        return CATALOGUE.by_name[name]
    except KeyError:
        close = [n for n in CATALOGUE.by_name if n.split("_")[0] == name.split("_")[0]]
        raise KeyError(
            f"no card named {name!r}; similar names: {close or 'none'} "
            f"(all names are in lastwill_env/data/cards.json)"
        ) from None


def _ids(cards: Iterable[str | int]) -> list[int]:
    return [c if isinstance(c, int) else card_id(c) for c in cards]


def take_card(s: GameState, c: int) -> None:
    """Remove card c from wherever it is."""
    s.seed = None
    for known in s.known:
        if c in known:
            known.remove(c)
    for pile in (*s.decks, s.special, s.box, s.jokers, *s.hands):
        if c in pile:
            pile.remove(c)
            return
    for d, pile in enumerate(s.discards):
        if c in pile:
            i = pile.index(c)
            pile.remove(c)
            if i < s.hidden[d]:
                s.hidden[d] -= 1
            return
    for seat, board in enumerate(s.boards):
        if c in board:
            board.remove(c)
            if KIND[c] == K_PROPERTY:
                s.nprops[seat] -= 1
            for t in CARDS[c].slots[: s.filled[c]]:
                s.tokens[t[0]] += 1
            s.filled[c] = s.step[c] = s.used[c] = s.priv[c] = 0
            return
    if c in s.offer:
        s.offer[s.offer.index(c)] = -1
        return
    if s.resolving == c:
        s.resolving = -1
        return
    raise ValueError(f"card {CARDS[c].name} is nowhere")  # pragma: no cover


def discard_to_pile(s: GameState, c: int) -> None:
    """Put card c face up on its discard pile (specials go out of the game)."""
    take_card(s, c)
    _discard_card(s, c)


def set_hand(
    s: GameState, seat: int, cards: Iterable[str | int], known: Iterable[str | int] = ()
) -> None:
    """Replace the seat's hand; the old hand goes to the discard piles. `known` (a subset of
    `cards`) is what the table saw that seat take face up from the offer (docs/RULES.md §10)."""
    new = _ids(cards)
    s.seed = None
    for c in list(s.hands[seat]):
        if c not in new:
            discard_to_pile(s, c)
    for c in new:
        if c not in s.hands[seat]:
            take_card(s, c)
            s.hands[seat].append(c)
    known_ids = _ids(known)
    stray = [CARDS[c].name for c in known_ids if c not in new]
    if stray:
        raise ValueError(f"known cards {stray} are not in the new hand")
    s.known[seat] = [c for c in s.known[seat] if c in new] + [
        c for c in known_ids if c not in s.known[seat]
    ]
    s._legal = None


def put_on_board(
    s: GameState,
    seat: int,
    cards: Iterable[str | int],
    *,
    filled: Mapping[str, int] | None = None,
    steps: Mapping[str, int] | None = None,
    used: Iterable[str] = (),
) -> None:
    """Place cards on the seat's board (properties count as owned), optionally with
    companion tokens (`filled`: name -> slots filled), value steps and used flags."""
    filled = dict(filled or {})
    steps = dict(steps or {})
    used_ids = set(_ids(used))
    s.seed = None
    for c in _ids(cards):
        take_card(s, c)
        s.boards[seat].append(c)
        spec = CARDS[c]
        if KIND[c] == K_PROPERTY:
            s.nprops[seat] += 1
        s.priv[c] = spec.free_per_round
        k = filled.get(spec.name, 0)
        for t, _ in spec.slots[:k]:
            s.tokens[t] -= 1
        s.filled[c] = k
        s.step[c] = steps.get(spec.name, 0)
        s.used[c] = 1 if c in used_ids else 0
    s._legal = None


def play_to_first_turn(config: GameConfig | int = 4, seed: int = 0) -> GameState:
    """Play the first legal action at every decision until the first action turn of round 1."""
    s = new_game(config, seed)
    while s.phase != TURN_PHASE:
        apply_action(s, legal_actions(s)[0])
    return s


def turn_state(
    num_players: int = 4,
    seat: int = 0,
    *,
    hand: Iterable[str | int] = (),
    board: Iterable[str | int] = (),
    filled: Mapping[str, int] | None = None,
    steps: Mapping[str, int] | None = None,
    used: Iterable[str] = (),
    money: int | None = None,
    actions: int = 2,
    modifiers: tuple[int, int, int, int] | None = None,
    seed: int = 0,
    **options,
) -> GameState:
    """A round-1 action turn of `seat` with exactly this hand, board, money and actions.

    Other seats keep what the opening gave them (hands; empty boards)."""
    s = play_to_first_turn(GameConfig(num_players=num_players, **options), seed)
    s.seed = None
    s.turn_i = s.order.index(seat)
    s.cur = seat
    s.phase = TURN_PHASE
    set_hand(s, seat, hand)
    put_on_board(s, seat, board, filled=filled, steps=steps, used=used)
    if money is not None:
        s.money[seat] = money
    s.actions = actions
    if modifiers is not None:
        s.mods = list(modifiers)
    s._legal = None
    return s


def legal_names(s: GameState) -> list[str]:
    """Readable names of the legal actions (for assertions and debugging)."""
    from .actions import describe_action

    return [describe_action(a) for a in legal_actions(s)]


def do(s: GameState, name: str) -> None:
    """Apply the legal action whose readable name is `name` (e.g. 'play Farm_3')."""
    from .actions import describe_action

    for a in legal_actions(s):
        if describe_action(a) == name:
            apply_action(s, a)
            return
    raise ValueError(f"{name!r} is not legal here; legal: {legal_names(s)}")
