"""The observation layout: which entry of the flat observation vector means what.

The observation is one flat float32 vector built from named pieces in a fixed order
(`OBS_SPEC`: name, size, scale, kind, description; `OBS_PIECES` without scale and kind;
`OBS_SIZE` values in total). Seats are relative to the observer: relative seat 0 is the observer,
1 the next seat clockwise, and so on. The size is the same for every player count: there are
always 5 seat blocks (`SEAT_FIELDS`, `SEAT_BLOCK` values each), absent seats are all zeros.

`OBS_OFFSETS` gives the first index of each piece. The global (critic) state appends
`STATE_EXTRA_SPEC` after a seat-0 observation (`STATE_PIECES`, `STATE_SIZE`, `STATE_OFFSETS`).
`obs_layout_text()` is the printed layout that `ACTION_TABLE_HASH` covers: changing any piece
changes the hash. `lastwill_env.sparse` writes observations in this layout; `lastwill_env.encoding`
is the public API over it.
"""

from __future__ import annotations

from .engine import PHASE_NAMES
from .engine.actions import MAX_OFFER_SPACES, MAX_PLAN_SPACES
from .engine.config import MAX_PLAYERS
from .engine.game import NUM_CARDS, NUM_ROUNDS

__all__ = [
    "OBS_LOW",
    "OBS_HIGH",
    "SEAT_FIELDS",
    "SEAT_BLOCK",
    "SEAT_OFFSETS",
    "OBS_SPEC",
    "OBS_PIECES",
    "OBS_SIZE",
    "OBS_OFFSETS",
    "STATE_EXTRA_SPEC",
    "STATE_PIECES",
    "STATE_SIZE",
    "STATE_OFFSETS",
    "piece_slices",
    "obs_layout_text",
]

OBS_LOW = -5.0
OBS_HIGH = 5.0
_NUM_PHASES = len(PHASE_NAMES)
_SEATS = MAX_PLAYERS

# Per-seat block: (field, size, scale, description). Repeated for relative seats 0..4.
SEAT_FIELDS: tuple[tuple[str, int, float, str], ...] = (
    ("present", 1, 1.0, "1 if this relative seat is at the table"),
    ("money", 1, 100.0, "money, scale 100 (negative = debt)"),
    ("hand_size", 1, 10.0, "cards in hand, scale 10"),
    ("extensions", 1, 4.0, "player-board extensions owned, scale 4"),
    ("board_cards", 1, 10.0, "cards on the player board, scale 10"),
    ("plan", MAX_PLAN_SPACES, 1.0, "plan space chosen this round, one-hot over 8"),
    ("order", _SEATS, 1.0, "position in this round's plan order, one-hot over 5"),
    ("errand_boys_left", 1, 2.0, "errand boys still to place this round, scale 2"),
    ("unknown_used", 1, 1.0, "used its unknown-card errand this round"),
)
SEAT_BLOCK = sum(f[1] for f in SEAT_FIELDS)
SEAT_OFFSETS: dict[str, int] = {}  # field -> offset inside a seat block
_o = 0
for _f, _size, *_ in SEAT_FIELDS:
    SEAT_OFFSETS[_f] = _o
    _o += _size
del _o

# (name, size, scale, kind, description). kind drives describe(): "onehot"/"multihot" print the
# set indices with labels, "value" prints the unscaled numbers.
OBS_SPEC: list[tuple[str, int, float, str, str]] = [
    ("num_players", 4, 1.0, "onehot", "player count, one-hot over 2..5"),
    ("round", NUM_ROUNDS, 1.0, "onehot", "round, one-hot over 1..7"),
    ("final_round", 1, 1.0, "value", "1 once this round is known to be the last"),
    ("phase", _NUM_PHASES, 1.0, "onehot", "pending decision kind, one-hot over PHASE_NAMES"),
    ("to_act", _SEATS, 1.0, "onehot", "relative seat deciding now (0 = observer)"),
    ("start_player", _SEATS, 1.0, "onehot", "relative seat of the start player"),
    ("actions_left", 1, 10.0, "value", "actions left to the acting player, scale 10"),
    ("resolving_card", NUM_CARDS, 1.0, "onehot", "card being resolved, one-hot over 140"),
    ("resolving_addon", 1, 4.0, "value", "index of the event's next add-on, scale 4"),
    ("resolving_spend", 1, 100.0, "value", "money the resolving card spends so far, scale 100"),
    ("resolving_left", 1, 4.0, "value", "steps left of a Wild Party / Breeders' Fair, scale 4"),
    ("draws_left", 1, 8.0, "value", "mandatory picks left in the pending blind draw, scale 8"),
    ("draw_stage", 3, 1.0, "onehot", "draw stage: plan cards, extra companions, extra events"),
    ("draw_queue", 4, 8.0, "value", "decks already chosen for the blind draw, count per deck"),
]
for _r in range(_SEATS):
    for _f, _size, _scale, _desc in SEAT_FIELDS:
        _kind = "onehot" if _size > 1 else "value"
        OBS_SPEC.append((f"seat{_r}.{_f}", _size, _scale, _kind, f"relative seat {_r}: {_desc}"))
