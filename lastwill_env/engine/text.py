"""Text pictures of the table for people: replays, terminal play and env rendering.

`render_view` draws the table from one seat's `PlayerView` only, so a seat's picture can never
show what docs/RULES.md §10 hides from it (another hand, a deck order, a face-down discard);
`render_seat` is that picture for a seat of a state (with its legal actions when it acts), and
`render_table` the whole-table picture with every hand (for replays and debugging).
`describe_step` names a decision as another seat sees it: which starting cards a player keeps
is hidden from the others.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .actions import decode, describe_action
from .cards import CATALOGUE, COMPANIONS, DECKS, PROPERTY_TYPES
from .game import (
    BREED_PHASE,
    DRAW_PHASE,
    GAME_OVER,
    PHASE_NAMES,
    TURN_PHASE,
    GameState,
    legal_actions,
)
from .view import PlayerView, player_view

CARDS = CATALOGUE.cards
# action turn .. breeders fair: the acting player's actions matter
TURN_PHASES = range(TURN_PHASE, BREED_PHASE + 1)


def describe_step(action: int, seat: int, viewer: int | None = None) -> str:
    """The decision's name; seen by another seat (``viewer``), a kept starting card is hidden."""
    kind, _ = decode(action)
    if viewer is not None and seat != viewer and kind == "keep":
        return "keep a starting card (hidden)"
    return describe_action(action)


def board_card(view: PlayerView, c: int) -> str:
    """A board card with its value, tokens and used mark, as the table shows it."""
    spec = CARDS[c]
    bits = []
    if spec.category == "property":
        bits.append(f"value {spec.values[view.value_step[c]]}")
    if spec.slots:
        bits.append(f"tokens {view.filled_slots[c]}/{len(spec.slots)}")
    if view.used[c]:
        bits.append("used")
    return f"{spec.name}({', '.join(bits)})" if bits else spec.name


def _names(cards: Sequence[int]) -> str:
    return ", ".join(CARDS[c].name for c in cards) or "-"


def render_view(
    view: PlayerView,
    viewer: int,
    names: Sequence[str] | None = None,
    legal: Sequence[int] | None = None,
    hands: Sequence[Sequence[int]] | None = None,
) -> str:
    """A text picture of the table drawn from ``view`` (the view of absolute seat ``viewer``).

    Only the view is read, so nothing hidden from that seat can appear; ``hands`` (absolute
    seats) adds every hand for a whole-table picture, ``legal`` numbers the viewer's choices.
    """
    n = view.num_players
    names = list(names) if names is not None else [f"P{s}" for s in range(n)]

    def who(rel: int) -> str:
        return names[(viewer + rel) % n]

    over = view.phase == GAME_OVER
    head = f"Round {view.round}{' (final round)' if view.final_round else ''}"
    if over:
        head += " - game over"
    else:
        head += f" - {PHASE_NAMES[view.phase]} - {who(view.to_act)} to act"
    head += f" - start player {who(view.start_player)}"
    lines = [head]
    lines += _public_lines(view, who)
    lines += _seat_lines(view, viewer, names, hands)
    pend = _pending(view, over)
    if pend:
        lines.append("pending: " + "; ".join(pend))
    if legal is not None:
        lines.append("legal: " + "; ".join(f"{a} {describe_action(a)}" for a in legal))
    if over and view.results is not None:
        r = view.results
        ranks = " ".join(f"{who(rel)}:{r['ranks'][rel]}" for rel in range(n))
        lines.append(f"result: winner {who(r['winner'])} ({r['decided_by']}); ranks {ranks}")
    return "\n".join(lines)


