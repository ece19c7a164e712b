"""The rules of Last Will: state, legal actions, transitions, results.

Implements docs/RULES.md §3 (setup, keep-2 starting hand), §4 (preparation, planning with the
two-player blocking procedure and blind deck-split draws, errands, the action phase with events,
add-ons, Ball tables, black-border cards, make-room discards, helper privileges, properties,
companions, jokers and special cards), §5 (spending limit, debt, bankruptcy), §6 (end of round),
§7 (end of game), §8 (winner and ties) and every ruling of §9. Card numbers come from the
catalogue (`cards.py`, docs/CARDS.md).

Conventions fixed here where docs/RULES.md leaves a detail open (each is tested):
- The state is mutated in place by `apply_action`; `clone()` copies it cheaply.
- A payment is legal when the payer owns no property after the payment, or keeps at least £0.
  So buying a property needs its whole price in cash (the buyer owns a property after it).
- Helper bonuses ("may spend £N more") are added one helper at a time, each when affordable.
  Price shifts of estate agents are applied only in the goal's direction: a house purchase costs
  £2 more per EstateAgent_1/_2, a sale receives less (EstateAgent_1/_2: £2 on houses,
  EstateAgent_3: £2 on farms, EstateAgent_S2: £4 on houses); never a cheaper purchase.
- Free actions of helpers (stewards, estate agents, the valet) are spent automatically before
  the action marker whenever they apply; a helper's privilege works from the moment it is placed.
- Old friends add their action when the action marker is set at the start of a turn.
- SchoolChum_S adds two cards to every plan draw, decided with the plan cards; SchoolChum_3/_4
  offer up to three optional extra companion / event draws, also decided before any card is seen.
- Wild Party's three steps are mandatory while a house of the player can still lose value.
- A used joker goes back beside the offer board at once.
- Errands: an offer space with no card, a used market/opera, a full extension space and a
  deck-less unknown card are not legal; if no errand space is legal, `pass` skips that errand boy.
- Using a board card whose companion slots are filled (§4.4) asks for the option when more than
  one can be picked (`use_option`): the printed amount or any filled slot's amount; a property
  owner is offered only the options it can pay (§5). With one option it is applied at once.
- §10: a card taken from the offer board is recorded as publicly known in that hand
  (`GameState.known`) until it leaves the hand (a companion or joker leaving the hand removes
  one recorded card of its type).
- After the final round the hand-limit discard is skipped (it cannot change the result);
  depreciation still happens and counts for the final valuation.
"""

from __future__ import annotations

import operator
from typing import Any

from gamecore.plain import is_int

from . import rng as _rng
from .actions import (
    ACTION_TABLE,
    ADDON_CARD,
    ADDON_JOKER,
    ATTACH_CARD,
    ATTACH_JOKER,
    BALL,
    BLOCK,
    DISCARD,
    DISCARD_COMPANION,
    DRAW,
    ERRAND,
    ERRAND_EXTENSION,
    ERRAND_MARKET,
    ERRAND_OPERA,
    ERRAND_UNKNOWN,
    KEEP,
    MARKET,
    MARKET_PERMUTATIONS,
    PASS,
    PLAN,
    PLAY,
    ROOM,
    SELL,
    USE,
    USE_OPTION,
    WILD_PARTY,
    describe_action,
)
from .cards import CATALOGUE, COMPANIONS, DECKS, PROPERTY_TYPES
from .config import GameConfig
from .tables import (  # noqa: F401 - re-exported: the rules' constants live there
    ADDON_PHASE,
    BALL_PHASE,
    BLOCK_PHASE,
    BREED_PHASE,
    CARDS,
    DECK_CODE,
    DECK_OF,
    DISCARD_PHASE,
    DRAW_PHASE,
    ERRAND_PHASE,
    FARM,
    GAME_OVER,
    K_COMPANION,
    K_EVENT,
    K_EXPENSE,
    K_HELPER,
    K_JOKER,
    K_PROPERTY,
    K_WILL,
    KEEP_PHASE,
    KIND,
    MARKET_PHASE,
    MAX_DECISIONS_PER_GAME,
    NUM_CARDS,
    NUM_PHASES,
    NUM_ROUNDS,
    OPTION_PHASE,
    PHASE_NAMES,
    PLAN_PHASE,
    ROOM_PHASE,
    SPECIAL,
    TURN_PHASE,
    UNKNOWN_PHASE,
    WILD_PHASE,
)

# ---------------------------------------------------------------------------------------------
# Card data the rules read
PLAYER_EXTENSION_SUPPLY = CATALOGUE.extensions
_OPERA = CATALOGUE.opera_cost
_HAND_LIMIT = CATALOGUE.hand_limit
_DECK_CODE = DECK_CODE
COMPANION_IDS = tuple(tuple(c.id for c in CARDS if c.companion == t) for t in range(4))
JOKER_IDS = tuple(c.id for c in CARDS if c.category == "joker")
WILL_IDS = tuple(c.id for c in CARDS if c.category == "will")
_COMPANION_DECK = _DECK_CODE["companions"]
_EVENT_DECK = _DECK_CODE["events"]
_SLOT_TYPES = tuple(tuple(t for t, _ in c.slots) for c in CARDS)
_MAINTAIN_TAG = tuple(
    f"maintain:{PROPERTY_TYPES[c.prop_type]}" if c.prop_type >= 0 else "" for c in CARDS
)
_IS_HOUSE = tuple(c.category == "property" and c.prop_type != FARM for c in CARDS)
_BONUS_HELPERS = tuple(c.id for c in CARDS if c.bonus_amount > 0)
_OFFER_DECK = {
    "P": _DECK_CODE["properties"],
    "E": _DECK_CODE["events"],
    "H": _DECK_CODE["helpers"],
    "S": SPECIAL,
    "J": 5,
}


class IllegalActionError(ValueError):
    """An action outside the legal set; the state was not changed."""

    def __init__(self, action: Any, legal: list[int], phase: int) -> None:
        names = ", ".join(f"{a} ({describe_action(a)})" for a in legal)
        a = action_int(action)
        if a is None:
            what = f"{action!r} of type {type(action).__name__} (an action is an int)"
        else:
            try:
                what = f"{a} ({describe_action(a)})"
            except (ValueError, TypeError):
                what = repr(action)
        super().__init__(
            f"illegal action {what} while waiting for '{PHASE_NAMES[phase]}'; "
            f"legal actions: {names}"
        )
        self.action = action
        self.legal = list(legal)


