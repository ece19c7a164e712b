"""Determinization: a full game state consistent with what one seat has seen (docs/RULES.md §10).

`determinize(view, seat, rng)` copies every public fact of a `PlayerView` (boards, money, offer,
face-up discards, box, modifiers, tokens, plans, phase and pending decision, round, start player)
into a fresh `GameState`, converting the view's relative seats to absolute ones, and deals the
cards the seat cannot see uniformly at random from the unseen pool:

- each normal deck's unseen cards (its composition minus every card seen anywhere) fill that deck
  (its public size), its face-down starting discards (their public count, at the bottom of the
  pile) and, for the rest, the other players' hands;
- the special deck holds exactly the special cards not yet seen of the crown tiers still in it
  (the deck is stacked 1-crown on top, then 2, then 3, so its size fixes how many of each tier
  are left); unseen specials of tiers already drawn are in other hands;
- jokers that are neither in the supply, on the offer board nor in the viewer's hand are in other
  hands;
- in the keep phase of round 1 a player who has not kept yet holds 3 helpers & expenses and
  3 properties.

Cards another seat took face up from the offer board and still holds (`view.known_hands`, public
by §10) stay in that seat's hand; only the rest of each hand is dealt from the unseen pool. The
generator state of the new game is fresh (drawn from `rng`), never the real one. Pure function of
(view, seat, rng state, config): the MC bot therefore cannot read hidden information.
"""

from __future__ import annotations

import random

from . import rng as _rng
from .cards import CATALOGUE, DECKS
from .config import GameConfig
from .game import (
    BLOCK_PHASE,
    CARDS,
    DISCARD_PHASE,
    DRAW_PHASE,
    ERRAND_PHASE,
    GAME_OVER,
    JOKER_IDS,
    K_PROPERTY,
    KEEP_PHASE,
    KIND,
    NUM_CARDS,
    PLAN_PHASE,
    ROOM_PHASE,
    TURN_PHASE,
    UNKNOWN_PHASE,
    GameState,
    hand_limit,
)
from .view import PlayerView

_SPECIAL_TIERS = tuple(
    tuple(c for c in CATALOGUE.ids_in("special") if CARDS[c].crowns == k) for k in (1, 2, 3)
)
_DECK_IDS = tuple(tuple(CATALOGUE.ids_in(d)) for d in DECKS)
_HELPERS = DECKS.index("helpers")
_PROPERTIES = DECKS.index("properties")
_EVENTS = DECKS.index("events")


class DeterminizeError(ValueError):
    """The view is inconsistent with the card counts (should never happen for a real view)."""


def determinize(
    view: PlayerView,
    seat: int,
    rng: random.Random,
    template: GameState | None = None,
    config: GameConfig | None = None,
) -> GameState:
    """A full GameState consistent with everything `seat` sees in `view`.

    `seat` is the viewer's absolute seat: the seat the view was made for (`view.seat`); any
    other seat raises ValueError. The game configuration (board spaces, starting-money option)
    is not part of a view: it is taken from `config`, else from `template` (only its `cfg` is
    read), else the default configuration for the player count.
    """
    n = view.num_players
    _check_seat(view, seat)
    if config is None:
        config = template.cfg if template is not None else GameConfig(num_players=n)
    if config.num_players != n:
        raise ValueError(f"config is for {config.num_players} players, the view for {n}")
    s = _public(view, seat, config, rng)
    _deal(s, view, seat, rng)
    _sequencing(s, view, seat)
    s.results = _results(view, seat)
    return s


def _check_seat(view: PlayerView, seat: int) -> None:
    n = view.num_players
    if type(seat) is not int or not 0 <= seat < n:
        raise ValueError(f"seat {seat!r} is not at this table; seats are 0..{n - 1}")
    if seat != view.seat:
        raise ValueError(
            f"the view is seat {view.seat}'s, not seat {seat}'s: determinize a view for the "
            f"seat it was made for (player_view(state, {seat}))"
        )


def _ab(seat: int, n: int, r: int) -> int:
    """The absolute seat of relative seat `r` of `seat`'s view (-1 stays -1: nobody)."""
    return (seat + r) % n if r >= 0 else -1


def _unrot(seat: int, n: int, seq) -> list:
    """A per-relative-seat sequence of `seat`'s view, indexed by absolute seat."""
    out = [None] * n
    for r in range(n):
        out[(seat + r) % n] = seq[r]
    return out


