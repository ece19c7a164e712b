"""Validation of a game state loaded from plain data (`GameState.from_dict`).

Two layers, each a table, so a new state field is one entry in each:

- `FIELDS`: one check per state field, on the JSON value alone (type, length, range), given the
  configuration. Every field of `GameState.__slots__` (but `cfg` and `_legal`) has one; a test
  keeps it so. Every number is bounded by what the rules can reach (the bounds below, each
  derived from the card data and the rules: `MONEY_LIMIT`, `MAX_ACTIONS`, `MAX_PAYMENT`...), so
  a loaded state never holds a number no game can (2**63 money), which the compiled writers
  could not read.
- `RELATIONS`: checks across fields, each named after the field it blames: every card in
  exactly one place of the right kind (docs/RULES.md §2: decks, discards, box, joker supply, offer
  spaces, hands, boards, the card being resolved), property counts and the spending limit
  (§5), companion tokens and extension tiles conserved, cards off the boards carrying no value
  steps, tokens or privileges,
  the pending decision agreeing with the state (whose turn it is in which sequence, the card
  being resolved or used), the publicly known hand cards (§10) being in those hands, the
  results being those of the final state, a legal action existing before the end, and last
  the recorded `history`, replayed from the deal of `seed`, reaching this very state (skipped
  for seed null: a position arranged by hand or determinized has no deal to replay from).

A problem raises `StateError` (a `ValueError`) that names the field, and for a number out of
range the value and the range: "game state field 'money': entry 1: 9223372036854775808 is out
of range -153374..153374 (...)". Hand-made positions (`lastwill_env.engine.builders`: money
and modifier tiles set directly) load too: money is not checked against the ledger (only its
bound), nor the tiles against the printed set (each only within the printed tiles' range).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, Protocol

from gamecore.plain import is_int

from .actions import NUM_ACTIONS
from .cards import CATALOGUE, DECK_COUNTS, DECKS, CardSpec
from .config import STARTING_MONEY_CHOICES, GameConfig
from .rng import MASK64
from .tables import (
    ADDON_PHASE,
    BALL_PHASE,
    BLOCK_PHASE,
    BREED_PHASE,
    CARDS,
    DECK_OF,
    DISCARD_PHASE,
    DRAW_PHASE,
    ERRAND_PHASE,
    GAME_OVER,
    K_EVENT,
    K_EXPENSE,
    K_HELPER,
    K_JOKER,
    K_PROPERTY,
    K_WILL,
    KEEP_PHASE,
    KIND,
    MARKET_PHASE,
    NUM_CARDS,
    NUM_PHASES,
    NUM_ROUNDS,
    OPTION_PHASE,
    PHASE_NAMES,
    PLAN_PHASE,
    ROOM_PHASE,
    TURN_PHASE,
    UNKNOWN_PHASE,
    WILD_PHASE,
)


class State(Protocol):
    """What these checks read of a loaded `GameState` (`lastwill_env.engine.game`), which
    `GameState.from_dict` hands in: typed here, so that this module does not import the rules,
    not even for their types."""

    cfg: GameConfig
    n: int
    seed: int | None
    round: int
    phase: int
    cur: int | None
    money: list[int]
    nprops: list[int]
    hands: list[list[int]]
    boards: list[list[int]]
    ext: list[int]
    step: list[int]
    filled: list[int]
    used: list[int]
    priv: list[int]
    decks: list[list[int]]
    special: list[int]
    discards: list[list[int]]
    hidden: list[int]
    box: list[int]
    jokers: list[int]
    offer: list[int | None]
    tokens: list[int]
    ext_left: int
    plans: list[int]
    blocked: list[int]
    plan_seq: tuple[int, ...]
    plan_i: int
    order: tuple[int, ...]
    errand_seq: tuple[int, ...]
    errand_i: int
    turn_i: int
    resolving: int | None
    using: int | None
    known: list[list[int]]
    res_addon: int
    res_left: int
    keep_sel: list[int]
    discard_seq: tuple[int, ...]
    discard_i: int
    history: list[int]
    results: dict[str, Any] | None
    _legal: list[int] | None

    def clone(self) -> State: ...


class Rules(NamedTuple):
    """The rules a loaded state is checked against (`GameState.from_dict` passes the
    engine's): handed in, so that this module and the rules do not import each other."""

    new_game: Callable[[GameConfig, int], State]
    apply_action: Callable[[State, int], None]
    legal_actions: Callable[[State], list[int]]
    results: Callable[[State], dict[str, Any]]
    illegal: type[Exception]  # what apply_action raises for an action outside the legal set


class StateError(ValueError):
    """A game state that the rules cannot reach; the message names the field."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"game state field {field!r}: {problem}")
        self.field = field


# ---------------------------------------------------------------------------------------------
# Field checks: (value, players, config) -> problem or None

Check = Callable[[Any, int, GameConfig], "str | None"]


_INT_TYPE = {int}


class _Range:
    """An integer in a range (bounds may depend on the players and config); `all_ok` checks a
    whole list at once (the common case), the call names the problem (`why`: where the range
    comes from, said with it)."""

    def __init__(self, lo, hi, what: str | None = None, why: str = "") -> None:
        self.lo, self.hi, self.what, self.why = lo, hi, what, why

    def bounds(self, n: int, cfg: GameConfig) -> tuple[int | None, int | None]:
        lo = self.lo(n, cfg) if callable(self.lo) else self.lo
        hi = self.hi(n, cfg) if callable(self.hi) else self.hi
        return lo, hi

    def all_ok(self, values: Any, n: int, cfg: GameConfig) -> bool:
        if not values:
            return True
        if not set(map(type, values)) <= _INT_TYPE:
            return False
        lo, hi = self.bounds(n, cfg)
        return (lo is None or min(values) >= lo) and (hi is None or max(values) <= hi)

    def __call__(self, v: Any, n: int, cfg: GameConfig) -> str | None:
        lo, hi = self.bounds(n, cfg)
        if is_int(v) and (lo is None or v >= lo) and (hi is None or v <= hi):
            return None
        if self.what:
            return f"expected {self.what(n, cfg) if callable(self.what) else self.what}, got {v!r}"
        if not is_int(v):
            return f"expected an integer, got {v!r}"
        span = f"{'...' if lo is None else lo}..{'...' if hi is None else hi}"
        return f"{v} is out of range {span}" + (f" ({self.why})" if self.why else "")


def integer(lo=None, hi=None, why: str = "") -> _Range:
    return _Range(lo, hi, why=why)


def boolean(v: Any, n: int, cfg: GameConfig) -> str | None:
    return None if isinstance(v, bool) else f"expected true or false, got {v!r}"


def seat(allow_none: bool = False) -> _Range:
    return _Range(
        -1 if allow_none else 0,
        lambda n, cfg: n - 1,
        lambda n, cfg: f"a seat 0..{n - 1}{' or -1' if allow_none else ''}",
    )


def card(allow_none: bool = False) -> _Range:
    what = f"a card id 0..{NUM_CARDS - 1}{' or -1' if allow_none else ''}"
    return _Range(-1 if allow_none else 0, NUM_CARDS - 1, what)


Size = int | Callable[[int, GameConfig], int] | None


def _size(size: Size, n: int, cfg: GameConfig) -> int | None:
    return size(n, cfg) if callable(size) else size


def items(inner: Check, length: Size = None, most: Size = None) -> Check:
    """A list (a tuple too) whose entries all pass `inner`, of a fixed length or at most `most`
    entries if given."""

    def check(v: Any, n: int, cfg: GameConfig) -> str | None:
        if not isinstance(v, (list, tuple)):
            return f"expected a list, got {type(v).__name__}"
        want, cap = _size(length, n, cfg), _size(most, n, cfg)
        if want is not None and len(v) != want:
            return f"expected {want} entries, got {len(v)}"
        if cap is not None and len(v) > cap:
            return f"expected at most {cap} entries, got {len(v)}"
        if isinstance(inner, _Range) and inner.all_ok(v, n, cfg):
            return None
        for i, x in enumerate(v):
            problem = inner(x, n, cfg)
            if problem:
                return f"entry {i}: {problem}"
        return None

    return check


def per_seat(inner: Check) -> Check:
    return items(inner, lambda n, cfg: n)


def per_card(inner: Check) -> Check:
    return items(inner, NUM_CARDS)


def per_deck(inner: Check) -> Check:
    return items(inner, 4)


def optional_dict(v: Any, n: int, cfg: GameConfig) -> str | None:
    return None if v is None or isinstance(v, dict) else f"expected null or an object, got {v!r}"


def game_seed(v: Any, n: int, cfg: GameConfig) -> str | None:
    """A deal seed (0..2**64 - 1, as `new_game` takes), or null for a position that was not
    dealt: arranged by hand (builders) or determinized."""
    if v is None or (is_int(v) and 0 <= v <= MASK64):
        return None
    return f"expected a game seed 0..2**64 - 1 or null, got {v!r}"


def ledger_entry(v: Any, n: int, cfg: GameConfig) -> str | None:
    """One payment (negative) or receipt: [seat, amount, what, card or -1]; no payment moves
    more than `MAX_PAYMENT`."""
    if (
        not isinstance(v, (list, tuple))
        or len(v) != 4
        or type(v[0]) is not int
        or not 0 <= v[0] < n
        or type(v[1]) is not int
        or not 0 < abs(v[1]) <= MAX_PAYMENT
        or not isinstance(v[2], str)
        or type(v[3]) is not int
        or not -1 <= v[3] < NUM_CARDS
    ):
        return (
            f"expected [seat 0..{n - 1}, amount 1..{MAX_PAYMENT} or -{MAX_PAYMENT}..-1, what, "
            f"card -1..{NUM_CARDS - 1}], got {v!r}"
        )
    return None


def _last_plan(n: int, cfg: GameConfig) -> int:
    return len(CATALOGUE.plans[n]) - 1


def _offer_spaces(n: int, cfg: GameConfig) -> int:
    return len(CATALOGUE.offer_schedule[n])


def _plan_steps(n: int, cfg: GameConfig) -> int:
    """Planning decisions a round (§4.2): one plan a seat, and two blocks at 2 players."""
    return n + 2 if n == 2 else n


def _errand_steps(n: int, cfg: GameConfig) -> int:
    """Errand boys placed in a round (§4.3): at most every seat's plan gives the most."""
    return n * max(p.errand_boys for p in CATALOGUE.plans[n])


def _seats(n: int, cfg: GameConfig) -> int:
    return n


# ---------------------------------------------------------------------------------------------
# Bounds: the most each number of a state can reach, from the card data (docs/CARDS.md, read
# by `lastwill_env.engine.cards`) and the rules (docs/RULES.md). A bound may be generous (no
# game need reach it), but no game passes it, so every number of a loaded state fits what the
# writers read it into (the compiled ones read C longs).

_SPECS = CATALOGUE.cards
_ALL_PLANS = [p for plans in CATALOGUE.plans.values() for p in plans]
NUM_PROPERTIES = sum(1 for c in _SPECS if c.category == "property")  # §2: 24 properties
NUM_FARMS = sum(1 for c in _SPECS if c.category == "property" and c.prop_type == 0)
MAX_STEP = max(len(c.values) for c in _SPECS) - 1  # the last step of the longest value track
MAX_SLOTS = max(len(c.slots) for c in _SPECS)  # companion slots of one card (§4.4)
MAX_PRIVILEGES = max(c.free_per_round for c in _SPECS)  # one helper's free actions a round
MAX_TOKENS = max(CATALOGUE.token_supply)  # §2: the largest token supply
MAX_HIDDEN = max(DECK_COUNTS[d] for d in DECKS)  # a discard pile holds at most its deck
MAX_ADDONS = max(len(c.addons) for c in _SPECS)  # an event's add-ons, offered one at a time


def _extra_draws(kind: str) -> int:
    return sum(c.extra_draw_count for c in _SPECS if c.extra_draw == kind)


# §4.2: the plan's cards plus every "any" extra draw (school chums), then the optional extra
# companions or events, one kind at a time
MAX_PLAN_DRAWS = max(p.cards for p in _ALL_PLANS) + _extra_draws("any")
MAX_EXTRA_DRAWS = max(_extra_draws("companions"), _extra_draws("events"))
MAX_DRAW_QUEUE = MAX_PLAN_DRAWS + _extra_draws("companions") + _extra_draws("events")
# §4.4: a turn starts with the plan's actions plus one per old friend, and only the hectic
# days (special events, played once a game) give actions back
MAX_ACTIONS = (
    max(p.actions for p in _ALL_PLANS)
    + sum(c.extra_actions for c in _SPECS)
    + sum(c.gain_actions for c in _SPECS)
)


def _largest_amount(c: CardSpec) -> int:
    """The most one decision about card c moves before helpers and the market: its play cost,
    every add-on and the largest of its other amounts (spend, a Ball row, upkeep, a slot's
    option, a value; a training ground counts every farm and every token of the supply)."""
    per_farm, per_horse, per_dog = c.training
    horses, dogs = CATALOGUE.token_supply[:2]
    training = per_farm * NUM_FARMS + per_horse * horses + per_dog * dogs
    amounts = (c.spend, c.upkeep, training, *c.values, *dict(c.ball).values())
    slots = tuple(a for _, a in c.slots)
    return c.play_cost + sum(a for _, a in c.addons) + max(amounts + slots)


# The most one payment or receipt moves (a ledger entry): the largest card amount (or the
# opera), the largest modifier tile (a purchase or a sale), and every helper's bonus and
# estate agent's surcharge at once.
MAX_PAYMENT = (
    max(max(map(_largest_amount, _SPECS)), CATALOGUE.opera_cost)
    + max(abs(m) for m in CATALOGUE.modifiers)
    + sum(c.bonus_amount + c.buy_surcharge for c in _SPECS)
)
# Money. A seat starts with at most the largest will card (§3.6, §9). In a round its money
# moves only at the opera (once) and in its own turn, where each card is played from the hand,
# used and sold at most once (§4.4: a card that leaves a hand or a board goes to a pile it does
# not come back from that turn; a board card is used once a round). So no game takes a seat's
# money past MONEY_LIMIT either way (debt: §5).
_MOST_START = max(
    *(m for m in STARTING_MONEY_CHOICES if isinstance(m, int)),
    *(c.money for c in _SPECS if c.category == "will"),
)
MONEY_LIMIT = _MOST_START + NUM_ROUNDS * (1 + 3 * NUM_CARDS) * MAX_PAYMENT

_MONEY = integer(-MONEY_LIMIT, MONEY_LIMIT, "the most money a game can move, docs/RULES.md §5")
_CARDS = items(card(), most=NUM_CARDS)
_SEAT_ORDER = items(seat(), most=_seats)

# One check per field of GameState.__slots__ (but cfg and _legal), in slot order.
FIELDS: dict[str, Check] = {
    "n": integer(2, 5),
    "rng": integer(0, MASK64),
    "seed": game_seed,
    "round": integer(1, NUM_ROUNDS, "the rounds of a game"),
    "phase": integer(0, NUM_PHASES - 1),
    "cur": seat(allow_none=True),
    "start": seat(),
    "money": per_seat(_MONEY),
    "nprops": per_seat(integer(0, NUM_PROPERTIES, "the properties in the game")),
    "hands": per_seat(_CARDS),
    "boards": per_seat(_CARDS),
    "ext": per_seat(integer(0, CATALOGUE.extensions, "the extensions in the game")),
    "step": per_card(integer(0, MAX_STEP, "the longest value track")),
    "filled": per_card(integer(0, MAX_SLOTS, "the most companion slots of a card")),
    "used": per_card(integer(0, 1)),
    "priv": per_card(integer(0, MAX_PRIVILEGES, "the most free actions of a helper")),
    "decks": per_deck(_CARDS),
    "special": _CARDS,
    "discards": per_deck(_CARDS),
    "hidden": per_deck(integer(0, MAX_HIDDEN, "the largest deck")),
    "box": _CARDS,
    "jokers": _CARDS,
    "offer": items(card(allow_none=True), _offer_spaces),
    "offer_boy": items(seat(allow_none=True), _offer_spaces),
    "tokens": items(integer(0, MAX_TOKENS, "the largest token supply"), 4),
    "mods": items(integer(min(CATALOGUE.modifiers), max(CATALOGUE.modifiers), "the tiles"), 4),
    "ext_left": integer(0, CATALOGUE.extensions),
    "plans": per_seat(integer(-1, _last_plan)),
    "blocked": items(integer(0, _last_plan), most=2),
    "plan_seq": items(seat(), most=_plan_steps),
    "plan_i": integer(0, _plan_steps, "the planning decisions of a round"),
    "order": _SEAT_ORDER,
    "errand_seq": items(seat(), most=_errand_steps),
    "errand_i": integer(0, _errand_steps, "the errand boys of a round"),
    "market_used": boolean,
    "opera_used": boolean,
    "ext_used": integer(0, lambda n, cfg: CATALOGUE.extension_capacity[n]),
    "unknown_used": per_seat(boolean),
    "actions": integer(0, MAX_ACTIONS, "the most actions a turn can hold"),
    "turn_i": integer(0, _seats, "one turn a seat"),
    "resolving": card(allow_none=True),
    "using": card(allow_none=True),
    "known": per_seat(_CARDS),
    "res_spend": integer(0, MAX_PAYMENT, "the most one payment moves"),
    "res_addon": integer(0, MAX_ADDONS, "the most add-ons of an event"),
    "res_left": integer(0, 3),
    "draw_queue": items(integer(0, 3), most=MAX_DRAW_QUEUE),
    "draw_mand": integer(0, MAX_PLAN_DRAWS, "the most cards a plan draws"),
    "draw_stage": integer(0, 2),
    "draw_extra": integer(0, MAX_EXTRA_DRAWS, "the most extra draws of one kind"),
    "keep_sel": _CARDS,
    "discard_seq": _SEAT_ORDER,
    "discard_i": integer(0, _seats, "one discard turn a seat"),
    "final": boolean,
    "history": items(integer(0, NUM_ACTIONS - 1)),
    "ledger": items(ledger_entry),
    "results": optional_dict,
}


def check_fields(data: dict[str, Any], cfg: GameConfig) -> None:
    """Each field of a state dict on its own (before the state is built)."""
    n = data.get("n")
    if FIELDS["n"](n, 0, cfg) is None and n != cfg.num_players:
        raise StateError("n", f"{n} players but the config has {cfg.num_players}")
    for name, check in FIELDS.items():
        problem = check(data[name], cfg.num_players, cfg)
        if problem:
            raise StateError(name, problem)


# ---------------------------------------------------------------------------------------------
# Relations across fields: (state) -> problem or None, blamed on the named field

_DECK_PILES = tuple(range(4))
_SPECIAL, _JOKER_DECK, _WILL_DECK = 4, 5, 6
_ON_BOARD = (K_HELPER, K_EXPENSE, K_PROPERTY)


def _card_places(s: State) -> tuple[str, str] | None:
    seen: dict[int, str] = {}
    places: list[tuple[str, list[int] | tuple[int, ...], Callable[[int], bool] | None]] = []
    for d in _DECK_PILES:
        places.append((f"decks[{d}]", s.decks[d], lambda c, d=d: DECK_OF[c] == d))
        places.append((f"discards[{d}]", s.discards[d], lambda c, d=d: DECK_OF[c] == d))
    places.append(("special", s.special, lambda c: DECK_OF[c] == _SPECIAL))
    places.append(("box", s.box, lambda c: DECK_OF[c] in (_SPECIAL, _WILL_DECK)))
    places.append(("jokers", s.jokers, lambda c: KIND[c] == K_JOKER))
    for p in range(s.n):
        places.append((f"hands[{p}]", s.hands[p], lambda c: KIND[c] != K_WILL))
        places.append((f"boards[{p}]", s.boards[p], lambda c: KIND[c] in _ON_BOARD))
    places.append(("offer", [c for c in s.offer if c >= 0], lambda c: KIND[c] != K_WILL))
    if s.resolving >= 0:
        places.append(("resolving", [s.resolving], None))
    for where, pile, fits in places:
        for c in pile:
            field = where.split("[")[0]
            if c in seen:
                return field, f"card {c} ({CARDS[c].name}) is in {seen[c]} and in {where}"
            seen[c] = where
            if fits is not None and not fits(c):
                return field, f"card {c} ({CARDS[c].name}) cannot be in {where}"
    if len(seen) != NUM_CARDS:
        lost = sorted(set(range(NUM_CARDS)) - set(seen))
        names = ", ".join(f"{c} ({CARDS[c].name})" for c in lost[:5])
        return "decks", f"{len(lost)} card(s) are in no place (every card is somewhere): {names}"
    return None


def _hidden(s: State) -> str | None:
    for d in _DECK_PILES:
        if s.hidden[d] > len(s.discards[d]):
            return f"{s.hidden[d]} face-down cards in discard pile {d} of {len(s.discards[d])}"
    return None


def _on_board(s: State) -> set[int]:
    return {c for b in s.boards for c in b}


def _card_marks(s: State) -> str | None:
    board = _on_board(s)
    for c in range(NUM_CARDS):
        spec = CARDS[c]
        if c not in board:
            if s.step[c] or s.filled[c] or s.used[c] or s.priv[c]:
                return f"card {c} ({spec.name}) is not on a board but carries marks"
            continue
        if s.step[c] > max(0, len(spec.values) - 1):
            return f"card {c} ({spec.name}) has value step {s.step[c]} of {len(spec.values)}"
        if s.filled[c] > len(spec.slots):
            return f"card {c} ({spec.name}) has {s.filled[c]} of {len(spec.slots)} slots filled"
        if s.priv[c] > spec.free_per_round:
            return f"card {c} ({spec.name}) has {s.priv[c]} privileges of {spec.free_per_round}"
    return None


def _nprops(s: State) -> str | None:
    for p in range(s.n):
        owned = sum(1 for c in s.boards[p] if KIND[c] == K_PROPERTY)
        if (
            s.phase == ROOM_PHASE
            and s.cur == p
            and s.resolving >= 0
            and KIND[s.resolving] == K_PROPERTY
        ):
            owned += 1  # bought, waiting for room
        if s.nprops[p] != owned:
            return f"seat {p} is said to own {s.nprops[p]} properties but owns {owned}"
    return None


def _boards(s: State) -> str | None:
    for p in range(s.n):
        cap = s.cfg.board_spaces + s.ext[p]
        if len(s.boards[p]) > cap:
            return f"seat {p} has {len(s.boards[p])} cards on a board of {cap} spaces"
    return None


def _tokens(s: State) -> str | None:
    out = [0, 0, 0, 0]
    for c in _on_board(s):
        for t, _ in CARDS[c].slots[: s.filled[c]]:
            out[t] += 1
    for t in range(4):
        if s.tokens[t] + out[t] != CATALOGUE.token_supply[t]:
            return (
                f"{s.tokens[t]} tokens of type {t} in the supply and {out[t]} on boards; "
                f"there are {CATALOGUE.token_supply[t]}"
            )
    return None


def _ext(s: State) -> str | None:
    if sum(s.ext) + s.ext_left != CATALOGUE.extensions:
        return (
            f"{sum(s.ext)} extensions on boards and {s.ext_left} left; there are "
            f"{CATALOGUE.extensions}"
        )
    return None


def _money(s: State) -> str | None:
    for p in range(s.n):
        if s.nprops[p] and s.money[p] < 0:
            return f"seat {p} owns a property but has £{s.money[p]} (docs/RULES.md §5)"
    return None


def _plan_spaces(s: State) -> str | None:
    chosen = [p for p in s.plans if p >= 0]
    if len(set(chosen)) != len(chosen) or set(chosen) & set(s.blocked):
        return f"plan spaces {s.plans} are taken twice (blocked: {s.blocked})"
    return None


def _blocked(s: State) -> str | None:
    if len(set(s.blocked)) != len(s.blocked) or len(s.blocked) > (2 if s.n == 2 else 0):
        return f"{s.blocked} cannot be blocked at {s.n} players"
    return None


def _order(s: State) -> str | None:
    if s.order and sorted(s.order) != list(range(s.n)):
        return f"{s.order} is not a turn order of {s.n} seats"
    return None


def _at(seq: tuple[int, ...], i: int, name: str, s: State) -> str | None:
    if i >= len(seq):
        return f"{name} {i} is past the end of {list(seq)}"
    if s.cur != seq[i]:
        return f"seat {s.cur} is to act but {name} {i} of {list(seq)} names seat {seq[i]}"
    return None


def _phase(s: State) -> str | None:
    ph = s.phase
    name = PHASE_NAMES[ph]
    if (ph == GAME_OVER) != (s.cur == -1):
        return f"'{name}' with seat {s.cur} to act"
    if (ph == GAME_OVER) != (s.results is not None):
        return f"'{name}' {'without' if ph == GAME_OVER else 'with'} results"
    if ph == KEEP_PHASE:
        if s.round != 1:
            return f"'{name}' in round {s.round}; starting cards are kept in round 1"
        if len(s.keep_sel) > 1 or any(c not in s.hands[s.cur] for c in s.keep_sel):
            return f"kept cards {s.keep_sel} are not in the hand of seat {s.cur}"
    elif s.keep_sel:
        return f"kept cards {s.keep_sel} outside '{PHASE_NAMES[KEEP_PHASE]}'"
    if ph == BLOCK_PHASE and (s.n != 2 or len(s.blocked) >= 2):
        return f"'{name}' at {s.n} players with {len(s.blocked)} spaces blocked"
    if ph in (BLOCK_PHASE, PLAN_PHASE, DRAW_PHASE):
        problem = _at(s.plan_seq, s.plan_i, "plan_i", s)
        if problem:
            return problem
        if (ph == DRAW_PHASE) != (s.plans[s.cur] >= 0):
            return f"'{name}' but seat {s.cur} has plan {s.plans[s.cur]}"
    if ph in (ERRAND_PHASE, MARKET_PHASE, UNKNOWN_PHASE):
        problem = _at(s.errand_seq, s.errand_i, "errand_i", s)
        if problem:
            return problem
    if TURN_PHASE <= ph <= BREED_PHASE:
        if not s.order:
            return f"'{name}' without a turn order"
        problem = _at(s.order, s.turn_i, "turn_i", s)
        if problem:
            return problem
    if ph == DISCARD_PHASE:
        problem = _at(s.discard_seq, s.discard_i, "discard_i", s)
        if problem:
            return problem
    c = s.resolving
    if ph in (ADDON_PHASE, BALL_PHASE):
        if c < 0 or KIND[c] != K_EVENT:
            return f"'{name}' without an event being played (resolving {c})"
        if ph == ADDON_PHASE and s.res_addon >= len(CARDS[c].addons):
            return f"add-on {s.res_addon} of {CARDS[c].name}, which has {len(CARDS[c].addons)}"
        if ph == BALL_PHASE and not CARDS[c].ball:
            return f"'{name}' for {CARDS[c].name}, which has no Ball table"
    elif ph == ROOM_PHASE:
        if c < 0 or KIND[c] not in _ON_BOARD:
            return f"'{name}' without a card to place (resolving {c})"
        if len(s.boards[s.cur]) < s.cfg.board_spaces + s.ext[s.cur]:
            return f"'{name}' but the board of seat {s.cur} has room"
    elif c >= 0:
        return f"card {c} ({CARDS[c].name}) is being played during '{name}'"
    u = s.using
    if (ph == OPTION_PHASE) != (u >= 0):
        return f"'{name}' with card {u} being used"
    if u >= 0 and (u not in s.boards[s.cur] or s.used[u]):
        return f"card {u} ({CARDS[u].name}) is being used but is not an unused card of seat {s.cur}"
    if ph in (WILD_PHASE, BREED_PHASE) and s.res_left < 1:
        return f"'{name}' with no steps left"
    if ph == GAME_OVER and any(x >= 0 for x in s.offer):
        return "cards are left on the offer board after the game"
    return None


def _known(s: State) -> str | None:
    """§10: the cards recorded as publicly known in a hand are in that hand."""
    for p in range(s.n):
        k = s.known[p]
        if len(set(k)) != len(k) or any(c not in s.hands[p] for c in k):
            return f"seat {p}: known cards {k} are not all in its hand"
    return None


def _results_match(s: State, rules: Rules) -> str | None:
    if s.results is None:
        return None
    try:
        want = rules.results(s)
    except (KeyError, IndexError, TypeError) as e:
        return f"the final state cannot be scored ({type(e).__name__}: {e})"
    if s.results != want:
        return "the recorded results are not those of the final state"
    return None


# The last deal replayed by `_history` (one entry: config, seed, decisions, state reached, never
# changed once stored). Loading the positions of one game in order (a viewer stepping through
# it, a test round-tripping each position) then plays each decision once, not once per load.
_replayed: list[tuple[GameConfig, int, list[int], State]] = []


def _replay_from_deal(s: State, rules: Rules) -> tuple[State, int | None]:
    """The state `s.history` reaches from the deal of `s.seed`, and the index of the first
    decision that is not legal there (None when every decision is)."""
    dealt, start = None, 0
    if _replayed:
        cfg, seed, done, state = _replayed[0]
        k = len(done)
        if cfg == s.cfg and seed == s.seed and k <= len(s.history) and s.history[:k] == done:
            dealt, start = state.clone(), k
    if dealt is None:
        dealt = rules.new_game(s.cfg, s.seed)
    for i in range(start, len(s.history)):
        try:
            rules.apply_action(dealt, s.history[i])
        except rules.illegal:
            return dealt, i
    _replayed[:] = [(s.cfg, s.seed, list(s.history), dealt)]  # the caller only reads it
    return dealt, None


def _history(s: State, rules: Rules) -> str | None:
    """The recorded decisions, played from the deal of `seed`, reach this very state. A state
    with seed null (arranged by hand or determinized) has no deal to replay from."""
    if s.seed is None:
        return None
    dealt, bad = _replay_from_deal(s, rules)
    if bad is not None:
        return (
            f"decision {bad} ({s.history[bad]}) is not legal in the game dealt by seed "
            f"{s.seed}; the history is not this game's"
        )
    fields = [k for k in type(s).__slots__ if k != "_legal"]
    differ = [k for k in fields if getattr(s, k) != getattr(dealt, k)]
    if differ:
        return (
            f"the {len(s.history)} recorded decisions from the deal of seed {s.seed} lead to "
            f"another state (it differs in {differ}); a position arranged by hand has seed null"
        )
    return None


def _legal(s: State, rules: Rules) -> str | None:
    if s.phase == GAME_OVER:
        return None
    try:
        legal = rules.legal_actions(s)
    except Exception as e:  # noqa: BLE001 - any failure means the state is inconsistent
        return f"'{PHASE_NAMES[s.phase]}' does not agree with the state ({type(e).__name__})"
    finally:
        s._legal = None
    if not legal:
        return f"no legal action in '{PHASE_NAMES[s.phase]}'"
    return None


# (field blamed, check), in order: a later check may rely on an earlier one. A check may also
# return (field, problem) to blame another field. The last ones play the rules (`Rules`).
RELATIONS: list[tuple[str, Callable[[State], Any]]] = [
    ("decks", _card_places),
    ("hidden", _hidden),
    ("step", _card_marks),
    ("nprops", _nprops),
    ("boards", _boards),
    ("tokens", _tokens),
    ("ext_left", _ext),
    ("money", _money),
    ("plans", _plan_spaces),
    ("blocked", _blocked),
    ("order", _order),
    ("known", _known),
    ("phase", _phase),
]
RULE_RELATIONS: list[tuple[str, Callable[[State, Rules], Any]]] = [
    ("results", _results_match),
    ("phase", _legal),
    ("history", _history),
]


def check_state(s: State, rules: Rules) -> None:
    """The relations of a built state (after `check_fields`), the rules' own last."""
    checks = [(name, check, ()) for name, check in RELATIONS]
    checks += [(name, check, (rules,)) for name, check in RULE_RELATIONS]
    for name, check, extra in checks:
        problem = check(s, *extra)
        if isinstance(problem, tuple):
            name, problem = problem
        if problem:
            raise StateError(name, problem)
