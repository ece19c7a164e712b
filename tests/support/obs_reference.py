"""A frozen copy of the dense observation encoder (env version 1, `lastwill_env/encoding.py`
before the observation was written sparsely): the reference `tests/lastwill/test_sparse_encoding.py`
checks the library's encoder against, vector for vector. Never edit it to follow the library:
a difference between the two is what the test is there to find.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from lastwill_env.engine import (
    CATALOGUE,
    PHASE_NAMES,
)
from lastwill_env.engine.actions import MAX_OFFER_SPACES, MAX_PLAN_SPACES
from lastwill_env.engine.config import MAX_PLAYERS
from lastwill_env.engine.game import (
    BREED_PHASE,
    DRAW_PHASE,
    ERRAND_PHASE,
    GAME_OVER,
    NUM_CARDS,
    NUM_ROUNDS,
    TURN_PHASE,
    UNKNOWN_PHASE,
)

if TYPE_CHECKING:
    from lastwill_env.engine import GameState, PlayerView

OBS_LOW = -5.0
OBS_HIGH = 5.0
_CARD_NAMES = tuple(c.name for c in CATALOGUE.cards)
_NUM_PHASES = len(PHASE_NAMES)
_SEATS = MAX_PLAYERS
_DRAW_STAGES = ("plan cards", "extra companions", "extra events")

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
_SEAT_BLOCK = sum(f[1] for f in SEAT_FIELDS)

# (name, size, scale, kind, description). kind drives describe(): "onehot"/"multihot" print the
# set indices with labels, "value" prints the unscaled numbers.
_SPEC: list[tuple[str, int, float, str, str]] = [
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
        _SPEC.append((f"seat{_r}.{_f}", _size, _scale, _kind, f"relative seat {_r}: {_desc}"))
_SPEC += [
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

OBS_PIECES: tuple[tuple[str, int, str], ...] = tuple((n, s, d) for n, s, _, _, d in _SPEC)
OBS_SIZE = sum(p[1] for p in OBS_PIECES)

_OFF: dict[str, int] = {}
_o = 0
for _name, _size, *_ in _SPEC:
    _OFF[_name] = _o
    _o += _size
del _o

# Extra pieces of the global (critic) state, appended after a seat-0 observation.
_STATE_EXTRA: list[tuple[str, int, float, str, str]] = [
    *[
        (f"hand{_p}", NUM_CARDS, 1.0, "multihot", f"hand of absolute seat {_p}")
        for _p in range(_SEATS)
    ],
    ("deck_cards", NUM_CARDS, 1.0, "multihot", "cards in the normal decks or the special deck"),
    ("hidden_discard_cards", NUM_CARDS, 1.0, "multihot", "face-down starting discards"),
]
STATE_PIECES: tuple[tuple[str, int, str], ...] = OBS_PIECES + tuple(
    (n, s, d) for n, s, _, _, d in _STATE_EXTRA
)
STATE_SIZE = sum(p[1] for p in STATE_PIECES)
_STATE_OFF: dict[str, int] = {}
_o = OBS_SIZE
for _name, _size, *_ in _STATE_EXTRA:
    _STATE_OFF[_name] = _o
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


# ---------------------------------------------------------------------------------------------
# Offsets used by the hot path (plain ints: local lookups are cheapest)
_NP = _OFF["num_players"]
_ROUND = _OFF["round"]
_FINAL = _OFF["final_round"]
_PHASE = _OFF["phase"]
_TO_ACT = _OFF["to_act"]
_START = _OFF["start_player"]
_ACTIONS = _OFF["actions_left"]
_RES_CARD = _OFF["resolving_card"]
_RES_ADDON = _OFF["resolving_addon"]
_RES_SPEND = _OFF["resolving_spend"]
_RES_LEFT = _OFF["resolving_left"]
_DRAWS_LEFT = _OFF["draws_left"]
_DRAW_STAGE = _OFF["draw_stage"]
_DRAW_QUEUE = _OFF["draw_queue"]
_SEAT0 = _OFF["seat0.present"]
_SF: dict[str, int] = {}
_o = 0
for _f, _size, *_ in SEAT_FIELDS:
    _SF[_f] = _o
    _o += _size
del _o
_S_PRESENT = _SF["present"]
_S_MONEY = _SF["money"]
_S_HAND = _SF["hand_size"]
_S_EXT = _SF["extensions"]
_S_BOARD = _SF["board_cards"]
_S_PLAN = _SF["plan"]
_S_ORDER = _SF["order"]
_S_BOYS = _SF["errand_boys_left"]
_S_UNKNOWN = _SF["unknown_used"]
_BOARD0 = _OFF["board0"]
_USED = _OFF["card_used"]
_FILLED = _OFF["card_filled_slots"]
_STEP = _OFF["card_value_step"]
_PRIV = _OFF["card_privilege_left"]
_HAND = _OFF["own_hand"]
_KEEP = _OFF["keep_selected"]
_OFFER0 = _OFF["offer0"]
_OFFER_TAKEN = _OFF["offer_taken_by"]
_MODS = _OFF["modifiers"]
_TOKENS = _OFF["tokens"]
_EXT_LEFT = _OFF["extensions_left"]
_DECKS = _OFF["deck_sizes"]
_SPECIAL = _OFF["special_deck_size"]
_DISCARDS = _OFF["discards"]
_HIDDEN = _OFF["hidden_discards"]
_BOX = _OFF["box"]
_JOKERS = _OFF["jokers_in_supply"]
_MARKET = _OFF["market_used"]
_OPERA = _OFF["opera_used"]
_EXT_ERR = _OFF["extension_errands"]
_BLOCKED = _OFF["blocked_plans"]
_USING = _OFF["using_card"]
_KNOWN0 = _OFF["known_hand0"]

_FIXED_IDX = [
    _ACTIONS,
    _RES_ADDON,
    _RES_SPEND,
    _RES_LEFT,
    _DRAWS_LEFT,
    *range(_MODS, _MODS + 4),
    *range(_TOKENS, _TOKENS + 4),
    _EXT_LEFT,
    *range(_DECKS, _DECKS + 4),
    _SPECIAL,
    *range(_HIDDEN, _HIDDEN + 4),
    _JOKERS,
    _MARKET,
    _OPERA,
    _EXT_ERR,
]
_DRAW_PHASE = DRAW_PHASE


def _clip(x: float) -> float:
    return OBS_HIGH if x > OBS_HIGH else (OBS_LOW if x < OBS_LOW else x)


def _encode(
    out: np.ndarray,
    n: int,
    rnd: int,
    phase: int,
    to_act: int,
    start: int,
    money: Sequence[int],
    hand: Iterable[int],
    hand_sizes: Sequence[int],
    boards: Sequence[Sequence[int]],
    ext: Sequence[int],
    step: Sequence[int],
    filled: Sequence[int],
    used: Sequence[int],
    priv: Sequence[int],
    offer: Sequence[int],
    offer_taken_by: Sequence[int],
    mods: Sequence[int],
    tokens: Sequence[int],
    ext_left: int,
    deck_sizes: Sequence[int],
    special_size: int,
    discards: Iterable[Iterable[int]],
    hidden: Sequence[int],
    box: Iterable[int],
    jokers: int,
    plans: Sequence[int],
    blocked: Iterable[int],
    plan_order: Sequence[int],
    market_used: bool,
    opera_used: bool,
    ext_used: int,
    unknown_used: Sequence[bool],
    boys_left: Sequence[int],
    actions: int,
    resolving: int,
    res_spend: int,
    res_addon: int,
    res_left: int,
    draw_queue: Sequence[int],
    draws_left: int,
    draw_stage: int,
    keep_selected: Iterable[int],
    final: bool,
    using: int,
    known_hands: Sequence[Iterable[int]],
) -> None:
    """Write one observation into `out` (all zeros on entry). Seat-indexed arguments are
    relative to the observer; per-card sequences (`step` ...) are read at board cards only."""
    ones = [_NP + n - 2, _ROUND + rnd - 1, _PHASE + phase, _START + start]
    if final:
        ones.append(_FINAL)
    if to_act >= 0:
        ones.append(_TO_ACT + to_act)
    if resolving >= 0:
        ones.append(_RES_CARD + resolving)
    if phase == _DRAW_PHASE:
        ones.append(_DRAW_STAGE + draw_stage)
    # values at fixed positions (_FIXED_IDX), then values at computed positions
    vv = [
        actions * 0.1,
        res_addon * 0.25,
        _clip(res_spend * 0.01),
        res_left * 0.25,
        draws_left * 0.125,
        mods[0] / 3.0,
        mods[1] / 3.0,
        mods[2] / 3.0,
        mods[3] / 3.0,
        tokens[0] * 0.1,
        tokens[1] * 0.1,
        tokens[2] * 0.1,
        tokens[3] * 0.1,
        ext_left / 12.0,
        deck_sizes[0] * 0.025,
        deck_sizes[1] * 0.025,
        deck_sizes[2] * 0.025,
        deck_sizes[3] * 0.025,
        special_size / 17.0,
        hidden[0] * 0.05,
        hidden[1] * 0.05,
        hidden[2] * 0.05,
        hidden[3] * 0.05,
        jokers * 0.5,
        1.0 if market_used else 0.0,
        1.0 if opera_used else 0.0,
        ext_used * 0.5,
    ]
    vi = _FIXED_IDX[:]
    if draw_queue:
        for d in range(4):
            k = draw_queue.count(d)
            if k:
                vi.append(_DRAW_QUEUE + d)
                vv.append(k * 0.125)
    # seat blocks
    for r in range(n):
        b = _SEAT0 + r * _SEAT_BLOCK
        board = boards[r]
        ones.append(b + _S_PRESENT)
        vi.extend((b + _S_MONEY, b + _S_HAND, b + _S_EXT, b + _S_BOARD, b + _S_BOYS))
        vv.extend(
            (
                _clip(money[r] * 0.01),
                hand_sizes[r] * 0.1,
                ext[r] * 0.25,
                len(board) * 0.1,
                boys_left[r] * 0.5,
            )
        )
        p = plans[r]
        if p >= 0:
            ones.append(b + _S_PLAN + p)
        if unknown_used[r]:
            ones.append(b + _S_UNKNOWN)
        if board:
            base = _BOARD0 + r * NUM_CARDS
            for c in board:
                ones.append(base + c)
                if used[c]:
                    ones.append(_USED + c)
                f = filled[c]
                if f:
                    vi.append(_FILLED + c)
                    vv.append(f / 3.0)
                st = step[c]
                if st:
                    vi.append(_STEP + c)
                    vv.append(st * 0.2)
                pr = priv[c]
                if pr:
                    vi.append(_PRIV + c)
                    vv.append(pr * 0.5)
    for i, r in enumerate(plan_order):
        ones.append(_SEAT0 + r * _SEAT_BLOCK + _S_ORDER + i)
    ones.extend([_HAND + c for c in hand])
    ones.extend([_KEEP + c for c in keep_selected])
    for i, c in enumerate(offer):
        if c >= 0:
            ones.append(_OFFER0 + i * NUM_CARDS + c)
    for i, r in enumerate(offer_taken_by):
        if r >= 0:
            ones.append(_OFFER_TAKEN + i * _SEATS + r)
    for pile in discards:
        ones.extend([_DISCARDS + c for c in pile])
    ones.extend([_BOX + c for c in box])
    ones.extend([_BLOCKED + p for p in blocked])
    if using >= 0:
        ones.append(_USING + using)
    for r in range(n):
        known = known_hands[r]
        if known:
            base = _KNOWN0 + r * NUM_CARDS
            ones.extend([base + c for c in known])
    # two fancy writes: converting index lists costs more than the writes themselves
    out[ones] = 1.0
    out[vi] = vv


def encode_observation(view: PlayerView, out: np.ndarray | None = None) -> np.ndarray:
    """The flat float32 observation of a `PlayerView` (layout: `OBS_PIECES`)."""
    if out is None:
        out = np.zeros(OBS_SIZE, dtype=np.float32)
    else:
        out.fill(0.0)
    v = view
    _encode(
        out,
        v.num_players,
        v.round,
        v.phase,
        v.to_act,
        v.start_player,
        v.money,
        v.hand,
        v.hand_sizes,
        v.boards,
        v.extensions,
        v.value_step,
        v.filled_slots,
        v.used,
        v.privilege_left,
        v.offer,
        v.offer_taken_by,
        v.modifiers,
        v.tokens,
        v.extensions_left,
        v.deck_sizes,
        v.special_deck_size,
        v.discards,
        v.hidden_discards,
        v.box,
        v.jokers_in_supply,
        v.plans,
        v.blocked_plans,
        v.plan_order,
        v.market_used,
        v.opera_used,
        v.extension_errands,
        v.unknown_used,
        v.errand_boys_left,
        v.actions,
        v.resolving,
        v.resolving_spend,
        v.resolving_addon,
        v.resolving_left,
        v.draw_queue,
        v.draws_left,
        v.draw_stage,
        v.keep_selected,
        v.final_round,
        v.using,
        v.known_hands,
    )
    return out


_ACTION_PHASES = frozenset(range(TURN_PHASE, BREED_PHASE + 1))


def encode_state(state: GameState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """Same vector as `encode_observation(player_view(state, seat))`, read straight from the
    state. Mirrors `player_view` field by field; only public data and `seat`'s own hand are
    read (docs/RULES.md §10)."""
    s = state
    n = s.n
    if out is None:
        out = np.zeros(OBS_SIZE, dtype=np.float32)
    else:
        out.fill(0.0)
    if seat:
        money = s.money[seat:] + s.money[:seat]
        boards = s.boards[seat:] + s.boards[:seat]
        ext = s.ext[seat:] + s.ext[:seat]
        plans = s.plans[seat:] + s.plans[:seat]
        unknown = s.unknown_used[seat:] + s.unknown_used[:seat]
        hands = s.hands[seat:] + s.hands[:seat]
        known = s.known[seat:] + s.known[:seat]
    else:
        money, boards, ext, plans, unknown, hands, known = (
            s.money,
            s.boards,
            s.ext,
            s.plans,
            s.unknown_used,
            s.hands,
            s.known,
        )
    phase = s.phase
    if ERRAND_PHASE <= phase <= UNKNOWN_PHASE:  # errands (and the market / unknown card)
        rest = s.errand_seq[s.errand_i :]
        boys = [rest.count((seat + r) % n) for r in range(n)]
    elif phase < ERRAND_PHASE:  # planning: the chosen plans' errand boys
        plan_table = CATALOGUE.plans[n]
        boys = [plan_table[p].errand_boys if p >= 0 else 0 for p in plans]
    else:
        boys = [0] * n
    hidden = s.hidden
    _encode(
        out,
        n,
        s.round,
        phase,
        (s.cur - seat) % n if phase != GAME_OVER else -1,
        (s.start - seat) % n,
        money,
        s.hands[seat],
        [len(h) for h in hands],
        boards,
        ext,
        s.step,
        s.filled,
        s.used,
        s.priv,
        s.offer,
        [(p - seat) % n if p >= 0 else -1 for p in s.offer_boy],
        s.mods,
        s.tokens,
        s.ext_left,
        [len(d) for d in s.decks],
        len(s.special),
        [pile[hidden[d] :] if hidden[d] else pile for d, pile in enumerate(s.discards)],
        hidden,
        s.box,
        len(s.jokers),
        plans,
        s.blocked,
        [(p - seat) % n for p in s.order] if phase >= ERRAND_PHASE else (),
        s.market_used,
        s.opera_used,
        s.ext_used,
        unknown,
        boys,
        s.actions if phase in _ACTION_PHASES else 0,
        s.resolving,
        s.res_spend,
        s.res_addon,
        s.res_left,
        s.draw_queue,
        s.draw_mand,
        s.draw_stage,
        s.keep_sel if s.cur == seat else (),
        s.final,
        s.using,
        known,
    )
    return out


def encode_global_state(state: GameState, out: np.ndarray | None = None) -> np.ndarray:
    """Full-information vector for centralised critics (layout: `STATE_PIECES`): the
    observation of absolute seat 0, then every hand, the deck cards and the face-down
    discards. Never give it to a policy."""
    if out is None:
        out = np.zeros(STATE_SIZE, dtype=np.float32)
    else:
        out.fill(0.0)
    encode_state(state, 0, out[:OBS_SIZE])
    ones: list[int] = []
    h0 = _STATE_OFF["hand0"]
    for p, hand in enumerate(state.hands):
        base = h0 + p * NUM_CARDS
        ones.extend([base + c for c in hand])
    dk = _STATE_OFF["deck_cards"]
    for deck in (*state.decks, state.special):
        ones.extend([dk + c for c in deck])
    hd = _STATE_OFF["hidden_discard_cards"]
    for d, pile in enumerate(state.discards):
        ones.extend([hd + c for c in pile[: state.hidden[d]]])
    out[ones] = 1.0
    return out
