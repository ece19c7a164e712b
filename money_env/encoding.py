"""The observation of Money! for learning agents: one flat float32 vector of a `PlayerView`.

The vector is made of named pieces in a fixed order (`OBS_SPEC`: name, size, scale,
description; `OBS_PIECES`: (name, size); `OBS_SIZE` in all; `OBS_OFFSETS`: where each piece
starts). It encodes exactly what one seat may know (docs/games/MONEY.md §9, the `PlayerView`)
and nothing else, with seats relative to the viewer: relative seat 0 is the viewer, 1 the next
to its left, and so on. There are always 5 seat blocks (`SEAT_FIELDS`, `SEAT_BLOCK` values
each); the blocks of seats not at the table are all zeros, `present` = 0 included, so the size
is the same for 3, 4 and 5 players.

Value conventions: one-hot and flag entries are 0/1. A count "per kind" (the 37 card kinds of
the action table, `kind = currency * 5 + v`, 35 the coin, 36 the bluff; the money pieces leave
the bluff out and have 36 entries) is divided by how many copies of that kind the game has (3 of
a 20 or a 30 of one currency, 1 of a 40, 50 or 60, 6 coins, 1 bluff per hand), so it lies in
[0, 1]. Other amounts are divided by the `scale` the piece names (a bid's value by 300, a
score by 1500...): about [0, 1], never negative, a little above 1 only for unusual hands; every
entry lies in ``[OBS_LOW, obs_high()]`` (0 and 9.25: no piece can hold more than every card of
the game), the bounds the envs' observation box declares.

Scores are the engine's own (`money_env.engine.score.score_hand`), never a copy of the rules:
`hand_score` is what the viewer's hand would score if the game ended now and `known_score`
what the cards every player knows to be in a seat's hand would score alone (a hand scores the
sum of its currencies' points and its coins', so the engine's score of every set of one
currency's notes and of every number of coins is tabulated once, and a hand's is looked up).

`encode_state(state, seat)` is `encode_observation(player_view(state, seat))` bit for bit,
read straight from the state without building the view: the env and the trainers call it at
every decision. `ObservationCache` gives the same vectors for one game, re-encoding a seat's
only where it changed since that seat's last one (Money!'s env, `money_env.env`).
tests/support/money_reference_encoder.py keeps the first, plain encoder, the one the tests hold
this one to.

The layout text (`obs_layout_text()`) is what `money_env.ACTION_TABLE_HASH` covers together
with the action table: changing any piece changes the hash. This module imports numpy only when
a vector is built, so the layout (and the binding's `obs_size`) loads with the standard library
alone.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .engine import PHASE_NAMES
from .engine.actions import COMMIT
from .engine.cards import (
    BLUFF_KIND,
    COIN_KIND,
    CURRENCY,
    FIRST_BLUFF,
    FIRST_COIN,
    KIND,
    NOTES_PER_CURRENCY,
    NUM_CARDS,
    NUM_CURRENCIES,
    NUM_KINDS,
    VALUE,
    in_play,
)
from .engine.config import MAX_PLAYERS, PLAYER_COUNTS
from .engine.game import BID_PHASE, GAME_OVER, first_bidder, is_last_round
from .engine.score import score_hand
from .engine.tables import MAX_ROUNDS

if TYPE_CHECKING:
    import numpy as np

    from .engine import PlayerView

__all__ = [
    "OBS_SPEC",
    "OBS_PIECES",
    "OBS_SIZE",
    "OBS_OFFSETS",
    "SEAT_FIELDS",
    "SEAT_BLOCK",
    "MONEY_KINDS",
    "KIND_COPIES",
    "OBS_LOW",
    "obs_high",
    "encode_observation",
    "encode_state",
    "ObservationCache",
    "obs_layout_text",
    "piece_slices",
    "describe",
]

MONEY_KINDS = COIN_KIND + 1  # 36: the notes' kinds and the coin (no bluff)
_SEATS = MAX_PLAYERS

# copies of each kind in the whole game (every currency, as at 5 players); a hand holds 1 bluff
KIND_COPIES: tuple[int, ...] = tuple(
    1 if k == BLUFF_KIND else sum(1 for c in range(FIRST_BLUFF) if KIND[c] == k)
    for k in range(NUM_KINDS)
)
_INV = tuple(1.0 / c for c in KIND_COPIES)

SUM_SCALE = 300.0  # a currency's face sum, a bid's or a group's value
SCORE_SCALE = 1500.0  # a hand's score
SIZE_SCALE = 40.0  # a hand's size
GROUP_SCALE = 8.0  # a group's size
PILE_SCALE = 40.0  # the pile (at most 31 cards after the deal)

# Global pieces: (name, size, scale, description); a scale of 1 is a flag, one-hot or a count
# per kind divided by the copies of the kind
_GLOBAL_SPEC: tuple[tuple[str, int, float, str], ...] = (
    ("hand", NUM_KINDS, 1.0, "own hand (the bid being built included), count per kind / copies"),
    ("bid", NUM_KINDS, 1.0, "own hidden bid being built or committed, count per kind / copies"),
    ("bid_value", 1, SUM_SCALE, "own hidden bid's value (notes and coins), scale 300"),
    ("hand_sums", NUM_CURRENCIES, SUM_SCALE, "own hand: face sum per currency, scale 300"),
    ("hand_score", 1, SCORE_SCALE, "own hand's score if the game ended now, scale 1500"),
    ("right", MONEY_KINDS, 1.0, "right group, count per kind / copies"),
    ("left", MONEY_KINDS, 1.0, "left group, count per kind / copies"),
    ("right_value", 1, SUM_SCALE, "right group's value, scale 300"),
    ("left_value", 1, SUM_SCALE, "left group's value, scale 300"),
    ("right_size", 1, GROUP_SCALE, "right group's cards, scale 8"),
    ("left_size", 1, GROUP_SCALE, "left group's cards, scale 8"),
    (
        "unseen",
        MONEY_KINDS,
        1.0,
        "notes and coins in play that the view places nowhere (other hands' unknown cards and "
        "the pile), count per kind / copies",
    ),
    ("pile_size", 1, PILE_SCALE, "cards in the draw pile, scale 40"),
    ("round", 1, float(MAX_ROUNDS), "the round, scale 60 (the round limit)"),
    ("last_round", 1, 1.0, "this round is the last"),
    ("phase", len(PHASE_NAMES), 1.0, "phase one-hot: " + ", ".join(PHASE_NAMES)),
    ("to_act", _SEATS, 1.0, "relative seat to decide, one-hot over 5 (none at the end)"),
    ("first_bidder", _SEATS, 1.0, "relative seat that bid first this round, one-hot over 5"),
    ("num_players", len(PLAYER_COUNTS), 1.0, "player count one-hot: 3, 4, 5"),
)

# Per-seat block: (field, size, scale, description), repeated for relative seats 0..4
SEAT_FIELDS: tuple[tuple[str, int, float, str], ...] = (
    ("present", 1, 1.0, "1 if this relative seat is at the table"),
    ("hand_size", 1, SIZE_SCALE, "cards in hand (its bluff and a hidden bid included), scale 40"),
    ("known", MONEY_KINDS, 1.0, "cards every player knows it holds, count per kind / copies"),
    ("known_sums", NUM_CURRENCIES, SUM_SCALE, "known cards: face sum per currency, scale 300"),
    ("known_score", 1, SCORE_SCALE, "what its known cards alone would score, scale 1500"),
    ("revealed", MONEY_KINDS, 1.0, "its bid as revealed this round, count per kind / copies"),
    ("revealed_value", 1, SUM_SCALE, "its revealed bid's value, scale 300"),
    ("table", MONEY_KINDS, 1.0, "the bid in front of it now, count per kind / copies"),
    ("table_value", 1, SUM_SCALE, "the value of the bid in front of it now, scale 300"),
    ("committed", 1, 1.0, "bid phase: it has committed its bid this round"),
    ("bluffed", 1, 1.0, "its revealed bid held its bluff this round"),
    ("sat_out", 1, 1.0, "its revealed bid was only its bluff (no exchange this round)"),
    ("waiting", 1, 1.0, "it has a bid on the table and has not acted yet"),
    ("acted", 1, 1.0, "it has made its exchange this round"),
)
SEAT_BLOCK = sum(f[1] for f in SEAT_FIELDS)

OBS_SPEC: tuple[tuple[str, int, float, str], ...] = _GLOBAL_SPEC + tuple(
    (f"seat{r}.{name}", size, scale, desc)
    for r in range(_SEATS)
    for name, size, scale, desc in SEAT_FIELDS
)
OBS_PIECES: list[tuple[str, int]] = [(name, size) for name, size, _, _ in OBS_SPEC]
OBS_SIZE = sum(size for _, size in OBS_PIECES)
OBS_OFFSETS: dict[str, int] = {}
_o = 0
for _name, _size in OBS_PIECES:
    OBS_OFFSETS[_name] = _o
    _o += _size
assert _o == OBS_SIZE
_SEAT0 = OBS_OFFSETS["seat0.present"]
_FIELD = {name: OBS_OFFSETS[f"seat0.{name}"] - _SEAT0 for name, *_ in SEAT_FIELDS}
_G = {name: OBS_OFFSETS[name] for name, *_ in _GLOBAL_SPEC}


def piece_slices() -> dict[str, slice]:
    """Each piece's slice of the vector, by name."""
    return {name: slice(OBS_OFFSETS[name], OBS_OFFSETS[name] + size) for name, size in OBS_PIECES}


