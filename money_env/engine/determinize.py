"""Determinization: a full game state consistent with what one seat sees (docs/games/MONEY.md
§9).

`determinize(view, rng)` copies every fact of a `PlayerView` (round, phase, whose decision,
groups, bids on the table and as revealed, bluffs, who acted, the known cards of every hand,
the viewer's own hand and hidden bid) into a fresh `GameState`, converting relative seats to
absolute ones, and deals the cards the viewer cannot see uniformly at random: the notes and
coins in play that are in no place the view shows fill the other hands (each up to its public
size, beside its known cards) and the pile (its public size, in random order). A seat that has
committed its hidden bid before the viewer is given a random non-empty bid from its sampled
hand; a seat building its bid now, a random (maybe empty) one. The new state has no seed and no
history. It is a pure function of (view, rng state): a search built on it cannot read hidden
information.
"""

from __future__ import annotations

import random

from .cards import in_play
from .config import GameConfig
from .game import BID_PHASE, GAME_OVER, GameState
from .view import PlayerView


class DeterminizeError(ValueError):
    """The view is inconsistent with the card counts (never for a real view)."""


def determinize(view: PlayerView, rng: random.Random) -> GameState:
    """A full GameState consistent with everything `view.seat` sees in `view`."""
    if not isinstance(view, PlayerView):
        raise TypeError(f"view must be a PlayerView, not {type(view).__name__}")
    s = _public(view)
    if view.phase == GAME_OVER:
        s.hands = [sorted(h) for h in _unrot(view, view.final_hands)]
        s.pile = sorted(_unseen(view, s))
        rng.shuffle(s.pile)
        return s
    _deal(view, s, rng)
    if view.phase == BID_PHASE:
        _hidden_bids(view, s, rng)
    return s


def _unrot(view: PlayerView, per_rel: tuple) -> list:
    """A per-relative-seat tuple of the view as a per-absolute-seat list (copied lists)."""
    n = view.num_players
    out: list = [None] * n
    for r in range(n):
        x = per_rel[r]
        out[(view.seat + r) % n] = list(x) if isinstance(x, tuple) else x
    return out


def _public(view: PlayerView) -> GameState:
    n = view.num_players
    s = GameState.__new__(GameState)
    s.cfg = GameConfig(num_players=n)
    s.n = n
    s.seed = None
    s.history = []
    s.round = view.round
    s.phase = view.phase
    s.cur = view.absolute(view.to_act)
    first = view.absolute(view.first_bidder)
    s.nbid = (s.cur - first) % n if view.phase == BID_PHASE else 0
    s.right = list(view.right)
    s.left = list(view.left)
    s.table = _unrot(view, view.table)
    s.revealed = _unrot(view, view.revealed)
    s.bluffed = _unrot(view, view.bluffed)
    s.acted = _unrot(view, view.acted)
    s.known = _unrot(view, view.known_hands)
    s.sel = [[] for _ in range(n)]
    s.sel[view.seat] = list(view.bid)
    return s


def _unseen(view: PlayerView, s: GameState) -> set[int]:
    """Notes and coins in play that the view places nowhere."""
    seen = set(view.hand) | set(view.right) | set(view.left)
    for cards in s.table + s.known:
        seen.update(cards)
    if view.phase == GAME_OVER:
        for h in view.final_hands:
            seen.update(h)
    return set(in_play(view.num_players)) - seen


def _deal(view: PlayerView, s: GameState, rng: random.Random) -> None:
    n, me = view.num_players, view.seat
    pool = sorted(_unseen(view, s))
    rng.shuffle(pool)
    sizes = _unrot(view, view.hand_sizes)
    need = [0 if p == me else sizes[p] - len(s.known[p]) for p in range(n)]
    if any(k < 0 for k in need) or sum(need) + view.pile_size != len(pool):
        raise DeterminizeError(
            f"the view's hand sizes {view.hand_sizes} and pile size {view.pile_size} do not "
            f"fit the {len(pool)} cards it does not place"
        )
    s.hands = []
    for p in range(n):
        if p == me:
            s.hands.append(list(view.hand))
        else:
            s.hands.append(sorted(s.known[p] + pool[: need[p]]))
            del pool[: need[p]]
    s.pile = pool


def _hidden_bids(view: PlayerView, s: GameState, rng: random.Random) -> None:
    """Random hidden bids for the seats that committed before the viewer (non-empty) and for
    the seat bidding now (possibly empty)."""
    n = view.num_players
    first = view.absolute(view.first_bidder)
    for i in range(s.nbid + 1):
        p = (first + i) % n
        if p == view.seat:
            continue
        hand = s.hands[p]
        k = rng.randint(1 if i < s.nbid else 0, len(hand))
        s.sel[p] = sorted(rng.sample(hand, k))
