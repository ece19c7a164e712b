"""Shared helpers of the scripted bots: card facts, money estimates from a `PlayerView`, and
`ScriptedBot`, a base class with one decision rule per phase that the bots tune or override.

Everything here reads only the view (what the seat may see) and the static card catalogue, and
uses no numpy/torch so a bot decides in microseconds. Money estimates are in £ "burned": how
much an action moves the seat towards the goal (money spent now, or property value that will
vanish from the final valuation). Seat 0 of the view is the bot itself.
"""

from __future__ import annotations

from gamecore.agent import BaseAgent
from gamecore.options import check_number
from lastwill_env.engine import PlayerView
from lastwill_env.engine.actions import (
    ACTION_TABLE,
    ERRAND_EXTENSION,
    ERRAND_MARKET,
    ERRAND_OPERA,
    ERRAND_UNKNOWN,
    MARKET_PERMUTATIONS,
    PASS,
)
from lastwill_env.engine.cards import CATALOGUE, PROPERTY_TYPES
from lastwill_env.engine.game import (
    ADDON_PHASE,
    BALL_PHASE,
    BLOCK_PHASE,
    BREED_PHASE,
    DISCARD_PHASE,
    DRAW_PHASE,
    ERRAND_PHASE,
    KEEP_PHASE,
    MARKET_PHASE,
    NUM_ROUNDS,
    OPTION_PHASE,
    PLAN_PHASE,
    ROOM_PHASE,
    TURN_PHASE,
    UNKNOWN_PHASE,
    WILD_PHASE,
)

CARDS = CATALOGUE.cards
EVENTS, HELPERS, PROPERTIES, COMPANIONS = range(4)
ACT = 3.0  # rough £ value of one action
CAT = tuple(c.category for c in CARDS)


def kind_of(action: int) -> tuple[str, int]:
    return ACTION_TABLE[action]


def rounds_after(v: PlayerView) -> int:
    """Full rounds still to come after this one."""
    return max(0, NUM_ROUNDS - v.round)


def bonus(v: PlayerView, tag: str) -> int:
    if not tag:
        return 0
    return sum(CARDS[c].bonus_amount for c in v.boards[0] if tag in CARDS[c].bonus_tags)


def companions_in_hand(v: PlayerView) -> tuple[list[int], int]:
    comp = [0, 0, 0, 0]
    jokers = 0
    for c in v.hand:
        if CAT[c] == "companion":
            comp[CARDS[c].companion] += 1
        elif CAT[c] == "joker":
            jokers += 1
    return comp, jokers


def addon_money(v: PlayerView, c: int) -> int:
    """Extra £ the add-ons of event c can spend with the companions / jokers in hand."""
    comp, jokers = companions_in_hand(v)
    total = 0
    for t, amount in CARDS[c].addons:
        if comp[t]:
            comp[t] -= 1
            total += amount
        elif jokers:
            jokers -= 1
            total += amount
    return total


def event_spend(v: PlayerView, c: int) -> tuple[float, int]:
    """(£ spent, actions used) of playing event c now, best Ball investment included."""
    spec = CARDS[c]
    if spec.ball:
        avail = max(v.actions, 2)
        best = max((amt - 0.5 * k, k, amt) for k, amt in spec.ball if k <= avail)
        spend, acts = best[2], best[1]
    else:
        spend, acts = spec.spend, spec.play_actions
    spend += spec.play_cost + bonus(v, spec.family) + addon_money(v, c)
    return float(spend), acts - spec.gain_actions


def _best_option(v: PlayerView, c: int, base: int) -> int:
    """The deepest filled option of c the seat can pay (§4.4, §5), as its base amount."""
    spec = CARDS[c]
    amounts = [base] + [amt for _, amt in spec.slots[: v.filled_slots[c]]]
    if any(CAT[b] == "property" for b in v.boards[0]):
        ok = [a for a in amounts if a <= v.money[0]]
        return ok[-1] if ok else amounts[0]
    return amounts[-1]