class GameState:
    """Plain-data state of one game. Every card is in exactly one place: a normal deck, the
    special deck, a discard pile, the box (out of the game), the joker supply, an offer space,
    a hand, a player board, or `resolving` (the card being played right now)."""

    __slots__ = (
        "cfg",
        "n",
        "rng",
        "seed",
        "round",
        "phase",
        "cur",
        "start",
        "money",
        "nprops",
        "hands",
        "boards",
        "ext",
        "step",
        "filled",
        "used",
        "priv",
        "decks",
        "special",
        "discards",
        "hidden",
        "box",
        "jokers",
        "offer",
        "offer_boy",
        "tokens",
        "mods",
        "ext_left",
        "plans",
        "blocked",
        "plan_seq",
        "plan_i",
        "order",
        "errand_seq",
        "errand_i",
        "market_used",
        "opera_used",
        "ext_used",
        "unknown_used",
        "actions",
        "turn_i",
        "resolving",
        "using",
        "known",
        "res_spend",
        "res_addon",
        "res_left",
        "draw_queue",
        "draw_mand",
        "draw_stage",
        "draw_extra",
        "keep_sel",
        "discard_seq",
        "discard_i",
        "final",
        "history",
        "ledger",
        "results",
        "_legal",
    )

    # -- copying -----------------------------------------------------------------------------
    def clone(self) -> GameState:
        s = GameState.__new__(GameState)
        s.cfg = self.cfg
        s.n = self.n
        s.rng = self.rng
        s.seed = self.seed
        s.round = self.round
        s.phase = self.phase
        s.cur = self.cur
        s.start = self.start
        s.money = self.money[:]
        s.nprops = self.nprops[:]
        s.hands = [h[:] for h in self.hands]
        s.boards = [b[:] for b in self.boards]
        s.ext = self.ext[:]
        s.step = self.step[:]
        s.filled = self.filled[:]
        s.used = self.used[:]
        s.priv = self.priv[:]
        s.decks = [d[:] for d in self.decks]
        s.special = self.special[:]
        s.discards = [d[:] for d in self.discards]
        s.hidden = self.hidden[:]
        s.box = self.box[:]
        s.jokers = self.jokers[:]
        s.offer = self.offer[:]
        s.offer_boy = self.offer_boy[:]
        s.tokens = self.tokens[:]
        s.mods = self.mods[:]
        s.ext_left = self.ext_left
        s.plans = self.plans[:]
        s.blocked = self.blocked[:]
        s.plan_seq = self.plan_seq
        s.plan_i = self.plan_i
        s.order = self.order
        s.errand_seq = self.errand_seq
        s.errand_i = self.errand_i
        s.market_used = self.market_used
        s.opera_used = self.opera_used
        s.ext_used = self.ext_used
        s.unknown_used = self.unknown_used[:]
        s.actions = self.actions
        s.turn_i = self.turn_i
        s.resolving = self.resolving
        s.using = self.using
        s.known = [k[:] for k in self.known]
        s.res_spend = self.res_spend
        s.res_addon = self.res_addon
        s.res_left = self.res_left
        s.draw_queue = self.draw_queue[:]
        s.draw_mand = self.draw_mand
        s.draw_stage = self.draw_stage
        s.draw_extra = self.draw_extra
        s.keep_sel = self.keep_sel[:]
        s.discard_seq = self.discard_seq
        s.discard_i = self.discard_i
        s.final = self.final
        s.history = self.history[:]
        s.ledger = self.ledger[:]
        r = self.results
        if r is not None:  # a copy: the clone must not share the results' lists
            r = {k: v[:] if isinstance(v, list) else v for k, v in r.items()}
        s.results = r
        s._legal = None  # the clone computes its own legal list (callers may mutate theirs)
        return s

    # -- JSON form ---------------------------------------------------------------------------
    _TUPLE_FIELDS = ("plan_seq", "order", "errand_seq", "discard_seq")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict holding the whole state (hidden information included)."""
        out: dict[str, Any] = {"config": self.cfg.to_dict()}
        for name in GameState.__slots__:
            if name in ("cfg", "_legal"):
                continue
            value = getattr(self, name)
            if name in GameState._TUPLE_FIELDS:
                value = list(value)
            elif name == "ledger":
                value = [list(e) for e in value]
            elif isinstance(value, list):
                value = [v[:] if isinstance(v, list) else v for v in value]
            elif name == "results" and value is not None:
                value = {k: v[:] if isinstance(v, list) else v for k, v in value.items()}
            out[name] = value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameState:
        """The state `to_dict` wrote, validated (`lastwill_env.engine.validate`): a state the
        rules cannot reach raises `StateError` (a ValueError) naming the field. A state with a
        `seed` must be the one its `history` reaches from the deal of that seed (replayed);
        one with seed None (arranged with the builders, or determinized) is checked without."""
        from .config import ConfigError
        from .validate import Rules, StateError, check_fields, check_state

        if not isinstance(data, dict) or "config" not in data:
            raise StateError("config", "a game state dict needs a 'config' entry (see to_dict)")
        try:
            cfg = GameConfig.from_dict(data["config"])
        except (ConfigError, TypeError) as e:
            raise StateError("config", str(e)) from None
        names = [k for k in GameState.__slots__ if k not in ("cfg", "_legal")]
        missing = [k for k in names if k not in data]
        if missing:
            raise StateError(missing[0], f"missing (the dict lacks {missing})")
        unknown = sorted(set(data) - set(names) - {"config"})
        if unknown:
            raise StateError(unknown[0], f"not a field of a game state (unknown: {unknown})")
        check_fields(data, cfg)
        s = GameState.__new__(GameState)
        s.cfg = cfg
        for name in names:
            value = data[name]
            if name in GameState._TUPLE_FIELDS:
                value = tuple(value)
            elif name == "ledger":
                value = [tuple(e) for e in value]
            elif isinstance(value, list):
                value = [v[:] if isinstance(v, list) else v for v in value]
            elif name == "results" and value is not None:
                value = {k: v[:] if isinstance(v, list) else v for k, v in value.items()}
            setattr(s, name, value)
        s._legal = None
        check_state(s, Rules(new_game, apply_action, legal_actions, _results, IllegalActionError))
        return s

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<GameState players={self.n} round={self.round} phase='{PHASE_NAMES[self.phase]}' "
            f"to_act={self.cur} decisions={len(self.history)}>"
        )

    # convenient methods mirroring the module functions
    def legal_actions(self) -> list[int]:
        return legal_actions(self)

    def apply_action(self, action: int) -> None:
        apply_action(self, action)

    @property
    def is_over(self) -> bool:
        return self.phase == GAME_OVER


# ---------------------------------------------------------------------------------------------
# Setup (docs/RULES.md §3)


def new_game(config: GameConfig | int = 4, seed: int = 0) -> GameState:
    """A new game at its first decision: round 1, keep 2 of the 6 starting cards. `seed` is an
    int from 0 to 2**64 - 1 (`rng.check_seed`; other values raise ValueError naming the range),
    and distinct seeds deal distinct games."""
    if is_int(config):
        config = GameConfig(num_players=config)
    if not isinstance(config, GameConfig):
        raise TypeError(f"config must be a GameConfig or a player count, got {config!r}")
    n = config.num_players
    r = _rng.seed_state(seed)
    s = GameState.__new__(GameState)
    s.cfg = config
    s.n = n
    s.seed = seed
    s.round = 1
    s.phase = KEEP_PHASE
    r, s.start = _rng.below(r, n)
    s.cur = s.start
    s.decks = [list(CATALOGUE.ids_in(d)) for d in DECKS]
    for d in s.decks:
        r = _rng.shuffle(r, d)
    piles = []
    for crowns in (3, 2, 1):  # bottom to top: the list's end is the top of a deck
        pile = [c for c in CATALOGUE.ids_in("special") if CARDS[c].crowns == crowns]
        r = _rng.shuffle(r, pile)
        piles.extend(pile)
    s.special = piles
    s.discards = [[], [], [], []]
    s.hidden = [0, 0, 0, 0]
    s.box = []
    s.jokers = list(JOKER_IDS)
    wills = list(WILL_IDS)
    sm = config.starting_money
    if sm == "will-shared":
        r, k = _rng.below(r, len(wills))
        s.money = [CARDS[wills[k]].money] * n
    elif sm == "will-each":
        r = _rng.shuffle(r, wills)
        s.money = [CARDS[wills[i]].money for i in range(n)]
    else:
        s.money = [int(sm)] * n
    s.box.extend(wills)  # will cards are set aside; their values are public
    mods = list(CATALOGUE.modifiers)
    r = _rng.shuffle(r, mods)
    s.mods = mods
    s.nprops = [0] * n
    hd = _DECK_CODE["helpers"]
    pd = _DECK_CODE["properties"]
    s.hands = []
    for _ in range(n):
        hand = [s.decks[hd].pop() for _ in range(3)] + [s.decks[pd].pop() for _ in range(3)]
        s.hands.append(hand)
    s.boards = [[] for _ in range(n)]
    s.ext = [0] * n
    s.step = [0] * NUM_CARDS
    s.filled = [0] * NUM_CARDS
    s.used = [0] * NUM_CARDS
    s.priv = [0] * NUM_CARDS
    s.tokens = list(CATALOGUE.token_supply)
    s.ext_left = CATALOGUE.extensions
    s.offer = []
    s.offer_boy = []
    s.plans = [-1] * n
    s.blocked = []
    s.plan_seq = ()
    s.plan_i = 0
    s.order = ()
    s.errand_seq = ()
    s.errand_i = 0
    s.market_used = False
    s.opera_used = False
    s.ext_used = 0
    s.unknown_used = [False] * n
    s.actions = 0
    s.turn_i = 0
    s.resolving = -1
    s.using = -1
    s.known = [[] for _ in range(n)]
    s.res_spend = 0
    s.res_addon = 0
    s.res_left = 0
    s.draw_queue = []
    s.draw_mand = 0
    s.draw_stage = 0
    s.draw_extra = 0
    s.keep_sel = []
    s.discard_seq = ()
    s.discard_i = 0
    s.final = False
    s.history = []
    s.ledger = []
    s.results = None
    s._legal = None
    s.rng = r
    _prepare(s)
    # Round 1: keep 2 of the 6 starting cards, from the start player clockwise
    s.phase = KEEP_PHASE
    s.cur = s.start
    return s


def _prepare(s: GameState) -> None:
    """§4.1: one face-up card on each offer space from the deck the schedule names."""
    sched = CATALOGUE.offer_schedule[s.n]
    rd = s.round - 1
    s.offer = []
    for space in sched:
        code = _OFFER_DECK[space[rd]]
        card = -1
        if code == SPECIAL:
            if s.special:
                card = s.special.pop()
        elif code == 5:
            if s.jokers:
                card = s.jokers.pop(0)
        else:
            card = _draw_from(s, code)
        s.offer.append(card)
    s.offer_boy = [-1] * len(s.offer)


def _draw_from(s: GameState, d: int) -> int:
    """Top card of normal deck d, reshuffling its discard pile when empty; -1 if none."""
    deck = s.decks[d]
    if not deck:
        pile = s.discards[d]
        if not pile:
            return -1
        deck.extend(pile)
        pile.clear()
        s.hidden[d] = 0
        s.rng = _rng.shuffle(s.rng, deck)
    return deck.pop()


def _available(s: GameState, d: int) -> int:
    return len(s.decks[d]) + len(s.discards[d])


# ---------------------------------------------------------------------------------------------
# Money (docs/RULES.md §5)


def _can_pay(s: GameState, seat: int, amount: int) -> bool:
    return amount <= 0 or s.nprops[seat] == 0 or s.money[seat] >= amount


def _pay(s: GameState, seat: int, amount: int, what: str, card: int = -1) -> None:
    if amount:
        s.money[seat] -= amount
        s.ledger.append((seat, -amount, what, card))


def _receive(s: GameState, seat: int, amount: int, what: str, card: int = -1) -> None:
    if amount:
        s.money[seat] += amount
        s.ledger.append((seat, amount, what, card))


def _with_bonuses(s: GameState, seat: int, base: int, tag: str) -> int:
    """Helper bonuses ("may spend £N more") for a use tagged `tag`, each added if affordable."""
    total = base
    if not tag:
        return total
    for c in s.boards[seat]:
        spec = CARDS[c]
        if (
            spec.bonus_amount
            and tag in spec.bonus_tags
            and _can_pay(s, seat, total + spec.bonus_amount)
        ):
            total += spec.bonus_amount
    return total


def is_bankrupt(s: GameState, seat: int) -> bool:
    """§5: money ≤ 0 and no property."""
    return s.money[seat] <= 0 and s.nprops[seat] == 0


# ---------------------------------------------------------------------------------------------
# Privileges and derived quantities


def hand_limit(s: GameState, seat: int) -> int:
    return _HAND_LIMIT + sum(CARDS[c].hand_limit_bonus for c in s.boards[seat])


def board_capacity(s: GameState, seat: int) -> int:
    return s.cfg.board_spaces + s.ext[seat]


def _free(s: GameState, seat: int, kind: str) -> int:
    """Board card of `seat` whose once-per-round free action of `kind` is unspent, or -1."""
    priv = s.priv
    for c in s.boards[seat]:
        if priv[c] and CARDS[c].free_kind == kind:
            return c
    return -1


def _event_actions(s: GameState, seat: int) -> int:
    """Valet: extra actions usable only for playing an event."""
    priv = s.priv
    return sum(priv[c] for c in s.boards[seat] if CARDS[c].free_kind == "event_action")


def _spend_event_actions(s: GameState, seat: int, cost: int) -> None:
    priv = s.priv
    for c in s.boards[seat]:
        while cost and priv[c] and CARDS[c].free_kind == "event_action":
            priv[c] -= 1
            cost -= 1
    s.actions -= cost


def _upkeep(s: GameState, c: int, option: int) -> int:
    """Upkeep / enjoy amount of option `option` of a board card (§4.4): 0 is the printed
    amount, k >= 1 the option of the k-th companion slot (usable once slots 1..k are filled)."""
    spec = CARDS[c]
    if option:
        return spec.slots[option - 1][1]
    return spec.upkeep if spec.category == "property" else spec.spend


def _training_amount(s: GameState, seat: int, c: int) -> int:
    per_farm, per_horse, per_dog = CARDS[c].training
    farms = horses = dogs = 0
    for b in s.boards[seat]:
        spec = CARDS[b]
        if spec.category == "property" and spec.prop_type == FARM:
            farms += 1
            for t in spec.slots[: s.filled[b]]:
                if t[0] == 0:
                    horses += 1
                elif t[0] == 1:
                    dogs += 1
    return per_farm * farms + per_horse * horses + per_dog * dogs


def _use_cost(s: GameState, seat: int, c: int) -> tuple[int, str, str]:
    """(actions, bonus tag, free kind) to use board card c."""
    spec = CARDS[c]
    k = KIND[c]
    if k == K_PROPERTY:
        free = "farm_maint" if spec.prop_type == FARM else "house_maint"
        return 1, _MAINTAIN_TAG[c], free
    if spec.training != (0, 0, 0):
        return spec.use_actions, "", ""
    if k == K_EXPENSE:
        return spec.use_actions, spec.family, ""
    return spec.use_actions, "", ""


def use_options(s: GameState, seat: int, c: int) -> list[tuple[int, int]]:
    """(option, base money) of every option of board card c that `seat` may pick now.

    §4.4: "the player picks one of its options whose companion slots are all filled": the
    printed amount (option 0) and each filled slot's option; a property owner may pick only
    those it can pay (§5). Training grounds and helpers have one amount."""
    spec = CARDS[c]
    k = KIND[c]
    if spec.training != (0, 0, 0):
        opts = [(0, _training_amount(s, seat, c))]
    elif k in (K_PROPERTY, K_EXPENSE):
        opts = [(o, _upkeep(s, c, o)) for o in range(s.filled[c] + 1)]
    else:
        opts = [(0, spec.spend)]
    if s.nprops[seat] > 0:
        money = s.money[seat]
        opts = [o for o in opts if o[1] <= money]
    return opts


def buy_price(s: GameState, seat: int, c: int) -> int:
    """Price to buy property c: first value + its type's modifier (+ estate-agent surcharges)."""
    spec = CARDS[c]
    price = spec.values[0] + s.mods[spec.prop_type]
    for b in s.boards[seat]:
        h = CARDS[b]
        if (
            h.buy_surcharge
            and spec.prop_type in h.buy_surcharge_types
            and s.money[seat] >= (price + h.buy_surcharge)
        ):
            price += h.buy_surcharge
    return price


