"""Observation and action-mask encoding for learning agents (numpy only): the public API.

The observation is one flat float32 vector built from named pieces in a fixed order
(`OBS_PIECES`: name, size, description; `OBS_SIZE` in total; `lastwill_env.obs_layout` defines
it). It encodes exactly what one seat may know (docs/RULES.md §10, `PlayerView`), with seats
relative to the observer: relative seat 0 is the observer, 1 the next seat clockwise, and so on.
The size is the same for every player count: there are always 5 seat blocks, absent seats are all
zeros with `present = 0`.

Value conventions: one-hot and multi-hot entries are 0/1; counts and amounts are divided by the
`scale` named in the piece description (e.g. money / 100) and clipped to [-5, 5], which is the
observation Box. `describe(obs)` prints the pieces by name, undoing the scales.

One writer (`lastwill_env.sparse`) produces every observation as sparse `(indices, values)`:
indices ascending, values float32 and non-zero. Two readers feed it:
- `encode_observation(view)` / `encode_observation_sparse(view)` read a `PlayerView` (the public
  API, used by bots and tests);
- `encode_state(state, seat)` / `encode_state_sparse(state, seat)` read the `GameState`
  directly, reading only what `player_view(state, seat)` would show. They skip building the view
  (whose per-card tuples cost more than the whole engine step); the environments use them.
  `encode_seats_sparse(state, seats)` gives several seats' sparse observations of one state,
  the pieces every observer shares written once (the search's leaf evaluations read them all).
The state path is compiled where the install built `lastwill_env._cwriter` (`sparse.WRITER`
says which writer runs; `LASTWILL_WRITER=python` picks the Python one). The dense vector is the
writer's entries scattered over zeros, so
`np.flatnonzero(encode_state(s, p))` is the sparse form's `indices`. Consumers that only read the
non-zero entries (the first layer of a network) should take the sparse form. Tests check on
random playouts that all four agree for every seat and step, and that hidden information of
others never changes the vector.

`encode_global_state(state)` is the full-information vector for centralised critics: the
observation of absolute seat 0 followed by every hand, the cards in the decks and the
face-down discards.

`action_mask(legal)` is the int8 0/1 mask over the flat action table (`NUM_ACTIONS`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .engine import CATALOGUE, COMPANIONS, DECKS, NUM_ACTIONS, PHASE_NAMES, PROPERTY_TYPES
from .engine.actions import MAX_OFFER_SPACES, MAX_PLAN_SPACES
from .engine.config import MAX_PLAYERS, MIN_PLAYERS
from .engine.game import NUM_CARDS, NUM_ROUNDS
from .obs_layout import (
    OBS_HIGH,
    OBS_LOW,
    OBS_PIECES,
    OBS_SIZE,
    OBS_SPEC,
    SEAT_FIELDS,
    STATE_EXTRA_SPEC,
    STATE_OFFSETS,
    STATE_PIECES,
    STATE_SIZE,
    obs_layout_text,
    piece_slices,
)
from .sparse import (
    dense_state,
    encode_observation_sparse,
    encode_seats_sparse,
    encode_state_sparse,
    scatter,
    state_entries,
    view_entries,
)

if TYPE_CHECKING:
    from .engine import GameState, PlayerView

__all__ = [
    "OBS_PIECES",
    "OBS_SIZE",
    "OBS_LOW",
    "OBS_HIGH",
    "STATE_PIECES",
    "STATE_SIZE",
    "SEAT_FIELDS",
    "encode_observation",
    "encode_observation_sparse",
    "encode_state",
    "encode_state_sparse",
    "encode_seats_sparse",
    "encode_global_state",
    "action_mask",
    "describe",
    "piece_slices",
    "obs_layout_text",
    "terminal_rewards",
    "REWARD_MODES",
]

_CARD_NAMES = tuple(c.name for c in CATALOGUE.cards)
_SEATS = MAX_PLAYERS
_DRAW_STAGES = ("plan cards", "extra companions", "extra events")


def _zeros(out: np.ndarray | None) -> np.ndarray:
    if out is None:
        return np.zeros(OBS_SIZE, dtype=np.float32)
    out.fill(0.0)
    return out


def encode_observation(view: PlayerView, out: np.ndarray | None = None) -> np.ndarray:
    """The flat float32 observation of a `PlayerView` (layout: `OBS_PIECES`)."""
    return scatter(view_entries(view), _zeros(out))


def encode_state(state: GameState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """Same vector as `encode_observation(player_view(state, seat))`, read straight from the
    state. Mirrors `player_view` field by field; only public data and `seat`'s own hand are
    read (docs/RULES.md §10)."""
    if out is None:
        out = np.empty(OBS_SIZE, dtype=np.float32)
    return dense_state(state, seat, out)


def encode_global_state(state: GameState, out: np.ndarray | None = None) -> np.ndarray:
    """Full-information vector for centralised critics (layout: `STATE_PIECES`): the
    observation of absolute seat 0, then every hand, the deck cards and the face-down
    discards. Never give it to a policy."""
    if out is None:
        out = np.zeros(STATE_SIZE, dtype=np.float32)
    else:
        out.fill(0.0)
    scatter(state_entries(state, 0), out)
    ones: list[int] = []
    h0 = STATE_OFFSETS["hand0"]
    for p, hand in enumerate(state.hands):
        base = h0 + p * NUM_CARDS
        ones.extend([base + c for c in hand])
    dk = STATE_OFFSETS["deck_cards"]
    for deck in (*state.decks, state.special):
        ones.extend([dk + c for c in deck])
    hd = STATE_OFFSETS["hidden_discard_cards"]
    for d, pile in enumerate(state.discards):
        ones.extend([hd + c for c in pile[: state.hidden[d]]])
    out[ones] = 1.0
    return out


def action_mask(legal: Iterable[int], out: np.ndarray | None = None) -> np.ndarray:
    """int8 0/1 mask of length `NUM_ACTIONS` with ones at the `legal` action indices."""
    if out is None:
        out = np.zeros(NUM_ACTIONS, dtype=np.int8)
    else:
        out.fill(0)
    if not isinstance(legal, list):
        legal = list(legal)
    if legal:
        out[legal] = 1
    return out


# ---------------------------------------------------------------------------------------------
# describe()

_PLAN_LABELS = tuple(f"space {i + 1}" for i in range(MAX_PLAN_SPACES))
_SEAT_LABELS = tuple(f"seat+{r}" if r else "observer" for r in range(_SEATS))


def _labels(name: str) -> Sequence[str] | None:
    if name == "num_players":
        return tuple(str(k) for k in range(MIN_PLAYERS, MAX_PLAYERS + 1))
    if name == "round":
        return tuple(str(k) for k in range(1, NUM_ROUNDS + 1))
    if name == "phase":
        return PHASE_NAMES
    if name in ("to_act", "start_player"):
        return _SEAT_LABELS
    if name == "draw_stage":
        return _DRAW_STAGES
    if name == "draw_queue" or name in ("deck_sizes", "hidden_discards"):
        return DECKS
    if name in ("modifiers",):
        return PROPERTY_TYPES
    if name == "tokens":
        return COMPANIONS
    if name.endswith(".plan") or name == "blocked_plans":
        return _PLAN_LABELS
    if name.endswith(".order"):
        return tuple(f"{i + 1}." for i in range(_SEATS))
    if name == "offer_taken_by":
        return tuple(
            f"space {i + 1} by {_SEAT_LABELS[r]}" for i in range(MAX_OFFER_SPACES) for r in range(5)
        )
    return None


_ALL_SPEC = OBS_SPEC + STATE_EXTRA_SPEC


def describe(obs: Any, state: bool = False) -> str:
    """Readable text of an observation (or, with state=True, a global state vector), piece
    by piece: `name: values`. One-hot and multi-hot pieces list the set entries by name (card
    names for card pieces); amounts are shown unscaled. All-zero pieces print `-`."""
    x = np.asarray(obs, dtype=np.float32).reshape(-1)
    size = STATE_SIZE if state else OBS_SIZE
    if x.shape[0] != size:
        raise ValueError(
            f"describe() expects a vector of {size} values "
            f"({'STATE' if state else 'OBS'}_SIZE), got shape {np.shape(obs)}"
        )
    spec = _ALL_SPEC if state else OBS_SPEC
    lines = []
    o = 0
    for name, size_, scale, kind, _desc in spec:
        seg = x[o : o + size_]
        o += size_
        nz = np.flatnonzero(seg)
        if size_ == NUM_CARDS:
            labels: Sequence[str] | None = _CARD_NAMES
        else:
            labels = _labels(name)
        if nz.size == 0:
            text = "-"
        elif kind in ("onehot", "multihot") or (kind == "value" and size_ > 8):
            items = []
            for i in nz:
                lab = labels[i] if labels is not None else str(i)
                val = seg[i] * scale
                items.append(lab if kind != "value" and val == 1.0 else f"{lab}={val:g}")
            text = ", ".join(items)
        elif size_ == 1:
            text = f"{seg[0] * scale:g}"
        else:
            vals = [f"{v * scale:g}" for v in seg]
            if labels is not None:
                vals = [f"{lab}={v}" for lab, v in zip(labels, vals, strict=True)]
            text = " ".join(vals)
        lines.append(f"{name}: {text}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Terminal rewards (shared by the AEC env and the single-seat env)

REWARD_MODES = ("zero_sum", "rank")


def terminal_rewards(ranks: Sequence[int], mode: str = "zero_sum") -> list[float]:
    """Per-seat terminal rewards from the engine's ranks (1 = winner).

    `zero_sum`: winner +1, each other seat -1/(n-1). `rank`: 2 * (n - rank) / (n - 1) - 1, so
    rank 1 gives +1 and the last rank -1. Both sum to 0 over the table."""
    n = len(ranks)
    if mode == "zero_sum":
        lose = -1.0 / (n - 1)
        return [1.0 if r == 1 else lose for r in ranks]
    if mode == "rank":
        return [2.0 * (n - r) / (n - 1) - 1.0 for r in ranks]
    raise ValueError(f"reward={mode!r} is not allowed; choose one of {REWARD_MODES}")