def obs_layout_text() -> str:
    """The printed layout, one `offset  size  name  description` line per piece."""
    lines = [f"money observation: {OBS_SIZE} float32 values, {len(OBS_PIECES)} pieces"]
    for name, size, _scale, desc in OBS_SPEC:
        lines.append(f"{OBS_OFFSETS[name]:5d} {size:3d}  {name}  {desc}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# The encoder
#
# Every entry is a whole number (a count per kind, a face sum or a value in `_VALUE_UNIT`s, a
# size, a score, a flag) divided once by its divisor (`_DIV`: the copies of the kind for a count
# per kind, else the piece's scale, in value units for a face sum or a value). Each card of each
# piece, and each flag, is one "code" (a card id plus its piece's base, `_CODE_BASE`; a flag's
# code is `_UNIT` plus its position), and what a code adds was tabulated once as `_WIDTH`
# positions, one per unit it adds (a card: 1 to its kind's count, its value's units to a face
# sum or a bid's value, 1 to a group's size). So a vector is: the codes, gathered into the list
# of a few hundred positions by one `take`; one `np.bincount` of them (the whole numbers); the
# scalars set (sizes, scores, the pile, the round); one float32 division into the output. That
# division is exact up to its one rounding: each entry is the float32 nearest the exact
# quotient, as it was when the plain encoder (tests/support/money_reference_encoder.py) summed
# 1/copies or value/300 card by card in float64 (sums that lie far closer to the exact quotient
# than any float32 rounding boundary can); the tests check the two bit for bit.

_CARDS = NUM_CARDS
# the pieces counted card by card, in code order: the global ones, then three per relative seat
_CARD_PIECES = ("unseen", "hand", "bid", "right", "left") + tuple(
    f"{field}{r}" for r in range(_SEATS) for field in ("known", "revealed", "table")
)
_CODE_BASE = {name: i * _CARDS for i, name in enumerate(_CARD_PIECES)}
_UNIT = len(_CARD_PIECES) * _CARDS  # code _UNIT + pos adds 1 at position pos
_NCODES = _UNIT + OBS_SIZE


def _piece_codes(name: str) -> Any:
    """card id -> the card's code in piece `name` (a bound `tuple.__getitem__`, for `map`)."""
    b = _CODE_BASE[name]
    return tuple(range(b, b + _CARDS)).__getitem__


_HAND = _piece_codes("hand")
_BID = _piece_codes("bid")
_RIGHT = _piece_codes("right")
_LEFT = _piece_codes("left")
assert _CODE_BASE["unseen"] == 0  # an unseen card's code is its id
_KNOWN = tuple(_piece_codes(f"known{r}") for r in range(_SEATS))
_REVEALED = tuple(_piece_codes(f"revealed{r}") for r in range(_SEATS))
_TABLE = tuple(_piece_codes(f"table{r}") for r in range(_SEATS))

_BASE = tuple(_SEAT0 + r * SEAT_BLOCK for r in range(_SEATS))  # each relative seat's block


def _units(field: str) -> tuple[int, ...]:
    """Per relative seat: the code of a 1 at its `field`."""
    return tuple(_UNIT + b + _FIELD[field] for b in _BASE)


_BLUFFED = _units("bluffed")
_SAT_OUT = _units("sat_out")
_WAITING = _units("waiting")
_ACTED = _units("acted")
_PHASE = tuple(_UNIT + _G["phase"] + p for p in range(len(PHASE_NAMES)))
_TO_ACT = tuple(_UNIT + _G["to_act"] + r for r in range(_SEATS))
_FIRST = tuple(_UNIT + _G["first_bidder"] + r for r in range(_SEATS))
_LAST_ROUND = _UNIT + _G["last_round"]
# per player count: `present` of its seats and its `num_players` one-hot
_TABLE_CODES = {
    n: tuple(_UNIT + b + _FIELD["present"] for b in _BASE[:n]) + (_UNIT + _G["num_players"] + i,)
    for i, n in enumerate(PLAYER_COUNTS)
}
# per player count, first bidder and seat to bid (relative): the seats that committed their bid
_COMMITTED = {
    n: tuple(
        tuple(
            tuple(_UNIT + _BASE[(fb + i) % n] + _FIELD["committed"] for i in range((ta - fb) % n))
            for ta in range(n)
        )
        for fb in range(n)
    )
    for n in PLAYER_COUNTS
}
# per player count: the notes and coins in play
_IN_PLAY = {n: frozenset(in_play(n)) for n in PLAYER_COUNTS}
_VALUE_UNIT = math.gcd(*VALUE)  # every face value is a whole number of these (10)
# positions per code at most: a group's card adds its count, its value's units, its size
_WIDTH = 2 + max(VALUE) // _VALUE_UNIT
# scalar positions
_HAND_SCORE = _G["hand_score"]
_PILE_SIZE = _G["pile_size"]
_ROUND = _G["round"]
_HAND_SIZE = tuple(b + _FIELD["hand_size"] for b in _BASE)
_KNOWN_SCORE = tuple(b + _FIELD["known_score"] for b in _BASE)


# per player count and viewer (absolute seat): per seat p, what its relative seat
# r = (p - viewer) % n uses: its seat index, its pieces' code tables, its flags' codes,
# its scalars' positions
_SEAT_ROWS = {
    n: tuple(
        tuple(
            (
                p,
                _KNOWN[r],
                _REVEALED[r],
                _TABLE[r],
                _BLUFFED[r],
                _SAT_OUT[r],
                _ACTED[r],
                _WAITING[r],
                _HAND_SIZE[r],
                _KNOWN_SCORE[r],
            )
            for p in range(n)
            for r in [(p - viewer) % n]
        )
        for viewer in range(n)
    )
    for n in PLAYER_COUNTS
}


def _pairs(name: str, c: int, r: int | None = None) -> list[tuple[int, int]]:
    """The (position, whole number) pairs card `c` adds in piece `name` (of relative seat r),
    a value in `_VALUE_UNIT`s."""
    k, v, cur = KIND[c], VALUE[c] // _VALUE_UNIT, CURRENCY[c]
    money, note = c < FIRST_BLUFF, c < FIRST_COIN
    G = _G
    if r is None:
        if name == "hand":  # counts (the bluff too) and the face sums of notes
            return [(G["hand"] + k, 1)] + ([(G["hand_sums"] + cur, v)] if note else [])
        if name == "bid":  # counts (the bluff too) and the value
            return [(G["bid"] + k, 1), (G["bid_value"], v)]
        if name in ("right", "left"):  # money counts, the value and the size
            count = [(G[name] + k, 1)] if money else []
            return count + [(G[name + "_value"], v), (G[name + "_size"], 1)]
        return [(G["unseen"] + k, 1)] if money else []
    b = _BASE[r]
    count = [(b + _FIELD[name] + k, 1)] if money else []
    if name == "known":
        return count + ([(b + _FIELD["known_sums"] + cur, v)] if note else [])
    return count + [(b + _FIELD[name + "_value"], v)]  # revealed, table


_COIN_BITS = (1 << (FIRST_BLUFF - FIRST_COIN)) - 1
_NOTE_BITS = (1 << NOTES_PER_CURRENCY) - 1
_BIT = tuple(1 << c for c in range(NUM_CARDS)).__getitem__
_NOTE_POINTS: tuple[int, ...] = ()  # per set of one currency's notes (a 9-bit mask): points
_COIN_POINTS: tuple[int, ...] = ()  # per number of coins: their points


@lru_cache(maxsize=1 << 16)
def _score(cards: tuple[int, ...]) -> int:
    """The engine's score of a hand (a tuple of card ids): the sum of the tabulated points of
    each currency's notes and of the coins (`score_hand` itself for a tuple repeating a card)."""
    if not _NOTE_POINTS:
        _score_tables()
    mask = sum(map(_BIT, cards))
    if mask.bit_count() != len(cards):  # a carry: a card twice
        return score_hand(list(cards))["total"]
    total = _COIN_POINTS[(mask >> FIRST_COIN & _COIN_BITS).bit_count()]
    for k in range(NUM_CURRENCIES):
        total += _NOTE_POINTS[mask >> k * NOTES_PER_CURRENCY & _NOTE_BITS]
    return total


def _score_tables() -> None:
    """A hand's score is the sum of its currencies' points and its coins' (§6), each
    tabulated from the engine's own score of the notes of one currency alone (every currency
    prints the same nine notes: note `k * 9 + j` has the value of note `j`), or of the coins."""
    global _NOTE_POINTS, _COIN_POINTS
    _COIN_POINTS = tuple(
        score_hand(list(range(FIRST_COIN, FIRST_COIN + j)))["total"]
        for j in range(FIRST_BLUFF - FIRST_COIN + 1)
    )
    _NOTE_POINTS = tuple(
        score_hand([j for j in range(NOTES_PER_CURRENCY) if m >> j & 1])["total"]
        for m in range(1 << NOTES_PER_CURRENCY)
    )


OBS_LOW = 0.0  # every entry is a count, a sum, a value, a size, a score or a flag


@lru_cache(maxsize=1)
def obs_high() -> float:
    """The largest value an entry can take (9.25): no piece holds more than every card of the
    game (a group's size with all 74 cards is 74 / 8), no hand scores more than every note and
    coin, no round is past `MAX_ROUNDS`. Every observation lies in ``[OBS_LOW, obs_high()]``."""
    div = _divisors()
    top = 1.0  # a flag, a one-hot, a count per kind / copies, the round / MAX_ROUNDS
    for name in _CARD_PIECES:
        field = name.rstrip("0123456789")
        r = int(name[len(field) :]) if field != name else None
        total: dict[int, int] = {}
        for c in range(_CARDS):
            for p, units in _pairs(field, c, r):
                total[p] = total.get(p, 0) + units
        top = max(top, *(units / div[p] for p, units in total.items()))
    if not _NOTE_POINTS:
        _score_tables()
    best = NUM_CURRENCIES * max(_NOTE_POINTS) + max(_COIN_POINTS)
    return max(top, _CARDS / min(SIZE_SCALE, PILE_SCALE), best / SCORE_SCALE)


def _divisors() -> list[float]:
    """Per position the divisor of its whole number: the copies of the kind for a count per
    kind, else the piece's scale (in `_VALUE_UNIT`s for a face sum or a value)."""
    counted = {"hand", "bid", "right", "left", "unseen"} | {
        f"seat{r}.{f}" for r in range(_SEATS) for f in ("known", "revealed", "table")
    }
    valued = {"hand_sums", "bid_value", "right_value", "left_value"} | {
        f"seat{r}.{f}"
        for r in range(_SEATS)
        for f in ("known_sums", "revealed_value", "table_value")
    }
    div: list[float] = []
    for name, size, scale, _ in OBS_SPEC:
        if name in counted:
            div += KIND_COPIES[:size]
        else:
            div += [scale / _VALUE_UNIT if name in valued else scale] * size
    return div


def _tables() -> tuple[list[list[int]], list[float]]:
    """Per code its `_WIDTH` positions (a value counted in `_VALUE_UNIT`s, one position per
    unit; the unused ones at `round`, a scalar set afterwards), and per position the divisor."""
    pad = _G["round"]
    pos = [[pad] * _WIDTH for _ in range(_NCODES)]
    for name in _CARD_PIECES:
        field = name.rstrip("0123456789")
        r = int(name[len(field) :]) if field != name else None
        for c in range(_CARDS):
            row = pos[_CODE_BASE[name] + c]
            j = 0
            for p, units in _pairs(field, c, r):
                row[j : j + units] = [p] * units
                j += units
    for p in range(OBS_SIZE):
        pos[_UNIT + p][0] = p
    return pos, _divisors()


def _make_encoder() -> Any:
    """The encoder of one view's fields, its tables built (numpy imported) on first use."""
    import numpy as np

    pos, div = _tables()
    EXP = np.array(pos, dtype=np.intp)
    DIV = np.array(div, dtype=np.float32)  # whole numbers, exact in float32
    bincount, divide, empty, take = np.bincount, np.divide, np.empty, EXP.take
    float32 = np.float32
    size = OBS_SIZE
    TABLE_CODES, COMMITTED, IN_PLAY = _TABLE_CODES, _COMMITTED, _IN_PLAY
    PHASE, FIRST, TO_ACT, LAST_ROUND = _PHASE, _FIRST, _TO_ACT, _LAST_ROUND
    HAND, BID, RIGHT, LEFT = _HAND, _BID, _RIGHT, _LEFT
    HAND_SCORE, PILE_SIZE, ROUND = _HAND_SCORE, _PILE_SIZE, _ROUND
    score = _score
    SEATS = _SEAT_ROWS

    def encode(
        n: int,
        seat: int,
        phase: int,
        rnd: int,
        to_act: int,
        first: int,
        last_round: bool,
        hand: Any,
        bid: Any,
        right: Any,
        left: Any,
        pile_size: int,
        sizes: Any,
        known: Any,
        revealed: Any,
        table: Any,
        bluffed: Any,
        acted: Any,
        final: Any,
        out: Any,
    ) -> Any:
        # the per-seat sequences are indexed by seat p, the viewer `seat` (0 for a view's
        # sequences, relative already)
        codes = list(TABLE_CODES[n])
        add = codes.append
        ext = codes.extend
        add(PHASE[phase])
        add(FIRST[first])
        if to_act >= 0:
            add(TO_ACT[to_act])
            if phase == 0:
                ext(COMMITTED[n][first][to_act])
        if last_round:
            add(LAST_ROUND)
        ext(map(HAND, hand))
        if bid:
            ext(map(BID, bid))
        ext(map(RIGHT, right))
        ext(map(LEFT, left))
        # an unseen card's code is its id (the piece's base is 0)
        ext(IN_PLAY[n].difference(hand, right, left, *table, *known, *final))
        seats = SEATS[n][seat]
        for p, kn, rv, tb, bluff, sat_out, has_acted, wait, _, _ in seats:
            k = known[p]
            if k:
                ext(map(kn, k))
            rev = revealed[p]
            if rev:
                ext(map(rv, rev))
            tab = table[p]
            if tab:
                ext(map(tb, tab))
            if bluffed[p]:
                add(bluff)
                if not rev:
                    add(sat_out)
            if acted[p]:
                add(has_acted)
            elif tab:
                add(wait)
        raw = bincount(take(codes, 0).ravel(), None, size)
        raw[HAND_SCORE] = score(tuple(hand))
        raw[PILE_SIZE] = pile_size
        raw[ROUND] = rnd
        for p, _, _, _, _, _, _, _, hand_size, known_score in seats:
            raw[hand_size] = sizes[p]
            raw[known_score] = score(tuple(known[p]))
        if out is None:
            out = empty(size, float32)
        divide(raw, DIV, out=out, dtype=float32)
        return out

    return encode


_encode: Any = None  # `_make_encoder()`, on first use


def _build() -> Any:
    global _encode
    _encode = _make_encoder()
    return _encode


def encode_observation(view: PlayerView, out: np.ndarray | None = None) -> np.ndarray:
    """The flat float32 observation of a `PlayerView` (layout: `OBS_PIECES`), written into
    `out` (a float32 array of `OBS_SIZE`) when given."""
    return (_encode or _build())(
        view.num_players,
        0,  # the view's seats are relative already
        view.phase,
        view.round,
        view.to_act,
        view.first_bidder,
        view.last_round,
        view.hand,
        view.bid,
        view.right,
        view.left,
        view.pile_size,
        view.hand_sizes,
        view.known_hands,
        view.revealed,
        view.table,
        view.bluffed,
        view.acted,
        view.final_hands,
        out,
    )


def encode_state(state: Any, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """`encode_observation(player_view(state, seat))`, bit for bit, straight from the state
    (no view is built)."""
    n = state.n
    if type(seat) is not int or not 0 <= seat < n:
        from .engine import player_view

        player_view(state, seat)  # raises the view's error naming the seat
    phase = state.phase
    cur = state.cur
    hands = state.hands
    return (_encode or _build())(
        n,
        seat,
        phase,
        state.round,
        (cur - seat) % n if cur >= 0 else -1,
        (first_bidder(state) - seat) % n,
        is_last_round(state),
        hands[seat],
        state.sel[seat] if phase == BID_PHASE else (),
        state.right,
        state.left,
        len(state.pile),
        list(map(len, hands)),
        state.known,
        state.revealed,
        state.table,
        state.bluffed,
        state.acted,
        hands if phase == GAME_OVER else (),
        out,
    )


class ObservationCache:
    """`encode_state(state, seat)` of one game, bit for bit, re-encoding only what changed
    since that seat's last observation (the environment's ``observe``).

    It keeps each seat's last vector with the length of the history it saw. A seat's vector
    is the same as long as the only actions since are cards added to a bid (`ADD`): they are
    hidden from every other seat (docs/games/MONEY.md §4.1, 9) and never change the phase or
    the seat to act. Added by the seat itself, they change its own ``bid`` and ``bid_value``
    alone, which are rewritten from its bid now, each entry the float32 quotient the encoder
    writes there (the same numpy division, tabulated). Anything else (a commit, an exchange, a
    new game) encodes the whole vector again. Every vector returned is a fresh array; the cache
    keeps its own copy, so changing a returned vector changes nothing here."""

    def __init__(self) -> None:
        self._state: Any = None
        self._last: dict[int, tuple[int, np.ndarray]] = {}

    def observe(self, state: Any, seat: int) -> np.ndarray:
        """`encode_state(state, seat)`, bit for bit, a fresh array."""
        if state is not self._state:  # another game: nothing kept is its
            self._state, self._last = state, {}
        history = state.history
        h = len(history)
        kept = self._last.get(seat)
        if kept is not None:
            h0, vec = kept
            if h0 == h:
                return vec.copy()
            if h0 < h and max(history[h0:h]) < COMMIT:  # only cards added to a bid since
                if state.cur == seat:  # its own: its bid changed
                    vec = vec.copy()
                    _write_bid(vec, state.sel[seat])
                self._last[seat] = (h, vec)
                return vec.copy()
        vec = encode_state(state, seat)
        self._last[seat] = (h, vec.copy())
        return vec


_BID_Q: list[list[float]] = []  # per kind, per count: the bid entry (float32 values)
_BID_VALUE_Q: list[float] = []  # per value in `_VALUE_UNIT`s: the bid_value entry


def _write_bid(vec: np.ndarray, bid: list[int]) -> None:
    """Write the `bid` and `bid_value` pieces of `vec` for the hidden bid `bid` (card ids),
    as `encode_state` writes them: each the float32 quotient of its whole number by its
    divisor, tabulated by the encoder's own division."""
    if not _BID_Q:
        _bid_tables()
    lo = _G["bid"]
    counts: dict[int, int] = {}
    units = 0
    for c in bid:
        k = KIND[c]
        counts[k] = counts.get(k, 0) + 1
        units += VALUE[c] // _VALUE_UNIT
    vec[lo : lo + NUM_KINDS] = 0.0
    for k, j in counts.items():
        vec[lo + k] = _BID_Q[k][j]
    vec[_G["bid_value"]] = _BID_VALUE_Q[units]


def _bid_tables() -> None:
    import numpy as np

    div = np.array(_divisors(), dtype=np.float32)
    lo, at = _G["bid"], _G["bid_value"]
    counts = np.arange(_CARDS + 1)
    units = np.arange(sum(VALUE) // _VALUE_UNIT + 1)
    q = np.divide(counts[None, :], div[lo : lo + NUM_KINDS, None], dtype=np.float32)
    _BID_Q[:] = q.tolist()
    _BID_VALUE_Q[:] = np.divide(units, div[at], dtype=np.float32).tolist()


def describe(obs: Any) -> dict[str, list[float]]:
    """The non-zero pieces of an observation by name, the scales undone."""
    out = {}
    for name, size, scale, _ in OBS_SPEC:
        o = OBS_OFFSETS[name]
        vals = [float(x) for x in obs[o : o + size]]
        if any(vals):
            out[name] = [round(v * scale, 4) for v in vals]
    return out