def base_buy_price(s: GameState, c: int) -> int:
    spec = CARDS[c]
    return spec.values[0] + s.mods[spec.prop_type]


def sale_price(s: GameState, seat: int, c: int) -> int:
    """Money received for selling c: current value + modifier − estate-agent cuts, at least 0."""
    spec = CARDS[c]
    price = spec.values[s.step[c]] + s.mods[spec.prop_type]
    for b in s.boards[seat]:
        h = CARDS[b]
        if h.sale_reduction and spec.prop_type in h.sale_reduction_types:
            price -= h.sale_reduction
    return price if price > 0 else 0


def _room(s: GameState, seat: int) -> bool:
    board = s.boards[seat]
    if len(board) < s.cfg.board_spaces + s.ext[seat]:
        return True
    return any(KIND[c] != K_PROPERTY for c in board)


def _deal_free_kind(c: int) -> str:
    return "farm_deal" if CARDS[c].prop_type == FARM else "house_deal"


# ---------------------------------------------------------------------------------------------
# Legal actions


def legal_actions(s: GameState) -> list[int]:
    """The exact legal set of the pending decision (never empty before the game is over)."""
    legal = s._legal
    if legal is None:
        legal = s._legal = _LEGAL[s.phase](s)
    return legal[:]  # a copy: the cached list backs apply_action's legality check


