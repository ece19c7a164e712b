"""The rules of Money!: state, legal actions, transitions, results (docs/games/MONEY.md).

Implements docs/games/MONEY.md §3 (setup), §4 (a round: hidden bids, reveal, order, exchange,
refill), §5 (the end), §6-7 (scoring, shared places) and the rulings of §8.

Conventions fixed here (each is tested):
- `apply_action` mutates the state in place and returns None; `clone()` copies it.
- A bid is built card by card while it stays hidden (§4.1, §10.1): the cards chosen stay in the
  hand (`sel` marks them) until the reveal, so a hand's size tells nothing about a bid.
- Seat 0 bids first in round 1, then the first bidder moves one seat left each round (§8.4).
- Cards enter `known` (public knowledge of a hand, §9) when they go into a hand face up, and
  leave it when they leave the hand face up (a revealed bid); each bluff is known from the deal.
"""

from __future__ import annotations

import operator
import random
from typing import Any

from gamecore.plain import is_int

from .actions import ADD, COMMIT, KEEP, NUM_ACTIONS, TAKE_BID, TAKE_LEFT, TAKE_RIGHT
from .actions import describe_action as describe_action
from .cards import CARDS, GROUP_SIZE, KIND, VALUE, bluff_of, in_play, is_bluff
from .config import GameConfig, check_seed
from .score import seat_results
from .tables import (  # noqa: F401 - re-exported
    BID_PHASE,
    DECISIONS_PER_ROUND,
    EXCHANGE_PHASE,
    GAME_OVER,
    MAX_DECISIONS_PER_GAME,
    MAX_ROUNDS,
    PHASE_NAMES,
)


class IllegalActionError(ValueError):
    """An action outside the legal set; the state was not changed."""

    def __init__(self, action: Any, legal: list[int], phase: int) -> None:
        a = action_int(action)
        if a is None:
            what = f"{action!r} of type {type(action).__name__} (an action is an int)"
        elif 0 <= a < NUM_ACTIONS:
            what = f"{a} ({describe_action(a)})"
        else:
            what = f"{a} (outside the action table 0..{NUM_ACTIONS - 1})"
        names = ", ".join(f"{x} ({describe_action(x)})" for x in legal) or "none"
        super().__init__(
            f"illegal action {what} in the '{PHASE_NAMES[phase]}' phase; legal actions: {names}"
        )
        self.action = action
        self.legal = list(legal)


class GameState:
    """Plain-data state of one game. Every note and coin in play is in exactly one place: a
    hand, a bid on the table (`table`), the right or left group, or the pile (its end is the
    top). Each seat's bluff stays in its hand for the whole game."""

    __slots__ = (
        "cfg",
        "n",
        "seed",  # the deal's seed; None for a state without a deal (determinized)
        "round",  # 1-based
        "phase",
        "cur",  # seat to decide, -1 when the game is over
        "nbid",  # seats that committed their bid this round (bid phase)
        "hands",  # per seat, sorted card ids (a bid being built stays in the hand)
        "sel",  # per seat, sorted: the hidden bid being built or committed (bid phase)
        "table",  # per seat, sorted: the revealed bid now in front of it (exchange phase)
        "revealed",  # per seat, sorted: the notes and coins it revealed this round
        "bluffed",  # per seat: its revealed bid held its bluff this round
        "acted",  # per seat: it has made its exchange this round
        "right",  # the right group, sorted
        "left",  # the left group, sorted
        "pile",  # draw pile, the end is the top
        "known",  # per seat, sorted: cards every player knows to be in that hand (§9)
        "history",  # every action applied since the deal
    )

    def clone(self) -> GameState:
        s = GameState.__new__(GameState)
        s.cfg = self.cfg
        s.n = self.n
        s.seed = self.seed
        s.round = self.round
        s.phase = self.phase
        s.cur = self.cur
        s.nbid = self.nbid
        s.hands = [h[:] for h in self.hands]
        s.sel = [b[:] for b in self.sel]
        s.table = [b[:] for b in self.table]
        s.revealed = [b[:] for b in self.revealed]
        s.bluffed = self.bluffed[:]
        s.acted = self.acted[:]
        s.right = self.right[:]
        s.left = self.left[:]
        s.pile = self.pile[:]
        s.known = [k[:] for k in self.known]
        s.history = self.history[:]
        return s

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict holding the whole state (hidden information included)."""
        out: dict[str, Any] = {"config": self.cfg.to_dict()}
        for name in GameState.__slots__[1:]:
            value = getattr(self, name)
            if isinstance(value, list):
                value = [v[:] if isinstance(v, list) else v for v in value]
            out[name] = value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameState:
        """The state `to_dict` wrote, validated (`validate.check_state`): a malformed state, or
        one the rules cannot reach, raises `StateError` naming the field. A state with a seed
        must be the one its history reaches from that seed's deal (replayed)."""
        from .validate import check_state, load_fields

        cfg, fields = load_fields(data, GameState.__slots__[1:])
        s = GameState.__new__(GameState)
        s.cfg = cfg
        for name, value in fields.items():
            setattr(s, name, value)
        check_state(s, replay)
        return s

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<money GameState players={self.n} round={self.round} "
            f"phase='{PHASE_NAMES[self.phase]}' to_act={self.cur} pile={len(self.pile)}>"
        )

    def legal_actions(self) -> list[int]:
        return legal_actions(self)

    def apply_action(self, action: int) -> None:
        apply_action(self, action)

    @property
    def is_over(self) -> bool:
        return self.phase == GAME_OVER


