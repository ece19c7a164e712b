"""Money!'s table picture for the viewer, as JSON, from one seat's `PlayerView` alone.

:func:`seat_board` reads nothing but the view of the seat being watched
(`money_env.engine.view`, docs/games/MONEY.md §9): that seat's own hand and hidden bid, and the
public facts (both groups, the pile's size, each hand's size and its known cards, the bids as
revealed, what lies on the table, who has acted). Another seat's bid is not in a view before the
reveal, not even its size, so it cannot be in the picture. At the end the view shows every hand
with the results (places shared on ties, docs/games/MONEY.md §7). :func:`all_board` is the
omniscient picture of a replay: the public part once and each seat's hand and hidden bid, each
read from that seat's own view.

Seats are absolute here (the view's relative seats turned back); cards are
``{"id", "label", "kind", "currency"}`` and a bid or a group is ``{"cards", "value", "text"}``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from money_env.engine import BID_PHASE, EXCHANGE_PHASE, GAME_OVER, PHASE_NAMES, PlayerView
from money_env.engine.cards import CARDS, CURRENCY, FIRST_BLUFF, FIRST_COIN, VALUE
from money_env.text import acting_order, bid_text, bid_value


def card(c: int) -> dict[str, Any]:
    """One card: ``Euro 20``, ``coin`` (10) or ``bluff``."""
    if c < FIRST_COIN:
        cur = CARDS.currencies[CURRENCY[c]]
        return {"id": c, "label": f"{cur} {VALUE[c]}", "kind": "note", "currency": cur}
    if c < FIRST_BLUFF:
        return {"id": c, "label": "coin 10", "kind": "coin", "currency": None}
    return {"id": c, "label": "bluff", "kind": "bluff", "currency": None}


def cards(cs: Iterable[int]) -> list[dict[str, Any]]:
    return [card(c) for c in sorted(cs)]


def group(cs: Sequence[int], bluffed: bool = False) -> dict[str, Any]:
    """A group or a bid: its cards, its value (notes and coins) and its text."""
    return {"cards": cards(cs), "value": bid_value(cs), "text": bid_text(list(cs), bluffed)}


def _results(view: PlayerView) -> list[dict[str, Any]] | None:
    """Per absolute seat at the end: place (1 = best), whether it is shared, the score and its
    breakdown, the win share."""
    if view.results is None:
        return None
    n = view.num_players
    rel = [view.results[(s - view.seat) % n] for s in range(n)]
    places = [r["place"] for r in rel]
    return [
        {
            "seat": s,
            "place": r["place"],
            "shared": places.count(r["place"]) > 1,
            "score": r["score"],
            "win_share": r["win_share"],
            "coins": r["scores"]["coins"],
        }
        for s, r in enumerate(rel)
    ]


def _seat(view: PlayerView, rel: int, specs: Sequence[str]) -> dict[str, Any]:
    s = view.absolute(rel)
    own = rel == 0
    over = view.phase == GAME_OVER
    return {
        "seat": s,
        "name": f"P{s} {specs[s]}",
        "you": own,
        "hand_size": view.hand_sizes[rel],
        "hand": cards(view.hand) if own and not over else None,
        "bid": cards(view.bid) if own and view.phase == BID_PHASE else None,
        "known": cards(view.known_hands[rel]),
        "revealed": group(view.revealed[rel], view.bluffed[rel]),
        "bluffed": bool(view.bluffed[rel]),
        "table": group(view.table[rel]),
        "acted": bool(view.acted[rel]),
        "final_hand": cards(view.final_hands[rel]) if over else None,
    }


def seat_board(view: PlayerView, specs: Sequence[str]) -> dict[str, Any]:
    """The picture of what the view's seat may know (module docstring)."""
    n = view.num_players
    seats = sorted((_seat(view, r, specs) for r in range(n)), key=lambda d: d["seat"])
    exchange = view.phase == EXCHANGE_PHASE
    return {
        "round": view.round,
        "phase": view.phase,
        "phase_name": PHASE_NAMES[view.phase],
        "last_round": bool(view.last_round),
        "over": view.phase == GAME_OVER,
        "to_act": view.absolute(view.to_act) if view.to_act >= 0 else None,
        "first_bidder": view.absolute(view.first_bidder),
        "right": group(view.right),
        "left": group(view.left),
        "pile": view.pile_size,
        "order": [view.absolute(r) for r in acting_order(view)] if exchange else [],
        "seats": seats,
        "results": _results(view),
    }


def all_board(views: Sequence[PlayerView], specs: Sequence[str]) -> dict[str, Any]:
    """The omniscient picture: seat 0's picture of the public part, and each seat's own hand and
    hidden bid from its own view (``views[s]`` is seat ``s``'s view)."""
    out = seat_board(views[0], specs)
    for s, v in enumerate(views):
        own = _seat(v, 0, specs)
        out["seats"][s].update(hand=own["hand"], bid=own["bid"], you=False)
    return out