def _legal_keep(s: GameState) -> list[int]:
    sel = s.keep_sel
    return sorted(KEEP[c] for c in s.hands[s.cur] if c not in sel)


def _legal_block(s: GameState) -> list[int]:
    taken = s.blocked
    return [BLOCK[p] for p in range(len(CATALOGUE.plans[s.n])) if p not in taken]


def _legal_plan(s: GameState) -> list[int]:
    taken = set(s.blocked)
    taken.update(p for p in s.plans if p >= 0)
    return [PLAN[p] for p in range(len(CATALOGUE.plans[s.n])) if p not in taken]


def _draw_options(s: GameState) -> list[int]:
    q = s.draw_queue
    if s.draw_stage == 0:
        return [DRAW[d] for d in range(4) if _available(s, d) > q.count(d)]
    d = _COMPANION_DECK if s.draw_stage == 1 else _EVENT_DECK
    return [DRAW[d]] if _available(s, d) > q.count(d) else []


def _legal_draw(s: GameState) -> list[int]:
    opts = _draw_options(s)
    return opts if s.draw_stage == 0 else [PASS, *opts]


def _legal_errand(s: GameState) -> list[int]:
    seat = s.cur
    out = []
    offer = s.offer
    boys = s.offer_boy
    shared = CATALOGUE.shared_top_spaces[s.n]
    top_full = shared and sum(1 for i in range(3) if boys[i] >= 0) >= shared
    for i, card in enumerate(offer):
        if card >= 0 and boys[i] < 0 and not (top_full and i < 3):
            out.append(ERRAND[i])
    if s.ext_left > 0 and s.ext_used < CATALOGUE.extension_capacity[s.n]:
        out.append(ERRAND[ERRAND_EXTENSION])
    if not s.market_used:
        out.append(ERRAND[ERRAND_MARKET])
    if not s.unknown_used[seat] and any(_available(s, d) for d in range(4)):
        out.append(ERRAND[ERRAND_UNKNOWN])
    if not s.opera_used and _can_pay(s, seat, _OPERA):
        out.append(ERRAND[ERRAND_OPERA])
    return out or [PASS]