# ---------------------------------------------------------------------------------------------
# Setup (docs/games/MONEY.md §3)


def new_game(config: GameConfig | int = 4, seed: int = 0) -> GameState:
    """A new game at its first decision (seat 0 builds its bid). The deal depends only on the
    player count and `seed`, an int from 0 to 2**64 - 1: `random.Random(seed)` shuffles the
    notes and coins in play (ascending ids) once; nothing random happens after the deal."""
    if is_int(config):
        config = GameConfig(num_players=config)
    if not isinstance(config, GameConfig):
        raise TypeError(f"config must be a GameConfig or a player count, got {config!r}")
    seed = check_seed(seed)
    n = config.num_players
    deck = list(in_play(n))  # §3.1-3.2: the last currencies stay in the box
    random.Random(seed).shuffle(deck)
    s = GameState.__new__(GameState)
    s.cfg = config
    s.n = n
    s.seed = seed
    s.round = 1
    s.phase = BID_PHASE
    s.cur = 0
    s.nbid = 0
    s.hands = []
    for p in range(n):  # §3.4-3.5: six cards each, plus the seat's bluff
        s.hands.append(sorted([deck.pop() for _ in range(CARDS.hand_dealt)] + [bluff_of(p)]))
    s.right = sorted(deck.pop() for _ in range(GROUP_SIZE))  # §3.7
    s.left = sorted(deck.pop() for _ in range(GROUP_SIZE))  # §3.8
    s.pile = deck  # §3.6
    s.known = [[bluff_of(p)] for p in range(n)]
    s.history = []
    _clear_round(s)
    return s


def _clear_round(s: GameState) -> None:
    n = s.n
    s.sel = [[] for _ in range(n)]
    s.table = [[] for _ in range(n)]
    s.revealed = [[] for _ in range(n)]
    s.bluffed = [False] * n
    s.acted = [False] * n


def first_bidder(s: GameState) -> int:
    """§8.4: seat 0 bids first in round 1, the seat to its left in round 2, and so on."""
    return (s.round - 1) % s.n


def is_last_round(s: GameState) -> bool:
    """§5.1-5.2: the round after a refill that emptied the pile is the last; §8.5: so is
    round `MAX_ROUNDS`."""
    return not s.pile or s.round >= MAX_ROUNDS


# ---------------------------------------------------------------------------------------------
# Legal actions


def legal_actions(s: GameState) -> list[int]:
    """The legal actions now, ascending (empty once the game is over)."""
    if s.phase == BID_PHASE:
        return _legal_bid(s)
    if s.phase == EXCHANGE_PHASE:
        return _legal_exchange(s)
    return []


def _legal_bid(s: GameState) -> list[int]:
    """§4.1: add any kind the hand holds outside the bid; commit a non-empty bid."""
    chosen = s.sel[s.cur]
    kinds = {KIND[c] for c in s.hands[s.cur] if c not in chosen}
    out = [ADD + k for k in sorted(kinds)]
    if chosen:
        out.append(COMMIT)
    return out


def _legal_exchange(s: GameState) -> list[int]:
    """§4.4: a group (never empty, §8.6), the bid of a seat that has not acted, or keep."""
    out = []
    if s.right:
        out.append(TAKE_RIGHT)
    if s.left:
        out.append(TAKE_LEFT)
    for r in range(1, s.n):
        q = (s.cur + r) % s.n
        if s.table[q] and not s.acted[q]:
            out.append(TAKE_BID + r - 1)
    out.append(KEEP)
    return out


# ---------------------------------------------------------------------------------------------
# Applying actions


def action_int(action: Any) -> int | None:
    """`action` as a plain int when it is an integer (a Python or numpy int; not a bool or a
    float), else None."""
    if type(action) is int:
        return action
    if isinstance(action, bool) or "bool" in str(getattr(action, "dtype", "")):
        return None
    try:
        return operator.index(action)
    except TypeError:
        return None


def apply_action(s: GameState, action: int) -> None:
    """Apply a legal action in place (returns None). Anything else raises
    `IllegalActionError`, naming the action and the legal ones, and changes nothing."""
    legal = legal_actions(s)
    a = action_int(action)
    if a is None or a not in legal:
        raise IllegalActionError(action, legal, s.phase)
    s.history.append(a)
    if s.phase == BID_PHASE:
        _do_bid(s, a)
    else:
        _do_exchange(s, a)


