"""What one seat may observe (docs/RULES.md §10), with seats relative to the viewer.

Public: money of everyone, every player board (cards, tokens, value steps, used flags,
extensions), the offer board, modifier tiles, planning and errand occupancy, round, start player,
hand sizes, deck sizes, discard piles except the face-down starting discards, the special cards
already seen (the box), and which offer cards went into which hand (`known_hands`: everyone
saw them taken; a card drops out of the record when it leaves the hand). Private: the viewer's
own hand. Nothing else: not the deck orders, not other hands, not the generator state. Relative
seat r is absolute seat (viewer + r) % n, so the viewer is always seat 0; `seat` is the
viewer's absolute seat (public: every player knows where it sits), so `determinize` can refuse
a view given for another seat.

`player_view` has a compiled twin, `lastwill_env.engine._cview` (`_cview.c`, built by the
install where a C compiler is found): the same view, field for field, about three times faster.
`VIEW` says which one runs: `"compiled"` when the module was built, else `"python"`. The
environment variable `LASTWILL_VIEW` chooses: `auto` (the default), `python` (this module's code
even where the compiled one exists) or `compiled` (an error at import where it was not built).
This module stays the definition, and the one home of the rules that decide what a seat sees:
`errand_boys_left`, `actions_left`, `to_act`, `plan_order_known`, `keeps_shown` and
`face_up_discards` below. The observation's state path (`lastwill_env.sparse`) calls them instead
of building a view; the two compiled modules (this view's twin and the observation writer's,
`lastwill_env._cwriter`) follow the same rules from their one C header (`lastwill_env/_lwview.h`)
with the constants of `_c_consts()` here. A finished game's view (its rotated `results`) is always
built here, and the tests compare the compiled and Python paths over whole games.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from typing import Any

from gamecore.buildcheck import COMPILED, load_compiled, warn_if_stale

from .cards import CATALOGUE
from .config import MAX_PLAYERS, MIN_PLAYERS
from .game import (
    BREED_PHASE,
    ERRAND_PHASE,
    GAME_OVER,
    MARKET_PHASE,
    TURN_PHASE,
    UNKNOWN_PHASE,
    GameState,
)


@dataclass(frozen=True, slots=True)
class PlayerView:
    num_players: int
    seat: int  # the viewer's absolute seat (every other seat below is relative to it)
    round: int
    phase: int
    to_act: int  # relative seat that decides now, -1 when the game is over
    start_player: int  # relative
    money: tuple[int, ...]  # relative seats
    hand: tuple[int, ...]  # own hand, sorted card ids
    hand_sizes: tuple[int, ...]
    boards: tuple[tuple[int, ...], ...]  # relative seats, card ids in placing order
    extensions: tuple[int, ...]
    # per card id (only cards on a board carry non-zero values)
    value_step: tuple[int, ...]
    filled_slots: tuple[int, ...]
    used: tuple[int, ...]
    privilege_left: tuple[int, ...]
    offer: tuple[int, ...]  # card id per offer space, -1 when empty
    offer_taken_by: tuple[int, ...]  # relative seat per offer space, -1 when free
    modifiers: tuple[int, int, int, int]  # per property type
    tokens: tuple[int, int, int, int]  # companion token supply
    extensions_left: int
    deck_sizes: tuple[int, int, int, int]
    special_deck_size: int
    discards: tuple[tuple[int, ...], ...]  # face-up discards per normal deck
    hidden_discards: tuple[int, int, int, int]  # face-down starting discards per pile
    box: tuple[int, ...]  # out of the game: discarded specials, will cards
    jokers_in_supply: int
    plans: tuple[int, ...]  # plan space per relative seat, -1 when none yet
    blocked_plans: tuple[int, ...]
    plan_order: tuple[int, ...]  # relative seats in turn order this round (empty before planning)
    market_used: bool
    opera_used: bool
    extension_errands: int
    unknown_used: tuple[bool, ...]
    errand_boys_left: tuple[int, ...]
    actions: int  # actions left to the acting player in the action phase
    resolving: int  # card being played now, -1 if none
    using: int  # board card whose use option is being chosen, -1 if none
    known_hands: tuple[tuple[int, ...], ...]  # per relative seat: hand cards known to all (§10)
    resolving_spend: int
    resolving_addon: int
    resolving_left: int  # steps left of a Wild Party / Breeders' Fair
    draw_queue: tuple[int, ...]  # decks already chosen for the pending blind draw
    draws_left: int  # mandatory picks left in the pending draw
    draw_stage: int
    keep_selected: tuple[int, ...]  # own cards already kept (keep phase, viewer only)
    final_round: bool
    results: dict[str, Any] | None  # at game over, with seats relative to the viewer

    def absolute(self, viewer: int, rel: int) -> int:
        return (viewer + rel) % self.num_players


def _rot(seq, seat: int, n: int) -> tuple:
    return tuple(seq[seat:] + seq[:seat]) if seat else tuple(seq)


# ---------------------------------------------------------------------------------------------
# What a seat sees: the rules' one home (docs/RULES.md §4.3, §10). `_py_player_view` and the
# observation's state path (`lastwill_env.sparse`) call these; the compiled view and writer follow
# them in `lastwill_env/_lwview.h`, with these constants from `_c_consts()`.

_ERRAND_PHASES = frozenset((ERRAND_PHASE, MARKET_PHASE, UNKNOWN_PHASE))  # an errand under way
_PLANNING_PHASES = frozenset(range(ERRAND_PHASE))  # the round before its errands
_ACTION_PHASES = frozenset(range(TURN_PHASE, BREED_PHASE + 1))  # an action turn under way
_ORDER_PHASES = frozenset(range(ERRAND_PHASE, GAME_OVER + 1))  # the plan order is set
# errand boys per player count and plan space
_ERRAND_BOYS = {
    n: tuple(p.errand_boys for p in CATALOGUE.plans[n]) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)
}


def errand_boys_left(s: GameState) -> list[int]:
    """Errand boys still to place this round, per absolute seat (public: errand occupancy).
    During the errands (the market and the unknown card included: the boy on it counts until
    its errand is done), those of the errand sequence not yet done; in planning, each chosen
    plan's; else none."""
    n, phase = s.n, s.phase
    if phase in _ERRAND_PHASES:
        rest = s.errand_seq[s.errand_i :]
        return [rest.count(p) for p in range(n)]
    if phase in _PLANNING_PHASES:
        boys = _ERRAND_BOYS[n]
        return [boys[p] if p >= 0 else 0 for p in s.plans]
    return [0] * n