def _public(view: PlayerView, seat: int, config: GameConfig, rng: random.Random) -> GameState:
    """A state holding every public fact of the view (no cards dealt yet), with a fresh
    generator state drawn from `rng`."""
    n = view.num_players
    s = GameState.__new__(GameState)
    s.cfg = config
    s.n = n
    s.seed = None  # not dealt by new_game: its history is its own (see GameState.from_dict)
    s.rng = _rng.seed_state(rng.getrandbits(63))
    s.round = view.round
    s.phase = view.phase
    s.cur = _ab(seat, n, view.to_act) if view.phase != GAME_OVER else -1
    s.start = _ab(seat, n, view.start_player)
    s.money = _unrot(seat, n, view.money)
    s.boards = [list(b) for b in _unrot(seat, n, view.boards)]
    s.nprops = _property_counts(s, view)
    s.ext = _unrot(seat, n, view.extensions)
    s.step = list(view.value_step)
    s.filled = list(view.filled_slots)
    s.used = list(view.used)
    s.priv = list(view.privilege_left)
    s.offer = list(view.offer)
    s.offer_boy = [_ab(seat, n, r) for r in view.offer_taken_by]
    s.tokens = list(view.tokens)
    s.mods = list(view.modifiers)
    s.ext_left = view.extensions_left
    s.box = list(view.box)
    s.resolving = view.resolving
    s.using = view.using
    s.known = [list(k) for k in _unrot(seat, n, view.known_hands)]
    s.res_spend = view.resolving_spend
    s.res_addon = view.resolving_addon
    s.res_left = view.resolving_left
    s.draw_queue = list(view.draw_queue)
    s.draw_mand = view.draws_left
    s.draw_stage = view.draw_stage
    s.final = view.final_round
    s.history = []
    s.ledger = []
    s._legal = None
    s.plans = _unrot(seat, n, view.plans)
    s.blocked = list(view.blocked_plans)
    s.market_used = view.market_used
    s.opera_used = view.opera_used
    s.ext_used = view.extension_errands
    s.unknown_used = _unrot(seat, n, view.unknown_used)
    s.actions = view.actions
    return s


def _property_counts(s: GameState, view: PlayerView) -> list[int]:
    """Properties owned per seat: those on its board, and for the buyer at a make-room decision
    the property it just bought (docs/RULES.md §4.4: the `room` decision follows the play, and
    the buyer owns the property from the purchase on, so §5's spending limit applies to it)."""
    counts = [sum(1 for c in b if KIND[c] == K_PROPERTY) for b in s.boards]
    if view.phase == ROOM_PHASE and view.resolving >= 0 and KIND[view.resolving] == K_PROPERTY:
        counts[s.cur] += 1
    return counts


# -- the cards: seen ones stay, unseen ones are dealt ----------------------------------------


def _seen(view: PlayerView) -> list[bool]:
    """Per card id: whether the viewer can see where it is."""
    seen = [False] * NUM_CARDS
    groups = (view.hand, *view.boards, *view.discards, view.box, *view.known_hands[1:])
    for group in groups:
        for c in group:
            seen[c] = True
    for c in view.offer:
        if c >= 0:
            seen[c] = True
    if view.resolving >= 0:
        seen[view.resolving] = True
    return seen


def _deal(s: GameState, view: PlayerView, seat: int, rng: random.Random) -> None:
    """Deal every card the viewer cannot see: the decks, the face-down discards, the special
    deck, the joker supply and the other hands."""
    seen = _seen(view)
    by_deck = _deal_decks(s, view, seen, rng)
    pool = _deal_special(s, view, seen, rng)  # cards in other players' hands
    unseen_jokers = [j for j in JOKER_IDS if not seen[j]]
    nj = view.jokers_in_supply
    if nj > len(unseen_jokers):
        raise DeterminizeError("more jokers in the supply than unseen")
    s.jokers = unseen_jokers[:nj]
    pool.extend(unseen_jokers[nj:])
    _deal_hands(s, view, seat, by_deck, pool, rng)
    s.keep_sel = list(view.keep_selected) if view.phase == KEEP_PHASE else []


def _deal_decks(
    s: GameState, view: PlayerView, seen: list[bool], rng: random.Random
) -> list[list[int]]:
    """Fill each normal deck and its face-down discards from its unseen cards; return the rest
    of each deck's unseen cards (they are in other hands)."""
    s.decks = []
    s.discards = []
    s.hidden = list(view.hidden_discards)
    by_deck: list[list[int]] = []
    for d in range(4):
        unseen = [c for c in _DECK_IDS[d] if not seen[c]]
        rng.shuffle(unseen)
        size = view.deck_sizes[d]
        hid = view.hidden_discards[d]
        if size + hid > len(unseen):
            raise DeterminizeError(
                f"deck {DECKS[d]}: {len(unseen)} unseen cards for {size} in the deck "
                f"and {hid} face down"
            )
        s.decks.append(unseen[:size])
        s.discards.append(unseen[size : size + hid] + list(view.discards[d]))
        by_deck.append(unseen[size + hid :])
    return by_deck


def _deal_special(
    s: GameState, view: PlayerView, seen: list[bool], rng: random.Random
) -> list[int]:
    """The special deck: its size fixes how many of each crown tier are still in it. Returns
    the unseen specials of tiers already drawn (they are in other hands)."""
    left = view.special_deck_size
    special: list[int] = []
    rest: list[int] = []
    for tier in reversed(_SPECIAL_TIERS):  # 3-crown at the bottom (list start)
        k = min(left, len(tier))
        left -= k
        unseen = [c for c in tier if not seen[c]]
        rng.shuffle(unseen)
        if k > len(unseen):
            raise DeterminizeError("special deck larger than its unseen cards")
        special.extend(unseen[:k])
        rest.extend(unseen[k:])
    s.special = special
    return rest