def use_amount(v: PlayerView, c: int) -> int:
    """£ spent by using board card c (deepest affordable filled option, training counts,
    bonuses)."""
    spec = CARDS[c]
    if spec.training != (0, 0, 0):
        per_farm, per_horse, per_dog = spec.training
        total = 0
        for b in v.boards[0]:
            bs = CARDS[b]
            if bs.category == "property" and bs.prop_type == 0:
                total += per_farm
                for t, _ in bs.slots[: v.filled_slots[b]]:
                    total += per_horse if t == 0 else per_dog if t == 1 else 0
        return total
    if spec.category == "property":
        base = _best_option(v, c, spec.upkeep)
        return base + bonus(v, "maintain:" + PROPERTY_TYPES[spec.prop_type])
    if spec.category == "expense":
        base = _best_option(v, c, spec.spend)
        return base + bonus(v, spec.family)
    return spec.spend


def buy_price(v: PlayerView, c: int) -> int:
    spec = CARDS[c]
    price = spec.values[0] + v.modifiers[spec.prop_type]
    for b in v.boards[0]:
        h = CARDS[b]
        if (
            h.buy_surcharge
            and spec.prop_type in h.buy_surcharge_types
            and v.money[0] >= price + h.buy_surcharge
        ):
            price += h.buy_surcharge
    return price


def sale_price(v: PlayerView, c: int, mods=None) -> int:
    spec = CARDS[c]
    mods = v.modifiers if mods is None else mods
    price = spec.values[v.value_step[c]] + mods[spec.prop_type]
    for b in v.boards[0]:
        h = CARDS[b]
        if h.sale_reduction and spec.prop_type in h.sale_reduction_types:
            price -= h.sale_reduction
    return max(price, 0)


def held_value(v: PlayerView, c: int, step: int | None = None, rounds: int = 0) -> int:
    """Final valuation of property c if held `rounds` more depreciations: value + £5."""
    spec = CARDS[c]
    s = v.value_step[c] if step is None else step
    if spec.prop_type != 0:
        s = min(s + rounds, len(spec.values) - 1)
    return spec.values[s] + 5


def per_round_value(v: PlayerView, c: int) -> float:
    """£ per round a black-border card on the board is worth (spend, bonuses, privileges)."""
    spec = CARDS[c]
    val = 0.0
    if spec.use_actions >= 0 and spec.category != "property":
        amount = spec.spend if spec.training == (0, 0, 0) else 3
        if spec.slots:
            amount = max(amount, spec.slots[0][1] * 0.6)
        val += amount - ACT * 0.6 * spec.use_actions
    val += spec.bonus_amount * 1.2
    val += spec.extra_actions * ACT
    val += spec.free_per_round * 1.0
    val += spec.hand_limit_bonus * 0.5
    val += spec.extra_draw_count * 0.7
    if spec.sale_reduction:
        val += 0.5
    return max(val, 0.3)


def remaining_board_value(v: PlayerView, c: int) -> float:
    """Future value of keeping helper/expense c on the board (this round too if unused)."""
    r = rounds_after(v) + (0 if v.used[c] else 0.5)
    return per_round_value(v, c) * r


def board_full(v: PlayerView) -> bool:
    return len(v.boards[0]) >= 5 + v.extensions[0]


def weakest_room(v: PlayerView) -> float:
    vals = [remaining_board_value(v, c) for c in v.boards[0] if CAT[c] in ("expense", "helper")]
    return min(vals) if vals else 0.0


def owns_property(v: PlayerView) -> bool:
    return any(CAT[c] == "property" for c in v.boards[0])


def is_final_round(v: PlayerView) -> bool:
    return v.round >= NUM_ROUNDS or v.final_round