def actions_left(s: GameState) -> int:
    """The acting player's actions left, shown during an action turn only (else 0)."""
    return s.actions if s.phase in _ACTION_PHASES else 0


def to_act(s: GameState, seat: int) -> int:
    """The seat that decides now, relative to `seat`; -1 when the game is over."""
    return (s.cur - seat) % s.n if s.phase != GAME_OVER and s.cur >= 0 else -1


def plan_order_known(s: GameState) -> bool:
    """Whether this round's plan order is set (from the errands on; before it, none is shown)."""
    return s.phase in _ORDER_PHASES


def keeps_shown(s: GameState, seat: int) -> bool:
    """Whether `seat` sees the starting cards kept so far (`keep_sel`): only the one keeping
    them; the others see only that a card was kept."""
    return s.cur == seat


def face_up_discards(s: GameState) -> tuple[tuple[int, ...], ...]:
    """The four discard piles without their face-down starting discards (the first `hidden[d]`
    cards of pile d)."""
    disc, hidden = s.discards, s.hidden
    return tuple([tuple(disc[d][hidden[d] :]) for d in range(4)])


# The slot descriptors of PlayerView in field order: `_view` sets them directly, which gives
# the object the frozen dataclass's __init__ would build at a fraction of its per-field cost
# (that __init__ goes through object.__setattr__ once per field, keywords parsed first).
_FIELDS = tuple(f.name for f in fields(PlayerView))
_SETTERS = tuple(getattr(PlayerView, name).__set__ for name in _FIELDS)


def _view(*values: Any) -> PlayerView:
    """PlayerView(*values), the fields in declaration order."""
    v = object.__new__(PlayerView)
    for put, x in zip(_SETTERS, values, strict=True):
        put(v, x)
    return v


def player_view(s: GameState, seat: int) -> PlayerView:
    """Exactly what `seat` may know now."""
    n = s.n
    if type(seat) is not int or not 0 <= seat < n:
        raise ValueError(f"seat {seat!r} is not at this table; seats are 0..{n - 1}")
    if _C is not None and s.results is None and type(s) is GameState:
        return _C.view(s, seat)
    return _py_player_view(s, seat)