def _legal_market(s: GameState) -> list[int]:
    return list(MARKET.values())


def _legal_unknown(s: GameState) -> list[int]:
    return [DRAW[d] for d in range(4) if _available(s, d)]


def _legal_turn(s: GameState) -> list[int]:
    seat = s.cur
    out = [PASS]
    acts = s.actions
    money = s.money[seat]
    constrained = s.nprops[seat] > 0
    board = s.boards[seat]
    hand = s.hands[seat]
    ev_acts = acts + _event_actions(s, seat) if acts >= 0 else 0
    room = None
    comp = [False, False, False, False]
    joker = False
    for c in hand:
        k = KIND[c]
        if k == K_COMPANION:
            comp[CARDS[c].companion] = True
            continue
        if k == K_JOKER:
            joker = True
            continue
        spec = CARDS[c]
        if k == K_EVENT:
            if spec.ball:
                need, cost = spec.ball[0]
            else:
                need, cost = spec.play_actions, spec.spend
            cost += spec.play_cost
            if need <= ev_acts and (not constrained or cost <= money):
                out.append(PLAY[c])
        elif k == K_PROPERTY:
            if acts < 1 and _free(s, seat, _deal_free_kind(c)) < 0:
                continue
            if money < spec.values[0] + s.mods[spec.prop_type]:
                continue
            if room is None:
                room = _room(s, seat)
            if room:
                out.append(PLAY[c])
        else:  # helper or expense (special helpers included)
            if spec.play_actions > acts:
                continue
            if room is None:
                room = _room(s, seat)
            if room:
                out.append(PLAY[c])
    used = s.used
    filled = s.filled
    tokens = s.tokens
    for c in board:
        k = KIND[c]
        spec = CARDS[c]
        if not used[c] and spec.use_actions >= 0:
            need, _tag, free = _use_cost(s, seat, c)
            if (need <= acts or (free and _free(s, seat, free) >= 0)) and use_options(s, seat, c):
                out.append(USE[c])
        if k == K_PROPERTY and (acts >= 1 or _free(s, seat, _deal_free_kind(c)) >= 0):
            out.append(SELL[c])
        slots = _SLOT_TYPES[c]
        if slots and acts >= 1:
            f = filled[c]
            if f < len(slots):
                t = slots[f]
                if tokens[t] > 0:
                    if comp[t]:
                        out.append(ATTACH_CARD[c])
                    if joker:
                        out.append(ATTACH_JOKER[c])
    return out


def _legal_option(s: GameState) -> list[int]:
    return [USE_OPTION[o] for o, _ in use_options(s, s.cur, s.using)]


def _legal_addon(s: GameState) -> list[int]:
    seat = s.cur
    t, amount = CARDS[s.resolving].addons[s.res_addon]
    out = [PASS]
    if _can_pay(s, seat, s.res_spend + amount):
        hand = s.hands[seat]
        if any(CARDS[c].companion == t for c in hand):
            out.append(ADDON_CARD)
        if any(KIND[c] == K_JOKER for c in hand):
            out.append(ADDON_JOKER)
    return out


def _legal_ball(s: GameState) -> list[int]:
    seat = s.cur
    avail = s.actions + _event_actions(s, seat)
    extra = CARDS[s.resolving].play_cost
    return [
        BALL[k]
        for k, amount in CARDS[s.resolving].ball
        if k <= avail and _can_pay(s, seat, amount + extra)
    ]


def _legal_room(s: GameState) -> list[int]:
    return [ROOM[c] for c in s.boards[s.cur] if KIND[c] != K_PROPERTY]


def _wild_targets(s: GameState, seat: int) -> list[int]:
    step = s.step
    return [c for c in s.boards[seat] if _IS_HOUSE[c] and step[c] < len(CARDS[c].values) - 1]


def _legal_wild(s: GameState) -> list[int]:
    return [WILD_PARTY[c] for c in _wild_targets(s, s.cur)]


def _breed_targets(s: GameState, seat: int) -> list[int]:
    out = []
    hand = s.hands[seat]
    comp = {CARDS[c].companion for c in hand if KIND[c] == K_COMPANION}
    joker = any(KIND[c] == K_JOKER for c in hand)
    for c in s.boards[seat]:
        if KIND[c] == K_PROPERTY and CARDS[c].prop_type == FARM:
            slots = _SLOT_TYPES[c]
            f = s.filled[c]
            if f < len(slots) and slots[f] in (0, 1) and s.tokens[slots[f]] > 0:
                if slots[f] in comp:
                    out.append(ATTACH_CARD[c])
                if joker:
                    out.append(ATTACH_JOKER[c])
    return out


def _legal_breed(s: GameState) -> list[int]:
    return [PASS, *_breed_targets(s, s.cur)]


def _legal_discard(s: GameState) -> list[int]:
    out = []
    seen = set()
    for c in s.hands[s.cur]:
        if KIND[c] == K_COMPANION:
            t = CARDS[c].companion
            if t not in seen:
                seen.add(t)
                out.append(DISCARD_COMPANION[t])
        else:
            out.append(DISCARD[c])
    out.sort()
    return out


def _legal_over(s: GameState) -> list[int]:
    return []


_LEGAL = (
    _legal_keep,
    _legal_block,
    _legal_plan,
    _legal_draw,
    _legal_errand,
    _legal_market,
    _legal_unknown,
    _legal_turn,
    _legal_option,
    _legal_addon,
    _legal_ball,
    _legal_room,
    _legal_wild,
    _legal_breed,
    _legal_discard,
    _legal_over,
)


# ---------------------------------------------------------------------------------------------
# Applying actions


def action_int(action: Any) -> int | None:
    """`action` as a plain int when it is an integer: a Python int or a numpy integer (any
    type with `__index__`). None for anything else: a bool of any kind (not an action, though
    Python counts it as an int and numpy 1.x's bool has `__index__`: a value whose dtype names
    bool is one), a float (even 3.0), a numpy float, a string."""
    if type(action) is int:
        return action
    if isinstance(action, bool) or "bool" in str(getattr(action, "dtype", "")):
        return None
    try:
        return operator.index(action)
    except TypeError:
        return None


def as_legal(s: GameState, action: Any) -> int | None:
    """`action` as a plain int when it is an integer (`action_int`) legal now, else None."""
    a = action_int(action)
    if a is None:
        return None
    legal = s._legal
    if legal is None:
        legal = s._legal = _LEGAL[s.phase](s)
    return a if a in legal else None


