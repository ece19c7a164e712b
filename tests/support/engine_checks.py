"""Engine invariants shared by the random-playout tests and the Hypothesis state machine:
every card in exactly one place, property owners and the spending limit (docs/RULES.md §5), and a
deep snapshot of a state."""

from __future__ import annotations

import json

from lastwill_env.engine import CATALOGUE, NUM_CARDS, GameState

_PROPERTY = tuple(c.category == "property" for c in CATALOGUE.cards)


def card_places(s: GameState) -> list[int]:
    """How many places hold each card id."""
    count = [0] * NUM_CARDS
    for pile in (*s.decks, s.special, *s.discards, s.box, s.jokers, *s.hands, *s.boards):
        for c in pile:
            count[c] += 1
    for c in s.offer:
        if c >= 0:
            count[c] += 1
    if s.resolving >= 0:
        count[s.resolving] += 1
    return count


def check_card_places(s: GameState, where: str = "") -> None:
    count = card_places(s)
    if count.count(1) == NUM_CARDS:
        return
    bad = {c: k for c, k in enumerate(count) if k != 1}
    assert not bad, f"{where}: cards not in exactly one place (card id: places): {bad}; {s!r}"


def check_owners(s: GameState, where: str = "") -> None:
    """nprops matches the boards (plus a bought property waiting for room) and no owner of a
    property is below £0 (§5)."""
    for seat in range(s.n):
        owned = sum(1 for c in s.boards[seat] if _PROPERTY[c])
        if s.resolving >= 0 and _PROPERTY[s.resolving] and s.cur == seat:
            owned += 1
        assert s.nprops[seat] == owned, f"{where}: seat {seat} nprops {s.nprops} vs board"
        if owned:
            assert s.money[seat] >= 0, (
                f"{where}: seat {seat} owns a property but has £{s.money[seat]}; "
                f"last ledger entries {s.ledger[-3:]}"
            )


def snapshot(s: GameState) -> dict:
    """A deep copy of the whole state (to_dict may share inner objects with the state)."""
    return json.loads(json.dumps(s.to_dict()))