OBS_SPEC += [
    *[
        (f"board{_r}", NUM_CARDS, 1.0, "multihot", f"cards on relative seat {_r}'s board")
        for _r in range(_SEATS)
    ],
    ("card_used", NUM_CARDS, 1.0, "multihot", "board card used (activated) this round"),
    ("card_filled_slots", NUM_CARDS, 3.0, "value", "companion tokens on a board card, scale 3"),
    ("card_value_step", NUM_CARDS, 5.0, "value", "value-marker step of a board house, scale 5"),
    ("card_privilege_left", NUM_CARDS, 2.0, "value", "free uses left of a helper, scale 2"),
    ("own_hand", NUM_CARDS, 1.0, "multihot", "observer's hand (each card id is one card)"),
    ("keep_selected", NUM_CARDS, 1.0, "multihot", "starting cards already kept (keep phase)"),
    *[
        (f"offer{_i}", NUM_CARDS, 1.0, "onehot", f"card on offer space {_i + 1} (none: zeros)")
        for _i in range(MAX_OFFER_SPACES)
    ],
    (
        "offer_taken_by",
        MAX_OFFER_SPACES * _SEATS,
        1.0,
        "multihot",
        "per offer space, one-hot over the relative seat whose errand boy took it (9 x 5)",
    ),
    ("modifiers", 4, 3.0, "value", "market modifier per property type, scale 3"),
    ("tokens", 4, 10.0, "value", "companion token supply per type, scale 10"),
    ("extensions_left", 1, 12.0, "value", "board extensions left in the supply, scale 12"),
    ("deck_sizes", 4, 40.0, "value", "cards in each normal deck, scale 40"),
    ("special_deck_size", 1, 17.0, "value", "cards in the special deck, scale 17"),
    ("discards", NUM_CARDS, 1.0, "multihot", "face-up discard piles (all four decks)"),
    ("hidden_discards", 4, 20.0, "value", "face-down starting discards per pile, scale 20"),
    ("box", NUM_CARDS, 1.0, "multihot", "cards out of the game (specials, will cards)"),
    ("jokers_in_supply", 1, 2.0, "value", "jokers beside the offer board, scale 2"),
    ("market_used", 1, 1.0, "value", "market errand taken this round"),
    ("opera_used", 1, 1.0, "value", "opera errand taken this round"),
    ("extension_errands", 1, 2.0, "value", "extension errands taken this round, scale 2"),
    ("blocked_plans", MAX_PLAN_SPACES, 1.0, "multihot", "plan spaces blocked by neutral markers"),
    # v1
    ("using_card", NUM_CARDS, 1.0, "onehot", "board card whose use option is being chosen"),
    *[
        (
            f"known_hand{_r}",
            NUM_CARDS,
            1.0,
            "multihot",
            f"cards relative seat {_r} took face up from the offer and still holds (public)",
        )
        for _r in range(_SEATS)
    ],
]

OBS_PIECES: tuple[tuple[str, int, str], ...] = tuple((n, s, d) for n, s, _, _, d in OBS_SPEC)
OBS_SIZE = sum(p[1] for p in OBS_PIECES)

OBS_OFFSETS: dict[str, int] = {}
_o = 0
for _name, _size, *_ in OBS_SPEC:
    OBS_OFFSETS[_name] = _o
    _o += _size
del _o

# Extra pieces of the global (critic) state, appended after a seat-0 observation.
STATE_EXTRA_SPEC: list[tuple[str, int, float, str, str]] = [
    *[
        (f"hand{_p}", NUM_CARDS, 1.0, "multihot", f"hand of absolute seat {_p}")
        for _p in range(_SEATS)
    ],
    ("deck_cards", NUM_CARDS, 1.0, "multihot", "cards in the normal decks or the special deck"),
    ("hidden_discard_cards", NUM_CARDS, 1.0, "multihot", "face-down starting discards"),
]
STATE_PIECES: tuple[tuple[str, int, str], ...] = OBS_PIECES + tuple(
    (n, s, d) for n, s, _, _, d in STATE_EXTRA_SPEC
)
STATE_SIZE = sum(p[1] for p in STATE_PIECES)
STATE_OFFSETS: dict[str, int] = {}
_o = OBS_SIZE
for _name, _size, *_ in STATE_EXTRA_SPEC:
    STATE_OFFSETS[_name] = _o
    _o += _size
del _o


def piece_slices(state: bool = False) -> dict[str, slice]:
    """Name -> slice of the observation (or, with state=True, the global state) vector."""
    out: dict[str, slice] = {}
    o = 0
    for name, size, _ in STATE_PIECES if state else OBS_PIECES:
        out[name] = slice(o, o + size)
        o += size
    return out


def obs_layout_text() -> str:
    """The observation layout, one `offset size name: description` line per piece."""
    lines, o = [], 0
    for name, size, desc in OBS_PIECES:
        lines.append(f"{o:5d} {size:4d}  {name}: {desc}")
        o += size
    return "\n".join(lines)