def _do_bid(s: GameState, a: int) -> None:
    seat = s.cur
    if a != COMMIT:
        # §8.2: the copy of that kind with the lowest serial (lowest id) not yet in the bid
        chosen = s.sel[seat]
        card = min(c for c in s.hands[seat] if KIND[c] == a - ADD and c not in chosen)
        chosen.append(card)
        chosen.sort()
        return
    s.nbid += 1
    if s.nbid < s.n:
        s.cur = (first_bidder(s) + s.nbid) % s.n
        return
    _reveal(s)


def _reveal(s: GameState) -> None:
    """§4.2: every bid face up at once; the bluffs go back to their hands; a bid that was only
    the bluff sits the round out."""
    for p in range(s.n):
        bid = [c for c in s.sel[p] if not is_bluff(c)]
        s.bluffed[p] = len(bid) < len(s.sel[p])
        s.hands[p] = [c for c in s.hands[p] if c not in bid]
        s.known[p] = [c for c in s.known[p] if c not in bid]
        s.table[p] = bid
        s.revealed[p] = bid[:]
        s.sel[p] = []
    s.nbid = 0
    s.phase = EXCHANGE_PHASE
    _next_actor(s)


def bid_value(cards: list[int]) -> int:
    """§4.3: the printed values of the notes and coins of a bid."""
    return sum(VALUE[c] for c in cards)


def order_key(cards: list[int]) -> tuple[int, int]:
    """§4.3, §8.1: the highest value first; on a tie the bid holding the lowest serial (the
    lowest card id) first. Smaller keys act earlier."""
    return (-bid_value(cards), min(cards))


def waiting(s: GameState) -> list[int]:
    """Seats with a bid on the table that have not acted, in acting order (§4.3)."""
    seats = [p for p in range(s.n) if s.table[p] and not s.acted[p]]
    return sorted(seats, key=lambda p: order_key(s.table[p]))


def _next_actor(s: GameState) -> None:
    """§4.4: the highest bid still on the table acts next; with none left the round ends."""
    w = waiting(s)
    if w:
        s.cur = w[0]
    else:
        _end_round(s)


def _take(s: GameState, seat: int, cards: list[int]) -> None:
    """`cards` go face up into `seat`'s hand (known to all, §9)."""
    s.hands[seat] = sorted(s.hands[seat] + cards)
    s.known[seat] = sorted(s.known[seat] + cards)


def _do_exchange(s: GameState, a: int) -> None:
    seat = s.cur
    bid = s.table[seat]
    s.table[seat] = []
    s.acted[seat] = True
    if a == KEEP:  # §4.4 (3)
        _take(s, seat, bid)
    elif a in (TAKE_RIGHT, TAKE_LEFT):  # §4.4 (1)
        group = s.right if a == TAKE_RIGHT else s.left
        _take(s, seat, group)
        if a == TAKE_RIGHT:
            s.right = bid
        else:
            s.left = bid
    else:  # §4.4 (2): the seat whose bid was taken holds ours and acts next
        other = (seat + a - TAKE_BID + 1) % s.n
        _take(s, seat, s.table[other])
        s.table[other] = bid
        s.cur = other
        return
    _next_actor(s)


def _refill(s: GameState) -> None:
    """§4.5: right group first, then left, up to the group size from the pile's top; a group
    already at the size (or above) is not refilled; a short pile deals what it has (§5.1)."""
    for group in (s.right, s.left):
        while len(group) < GROUP_SIZE and s.pile:
            group.append(s.pile.pop())
        group.sort()


def _end_round(s: GameState) -> None:
    if is_last_round(s):  # §5.2: no refill after the last round
        s.phase = GAME_OVER
        s.cur = -1
        return
    _refill(s)
    s.round += 1
    _clear_round(s)
    s.phase = BID_PHASE
    s.cur = first_bidder(s)


# ---------------------------------------------------------------------------------------------
# End of game


def is_over(s: GameState) -> bool:
    return s.phase == GAME_OVER


def current_player(s: GameState) -> int:
    """Seat that must decide now, or -1 when the game is over."""
    return s.cur


def results(s: GameState) -> list[dict[str, Any]]:
    """Per seat (absolute order): `score`, `rank` (0 = first; tied seats share it, so
    [0, 0, 2]), `place` (rank + 1: [1, 1, 3]), `win_share` (1/k for each of k seats sharing
    first place) and `scores`, the breakdown of §6 (`score.score_hand`). ValueError before the
    end."""
    if s.phase != GAME_OVER:
        raise ValueError(f"the game is not over yet (phase '{PHASE_NAMES[s.phase]}')")
    return seat_results(s.hands)


def replay(config: GameConfig | int, seed: int, actions: list[int]) -> GameState:
    """The state reached by playing `actions` (a list or tuple of ints) from
    `new_game(config, seed)`; an action the rules refuse raises IllegalActionError."""
    if not isinstance(actions, (list, tuple)):
        raise ValueError(
            f"actions must be a list of action ints, not {type(actions).__name__} {actions!r:.60}"
        )
    s = new_game(config, seed)
    for a in actions:
        apply_action(s, a)
    return s
