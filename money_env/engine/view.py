"""What one seat may observe (docs/games/MONEY.md §9), with seats relative to the viewer.

Relative seat r is absolute seat (viewer + r) % n, so the viewer is always relative seat 0 and
relative seat 1 sits to its left (the next to bid); `seat` is the viewer's absolute seat (public:
every player knows where it sits), and the `take_bid` actions name relative seats too.

Public: the round, the phase, whose decision it is, who bid first, both groups, each seat's hand
size, each revealed bid (`revealed`: as revealed this round; `table`: what lies in front of the
seat now, after any swap), who bid a bluff, who has acted, the pile's size, and for every seat
the cards every player knows to be in its hand (`known_hands`: its bluff, and each card that
went into the hand face up and has not left it face up since; the perfect recall of §9).
Private: the viewer's own hand and its own bid while it is hidden (`bid`). At the end every
hand is shown (`final_hands`, for the scoring) with the results. Nothing else: not the pile's
order, not another seat's hidden cards or bid, not even its bid's size (a bid being built stays
in its hand, so hand sizes do not move until the reveal).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .game import BID_PHASE, GAME_OVER, GameState, first_bidder, is_last_round, results


@dataclass(frozen=True, slots=True)
class PlayerView:
    num_players: int
    seat: int  # the viewer's absolute seat; every other seat below is relative to it
    round: int
    phase: int  # 0 bid, 1 exchange, 2 over
    to_act: int  # relative seat that decides now, -1 when the game is over
    first_bidder: int  # relative seat that bid first this round
    last_round: bool  # this round is the last (§5)
    hand: tuple[int, ...]  # own hand, sorted card ids (a bid being built included)
    bid: tuple[int, ...]  # own hidden bid, sorted (bid phase only)
    hand_sizes: tuple[int, ...]  # per relative seat
    known_hands: tuple[tuple[int, ...], ...]  # per relative seat, sorted
    right: tuple[int, ...]
    left: tuple[int, ...]
    table: tuple[tuple[int, ...], ...]  # per relative seat: the bid in front of it now
    revealed: tuple[tuple[int, ...], ...]  # per relative seat: its bid as revealed this round
    bluffed: tuple[bool, ...]  # per relative seat: its revealed bid held its bluff
    acted: tuple[bool, ...]  # per relative seat: it has made its exchange this round
    pile_size: int
    final_hands: tuple[tuple[int, ...], ...]  # per relative seat at the end, else empty
    results: tuple[dict[str, Any], ...] | None  # per relative seat at the end (`results`)

    def absolute(self, rel: int) -> int:
        """The absolute seat of relative seat `rel` (-1 stays -1)."""
        return (self.seat + rel) % self.num_players if rel >= 0 else -1


def player_view(s: GameState, seat: int) -> PlayerView:
    """Exactly what `seat` (absolute) may know now."""
    n = s.n
    if type(seat) is not int or not 0 <= seat < n:
        raise ValueError(f"seat {seat!r} is not at this table; seats are 0..{n - 1}")
    order = [(seat + r) % n for r in range(n)]
    over = s.phase == GAME_OVER

    def rot(per_seat: list) -> tuple:
        return tuple(
            tuple(per_seat[p]) if isinstance(per_seat[p], list) else per_seat[p] for p in order
        )

    return PlayerView(
        num_players=n,
        seat=seat,
        round=s.round,
        phase=s.phase,
        to_act=(s.cur - seat) % n if s.cur >= 0 else -1,
        first_bidder=(first_bidder(s) - seat) % n,
        last_round=is_last_round(s),
        hand=tuple(s.hands[seat]),
        bid=tuple(s.sel[seat]) if s.phase == BID_PHASE else (),
        hand_sizes=tuple(len(s.hands[p]) for p in order),
        known_hands=rot(s.known),
        right=tuple(s.right),
        left=tuple(s.left),
        table=rot(s.table),
        revealed=rot(s.revealed),
        bluffed=rot(s.bluffed),
        acted=rot(s.acted),
        pile_size=len(s.pile),
        final_hands=rot(s.hands) if over else (),
        results=tuple(results(s)[p] for p in order) if over else None,
    )