def apply_action(s: GameState, action: int) -> None:
    """Apply a legal action in place: an integer (`action_int`: Python or numpy ints, not
    bools or floats) in the legal set. Anything else raises IllegalActionError, naming the
    action (and its type when it is not an integer), and changes nothing."""
    legal = s._legal
    if legal is None:
        legal = s._legal = _LEGAL[s.phase](s)
    a = action if type(action) is int else action_int(action)
    if a is None or a not in legal:
        if s.phase == GAME_OVER:
            raise IllegalActionError(action, [], s.phase)
        raise IllegalActionError(action, legal, s.phase)
    action = a
    s._legal = None
    s.history.append(action)
    kind, arg = ACTION_TABLE[action]
    _APPLY[s.phase](s, kind, arg)


def _do_keep(s: GameState, kind: str, card: int) -> None:
    s.keep_sel.append(card)
    if len(s.keep_sel) < 2:
        return
    seat = s.cur
    kept = s.keep_sel
    for c in s.hands[seat]:
        if c not in kept:
            d = DECK_OF[c]
            s.discards[d].append(c)  # face down: hidden at the bottom of the pile
            s.hidden[d] += 1
    s.hands[seat] = [c for c in s.hands[seat] if c in kept]
    s.keep_sel = []
    nxt = (seat + 1) % s.n
    if nxt == s.start:
        _start_planning(s)
    else:
        s.cur = nxt


def _start_planning(s: GameState) -> None:
    n = s.n
    st = s.start
    s.plans = [-1] * n
    s.blocked = []
    if n == 2:
        other = (st + 1) % 2
        s.plan_seq = (st, other, other, st)  # block, block, plan, plan
        s.phase = BLOCK_PHASE
    else:
        s.plan_seq = tuple((st + i) % n for i in range(n))
        s.phase = PLAN_PHASE
    s.plan_i = 0
    s.cur = s.plan_seq[0]


def _do_block(s: GameState, kind: str, plan: int) -> None:
    s.blocked.append(plan)
    s.plan_i += 1
    s.cur = s.plan_seq[s.plan_i]
    if len(s.blocked) == 2:
        s.phase = PLAN_PHASE


def _do_plan(s: GameState, kind: str, plan: int) -> None:
    seat = s.cur
    s.plans[seat] = plan
    p = CATALOGUE.plans[s.n][plan]
    extra_any = sum(
        CARDS[c].extra_draw_count for c in s.boards[seat] if CARDS[c].extra_draw == "any"
    )
    s.draw_queue = []
    s.draw_mand = p.cards + extra_any
    s.draw_stage = 0
    s.draw_extra = 0
    s.phase = DRAW_PHASE
    _draw_advance(s)


def _draw_advance(s: GameState) -> None:
    """Move the blind draw decision on to the next stage that offers a real choice."""
    seat = s.cur
    while True:
        if s.draw_stage == 0:
            if s.draw_mand > 0 and _draw_options(s):
                return
            s.draw_stage = 1
            s.draw_extra = sum(
                CARDS[c].extra_draw_count
                for c in s.boards[seat]
                if CARDS[c].extra_draw == "companions"
            )
        elif s.draw_stage == 1:
            if s.draw_extra > 0 and _draw_options(s):
                return
            s.draw_stage = 2
            s.draw_extra = sum(
                CARDS[c].extra_draw_count for c in s.boards[seat] if CARDS[c].extra_draw == "events"
            )
        elif s.draw_stage == 2:
            if s.draw_extra > 0 and _draw_options(s):
                return
            break
    # all choices made before any card is seen: now draw them
    hand = s.hands[seat]
    for d in s.draw_queue:
        c = _draw_from(s, d)
        if c >= 0:
            hand.append(c)
    s.draw_queue = []
    s.draw_mand = 0
    s.draw_stage = 0
    s.draw_extra = 0
    s.plan_i += 1
    if s.plan_i < len(s.plan_seq):
        s.cur = s.plan_seq[s.plan_i]
        s.phase = PLAN_PHASE
    else:
        _start_errands(s)


def _do_draw(s: GameState, kind: str, arg: int) -> None:
    if kind == "pass":
        s.draw_extra = 0
    else:
        s.draw_queue.append(arg)
        if s.draw_stage == 0:
            s.draw_mand -= 1
        else:
            s.draw_extra -= 1
    _draw_advance(s)


def _start_errands(s: GameState) -> None:
    plans = CATALOGUE.plans[s.n]
    s.order = tuple(sorted(range(s.n), key=lambda seat: plans[s.plans[seat]].order))
    second = tuple(seat for seat in s.order if plans[s.plans[seat]].errand_boys >= 2)
    s.errand_seq = s.order + second
    s.errand_i = 0
    s.market_used = False
    s.opera_used = False
    s.ext_used = 0
    s.unknown_used = [False] * s.n
    s.phase = ERRAND_PHASE
    s.cur = s.errand_seq[0]


def _next_errand(s: GameState) -> None:
    s.errand_i += 1
    if s.errand_i < len(s.errand_seq):
        s.cur = s.errand_seq[s.errand_i]
        s.phase = ERRAND_PHASE
    else:
        _start_actions(s)


def _do_errand(s: GameState, kind: str, space: int) -> None:
    seat = s.cur
    if kind == "pass":
        _next_errand(s)
        return
    if space < len(s.offer):
        card = s.offer[space]
        s.offer[space] = -1
        s.offer_boy[space] = seat
        s.hands[seat].append(card)
        s.known[seat].append(card)  # §10: the offer board is public
    elif space == ERRAND_EXTENSION:
        s.ext_used += 1
        s.ext_left -= 1
        s.ext[seat] += 1
    elif space == ERRAND_MARKET:
        s.market_used = True
        s.phase = MARKET_PHASE
        return
    elif space == ERRAND_UNKNOWN:
        s.unknown_used[seat] = True
        s.phase = UNKNOWN_PHASE
        return
    elif space == ERRAND_OPERA:
        s.opera_used = True
        _pay(s, seat, _with_bonuses(s, seat, _OPERA, "opera"), "opera")
    _next_errand(s)


def _do_market(s: GameState, kind: str, perm: int) -> None:
    p = MARKET_PERMUTATIONS[perm]
    old = s.mods
    s.mods = [old[p[t]] for t in range(4)]
    _next_errand(s)


def _do_unknown(s: GameState, kind: str, d: int) -> None:
    c = _draw_from(s, d)
    if c >= 0:
        s.hands[s.cur].append(c)
    _next_errand(s)


def _start_actions(s: GameState) -> None:
    s.turn_i = 0
    _start_turn(s)


def _start_turn(s: GameState) -> None:
    seat = s.order[s.turn_i]
    s.cur = seat
    plan = CATALOGUE.plans[s.n][s.plans[seat]]
    s.actions = plan.actions + sum(CARDS[c].extra_actions for c in s.boards[seat])
    s.phase = TURN_PHASE