def _public_lines(view: PlayerView, who: Callable[[int], str]) -> list[str]:
    """:func:`render_view`'s lines of what every seat sees: the market and token supply, the
    decks, the offer (``who(rel)``: the name of a relative seat), the discards and the
    errands taken this round."""
    mods = " ".join(f"{PROPERTY_TYPES[t]} {m:+d}" for t, m in enumerate(view.modifiers))
    toks = " ".join(f"{COMPANIONS[t]} {k}" for t, k in enumerate(view.tokens))
    lines = [f"market: {mods} | token supply: {toks}"]
    decks = " ".join(f"{DECKS[d]} {k}" for d, k in enumerate(view.deck_sizes))
    lines.append(
        f"decks: {decks} special {view.special_deck_size} | jokers {view.jokers_in_supply} | "
        f"extensions left {view.extensions_left}"
    )
    offer = []
    for i, c in enumerate(view.offer):
        name = CARDS[c].name if c >= 0 else "-"
        taken = view.offer_taken_by[i]
        offer.append(f"{i + 1}:{name}{f' [{who(taken)}]' if taken >= 0 else ''}")
    lines.append("offer: " + (" ".join(offer) or "-"))
    disc = []
    for d in range(4):
        if view.discards[d] or view.hidden_discards[d]:
            hidden = f" (+{view.hidden_discards[d]} face down)" if view.hidden_discards[d] else ""
            disc.append(f"{DECKS[d]}: {_names(view.discards[d])}{hidden}")
    if disc:
        lines.append("discards: " + "; ".join(disc))
    errands = []
    if view.market_used:
        errands.append("market")
    if view.opera_used:
        errands.append("opera")
    if view.extension_errands:
        errands.append(f"extension x{view.extension_errands}")
    if view.blocked_plans:
        errands.append("blocked plans " + ",".join(str(p + 1) for p in view.blocked_plans))
    if errands:
        lines.append("taken this round: " + ", ".join(errands))
    return lines


def _seat_lines(
    view: PlayerView,
    viewer: int,
    names: list[str],
    hands: Sequence[Sequence[int]] | None,
) -> list[str]:
    """:func:`render_view`'s lines of each seat, from the viewer round the table: money, plan,
    board, and its hand where ``hands`` gives them (else the cards known to be in it), then
    the viewer's own hand."""
    n = view.num_players
    plans = CATALOGUE.plans[n]
    lines = []
    for rel in range(n):
        seat = (viewer + rel) % n
        plan = view.plans[rel]
        plan_txt = f"plan {plan + 1} (order {plans[plan].order})" if plan >= 0 else "no plan"
        mark = " (you)" if hands is None and rel == 0 else ""
        lines.append(
            f"{names[seat]}{mark}: £{view.money[rel]}  hand {view.hand_sizes[rel]}  "
            f"extensions {view.extensions[rel]}  {plan_txt}  "
            f"errand boys left {view.errand_boys_left[rel]}"
        )
        lines.append(
            "    board: " + (", ".join(board_card(view, c) for c in view.boards[rel]) or "-")
        )
        if hands is not None:
            lines.append("    hand: " + _names(sorted(hands[seat])))
        elif rel and view.known_hands[rel]:
            lines.append("    known in hand: " + _names(view.known_hands[rel]))
    if hands is None:
        lines.append(f"your hand ({names[viewer]}): {_names(view.hand)}")
        if view.keep_selected:
            lines.append(f"kept so far: {_names(view.keep_selected)}")
    return lines


def _pending(view: PlayerView, over: bool) -> list[str]:
    """What :func:`render_view` shows under way: actions left, a card being used or resolved,
    a blind draw."""
    pend = []
    if not over and view.phase in TURN_PHASES:
        pend.append(f"actions left {view.actions}")
    if view.using >= 0:
        pend.append(f"using {CARDS[view.using].name}: choose its option")
    if view.resolving >= 0:
        pend.append(
            f"resolving {CARDS[view.resolving].name} (spend {view.resolving_spend}, "
            f"add-on {view.resolving_addon}, steps left {view.resolving_left})"
        )
    if view.phase == DRAW_PHASE:
        q = ", ".join(DECKS[d] for d in view.draw_queue) or "-"
        pend.append(f"blind draw: {view.draws_left} left, chosen so far: {q}")
    return pend


def render_seat(state: GameState, seat: int, names: Sequence[str] | None = None) -> str:
    """The picture of ``seat``: only its :func:`player_view`; its legal actions when it acts."""
    view = player_view(state, seat)
    legal = legal_actions(state) if state.phase != GAME_OVER and state.cur == seat else None
    return render_view(view, seat, names, legal=legal)


def render_table(state: GameState, names: Sequence[str] | None = None) -> str:
    """The whole table: every hand, and the legal actions of the seat to act."""
    view = player_view(state, 0)
    legal = legal_actions(state) if state.phase != GAME_OVER else None
    text = render_view(view, 0, names, legal=legal, hands=state.hands)
    if state.keep_sel and state.phase != GAME_OVER:
        nm = names[state.cur] if names is not None else f"P{state.cur}"
        text += f"\nkept so far by {nm}: {_names(sorted(state.keep_sel))}"
    return text