def _deal_hands(
    s: GameState,
    view: PlayerView,
    seat: int,
    by_deck: list[list[int]],
    pool: list[int],
    rng: random.Random,
) -> None:
    """The other hands: their publicly known cards, then unseen cards from the pool (in the
    keep phase, a player who has not kept yet holds 3 helpers & expenses + 3 properties)."""
    n = view.num_players
    hands: list[list[int]] = [[] for _ in range(n)]
    hands[seat] = list(view.hand)
    others = list(range(1, n))
    if view.phase == KEEP_PHASE:
        for r in others:
            if view.hand_sizes[r] == 6:
                h = by_deck[_HELPERS][:3] + by_deck[_PROPERTIES][:3]
                if len(h) != 6:
                    raise DeterminizeError("not enough unseen starting cards")
                del by_deck[_HELPERS][:3]
                del by_deck[_PROPERTIES][:3]
                hands[_ab(seat, n, r)] = h
        others = [r for r in others if view.hand_sizes[r] != 6]
    for d in range(4):
        pool.extend(by_deck[d])
    rng.shuffle(pool)
    known = view.known_hands
    need = sum(view.hand_sizes[r] - len(known[r]) for r in others)
    if need != len(pool):
        raise DeterminizeError(f"{len(pool)} unseen cards for {need} cards in other hands")
    i = 0
    for r in others:
        k = view.hand_sizes[r] - len(known[r])
        hands[_ab(seat, n, r)] = list(known[r]) + pool[i : i + k]
        i += k
    s.hands = hands


# -- sequencing fields the view implies ------------------------------------------------------


def _sequencing(s: GameState, view: PlayerView, seat: int) -> None:
    """Who decides in which order: plan, draw, errand, turn and discard positions."""
    n = s.n
    st = s.start
    if n == 2:
        other = (st + 1) % 2
        s.plan_seq = (st, other, other, st)
    else:
        s.plan_seq = tuple((st + i) % n for i in range(n))
    chosen = sum(1 for p in s.plans if p >= 0)
    if view.phase in (BLOCK_PHASE, PLAN_PHASE, DRAW_PHASE):
        s.plan_i = (len(s.blocked) if n == 2 else 0) + chosen - (view.phase == DRAW_PHASE)
    else:
        s.plan_i = len(s.plan_seq)
    s.draw_extra = _draw_extra(s, view)
    _errands_and_turns(s, view, seat)


def _draw_extra(s: GameState, view: PlayerView) -> int:
    """Extra blind draws left to the drawing seat once its mandatory picks are made."""
    if view.phase != DRAW_PHASE or view.draw_stage == 0:
        return 0
    cur = s.cur
    board = [CARDS[c] for c in s.boards[cur]]
    mand = CATALOGUE.plans[s.n][s.plans[cur]].cards + sum(
        c.extra_draw_count for c in board if c.extra_draw == "any"
    )
    rest = s.draw_queue[mand:]
    if view.draw_stage == 1:
        comp_total = sum(c.extra_draw_count for c in board if c.extra_draw == "companions")
        return comp_total - len(rest)
    ev_total = sum(c.extra_draw_count for c in board if c.extra_draw == "events")
    return ev_total - sum(1 for d in rest if d == _EVENTS)


def _errands_and_turns(s: GameState, view: PlayerView, seat: int) -> None:
    """The turn order, the errand sequence and the positions in them and in the discards."""
    n = s.n
    plans = CATALOGUE.plans[n]
    if view.phase >= ERRAND_PHASE:
        s.order = tuple(_ab(seat, n, r) for r in view.plan_order)
        second = tuple(p for p in s.order if plans[s.plans[p]].errand_boys >= 2)
        s.errand_seq = s.order + second
    else:
        s.order = ()
        s.errand_seq = ()
    if ERRAND_PHASE <= view.phase <= UNKNOWN_PHASE:
        s.errand_i = len(s.errand_seq) - sum(view.errand_boys_left)
    else:
        s.errand_i = len(s.errand_seq)
    if TURN_PHASE <= view.phase < DISCARD_PHASE:
        s.turn_i = s.order.index(s.cur)
    else:
        s.turn_i = len(s.order)
    if view.phase == DISCARD_PHASE:
        k = s.order.index(s.cur)
        s.discard_seq = (s.cur,) + tuple(
            p for p in s.order[k + 1 :] if len(s.hands[p]) > hand_limit(s, p)
        )
    else:
        s.discard_seq = ()
    s.discard_i = 0


def _results(view: PlayerView, seat: int) -> dict | None:
    """The view's results with absolute seats (None before the end)."""
    if view.results is None:
        return None
    n = view.num_players
    r = view.results
    res = dict(r)
    for key in ("ranks", "money", "property_value", "totals", "plan_order", "bankrupt"):
        res[key] = _unrot(seat, n, r[key])
    res["winner"] = _ab(seat, n, r["winner"])
    res["ranking"] = sorted(range(n), key=lambda p: res["ranks"][p])
    return res