def _remove_from_hand(s: GameState, seat: int, card: int) -> None:
    s.hands[seat].remove(card)
    _forget(s, seat, card)


def _forget(s: GameState, seat: int, c: int) -> None:
    """§10: card c left `seat`'s hand in view of everyone; drop it from the public record of
    that hand. Companions of one type (and jokers) are identical, so for them one recorded card
    of the same type is dropped, the lowest id: the record then depends on public events only."""
    known = s.known[seat]
    if not known:
        return
    if c in known:
        known.remove(c)
        return
    k = KIND[c]
    if k == K_COMPANION:
        t = CARDS[c].companion
        same = [x for x in known if KIND[x] == K_COMPANION and CARDS[x].companion == t]
    elif k == K_JOKER:
        same = [x for x in known if KIND[x] == K_JOKER]
    else:
        return
    if same:
        known.remove(min(same))


def _take_companion(s: GameState, seat: int, t: int) -> int:
    """Remove one companion of type t from hand (lowest id) and return it."""
    hand = s.hands[seat]
    best = min(c for c in hand if KIND[c] == K_COMPANION and CARDS[c].companion == t)
    _remove_from_hand(s, seat, best)
    return best


def _take_joker(s: GameState, seat: int) -> int:
    hand = s.hands[seat]
    j = min(c for c in hand if KIND[c] == K_JOKER)
    _remove_from_hand(s, seat, j)
    return j


def _discard_card(s: GameState, c: int) -> None:
    """A card leaves play: normal cards to their discard pile, specials out of the game,
    jokers back beside the offer board."""
    d = DECK_OF[c]
    if d < 4:
        s.discards[d].append(c)
    elif d == 5:
        s.jokers.append(c)
    else:
        s.box.append(c)


def _do_turn(s: GameState, kind: str, c: int) -> None:
    seat = s.cur
    if kind == "pass":
        s.turn_i += 1
        if s.turn_i < len(s.order):
            _start_turn(s)
        else:
            _end_round(s)
        return
    if kind == "play":
        k = KIND[c]
        spec = CARDS[c]
        _remove_from_hand(s, seat, c)
        if k == K_EVENT:
            s.resolving = c
            if spec.ball:
                s.phase = BALL_PHASE
                return
            _spend_event_actions(s, seat, spec.play_actions)
            s.res_spend = spec.spend
            s.res_addon = 0
            _event_next(s)
            return
        if k == K_PROPERTY:
            free = _free(s, seat, _deal_free_kind(c))
            if free >= 0:
                s.priv[free] -= 1
            else:
                s.actions -= 1
            _pay(s, seat, buy_price(s, seat, c), "buy", c)
            s.nprops[seat] += 1
        else:
            s.actions -= spec.play_actions
            if spec.play_cost:
                _pay(s, seat, spec.play_cost, "play", c)
        if len(s.boards[seat]) < board_capacity(s, seat):
            _place(s, seat, c)
        else:
            s.resolving = c
            s.phase = ROOM_PHASE
        return
    if kind == "use":
        opts = use_options(s, seat, c)
        if len(opts) == 1:
            _finish_use(s, seat, c, opts[0][1])
        else:  # §4.4: the player picks one of the filled options
            s.using = c
            s.phase = OPTION_PHASE
        return
    if kind == "sell":
        fc = _free(s, seat, _deal_free_kind(c))
        if fc >= 0:
            s.priv[fc] -= 1
        else:
            s.actions -= 1
        _receive(s, seat, sale_price(s, seat, c), "sell", c)
        _leave_board(s, seat, c)
        s.nprops[seat] -= 1
        return
    if kind in ("attach_card", "attach_joker"):
        s.actions -= 1
        _attach(s, seat, kind, c)
        return
    raise AssertionError(f"unhandled action kind {kind} in turn")  # pragma: no cover


def _finish_use(s: GameState, seat: int, c: int, base: int) -> None:
    need, tag, free = _use_cost(s, seat, c)
    fc = _free(s, seat, free) if free else -1
    if fc >= 0:
        s.priv[fc] -= 1
    else:
        s.actions -= need
    s.used[c] = 1
    what = "maintain" if KIND[c] == K_PROPERTY else "enjoy"
    _pay(s, seat, _with_bonuses(s, seat, base, tag), what, c)


def _do_option(s: GameState, kind: str, option: int) -> None:
    seat = s.cur
    c = s.using
    s.using = -1
    s.phase = TURN_PHASE
    _finish_use(s, seat, c, _upkeep(s, c, option))


def _attach(s: GameState, seat: int, kind: str, c: int) -> None:
    t = _SLOT_TYPES[c][s.filled[c]]
    used_card = _take_companion(s, seat, t) if kind == "attach_card" else _take_joker(s, seat)
    _discard_card(s, used_card)
    s.tokens[t] -= 1
    s.filled[c] += 1


def _place(s: GameState, seat: int, c: int) -> None:
    s.boards[seat].append(c)
    s.step[c] = 0
    s.filled[c] = 0
    s.used[c] = 0
    s.priv[c] = CARDS[c].free_per_round
    s.resolving = -1
    s.phase = TURN_PHASE


def _leave_board(s: GameState, seat: int, c: int) -> None:
    s.boards[seat].remove(c)
    for t in _SLOT_TYPES[c][: s.filled[c]]:
        s.tokens[t] += 1
    s.step[c] = 0
    s.filled[c] = 0
    s.used[c] = 0
    s.priv[c] = 0
    _discard_card(s, c)


def _do_room(s: GameState, kind: str, c: int) -> None:
    seat = s.cur
    _leave_board(s, seat, c)
    _place(s, seat, s.resolving)


def _event_next(s: GameState) -> None:
    """Offer the event's next companion add-on, or finish the event."""
    spec = CARDS[s.resolving]
    if s.res_addon < len(spec.addons):
        s.phase = ADDON_PHASE
        return
    _event_finish(s)


def _event_finish(s: GameState) -> None:
    seat = s.cur
    c = s.resolving
    spec = CARDS[c]
    total = _with_bonuses(s, seat, s.res_spend, spec.family)
    _pay(s, seat, total + spec.play_cost, "event", c)
    s.actions += spec.gain_actions
    s.resolving = -1
    s.res_spend = 0
    s.res_addon = 0
    _discard_card(s, c)
    s.phase = TURN_PHASE
    if spec.effect == "wild_party":
        s.res_left = 3
        if _wild_targets(s, seat):
            s.phase = WILD_PHASE
        else:
            s.res_left = 0
    elif spec.effect == "breeders_fair":
        s.res_left = 2
        if _breed_targets(s, seat):
            s.phase = BREED_PHASE
        else:
            s.res_left = 0


