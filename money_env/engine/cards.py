"""The card data of Money! in one place (docs/games/MONEY.md §2), validated at import.

`CARD_DATA` is the only copy of the printed facts: currency names (cosmetic), the nine note
values of a currency, the coin and bluff counts, the hand and group sizes, the currencies in play
per player count and the scoring numbers. `load_cards(CARD_DATA)` checks it and derives the
tables the rules read; a malformed table raises `CardDataError` naming the entry.

Card ids (a fixed numbering, also the serial order of docs/games/MONEY.md §8.1):
- notes: `currency * 9 + j`, j = 0..8 over the values 20, 20, 20, 30, 30, 30, 40, 50, 60;
  ids 0..62 (currency index first, then value, then copy);
- coins: 63..68 (after every note);
- bluffs: 69..73, the bluff of seat p is `69 + p` (no serial: a bluff never decides an order).

Card kinds (what a bid action names, docs/games/MONEY.md §10.1): `currency * 5 + v` for the
note values 20, 30, 40, 50, 60 (v = 0..4), 35 for a coin, 36 for a bluff: 37 kinds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CARD_DATA: dict[str, Any] = {
    "currencies": ["Dollar", "Euro", "Pound", "Yen", "Franc", "Rupee", "Peso"],
    "note_values": [20, 20, 20, 30, 30, 30, 40, 50, 60],
    "coins": 6,
    "coin_value": 10,
    "bluffs": 5,
    "hand_dealt": 6,
    "group_size": 4,
    # player count -> currencies in play: the first k of `currencies` (setup removes the last)
    "currencies_in_play": {"3": 5, "4": 6, "5": 7},
    "cliff": 200,
    "cliff_penalty": 100,
    "trio_values": [20, 30],
    "trio_bonus": 100,
    "full_set_score": 500,
}


class CardDataError(ValueError):
    """The card table is malformed; the message names the entry."""


@dataclass(frozen=True)
class Cards:
    currencies: tuple[str, ...]
    note_values: tuple[int, ...]
    kind_values: tuple[int, ...]  # the distinct note values, ascending: 20, 30, 40, 50, 60
    coins: int
    coin_value: int
    bluffs: int
    hand_dealt: int
    group_size: int
    in_play: dict[int, int]  # player count -> currencies in play
    cliff: int
    cliff_penalty: int
    trio_values: tuple[int, ...]
    trio_bonus: int
    full_set_score: int


def _int(data: dict, key: str, lo: int, hi: int) -> int:
    v = data.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise CardDataError(f"card data {key!r}={v!r}: must be an integer from {lo} to {hi}")
    return v


def _check_values(data: dict) -> tuple[int, ...]:
    vals = data.get("note_values")
    if not isinstance(vals, list) or len(vals) != 9:
        raise CardDataError(f"card data 'note_values'={vals!r}: must list the nine notes")
    for v in vals:
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= 1000:
            raise CardDataError(f"card data 'note_values': {v!r} is not a value from 1 to 1000")
    if vals != sorted(vals):
        raise CardDataError("card data 'note_values': must be ascending")
    distinct = sorted(set(vals))
    if len(distinct) != 5:
        raise CardDataError(f"card data 'note_values': {len(distinct)} distinct values, not 5")
    return tuple(vals)


def _check_currencies(data: dict) -> tuple[str, ...]:
    names = data.get("currencies")
    if not isinstance(names, list) or len(names) != 7:
        raise CardDataError(f"card data 'currencies'={names!r}: must name seven currencies")
    if any(not isinstance(x, str) or not x.strip() for x in names) or len(set(names)) != 7:
        raise CardDataError("card data 'currencies': seven distinct non-empty names")
    return tuple(names)


def _check_in_play(data: dict) -> dict[int, int]:
    table = data.get("currencies_in_play")
    if not isinstance(table, dict) or set(table) != {"3", "4", "5"}:
        raise CardDataError(
            f"card data 'currencies_in_play'={table!r}: needs the player counts '3', '4', '5'"
        )
    out = {int(k): v for k, v in table.items()}
    for k, v in out.items():
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= 7:
            raise CardDataError(f"card data 'currencies_in_play'[{k}]={v!r}: not 1..7")
    return out


def load_cards(data: dict[str, Any]) -> Cards:
    """The validated card tables of `data` (shaped as `CARD_DATA`)."""
    if not isinstance(data, dict):
        raise CardDataError(f"card data must be a dict, not {type(data).__name__}")
    unknown = sorted(set(data) - set(CARD_DATA))
    if unknown:
        raise CardDataError(f"card data: unknown entries {unknown}")
    vals = _check_values(data)
    trio = data.get("trio_values")
    if not isinstance(trio, list) or any(trio.count(v) != 1 or vals.count(v) != 3 for v in trio):
        raise CardDataError(f"card data 'trio_values'={trio!r}: values printed on three notes")
    return Cards(
        currencies=_check_currencies(data),
        note_values=vals,
        kind_values=tuple(sorted(set(vals))),
        coins=_int(data, "coins", 0, 20),
        coin_value=_int(data, "coin_value", 1, 1000),
        bluffs=_int(data, "bluffs", 5, 5),
        hand_dealt=_int(data, "hand_dealt", 1, 10),
        group_size=_int(data, "group_size", 1, 10),
        in_play=_check_in_play(data),
        cliff=_int(data, "cliff", 0, 10000),
        cliff_penalty=_int(data, "cliff_penalty", 0, 10000),
        trio_values=tuple(trio),
        trio_bonus=_int(data, "trio_bonus", 0, 10000),
        full_set_score=_int(data, "full_set_score", 0, 10000),
    )


CARDS = load_cards(CARD_DATA)

NUM_CURRENCIES = len(CARDS.currencies)  # 7
NOTES_PER_CURRENCY = len(CARDS.note_values)  # 9
NUM_NOTES = NUM_CURRENCIES * NOTES_PER_CURRENCY  # 63
FIRST_COIN = NUM_NOTES  # 63
FIRST_BLUFF = FIRST_COIN + CARDS.coins  # 69
NUM_CARDS = FIRST_BLUFF + CARDS.bluffs  # 74
COIN_KIND = NUM_CURRENCIES * len(CARDS.kind_values)  # 35
BLUFF_KIND = COIN_KIND + 1  # 36
NUM_KINDS = BLUFF_KIND + 1  # 37
GROUP_SIZE = CARDS.group_size

# per card id: currency (-1 for coins and bluffs), printed value (0 for a bluff), kind
CURRENCY: tuple[int, ...] = tuple(
    c // NOTES_PER_CURRENCY if c < NUM_NOTES else -1 for c in range(NUM_CARDS)
)
VALUE: tuple[int, ...] = tuple(
    CARDS.note_values[c % NOTES_PER_CURRENCY]
    if c < NUM_NOTES
    else (CARDS.coin_value if c < FIRST_BLUFF else 0)
    for c in range(NUM_CARDS)
)
KIND: tuple[int, ...] = tuple(
    CURRENCY[c] * len(CARDS.kind_values) + CARDS.kind_values.index(VALUE[c])
    if c < NUM_NOTES
    else (COIN_KIND if c < FIRST_BLUFF else BLUFF_KIND)
    for c in range(NUM_CARDS)
)


def is_bluff(card: int) -> bool:
    return card >= FIRST_BLUFF


def bluff_of(seat: int) -> int:
    """The bluff card id of `seat` (docs/games/MONEY.md §3.3)."""
    return FIRST_BLUFF + seat


def in_play(n: int) -> tuple[int, ...]:
    """The notes and coins of an n-player game, ascending ids (docs/games/MONEY.md §3.1-3.2)."""
    k = CARDS.in_play[n]
    return tuple(range(k * NOTES_PER_CURRENCY)) + tuple(range(FIRST_COIN, FIRST_BLUFF))


def box(n: int) -> tuple[int, ...]:
    """The cards an n-player game leaves in the box: removed currencies and spare bluffs."""
    k = CARDS.in_play[n]
    return tuple(range(k * NOTES_PER_CURRENCY, NUM_NOTES)) + tuple(
        range(FIRST_BLUFF + n, NUM_CARDS)
    )


def card_name(card: int) -> str:
    """A readable name, e.g. `Euro 30#2` (copy 2 of the Euro 30s), `coin#1`, `bluff#3`."""
    if not isinstance(card, int) or not 0 <= card < NUM_CARDS:
        raise ValueError(f"card {card!r} is not a card id 0..{NUM_CARDS - 1}")
    if card < NUM_NOTES:
        j = card % NOTES_PER_CURRENCY
        copy = CARDS.note_values[:j].count(VALUE[card]) + 1
        return f"{CARDS.currencies[CURRENCY[card]]} {VALUE[card]}#{copy}"
    if card < FIRST_BLUFF:
        return f"coin#{card - FIRST_COIN + 1}"
    return f"bluff#{card - FIRST_BLUFF + 1}"


def kind_name(kind: int) -> str:
    """`Euro 30`, `coin`, `bluff`."""
    if not isinstance(kind, int) or not 0 <= kind < NUM_KINDS:
        raise ValueError(f"kind {kind!r} is not a card kind 0..{NUM_KINDS - 1}")
    if kind == COIN_KIND:
        return "coin"
    if kind == BLUFF_KIND:
        return "bluff"
    nv = len(CARDS.kind_values)
    return f"{CARDS.currencies[kind // nv]} {CARDS.kind_values[kind % nv]}"