def _py_player_view(s: GameState, seat: int) -> PlayerView:
    """`player_view` in Python: the definition (the seat already checked)."""
    n = s.n

    def rel(p: int) -> int:
        return (p - seat) % n if p >= 0 else -1

    hands = s.hands
    boards = s.boards
    order = list(range(seat, n)) + list(range(seat))
    # The per-card arrays (step, filled, used, priv) are zero for every card that is not on a
    # player board (an engine invariant checked by the playout tests), so they are public.
    return _view(
        n,  # num_players
        seat,  # seat
        s.round,  # round
        s.phase,  # phase
        to_act(s, seat),  # to_act
        rel(s.start),  # start_player
        _rot(s.money, seat, n),  # money
        tuple(sorted(hands[seat])),  # hand
        tuple([len(hands[p]) for p in order]),  # hand_sizes
        tuple([tuple(boards[p]) for p in order]),  # boards
        _rot(s.ext, seat, n),  # extensions
        tuple(s.step),  # value_step
        tuple(s.filled),  # filled_slots
        tuple(s.used),  # used
        tuple(s.priv),  # privilege_left
        tuple(s.offer),  # offer
        tuple([(p - seat) % n if p >= 0 else -1 for p in s.offer_boy]),  # offer_taken_by
        tuple(s.mods),  # modifiers
        tuple(s.tokens),  # tokens
        s.ext_left,  # extensions_left
        tuple([len(d) for d in s.decks]),  # deck_sizes
        len(s.special),  # special_deck_size
        face_up_discards(s),  # discards
        tuple(s.hidden),  # hidden_discards
        tuple(s.box),  # box
        len(s.jokers),  # jokers_in_supply
        _rot(s.plans, seat, n),  # plans
        tuple(s.blocked),  # blocked_plans
        tuple([rel(p) for p in s.order]) if plan_order_known(s) else (),  # plan_order
        s.market_used,  # market_used
        s.opera_used,  # opera_used
        s.ext_used,  # extension_errands
        _rot(s.unknown_used, seat, n),  # unknown_used
        _rot(errand_boys_left(s), seat, n),  # errand_boys_left
        actions_left(s),  # actions
        s.resolving,  # resolving
        s.using,  # using
        tuple([tuple(sorted(s.known[p])) for p in order]),  # known_hands
        s.res_spend,  # resolving_spend
        s.res_addon,  # resolving_addon
        s.res_left,  # resolving_left
        tuple(s.draw_queue),  # draw_queue
        s.draw_mand,  # draws_left
        s.draw_stage,  # draw_stage
        tuple(sorted(s.keep_sel)) if keeps_shown(s, seat) else (),  # keep_selected
        s.final,  # final_round
        None if s.results is None else _rotated_results(s.results, seat, n),  # results
    )


def _rotated_results(r: dict[str, Any], seat: int, n: int) -> dict[str, Any]:
    """A finished game's results with seats relative to `seat`."""
    return {
        "winner": (r["winner"] - seat) % n if r["winner"] >= 0 else -1,
        "ranks": list(_rot(r["ranks"], seat, n)),
        "money": list(_rot(r["money"], seat, n)),
        "property_value": list(_rot(r["property_value"], seat, n)),
        "totals": list(_rot(r["totals"], seat, n)),
        "plan_order": list(_rot(r["plan_order"], seat, n)),
        "bankrupt": list(_rot(r["bankrupt"], seat, n)),
        "rounds": r["rounds"],
        "decided_by": r["decided_by"],
    }


VIEWS = COMPILED["LASTWILL_VIEW"].choices
# the C header of the view rules both compiled modules include (lastwill_env/_lwview.h)
C_HEADER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "_lwview.h")


def _c_consts() -> dict[str, Any]:
    """The constants of the rules above, for the compiled modules: `_cview.configure` reads
    them, and `_cwriter.configure` too (`lastwill_env.sparse._c_layout` adds its layout)."""
    return {
        "errand_phases": tuple(sorted(_ERRAND_PHASES)),
        "planning_phases": tuple(sorted(_PLANNING_PHASES)),
        "action_phases": tuple(sorted(_ACTION_PHASES)),
        "order_phases": tuple(sorted(_ORDER_PHASES)),
        "game_over": GAME_OVER,
        "min_players": MIN_PLAYERS,
        "max_players": MAX_PLAYERS,
        "errand_boys": dict(_ERRAND_BOYS),
    }


def load_accelerator(var: str, choice: str):  # -> the module or None
    """`load_compiled` of the `COMPILED` module that `var` chooses (`_cview` or `_cwriter`) as
    `var=choice` asks, with the warning for a build older than `C_HEADER` too."""
    c = COMPILED[var]
    mod = load_compiled(var, choice, c.choices, c.fallback, c.module)
    if mod is not None:
        warn_if_stale(mod.__file__, C_HEADER)
    return mod


def _load_compiled(choice: str):  # -> the configured module or None
    _cview = load_accelerator("LASTWILL_VIEW", choice)
    if _cview is None:
        return None
    _cview.configure(GameState, PlayerView, _c_consts())
    return _cview


_C = _load_compiled(os.environ.get("LASTWILL_VIEW", "auto"))
VIEW = "python" if _C is None else "compiled"