def _do_addon(s: GameState, kind: str, arg: int) -> None:
    seat = s.cur
    t, amount = CARDS[s.resolving].addons[s.res_addon]
    if kind != "pass":
        used = _take_companion(s, seat, t) if kind == "addon_card" else _take_joker(s, seat)
        _discard_card(s, used)
        s.res_spend += amount
    s.res_addon += 1
    _event_next(s)


def _do_ball(s: GameState, kind: str, k: int) -> None:
    seat = s.cur
    spec = CARDS[s.resolving]
    _spend_event_actions(s, seat, k)
    s.res_spend = dict(spec.ball)[k]
    s.res_addon = 0
    _event_next(s)


def _do_wild(s: GameState, kind: str, c: int) -> None:
    s.step[c] += 1
    s.res_left -= 1
    if s.res_left <= 0 or not _wild_targets(s, s.cur):
        s.res_left = 0
        s.phase = TURN_PHASE


def _do_breed(s: GameState, kind: str, c: int) -> None:
    seat = s.cur
    if kind == "pass":
        s.res_left = 0
        s.phase = TURN_PHASE
        return
    _attach(s, seat, kind, c)
    s.res_left -= 1
    if s.res_left <= 0 or not _breed_targets(s, seat):
        s.res_left = 0
        s.phase = TURN_PHASE


# ---------------------------------------------------------------------------------------------
# End of round (docs/RULES.md §6) and end of game (§7, §8)


def _end_round(s: GameState) -> None:
    for seat in range(s.n):
        hand = s.hands[seat]
        if any(KIND[c] == K_JOKER for c in hand):
            for j in [c for c in hand if KIND[c] == K_JOKER]:
                _remove_from_hand(s, seat, j)
                s.jokers.append(j)
    s.final = s.round >= NUM_ROUNDS or any(is_bankrupt(s, p) for p in range(s.n))
    if not s.final:
        s.discard_seq = tuple(p for p in s.order if len(s.hands[p]) > hand_limit(s, p))
        s.discard_i = 0
        if s.discard_seq:
            s.phase = DISCARD_PHASE
            s.cur = s.discard_seq[0]
            return
    _finish_round(s)


def _do_discard(s: GameState, kind: str, arg: int) -> None:
    seat = s.cur
    if kind == "discard_companion":
        c = _take_companion(s, seat, arg)
    else:
        c = arg
        _remove_from_hand(s, seat, c)
    _discard_card(s, c)
    if len(s.hands[seat]) > hand_limit(s, seat):
        return
    s.discard_i += 1
    if s.discard_i < len(s.discard_seq):
        s.cur = s.discard_seq[s.discard_i]
    else:
        _finish_round(s)


def _finish_round(s: GameState) -> None:
    step = s.step
    used = s.used
    for board in s.boards:
        for c in board:
            if _IS_HOUSE[c] and not used[c] and step[c] < len(CARDS[c].values) - 1:
                step[c] += 1  # §6.2 an unmaintained house loses one step
    for board in s.boards:
        for c in board:
            used[c] = 0
            s.priv[c] = CARDS[c].free_per_round
    for i, c in enumerate(s.offer):
        if c >= 0:
            _discard_card(s, c)
            s.offer[i] = -1
    if s.final:
        s.phase = GAME_OVER
        s.cur = -1
        s.results = _results(s)
        return
    s.plans = [-1] * s.n
    s.blocked = []
    s.round += 1
    s.start = (s.start + 1) % s.n
    _prepare(s)
    _start_planning(s)


def property_value(s: GameState, seat: int) -> int:
    """§8: each property counts its current value plus £5 (no helper, no modifier)."""
    return sum(CARDS[c].values[s.step[c]] + 5 for c in s.boards[seat] if KIND[c] == K_PROPERTY)


def _results(s: GameState) -> dict[str, Any]:
    n = s.n
    plans = CATALOGUE.plans[n]
    order_pos = {seat: plans[s.plans[seat]].order for seat in range(n)}
    prop = [property_value(s, p) for p in range(n)]
    totals = [s.money[p] + prop[p] for p in range(n)]
    debt = any(m < 0 for m in s.money)

    def key(p: int) -> tuple:
        if debt:
            # debtors first, the largest debt best; then the others by least money + property
            return (0, s.money[p], order_pos[p]) if s.money[p] < 0 else (1, totals[p], order_pos[p])
        return (1, totals[p], order_pos[p])

    ranking = sorted(range(n), key=key)
    ranks = [0] * n
    for i, p in enumerate(ranking):
        ranks[p] = i + 1
    return {
        "winner": ranking[0],
        "ranks": ranks,
        "ranking": ranking,
        "money": s.money[:],
        "property_value": prop,
        "totals": totals,
        "plan_order": [order_pos[p] for p in range(n)],
        "bankrupt": [is_bankrupt(s, p) for p in range(n)],
        "rounds": s.round,
        "decided_by": "debt" if debt else "least money plus property",
    }


def results(s: GameState) -> dict[str, Any]:
    """Winner, ranks (1 = best), final money, property values and plan order tie-break."""
    if s.results is None:
        raise ValueError(f"the game is not over yet (waiting for '{PHASE_NAMES[s.phase]}')")
    return {k: v[:] if isinstance(v, list) else v for k, v in s.results.items()}


def is_over(s: GameState) -> bool:
    return s.phase == GAME_OVER


def current_player(s: GameState) -> int:
    """Seat that must decide now, or -1 when the game is over."""
    return s.cur


_APPLY = (
    _do_keep,
    _do_block,
    _do_plan,
    _do_draw,
    _do_errand,
    _do_market,
    _do_unknown,
    _do_turn,
    _do_option,
    _do_addon,
    _do_ball,
    _do_room,
    _do_wild,
    _do_breed,
    _do_discard,
    None,
)


def replay(config: GameConfig | int, seed: int, actions: list[int]) -> GameState:
    """Rebuild the state reached by playing `actions` (a list or tuple of action ints) from
    `new_game(config, seed)`. Anything else as `actions` (None, a string, a dict) raises
    ValueError naming it; an action the rules refuse raises IllegalActionError."""
    if not isinstance(actions, (list, tuple)):
        raise ValueError(
            f"actions must be a list of action ints, not {type(actions).__name__} {actions!r:.60}"
        )
    s = new_game(config, seed)
    for i, a in enumerate(actions):
        try:
            apply_action(s, a)
        except IllegalActionError as e:
            raise IllegalActionError(a, e.legal, s.phase) from ValueError(
                f"replay diverged at decision {i}"
            )
    return s


def companion_name(t: int) -> str:
    return COMPANIONS[t]
