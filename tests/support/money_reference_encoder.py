"""The first, plain encoder, kept as the reference the fast one must match bit for bit.

A frozen copy of `money_env/encoding.py` as it was before it was made fast (a Python list of
839 floats filled card by card, then one `np.array`): `tests/money/test_money_encoding_speed.py`
checks the library's encoder against it, vector for vector. Never edit it to follow the
library: a difference between the two is what the test is there to find. Only the imports were
made absolute (it lives in `tests/support/`, outside the package).

The original module docstring follows.

The observation of Money! for learning agents: one flat float32 vector of a `PlayerView`.

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
score by 1500...): about [0, 1], never negative, a little above 1 only for unusual hands.

Scores are the engine's own (`money_env.engine.score.score_hand`), never a copy of the rules:
`hand_score` is what the viewer's hand would score if the game ended now and `known_score`
what the cards every player knows to be in a seat's hand would score alone.

The layout text (`obs_layout_text()`) is what `money_env.ACTION_TABLE_HASH` covers together
with the action table: changing any piece changes the hash. This module imports numpy only when
a vector is built, so the layout (and the binding's `obs_size`) loads with the standard library
alone.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from money_env.engine import PHASE_NAMES
from money_env.engine.cards import (
    BLUFF_KIND,
    COIN_KIND,
    CURRENCY,
    FIRST_BLUFF,
    FIRST_COIN,
    KIND,
    NUM_CURRENCIES,
    NUM_KINDS,
    VALUE,
    in_play,
)
from money_env.engine.config import MAX_PLAYERS, PLAYER_COUNTS
from money_env.engine.score import score_hand
from money_env.engine.tables import MAX_ROUNDS

if TYPE_CHECKING:
    import numpy as np

    from money_env.engine import PlayerView

__all__ = [
    "OBS_SPEC",
    "OBS_PIECES",
    "OBS_SIZE",
    "OBS_OFFSETS",
    "SEAT_FIELDS",
    "SEAT_BLOCK",
    "MONEY_KINDS",
    "KIND_COPIES",
    "encode_observation",
    "encode_state",
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


def _counts(buf: list[float], base: int, cards: Any) -> None:
    for c in cards:
        k = KIND[c]
        buf[base + k] += _INV[k]


def _money_counts(buf: list[float], base: int, cards: Any) -> None:
    for c in cards:
        if c < FIRST_BLUFF:
            k = KIND[c]
            buf[base + k] += _INV[k]


@lru_cache(maxsize=1 << 14)
def _score(cards: tuple[int, ...]) -> int:
    """The engine's score of a hand (a sorted tuple of card ids), remembered."""
    return score_hand(list(cards))["total"]


@cache
def _in_play(n: int) -> tuple[int, ...]:
    return in_play(n)


def _value(cards: Any) -> int:
    return sum(VALUE[c] for c in cards)


def _sums(buf: list[float], base: int, cards: Any) -> None:
    for c in cards:
        if c < FIRST_COIN:
            buf[base + CURRENCY[c]] += VALUE[c] / SUM_SCALE


def entries(view: PlayerView) -> list[float]:
    """The observation of `view` as a list of Python floats (`encode_observation` without
    numpy; the same values before the float32 rounding)."""
    buf = [0.0] * OBS_SIZE
    n = view.num_players
    G = _G
    _counts(buf, G["hand"], view.hand)
    _counts(buf, G["bid"], view.bid)
    buf[G["bid_value"]] = _value(view.bid) / SUM_SCALE
    _sums(buf, G["hand_sums"], view.hand)
    buf[G["hand_score"]] = _score(tuple(view.hand)) / SCORE_SCALE
    _money_counts(buf, G["right"], view.right)
    _money_counts(buf, G["left"], view.left)
    buf[G["right_value"]] = _value(view.right) / SUM_SCALE
    buf[G["left_value"]] = _value(view.left) / SUM_SCALE
    buf[G["right_size"]] = len(view.right) / GROUP_SCALE
    buf[G["left_size"]] = len(view.left) / GROUP_SCALE
    # unseen: every note and coin in play less what the view places
    seen = set(view.hand) | set(view.right) | set(view.left)
    for r in range(n):
        seen.update(view.table[r])
        seen.update(view.known_hands[r])
        if view.final_hands:
            seen.update(view.final_hands[r])
    _money_counts(buf, G["unseen"], [c for c in _in_play(n) if c not in seen])
    buf[G["pile_size"]] = view.pile_size / PILE_SCALE
    buf[G["round"]] = view.round / MAX_ROUNDS
    buf[G["last_round"]] = 1.0 if view.last_round else 0.0
    buf[G["phase"] + view.phase] = 1.0
    if view.to_act >= 0:
        buf[G["to_act"] + view.to_act] = 1.0
    buf[G["first_bidder"] + view.first_bidder] = 1.0
    buf[G["num_players"] + PLAYER_COUNTS.index(n)] = 1.0
    # committed bids: the seats from the first bidder up to (not including) the one to bid
    committed = set()
    if view.phase == 0 and view.to_act >= 0:
        committed = {
            (view.first_bidder + i) % n for i in range((view.to_act - view.first_bidder) % n)
        }
    F = _FIELD
    for r in range(n):
        b = _SEAT0 + r * SEAT_BLOCK
        buf[b + F["present"]] = 1.0
        buf[b + F["hand_size"]] = view.hand_sizes[r] / SIZE_SCALE
        known = view.known_hands[r]
        _money_counts(buf, b + F["known"], known)
        _sums(buf, b + F["known_sums"], known)
        buf[b + F["known_score"]] = _score(tuple(known)) / SCORE_SCALE
        rev = view.revealed[r]
        _money_counts(buf, b + F["revealed"], rev)
        buf[b + F["revealed_value"]] = _value(rev) / SUM_SCALE
        tab = view.table[r]
        _money_counts(buf, b + F["table"], tab)
        buf[b + F["table_value"]] = _value(tab) / SUM_SCALE
        if r in committed:
            buf[b + F["committed"]] = 1.0
        if view.bluffed[r]:
            buf[b + F["bluffed"]] = 1.0
            if not rev:
                buf[b + F["sat_out"]] = 1.0
        if tab and not view.acted[r]:
            buf[b + F["waiting"]] = 1.0
        if view.acted[r]:
            buf[b + F["acted"]] = 1.0
    return buf


def encode_observation(view: PlayerView, out: np.ndarray | None = None) -> np.ndarray:
    """The flat float32 observation of a `PlayerView` (layout: `OBS_PIECES`), written into
    `out` (a float32 array of `OBS_SIZE`) when given."""
    import numpy as np

    buf = entries(view)
    if out is None:
        return np.array(buf, dtype=np.float32)
    out[:] = buf
    return out


def encode_state(state: Any, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """`encode_observation(player_view(state, seat))`."""
    from money_env.engine import player_view

    return encode_observation(player_view(state, seat), out)


def describe(obs: Any) -> dict[str, list[float]]:
    """The non-zero pieces of an observation by name, the scales undone."""
    out = {}
    for name, size, scale, _ in OBS_SPEC:
        o = OBS_OFFSETS[name]
        vals = [float(x) for x in obs[o : o + size]]
        if any(vals):
            out[name] = [round(v * scale, 4) for v in vals]
    return out
