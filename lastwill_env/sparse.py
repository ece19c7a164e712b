"""The observation writer: one seat's observation as sparse `(indices, values)`.

An observation (layout: `lastwill_env.obs_layout`) has 4,285 entries of which about a hundred
are non-zero. This module writes only those, straight from the game state (`state_entries`,
`encode_state_sparse(state, seat)`) or from a `PlayerView` (`view_entries`,
`encode_observation_sparse(view)`). The piece writers append to three lists, the *entries*:
indices of ones, indices of other values, and those values (a few of them zero). Then either

- `encode_*_sparse` sorts them into `(indices, values)`: `indices` an ascending `np.intp`
  array, `values` the matching `float32` array, zeros dropped (with `ordered=False` the same
  pairs unsorted: what a network's first layer, a sum over them, reads); or
- `scatter(entries, out)` writes them into a zeroed dense vector (what `lastwill_env.encoding`
  returns), with no sort.

Both come from the same entries, so they always agree: `indices == np.flatnonzero(dense)` and
`values == dense[indices]`. The state path reads only what `player_view(state, seat)` would show
(docs/RULES.md §10): public data and the seat's own hand, its keep choices only when it is the
one keeping; where the view applies a rule of what a seat sees (the errand boys still to place,
the actions shown, who acts, the plan order, the keep choices, the face-up discards), the state
path calls the same function of `lastwill_env.engine.view`, the rules' one home. It writes in two
parts: `shared_entries(state)`, the pieces that are the same for every observer (the round and
phase, the card being resolved, the board cards' flags, the supply, the piles, the errands), and
the observer's own pieces over a copy of them; `encode_seats_sparse(state, seats)` writes the
shared part once for all the seats.

The state path has a compiled twin, `lastwill_env._cwriter` (`_cwriter.c`, built by the
install where a C compiler is found): the same entries in the same order, about eight times
faster. `WRITER` says which one the state path uses: `"compiled"` when the module was built,
else `"python"`. The environment variable `LASTWILL_WRITER` chooses: `auto` (the default),
`python` (this module's writer even where the compiled one exists) or `compiled` (an error at
import where it was not built). This module stays the definition: the compiled writer takes its
offsets and scales' limits from `_c_layout()` here, which adds the view rules' constants of
`engine.view._c_consts()` (the compiled view's too), follows those rules in the C header both
share (`lastwill_env/_lwview.h`), and the tests compare the two entry for entry. The view path is
Python only.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from gamecore.buildcheck import COMPILED, BuildChoiceError

from .engine import view as _view
from .engine.config import PLAYER_COUNTS
from .engine.game import DRAW_PHASE, NUM_CARDS
from .obs_layout import OBS_HIGH, OBS_LOW, OBS_OFFSETS, OBS_SIZE, SEAT_BLOCK, SEAT_OFFSETS

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from .engine import GameState, PlayerView

__all__ = [
    "encode_state_sparse",
    "encode_observation_sparse",
    "state_entries",
    "shared_entries",
    "encode_seats_sparse",
    "view_entries",
    "scatter",
    "dense_state",
    "WRITER",
    "WRITERS",
]

Entries = tuple[list[int], list[int], list[float]]  # ones at, values at, values

_O = OBS_OFFSETS
_NP, _ROUND, _FINAL, _PHASE = _O["num_players"], _O["round"], _O["final_round"], _O["phase"]
_TO_ACT, _START, _ACTIONS = _O["to_act"], _O["start_player"], _O["actions_left"]
_RES_CARD, _RES_ADDON = _O["resolving_card"], _O["resolving_addon"]
_RES_SPEND, _RES_LEFT = _O["resolving_spend"], _O["resolving_left"]
_DRAWS_LEFT, _DRAW_STAGE, _DRAW_QUEUE = _O["draws_left"], _O["draw_stage"], _O["draw_queue"]
_SEAT0 = _O["seat0.present"]
_S_PLAN, _S_ORDER = SEAT_OFFSETS["plan"], SEAT_OFFSETS["order"]
_S_BOYS, _S_UNKNOWN = SEAT_OFFSETS["errand_boys_left"], SEAT_OFFSETS["unknown_used"]
_BOARD0, _USED, _FILLED = _O["board0"], _O["card_used"], _O["card_filled_slots"]
_STEP, _PRIV, _HAND, _KEEP = (
    _O["card_value_step"],
    _O["card_privilege_left"],
    _O["own_hand"],
    _O["keep_selected"],
)
_OFFER0, _OFFER_TAKEN = _O["offer0"], _O["offer_taken_by"]
_MODS, _TOKENS, _EXT_LEFT = _O["modifiers"], _O["tokens"], _O["extensions_left"]
_DECKS, _SPECIAL, _DISCARDS = _O["deck_sizes"], _O["special_deck_size"], _O["discards"]
_HIDDEN, _BOX, _JOKERS = _O["hidden_discards"], _O["box"], _O["jokers_in_supply"]
_MARKET, _OPERA, _EXT_ERR = _O["market_used"], _O["opera_used"], _O["extension_errands"]
_BLOCKED, _USING, _KNOWN0 = _O["blocked_plans"], _O["using_card"], _O["known_hand0"]
_SEATS = 5  # seat blocks and the offer_taken_by one-hots, whatever the player count
_SUPPLY_IX = tuple(range(_MODS, _SPECIAL + 1))  # modifiers .. special_deck_size: 14 values
_HIDDEN_IX = tuple(range(_HIDDEN, _HIDDEN + 4))
# per player count: the seats in relative order as seen from each seat (absolute seat of r)
_ROTATIONS = {
    n: tuple(tuple((o + r) % n for r in range(n)) for o in range(n)) for n in PLAYER_COUNTS
}


def _clip(x: float) -> float:
    return OBS_HIGH if x > OBS_HIGH else (OBS_LOW if x < OBS_LOW else x)


def _head(
    on: list[int],
    ix: list[int],
    vx: list[float],
    n: int,
    rnd: int,
    final: bool,
    phase: int,
    actions: int,
) -> None:
    """num_players, round, final_round, phase, actions_left (the same for every observer)."""
    on += (_NP + n - 2, _ROUND + rnd - 1)
    if final:
        on.append(_FINAL)
    on.append(_PHASE + phase)
    if actions:
        ix.append(_ACTIONS)
        vx.append(actions * 0.1)


def _turn(on: list[int], to_act: int, start: int) -> None:
    """to_act and start_player (relative seats)."""
    if to_act >= 0:
        on.append(_TO_ACT + to_act)
    on.append(_START + start)


def _resolving(
    on: list[int],
    ix: list[int],
    vx: list[float],
    phase: int,
    card: int,
    addon: int,
    spend: int,
    left: int,
    draws_left: int,
    draw_stage: int,
    draw_queue: Sequence[int],
) -> None:
    """resolving_card .. draw_queue: the card being played and the pending blind draw."""
    if card >= 0:
        on.append(_RES_CARD + card)
    if addon:
        ix.append(_RES_ADDON)
        vx.append(addon * 0.25)
    if spend:
        ix.append(_RES_SPEND)
        vx.append(_clip(spend * 0.01))
    if left:
        ix.append(_RES_LEFT)
        vx.append(left * 0.25)
    if draws_left:
        ix.append(_DRAWS_LEFT)
        vx.append(draws_left * 0.125)
    if phase == DRAW_PHASE:
        on.append(_DRAW_STAGE + draw_stage)
    if draw_queue:
        for d in range(4):
            k = draw_queue.count(d)
            if k:
                ix.append(_DRAW_QUEUE + d)
                vx.append(k * 0.125)


def _seat_blocks(
    on: list[int],
    ix: list[int],
    vx: list[float],
    order: Sequence[int],
    money: Sequence[int],
    sizes: Sequence[int],
    ext: Sequence[int],
    boards: Sequence[Sequence[int]],
    plans: Sequence[int],
    pos: Sequence[int],
    boys: Sequence[int],
    unknown: Sequence[bool],
    known: Sequence[Sequence[int]],
) -> None:
    """Per relative seat r = 0..n-1: its seat block, board{r} and known_hand{r}. The per-seat
    sequences are read at `order[r]` (the absolute seats from the observer on, for a state; the
    identity for a view, already relative); `pos[p]`: p's place in the plan order, -1 before it
    is known; `sizes`: hand sizes."""
    for r, p in enumerate(order):
        b = _SEAT0 + r * SEAT_BLOCK
        on.append(b)  # present
        board = boards[p]
        ix += (b + 1, b + 2, b + 3, b + 4, b + _S_BOYS)  # zeros are dropped in _result
        vx += (
            _clip(money[p] * 0.01),
            sizes[p] * 0.1,
            ext[p] * 0.25,
            len(board) * 0.1,
            boys[p] * 0.5,
        )
        if plans[p] >= 0:
            on.append(b + _S_PLAN + plans[p])
        if pos[p] >= 0:
            on.append(b + _S_ORDER + pos[p])
        if unknown[p]:
            on.append(b + _S_UNKNOWN)
        if board:
            base = _BOARD0 + r * NUM_CARDS
            on += [base + c for c in board]
        if known[p]:
            base = _KNOWN0 + r * NUM_CARDS
            on += [base + c for c in known[p]]


def _card_flags(
    on: list[int],
    ix: list[int],
    vx: list[float],
    boards: Sequence[Sequence[int]],
    used: Sequence[int],
    filled: Sequence[int],
    step: Sequence[int],
    priv: Sequence[int],
) -> None:
    """card_used, card_filled_slots, card_value_step, card_privilege_left, read at the cards on
    `boards` (in any seat order) only: the engine keeps them zero elsewhere."""
    for board in boards:
        for c in board:
            if used[c]:
                on.append(_USED + c)
            if filled[c]:
                ix.append(_FILLED + c)
                vx.append(filled[c] / 3.0)
            if step[c]:
                ix.append(_STEP + c)
                vx.append(step[c] * 0.2)
            if priv[c]:
                ix.append(_PRIV + c)
                vx.append(priv[c] * 0.5)


def _offers(
    on: list[int],
    ix: list[int],
    vx: list[float],
    offer: Sequence[int],
    taken_by: Sequence[int],
) -> None:
    """offer0..8 (one card each, or none) and offer_taken_by (relative seats)."""
    for i, c in enumerate(offer):
        if c >= 0:
            on.append(_OFFER0 + i * NUM_CARDS + c)
    for i, r in enumerate(taken_by):
        if r >= 0:
            on.append(_OFFER_TAKEN + i * _SEATS + r)


def _supply(
    on: list[int],
    ix: list[int],
    vx: list[float],
    mods: Sequence[int],
    tokens: Sequence[int],
    ext_left: int,
    deck_sizes: Sequence[int],
    special: int,
) -> None:
    """modifiers, tokens, extensions_left, deck_sizes, special_deck_size (consecutive)."""
    ix += _SUPPLY_IX  # zeros are dropped in _result
    vx += (
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
        special / 17.0,
    )


def _piles(
    on: list[int],
    ix: list[int],
    vx: list[float],
    piles: Sequence[Sequence[int]],
    hidden: Sequence[int],
    box: Sequence[int],
    jokers: int,
) -> None:
    """discards (the four piles' face-up cards), hidden_discards (`hidden`: face-down cards per
    pile), box, jokers_in_supply."""
    on += [_DISCARDS + c for pile in piles for c in pile]
    ix += _HIDDEN_IX  # zeros are dropped in _result
    vx += (hidden[0] * 0.05, hidden[1] * 0.05, hidden[2] * 0.05, hidden[3] * 0.05)
    on += [_BOX + c for c in box]
    if jokers:
        ix.append(_JOKERS)
        vx.append(jokers * 0.5)


def _errands(
    on: list[int],
    ix: list[int],
    vx: list[float],
    market: bool,
    opera: bool,
    ext_used: int,
    blocked: Sequence[int],
    using: int,
) -> None:
    """market_used, opera_used, extension_errands, blocked_plans, using_card."""
    if market:
        on.append(_MARKET)
    if opera:
        on.append(_OPERA)
    if ext_used:
        ix.append(_EXT_ERR)
        vx.append(ext_used * 0.5)
    on += [_BLOCKED + p for p in blocked]
    if using >= 0:
        on.append(_USING + using)


def _result(
    on: list[int], ix: list[int], vx: list[float], ordered: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """The ones at `on` and the values `vx` at `ix` (zeros among them dropped), in ascending
    index order (`ordered`) or in the writers' order."""
    k = len(on)
    on += ix
    m = len(on)
    idx = np.fromiter(on, np.intp, m)
    vals = np.empty(m, dtype=np.float32)
    vals[:k] = 1.0
    vals[k:] = np.fromiter(vx, np.float32, m - k)
    if 0.0 in vx:
        nz = vals.nonzero()[0]
        idx, vals = idx[nz], vals[nz]
    if not ordered:
        return idx, vals
    order = idx.argsort()
    return idx[order], vals[order]