class ScriptedBot(BaseAgent):
    """A rule per phase; subclasses change the weights or override single rules.

    Tunables (class attributes): `w_actions`, `w_cards`, `w_errands` (plan scores), `deck_pref`
    (plan draws: weight per deck events/helpers/properties/companions), `w_property` (how much a
    property purchase is liked), `w_companion` (how much companions / jokers are liked),
    `maintain` (whether maintaining a house is worth its depreciation)."""

    name = "scripted"
    w_actions = 4.0
    w_cards = 2.0
    w_errands = 1.5
    deck_pref = (3.0, 2.0, 0.2, 1.0)
    w_property = 1.0
    w_companion = 1.0
    maintain = True

    def __init__(self, seed: int | None = None, eps: float = 0.0) -> None:
        super().__init__(seed)
        self.eps = check_number("eps", eps, 0, 1, allowed="a probability from 0 to 1")

    # -- dispatch -----------------------------------------------------------------------------
    def act(self, view: PlayerView, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        if self.eps and self.rng.random() < self.eps:
            return legal[self.rng.randrange(len(legal))]
        legal = sorted(legal)  # ties never depend on the caller's order
        name = self._RULES.get(view.phase)
        if name is None:
            return legal[0]
        return getattr(self, name)(view, legal)

    def best(self, legal: list[int], score) -> int:
        """The legal action with the highest score; ties broken by the lowest index."""
        best_a, best_s = legal[0], None
        for a in legal:
            s = score(a)
            if best_s is None or s > best_s:
                best_a, best_s = a, s
        return best_a

    # -- card values in hand ----------------------------------------------------------------
    def card_value(self, v: PlayerView, c: int) -> float:
        """How much the bot likes holding card c (keep, errands, discards)."""
        spec = CARDS[c]
        cat = CAT[c]
        special = 1.5 if spec.deck == "special" else 0.0
        if cat == "event":
            if spec.effect == "wild_party":
                return 3.0 + special
            if spec.effect == "breeders_fair":
                return 1.0 + 2.0 * self.w_companion
            spend, acts = event_spend(v, c)
            if spec.gain_actions:
                return 2.0 + ACT * spec.gain_actions + special
            return spend - 0.5 * ACT * max(acts, 0) + 1.5 + special
        if cat in ("expense", "helper"):
            return per_round_value(v, c) * (rounds_after(v) + 1) * 0.6 - 0.5 + special
        if cat == "property":
            return self.property_hand_value(v, c)
        if cat == "companion":
            return self.companion_value(v, spec.companion)
        if cat == "joker":
            return max(self.companion_value(v, t) for t in range(4)) + 0.5
        return 0.0

    def property_hand_value(self, v: PlayerView, c: int) -> float:
        spec = CARDS[c]
        price = spec.values[0] + v.modifiers[spec.prop_type]
        loss = price - held_value(v, c, 0, rounds_after(v) + 1)
        return self.w_property * (loss + spec.upkeep * 0.5 * rounds_after(v)) * 0.5

    def companion_value(self, v: PlayerView, t: int) -> float:
        best = 0.0
        for c in v.hand:
            for ct, amount in CARDS[c].addons:
                if ct == t:
                    best = max(best, amount)
        for c in v.boards[0]:
            slots = CARDS[c].slots
            f = v.filled_slots[c]
            if f < len(slots) and slots[f][0] == t:
                prev = slots[f - 1][1] if f else (CARDS[c].upkeep or CARDS[c].spend)
                best = max(best, (slots[f][1] - prev) * (rounds_after(v) + 1) * 0.5)
        return (0.6 + best) * self.w_companion

    # -- action phase ---------------------------------------------------------------------------
    def turn_burn(self, v: PlayerView, a: int) -> tuple[float, float]:
        """(estimated £ burned, actions used) of an action-phase action."""
        kind, c = ACTION_TABLE[a]
        final = is_final_round(v)
        if kind == "play":
            spec = CARDS[c]
            cat = CAT[c]
            if cat == "event":
                if spec.effect == "wild_party":
                    drop = 0
                    for b in v.boards[0]:
                        if CARDS[b].category == "property" and CARDS[b].prop_type:
                            drop += held_value(v, b) - held_value(v, b, rounds=3)
                    return float(min(drop, 12)) + 0.5, 1
                if spec.effect == "breeders_fair":
                    return 1.0 * self.w_companion, 1
                spend, acts = event_spend(v, c)
                return spend, acts
            if cat == "property":
                if final:
                    return -5.0, 1
                loss = buy_price(v, c) - held_value(v, c, 0, rounds_after(v) + 1)
                upkeep = spec.upkeep * 0.4 * rounds_after(v)
                return self.w_property * (loss + upkeep) - 3.0, 1
            room = weakest_room(v) if board_full(v) else 0.0
            val = spec.play_cost + remaining_board_value(v, c) * (0 if final else 1)
            if spec.use_actions == 0:
                val += use_amount(v, c)
            return val - room, spec.play_actions
        if kind == "use":
            amount = use_amount(v, c)
            spec = CARDS[c]
            if CAT[c] == "property":
                fk = "farm_maint" if spec.prop_type == 0 else "house_maint"
                free = any(v.privilege_left[b] and CARDS[b].free_kind == fk for b in v.boards[0])
                saved = held_value(v, c) - held_value(v, c, rounds=1) if spec.prop_type else 0
                if not self.maintain:
                    saved *= 3
                return amount - saved, 0 if free else 1
            return float(amount), spec.use_actions
        if kind == "sell":
            rounds = 1 if final else rounds_after(v) + 1
            gain = held_value(v, c, rounds=rounds) - sale_price(v, c)
            if final:
                gain += 4.0  # frees the way into debt
            else:
                gain -= CARDS[c].upkeep * 0.3 * rounds_after(v)
            return gain, 1
        if kind in ("attach_card", "attach_joker"):
            spec = CARDS[c]
            f = v.filled_slots[c]
            prev = spec.slots[f - 1][1] if f else (spec.upkeep or spec.spend)
            uses = rounds_after(v) + (0 if v.used[c] else 1)
            gain = (spec.slots[f][1] - prev) * uses * 0.8 * self.w_companion
            if kind == "attach_joker":
                gain -= 1.0
            return gain, 1
        return 0.0, 0

    def turn_rule(self, v: PlayerView, legal: list[int]) -> int:
        acts = max(v.actions, 0)

        def score(a: int) -> float:
            if a == PASS:
                return 0.0
            burn, used = self.turn_burn(v, a)
            if burn <= 0:
                return burn - 100.0
            if used > acts and used > 0:
                used = acts  # event actions of a valet
            return burn / max(used, 0.5)

        return self.best(legal, score)

    # -- the other phases ---------------------------------------------------------------------
    def keep_rule(self, v: PlayerView, legal: list[int]) -> int:
        return self.best(legal, lambda a: self.card_value(v, ACTION_TABLE[a][1]))

    def useful_actions(self, v: PlayerView) -> float:
        """Actions the hand and board could use this round."""
        n = 0.0
        for c in v.hand:
            cat = CAT[c]
            if cat == "event":
                n += max(1, CARDS[c].play_actions)
            elif cat in ("expense", "helper"):
                n += CARDS[c].play_actions
            elif cat == "property":
                n += 0.5 * self.w_property
            elif cat in ("companion", "joker"):
                n += 0.5 * self.w_companion
        for c in v.boards[0]:
            if CARDS[c].use_actions > 0:
                n += CARDS[c].use_actions
        return n

    def plan_score(self, v: PlayerView, p: int) -> float:
        plan = CATALOGUE.plans[v.num_players][p]
        return (
            self.w_actions * plan.actions
            + self.w_cards * plan.cards
            + self.w_errands * plan.errand_boys
            - 0.2 * plan.order
        )

    def plan_rule(self, v: PlayerView, legal: list[int]) -> int:
        return self.best(legal, lambda a: self.plan_score(v, ACTION_TABLE[a][1]))

    def block_rule(self, v: PlayerView, legal: list[int]) -> int:
        ranked = sorted(legal, key=lambda a: -self.plan_score(v, ACTION_TABLE[a][1]))
        return ranked[1] if len(ranked) > 1 else ranked[0]

    def draw_rule(self, v: PlayerView, legal: list[int]) -> int:
        counts = [v.draw_queue.count(d) for d in range(4)]

        def score(a: int) -> float:
            kind, d = ACTION_TABLE[a]
            if kind == "pass":
                return 0.1
            return self.deck_pref[d] / (1.0 + 0.6 * counts[d]) + 0.2

        return self.best(legal, score)

    def unknown_rule(self, v: PlayerView, legal: list[int]) -> int:
        return self.best(legal, lambda a: self.deck_pref[ACTION_TABLE[a][1]])

    def errand_score(self, v: PlayerView, space: int) -> float:
        if space < len(v.offer):
            return self.card_value(v, v.offer[space])
        if space == ERRAND_OPERA:
            return 2.0 + bonus(v, "opera") + (1.0 if not owns_property(v) else 0.0)
        if space == ERRAND_EXTENSION:
            return 3.5 if len(v.boards[0]) >= 4 + v.extensions[0] else 0.5
        if space == ERRAND_MARKET:
            return self.market_gain(v) * 0.5
        if space == ERRAND_UNKNOWN:
            return 2.0
        return 0.0

    def errand_rule(self, v: PlayerView, legal: list[int]) -> int:
        return self.best(
            legal, lambda a: -1.0 if a == PASS else self.errand_score(v, ACTION_TABLE[a][1])
        )

    def market_weights(self, v: PlayerView) -> list[float]:
        """Per property type: + when a higher modifier helps (buying), - when it hurts."""
        w = [0.0, 0.0, 0.0, 0.0]
        for c in v.hand:
            if CAT[c] == "property":
                w[CARDS[c].prop_type] += 0.5 * self.w_property
        for c in v.boards[0]:
            if CAT[c] == "property":
                w[CARDS[c].prop_type] -= 1.0
        return w

    def market_gain(self, v: PlayerView) -> float:
        w = self.market_weights(v)
        mods = v.modifiers
        now = sum(w[t] * mods[t] for t in range(4))
        best = max(sum(w[t] * mods[p[t]] for t in range(4)) for p in MARKET_PERMUTATIONS)
        return best - now

    def market_rule(self, v: PlayerView, legal: list[int]) -> int:
        w = self.market_weights(v)
        mods = v.modifiers

        def score(a: int) -> float:
            p = MARKET_PERMUTATIONS[ACTION_TABLE[a][1]]
            return sum(w[t] * mods[p[t]] for t in range(4)) + (0.01 if p == (0, 1, 2, 3) else 0)

        return self.best(legal, score)

    def addon_rule(self, v: PlayerView, legal: list[int]) -> int:
        for kind in ("addon_card", "addon_joker"):
            for a in legal:
                if ACTION_TABLE[a][0] == kind:
                    return a
        return legal[0]

    def ball_rule(self, v: PlayerView, legal: list[int]) -> int:
        spec = CARDS[v.resolving]
        table = dict(spec.ball)
        return self.best(legal, lambda a: table[ACTION_TABLE[a][1]] - 1.5 * ACTION_TABLE[a][1])

    def room_rule(self, v: PlayerView, legal: list[int]) -> int:
        return self.best(legal, lambda a: -remaining_board_value(v, ACTION_TABLE[a][1]))

    def wild_rule(self, v: PlayerView, legal: list[int]) -> int:
        def score(a: int) -> float:
            c = ACTION_TABLE[a][1]
            return held_value(v, c) - held_value(v, c, rounds=1)

        return self.best(legal, score)

    def breed_rule(self, v: PlayerView, legal: list[int]) -> int:
        def score(a: int) -> float:
            kind, c = ACTION_TABLE[a]
            if kind == "pass":
                return 0.0
            return self.turn_burn(v, a)[0] + 0.5

        return self.best(legal, score)

    def option_rule(self, v: PlayerView, legal: list[int]) -> int:
        """Use option: the most money (options spend more the deeper they go)."""
        return max(legal)

    def discard_rule(self, v: PlayerView, legal: list[int]) -> int:
        def score(a: int) -> float:
            kind, arg = ACTION_TABLE[a]
            if kind == "discard_companion":
                return -self.companion_value(v, arg)
            return -self.card_value(v, arg)

        return self.best(legal, score)

    # each phase's rule, by method name: looked up on the bot, so a subclass's override plays
    _RULES = {
        KEEP_PHASE: "keep_rule",
        BLOCK_PHASE: "block_rule",
        PLAN_PHASE: "plan_rule",
        DRAW_PHASE: "draw_rule",
        ERRAND_PHASE: "errand_rule",
        MARKET_PHASE: "market_rule",
        UNKNOWN_PHASE: "unknown_rule",
        TURN_PHASE: "turn_rule",
        OPTION_PHASE: "option_rule",
        ADDON_PHASE: "addon_rule",
        BALL_PHASE: "ball_rule",
        ROOM_PHASE: "room_rule",
        WILD_PHASE: "wild_rule",
        BREED_PHASE: "breed_rule",
        DISCARD_PHASE: "discard_rule",
    }