# ---------------------------------------------------------------------------------------------
# Entry points


def scatter(entries: Entries, out: np.ndarray) -> np.ndarray:
    """Write the entries into `out` (all zeros on entry): the dense vector, in two writes."""
    on, ix, vx = entries
    # np.fromiter converts the lists faster than fancy indexing with a list does
    out[np.fromiter(on, np.intp, len(on))] = 1.0
    out[np.fromiter(ix, np.intp, len(ix))] = np.fromiter(vx, np.float32, len(vx))
    return out


def encode_observation_sparse(
    view: PlayerView, ordered: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """The observation of a `PlayerView` as `(indices, values)` (see the module docstring;
    `ordered` as in `encode_state_sparse`)."""
    return _result(*view_entries(view), ordered)


def encode_state_sparse(
    state: GameState, seat: int, ordered: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """The observation of `seat` as `(indices, values)`, read straight from the state: the same
    as `encode_observation_sparse(player_view(state, seat))` without building the view. With
    `ordered=False` the same pairs in no particular order (a sort fewer, for readers that only
    sum over them, such as a network's first layer)."""
    if _C is not None:
        return _C.entries(state, seat, ordered, np.empty)
    return _result(*state_entries(state, seat), ordered)


def encode_seats_sparse(
    state: GameState, seats: Iterable[int], ordered: bool = True
) -> list[tuple[np.ndarray, np.ndarray]]:
    """`[encode_state_sparse(state, p, ordered) for p in seats]`, the pieces that are the same
    for every observer written once (the compiled writer writes each seat whole)."""
    if _C is not None:
        return [_C.entries(state, p, ordered, np.empty) for p in seats]
    shared = shared_entries(state)
    return [_result(*state_entries(state, p, shared), ordered) for p in seats]


def dense_state(state: GameState, seat: int, out: np.ndarray) -> np.ndarray:
    """Zero `out` (a float32 vector of at least `OBS_SIZE` values) and write `seat`'s
    observation of `state` into its first `OBS_SIZE` values."""
    if _C is not None and out.dtype == np.float32 and out.flags.c_contiguous and out.ndim == 1:
        _C.dense(state, seat, out)
        return out
    out.fill(0.0)
    return scatter(state_entries(state, seat), out)


def view_entries(view: PlayerView) -> Entries:
    """The entries of a view's observation: ones at `on`, values `vx` at `ix` (some of them
    zero), in no particular order."""
    v = view
    n = v.num_players
    on: list[int] = []
    ix: list[int] = []
    vx: list[float] = []
    _head(on, ix, vx, n, v.round, v.final_round, v.phase, v.actions)
    _turn(on, v.to_act, v.start_player)
    _resolving(
        on,
        ix,
        vx,
        v.phase,
        v.resolving,
        v.resolving_addon,
        v.resolving_spend,
        v.resolving_left,
        v.draws_left,
        v.draw_stage,
        v.draw_queue,
    )
    order_pos = [-1] * n
    for i, r in enumerate(v.plan_order):
        order_pos[r] = i
    boards = v.boards
    _seat_blocks(
        on,
        ix,
        vx,
        range(n),
        v.money,
        v.hand_sizes,
        v.extensions,
        boards,
        v.plans,
        order_pos,
        v.errand_boys_left,
        v.unknown_used,
        v.known_hands,
    )
    _card_flags(on, ix, vx, boards, v.used, v.filled_slots, v.value_step, v.privilege_left)
    on += [_HAND + c for c in v.hand]
    on += [_KEEP + c for c in v.keep_selected]
    _offers(on, ix, vx, v.offer, v.offer_taken_by)
    _supply(on, ix, vx, v.modifiers, v.tokens, v.extensions_left, v.deck_sizes, v.special_deck_size)
    _piles(on, ix, vx, v.discards, v.hidden_discards, v.box, v.jokers_in_supply)
    _errands(on, ix, vx, v.market_used, v.opera_used, v.extension_errands, v.blocked_plans, v.using)
    return on, ix, vx


def shared_entries(state: GameState) -> Entries:
    """The entries of every observer's observation of `state` that do not depend on the
    observer: num_players, round, final_round, phase, actions_left, the card being resolved
    and the pending draw, the board cards' flags, the supply, the piles and the errands."""
    s = state
    phase = s.phase
    on: list[int] = []
    ix: list[int] = []
    vx: list[float] = []
    _head(on, ix, vx, s.n, s.round, s.final, phase, _view.actions_left(s))
    _resolving(
        on,
        ix,
        vx,
        phase,
        s.resolving,
        s.res_addon,
        s.res_spend,
        s.res_left,
        s.draw_mand,
        s.draw_stage,
        s.draw_queue,
    )
    _card_flags(on, ix, vx, s.boards, s.used, s.filled, s.step, s.priv)
    _supply(on, ix, vx, s.mods, s.tokens, s.ext_left, [len(d) for d in s.decks], len(s.special))
    _piles(on, ix, vx, _view.face_up_discards(s), s.hidden, s.box, len(s.jokers))
    _errands(on, ix, vx, s.market_used, s.opera_used, s.ext_used, s.blocked, s.using)
    return on, ix, vx


def state_entries(state: GameState, seat: int, shared: Entries | None = None) -> Entries:
    """The entries of `seat`'s observation read straight from the state (as `view_entries` of
    `player_view(state, seat)`, without building the view). `shared`: `shared_entries(state)`
    when the caller has it (it is copied, not changed)."""
    s = state
    n = s.n
    if shared is None:
        on, ix, vx = shared_entries(s)
    else:
        on, ix, vx = list(shared[0]), list(shared[1]), list(shared[2])
    _turn(on, _view.to_act(s, seat), (s.start - seat) % n)
    pos = [-1] * n
    if _view.plan_order_known(s):
        for i, p in enumerate(s.order):
            pos[p] = i
    hands = s.hands
    sizes = [len(h) for h in hands]
    order = _ROTATIONS[n][seat]
    boys = _view.errand_boys_left(s)
    _seat_blocks(
        on,
        ix,
        vx,
        order,
        s.money,
        sizes,
        s.ext,
        s.boards,
        s.plans,
        pos,
        boys,
        s.unknown_used,
        s.known,
    )
    on += [_HAND + c for c in hands[seat]]
    if _view.keeps_shown(s, seat):
        on += [_KEEP + c for c in s.keep_sel]
    _offers(on, ix, vx, s.offer, [(p - seat) % n if p >= 0 else -1 for p in s.offer_boy])
    return on, ix, vx


# ---------------------------------------------------------------------------------------------
# The compiled writer of the state path


WRITERS = COMPILED["LASTWILL_WRITER"].choices


def _c_layout() -> dict:
    """What `lastwill_env._cwriter.configure` reads: every offset and limit it uses, the draw
    phase, the state class (whose slots it reads directly) and the view rules' constants
    (`engine.view._c_consts()`, their one home, which the compiled view reads too)."""
    o = OBS_OFFSETS
    layout: dict = dict(o)  # every piece offset, by name (it reads the ones it writes)
    if len(_SUPPLY_IX) != 14:  # the compiled writer writes the supply as 14 values
        raise AssertionError(f"the supply pieces are {len(_SUPPLY_IX)} values, not 14")
    layout.update(
        {
            "seat0": _SEAT0,
            "seat_block": SEAT_BLOCK,
            "seat.plan": _S_PLAN,
            "seat.order": _S_ORDER,
            "seat.errand_boys_left": _S_BOYS,
            "seat.unknown_used": _S_UNKNOWN,
            "supply": o["modifiers"],
            "num_cards": NUM_CARDS,
            "seats": _SEATS,
            "size": OBS_SIZE,
            "high": float(OBS_HIGH),
            "low": float(OBS_LOW),
            "draw_phase": DRAW_PHASE,
            "state_type": _view.GameState,
        }
    )
    consts = _view._c_consts()
    if layout.keys() & consts.keys():  # a name would mean two things
        raise AssertionError(f"layout and view constants share {layout.keys() & consts.keys()}")
    layout.update(consts)
    return layout


def _load_compiled(choice: str):  # -> the configured module or None
    _cwriter = _view.load_accelerator("LASTWILL_WRITER", choice)
    if _cwriter is None:
        return None
    if np.dtype(np.intp).itemsize != 8:  # the module writes int64 indices
        if choice == "compiled":
            raise BuildChoiceError("LASTWILL_WRITER=compiled needs a 64-bit numpy intp")
        return None
    _cwriter.configure(_c_layout())
    return _cwriter


_C = _load_compiled(os.environ.get("LASTWILL_WRITER", "auto"))
WRITER = "python" if _C is None else "compiled"
