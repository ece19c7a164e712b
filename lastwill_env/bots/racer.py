"""The racer: spends fastest, owns nothing, ends the game in debt."""

from __future__ import annotations

from math import ceil

from gamecore.options import check_number
from lastwill_env.engine.actions import (
    ACTION_INDEX,
    ACTION_TABLE,
    ERRAND_EXTENSION,
    ERRAND_MARKET,
    ERRAND_OPERA,
    ERRAND_UNKNOWN,
    PASS,
)
from lastwill_env.engine.cards import CATALOGUE

from .common import (
    CARDS,
    CAT,
    EVENTS,
    HELPERS,
    NUM_ROUNDS,
    ScriptedBot,
    bonus,
    companions_in_hand,
    sale_price,
    use_amount,
)

OPERA = CATALOGUE.opera_cost
HAND_LIMIT = CATALOGUE.hand_limit
ACTION_VALUE = 3.0  # £ one more action spends when the hand has cards for it
DRAWN = -1  # stands for one blind card from the events deck in a hypothetical hand
DRAWN_SPEND = 2.6  # what such a card spends, on average, for one action
FUTURE = 0.8  # weight of money a card spends in later rounds (the game may end sooner)


def knapsack(groups, budget: int) -> tuple[float, tuple]:
    """Multiple-choice knapsack: at most one option (cost, value, key) per group, total cost
    within `budget`, most value. Returns (value, keys of the chosen options)."""
    budget = max(budget, 0)
    best: list[tuple[float, tuple]] = [(0.0, ())] * (budget + 1)
    for group in groups:
        new = best[:]
        for cost, value, key in group:
            if value <= 0 or cost > budget:
                continue
            for b in range(cost, budget + 1):
                prev_v, prev_k = best[b - cost]
                if prev_v + value > new[b][0] + 1e-9:
                    new[b] = (prev_v + value, (*prev_k, key))
        best = new
    return max(best, key=lambda x: x[0])


def _ok(legal, kind: str, c: int) -> bool:
    """The move (kind, card) is legal now (`legal`: a set of action indices, None: any)."""
    return legal is None or ACTION_INDEX.get((kind, c)) in legal


def _companion_pool(hand) -> list[int]:
    """Companions of `hand` by type (horse, dog, chef, guest), then its jokers."""
    pool = [0, 0, 0, 0, 0]
    for c in hand:
        if c >= 0:
            if CAT[c] == "companion":
                pool[CARDS[c].companion] += 1
            elif CAT[c] == "joker":
                pool[4] += 1
    return pool


def _action_gainers(hand, acts: int, legal) -> tuple[int, float, list[tuple]]:
    """The action gainers of `hand` (hectic days), played first: they pay for themselves.
    Returns the actions then, the money they spend and their ('gain', c) keys."""
    value = 0.0
    fixed: list[tuple] = []
    for c in hand:
        spec = CARDS[c] if c >= 0 else None
        if spec and spec.gain_actions and CAT[c] == "event" and acts >= 1 and _ok(legal, "play", c):
            acts += spec.gain_actions - spec.play_actions
            value += spec.play_cost
            fixed.append(("gain", c))
    return acts, value, fixed


def _left_in_hand(hand, chosen, fixed) -> list[int]:
    """The cards of `hand` that the chosen moves do not play."""
    played = {k[1] for k in chosen if k[0] == "play"}
    drawn_used = {k[1] for k in chosen if k[0] == "drawn"}
    return [
        c
        for i, c in enumerate(hand)
        if not (c >= 0 and c in played)
        and not (c == DRAWN and i in drawn_used)
        and ("gain", c) not in fixed
    ]


class RacerBot(ScriptedBot):
    """Racer: the fastest spender; owns no property, goes bankrupt first and deepest.

    Plan of play:
    - the race: when the game ends, anyone in debt beats everyone else (the largest debt
      wins), and a bankrupt player (no money, no property) ends the game after that round
      (docs/RULES.md §5, §7, §8). So the racer never buys a property (an owner may not go below
      £0; one it holds anyway is sold before the last round's spending) and spends as much
      as it can every round from round 1, to be the first below £0. It expects the last
      round to be round 7, the round its money cannot outlast its spending, or one in which
      another player is already bankrupt; before that, a card on the board is worth its uses
      until then.
    - turn: a knapsack over the actions left picks the plays that spend most: events with
      every companion and joker add-on, a Ball at the best investment, recurring expenses
      (those that cost no action to use first), helpers that add spending (waiter,
      coachman, sea dog, tailor) or actions (old friends, valet; hectic days are played
      first), companions on expense slots. In the last round only money spent now counts:
      every action goes into debt, and a used card on a full board makes room for another.
    - plan: the plan whose actions its hand (plus the plan's blind draws) fills with the
      most spending; its errand boys are worth the errands that should be left when its turn
      in errand order comes; while three or more rounds are expected, blind cards it will
      play or keep count extra (they build the board). In the last round the later turn
      order among equal plans, so it acts after the others. Two players: choosing first it
      blocks its second-best plan, choosing last its best (the other wants actions too).
    - errands: each card and errand is worth what it adds to this round's spending (plus a
      share of what it keeps for the next): the opera (£2, £5 with the tailor, no action),
      the offer board's best expense, special (old friends, hectic days, Ball), joker or
      event for its hand, which also keeps them from the others; the unknown card over the
      market; an extension when its hand holds more black cards than its board has room.
    - draws: while three or more rounds are expected, the helpers deck (recurring expenses,
      helpers) first in rounds 1-2 and as often as events later; otherwise events (every
      action needs a card); one companion when the hand has two add-ons to fill.
    - keep / discard: keep the cards that spend most per action in the rounds left
      (expenses without action cost, Balls, boat trips with add-ons, specials); properties
      and property helpers first out. Use options: the one that spends most.
    """

    name = "racer"
    carry_weight = 0.2  # share of a kept card's value counted when planning this round
    errand_weight = 0.3  # weight of what a plan's errand boys should bring
    block_second = 1.0  # two players, choosing first: block the second best plan
    contest = 0.6  # share of the errands before it in turn order that the others take
    order_weight = 0.15  # early turn order before the last round, late order in it
    base_rate = 14.0  # £ a round spends without recurring cards
    helpers_early = 6.0  # draw preference for the helpers deck in rounds 1-2 (events: 3)
    helpers_later = 3.0  # ... later, while three or more rounds are expected
    extension_value = 1.5
    card_bonus = 1.0  # £ per plan card while three or more rounds are expected

    # the weights above that a spec may set, e.g. `racer:errand_weight=0.1:base_rate=18`
    KNOBS = (
        "carry_weight",
        "errand_weight",
        "block_second",
        "contest",
        "order_weight",
        "base_rate",
        "helpers_early",
        "helpers_later",
        "extension_value",
        "card_bonus",
    )

    def __init__(self, seed: int | None = None, eps: float = 0.0, **knobs: float) -> None:
        super().__init__(seed, eps)
        self._memo_view = None
        self._memo: dict = {}
        for key, value in knobs.items():
            if key not in self.KNOBS:
                raise ValueError(
                    f"{key!r} is not a weight of the racer; allowed: eps, {', '.join(self.KNOBS)}"
                )
            setattr(self, key, check_number(key, value, 0))

    # -- per-view memo (a decision evaluates many hypothetical hands against one view) ------
    def memo(self, v) -> dict:
        if self._memo_view is not v:
            self._memo_view = v
            self._memo = {}
        return self._memo

    # -- the race clock ---------------------------------------------------------------------
    def spend_rate(self, v) -> float:
        """£ per round the racer expects to spend from the next round on."""
        rate = self.base_rate
        for c in v.boards[0]:
            spec = CARDS[c]
            if CAT[c] in ("expense", "helper") and spec.use_actions == 0:
                rate += use_amount(v, c)
            rate += spec.extra_actions * ACTION_VALUE
        return rate

    def horizon(self, v) -> int:
        """Rounds the game is expected to last, this one included."""
        m = self.memo(v)
        h = m.get("h")
        if h is None:
            if self.is_last_round(v):
                h = 1
            else:
                left = NUM_ROUNDS - v.round + 1
                h = max(1, min(left, ceil(v.money[0] / self.spend_rate(v))))
            m["h"] = h
        return h

    def is_last_round(self, v) -> bool:
        """Round 7, or someone (the racer too) is already bankrupt (docs/RULES.md §5, §7)."""
        if v.round >= NUM_ROUNDS or v.final_round or v.money[0] <= 0:
            return True
        for seat in range(1, v.num_players):
            if v.money[seat] <= 0 and not any(CAT[c] == "property" for c in v.boards[seat]):
                return True
        return False

    # -- what cards are worth ---------------------------------------------------------------
    def use_value(self, v, c: int) -> float:
        """£ one use of black card c spends (its current option; bonuses on this board)."""
        m = self.memo(v)
        key = ("use", c)
        if key not in m:
            m[key] = self._use_value(v, c)
        return m[key]

    def _use_value(self, v, c: int) -> float:
        spec = CARDS[c]
        if spec.training != (0, 0, 0) or CAT[c] == "property" or spec.use_actions < 0:
            return 0.0
        if c in v.boards[0]:
            return float(use_amount(v, c))
        return float(spec.spend + (bonus(v, spec.family) if CAT[c] == "expense" else 0))

    def privilege_value(self, v, c: int) -> float:
        """£ per round a helper's privilege adds (bonuses, actions, draws, hand limit)."""
        spec = CARDS[c]
        val = 0.0
        if spec.bonus_amount:
            tags = spec.bonus_tags
            if all(t.startswith("maintain:") for t in tags):
                return 0.0
            uses = sum(1.0 for b in v.boards[0] if CARDS[b].family in tags)
            uses += sum(0.5 for h in v.hand if CARDS[h].family in tags)
            uses += 0.5 * len(tags) + (0.7 if "opera" in tags else 0.0)
            val += spec.bonus_amount * uses
        val += ACTION_VALUE * spec.extra_actions
        if spec.free_kind == "event_action":
            val += ACTION_VALUE * spec.free_per_round * 0.8
        if spec.extra_draw in ("events", "any"):
            val += 0.6 * spec.extra_draw_count
        elif spec.extra_draw == "companions":
            val += 0.3 * spec.extra_draw_count
        val += 0.3 * spec.hand_limit_bonus
        return val

    def later_value(self, v, c: int) -> float:
        """Future £ of black card c on the board in the rounds after this one."""
        m = self.memo(v)
        key = ("later", c)
        if key not in m:
            m[key] = self._later_value(v, c)
        return m[key]

    def _later_value(self, v, c: int) -> float:
        later = self.horizon(v) - 1
        if later <= 0:
            return 0.0
        spec = CARDS[c]
        per_round = max(self.use_value(v, c) - ACTION_VALUE * max(spec.use_actions, 0), 0.0)
        if CAT[c] == "helper":
            per_round += self.privilege_value(v, c)
        return FUTURE * per_round * later

    def carry_value(self, v, c: int) -> float:
        """What card c is worth kept in hand for a later round."""
        m = self.memo(v)
        key = ("carry", c)
        if key not in m:
            m[key] = self._carry_value(v, c)
        return m[key]

    def _carry_value(self, v, c: int) -> float:
        spec = CARDS[c]
        cat = CAT[c]
        if c == DRAWN:
            return 0.8
        if cat == "event":
            if spec.gain_actions:
                return ACTION_VALUE * (spec.gain_actions - spec.play_actions) + 1.0
            if spec.effect:
                return 0.0
            if spec.ball:
                return max(amt - 1.5 * k for k, amt in spec.ball) + 1.0
            extra = sum(a for _, a in spec.addons) * 0.3
            return spec.spend + bonus(v, spec.family) + extra - 1.2 * spec.play_actions
        if cat in ("expense", "helper"):
            return self.later_value(v, c) * 0.8 - 0.5
        if cat == "companion":
            return 0.3 + 0.5 * self.companion_need(v, spec.companion)
        if cat == "joker":
            return 0.0  # jokers go back to the offer board at the round's end
        return -1.0  # properties and anything else

    def companion_need(self, v, t: int) -> float:
        need = 0.0
        for c in v.hand:
            for ct, amount in CARDS[c].addons:
                if ct == t:
                    need = max(need, amount / 3.0)
        return need

    def family_bonus(self, v, family: str) -> int:
        m = self.memo(v)
        key = ("bonus", family)
        if key not in m:
            m[key] = bonus(v, family)
        return m[key]

    # -- one round's spending ---------------------------------------------------------------
    def round_plan(self, v, hand, actions: int, final: bool, legal=None):
        """Best spending of this round from `hand` and the board with `actions` actions.

        Returns (value, chosen keys, hand cards left). Keys are ('play', c), ('use', c),
        ('attach_card', c), ('attach_joker', c) or ('gain', c); `legal` (a set of action
        indices) restricts them to what is legal now. The choices come in groups (one option
        of a group at most), gathered in this order: the events, the board, the black cards
        of the hand, the blind event cards; the knapsack picks the best within the actions."""
        board = v.boards[0]
        acts = actions
        acts += sum(v.privilege_left[c] for c in board if CARDS[c].free_kind == "event_action")
        acts, value, fixed = _action_gainers(hand, acts, legal)
        groups = list(self._groups(v, hand, final, legal))
        # blind event cards of a hypothetical hand
        for i, c in enumerate(hand):
            if c == DRAWN:
                groups.append([(1, DRAWN_SPEND, ("drawn", i))])
        best, chosen = knapsack(groups, acts)
        chosen = tuple(fixed) + chosen
        return value + best, chosen, _left_in_hand(hand, chosen, fixed)

    def _groups(self, v, hand, final: bool, legal) -> list[list[tuple]]:
        """The groups of the events, the board and the black cards, for the hand's own cards
        (its blind cards are left out: none of these reads them). They depend on neither the
        actions nor the blind cards, so one decision's plans share them: kept per view for
        (those cards, final, legal). The caller must not change the list it gets."""
        cards = tuple(c for c in hand if c >= 0)
        key = ("groups", cards, final, None if legal is None else frozenset(legal))
        m = self.memo(v)
        if key not in m:
            free_spaces = 5 + v.extensions[0] - len(v.boards[0])
            pool = _companion_pool(cards)
            groups = self._event_groups(v, cards, pool, legal)
            board_groups, weakest = self._board_groups(v, pool, final, legal)
            groups += board_groups
            groups += self._black_groups(v, cards, free_spaces, weakest, final, legal)
            m[key] = groups
        return m[key]

    def _event_groups(self, v, hand, pool: list[int], legal) -> list[list[tuple]]:
        """The events of `hand` (not the action gainers), the biggest add-ons first so they
        get the companions (taken from `pool`)."""
        groups = []
        events = [c for c in hand if c >= 0 and CAT[c] == "event" and not CARDS[c].gain_actions]
        events.sort(key=lambda c: -sum(a for _, a in CARDS[c].addons))
        for c in events:
            spec = CARDS[c]
            if spec.effect or not _ok(legal, "play", c):
                continue
            fam = self.family_bonus(v, spec.family)
            if spec.ball:
                groups.append([(k, float(amt + fam), ("play", c)) for k, amt in spec.ball])
                continue
            total = spec.spend + spec.play_cost + fam
            for t, amount in spec.addons:
                if pool[t]:
                    pool[t] -= 1
                    total += amount
                elif pool[4]:
                    pool[4] -= 1
                    total += amount
            groups.append([(spec.play_actions, float(total), ("play", c))])
        return groups

    def _board_groups(self, v, pool: list[int], final: bool, legal):
        """The board's uses and its companions onto slots (from what is left in `pool`), and
        the value kept by the weakest card (the one a room discard would cost)."""
        groups = []
        weakest = None
        later_h = self.horizon(v) - 1 if not final else 0
        for c in v.boards[0]:
            spec = CARDS[c]
            if CAT[c] == "property":
                continue
            used = v.used[c]
            amount = self.use_value(v, c)
            if spec.use_actions >= 0 and not used and amount > 0 and _ok(legal, "use", c):
                groups.append([(spec.use_actions, amount, ("use", c))])
            f = v.filled_slots[c]
            if f < len(spec.slots) and later_h + (0 if used else 1) > 0:
                t = spec.slots[f][0]
                gain = spec.slots[f][1] - (spec.slots[f - 1][1] if f else spec.spend)
                uses = FUTURE * later_h + (0 if used else 1)
                for kind, have in (("attach_card", pool[t] > 0), ("attach_joker", pool[4] > 0)):
                    if have and _ok(legal, kind, c) and v.tokens[t] > 0:
                        groups.append([(1, gain * uses - 0.3, (kind, c))])
                        break
            keep = 0.0 if final else self.later_value(v, c)
            if weakest is None or keep < weakest:
                weakest = keep
        return groups, weakest

    def _black_groups(self, v, hand, free_spaces: int, weakest, final: bool, legal):
        """The black cards of `hand` (expenses and helpers), the most valuable first: those
        beyond the free board spaces pay for the room they take (`weakest`)."""
        board = v.boards[0]
        blacks = []
        for c in hand:
            if c < 0 or CAT[c] not in ("expense", "helper") or not _ok(legal, "play", c):
                continue
            spec = CARDS[c]
            now = float(spec.play_cost)
            if spec.bonus_amount:
                tags = spec.bonus_tags
                now += spec.bonus_amount * sum(
                    1 for h in hand if h >= 0 and CAT[h] == "event" and CARDS[h].family in tags
                )
                now += spec.bonus_amount * sum(
                    1 for b in board if CARDS[b].family in tags and not v.used[b]
                )
            if spec.free_kind == "event_action":
                now += DRAWN_SPEND  # the valet's free event action works this round
            later = 0.0 if final else self.later_value(v, c)
            blacks.append((later + now, c, spec, now, later))
        blacks.sort(key=lambda x: -x[0])
        groups = []
        for i, (_, c, spec, now, later) in enumerate(blacks):
            room = 0.0 if i < free_spaces else (weakest or 0.0)
            opts = []
            use = self.use_value(v, c)
            if spec.use_actions == 0:
                opts.append((spec.play_actions, now + use + later - room, ("play", c)))
            else:
                opts.append((spec.play_actions, now + later - room, ("play", c)))
                if spec.use_actions > 0 and use > 0:
                    opts.append(
                        (
                            spec.play_actions + spec.use_actions,
                            now + use + later - room,
                            ("play", c),
                        )
                    )
            groups.append(opts)
        return groups

    def hand_limit(self, v) -> int:
        return HAND_LIMIT + sum(CARDS[c].hand_limit_bonus for c in v.boards[0])

    def kept(self, v, left, final: bool) -> list[tuple[float, int]]:
        """(carry value, card) of the leftover cards the hand limit keeps for the next round."""
        if final:
            return []
        vals = sorted(((self.carry_value(v, c), c) for c in left), reverse=True)
        return [x for x in vals[: self.hand_limit(v)] if x[0] > 0]

    def outlook(self, v, hand, actions: int, final: bool) -> float:
        """This round's spending plus a share of what the leftover hand carries over."""
        value, _, left = self.round_plan(v, hand, actions, final)
        return value + self.carry_weight * sum(x for x, _ in self.kept(v, left, final))

    def my_actions(self, v) -> int:
        """Actions of this round's plan (during errands), old friends included."""
        p = v.plans[0]
        if p < 0:
            return 3
        plan = CATALOGUE.plans[v.num_players][p]
        return plan.actions + sum(CARDS[c].extra_actions for c in v.boards[0])

    # -- the turn ---------------------------------------------------------------------------
    def crosses(self, v, acts: int, legal_set=None) -> bool:
        """Can this round's spending with `acts` actions take the racer to £0 or below?"""
        cash = v.money[0] + sum(sale_price(v, c) for c in v.boards[0] if CAT[c] == "property")
        value, _, _ = self.round_plan(v, list(v.hand), acts, True, legal_set)
        return cash - value <= 0

    def expect_last(self, v, acts: int) -> bool:
        """Will this round be the last (docs/RULES.md §5: a bankrupt player ends the game)?"""
        return self.is_last_round(v) or self.crosses(v, acts)

    def turn_rule(self, v, legal: list[int]) -> int:
        legal_set = set(legal)
        final = self.is_last_round(v) or self.crosses(v, v.actions, legal_set)
        # a property blocks debt: sell it before the last round's spending
        sells = [a for a in legal if ACTION_TABLE[a][0] == "sell"]
        if sells and final:
            return self.best(sells, lambda a: -sale_price(v, ACTION_TABLE[a][1]))
        _, chosen, _ = self.round_plan(v, list(v.hand), v.actions, final, legal_set)
        if not chosen:
            return PASS
        return ACTION_INDEX[self.first_of(chosen)]

    def first_of(self, chosen) -> tuple[str, int]:
        """Which chosen play comes first: action gainers, helpers that raise later spending,
        uses that cost no action, then the rest (the biggest commitments last)."""

        def prio(key) -> tuple:
            kind, c = key
            spec = CARDS[c]
            if kind == "gain":
                return (0, c)
            if kind == "play" and CAT[c] == "helper" and (spec.bonus_amount or spec.free_kind):
                return (1, c)
            if kind == "use" and spec.use_actions == 0:
                return (2, c)
            if kind.startswith("attach"):
                return (3, c)
            if kind == "play" and CAT[c] in ("expense", "helper"):
                return (4, c)
            return (5, c)

        kind, c = min(chosen, key=prio)
        return ("play", c) if kind == "gain" else (kind, c)

    # -- the other phases -------------------------------------------------------------------
    def plan_value(self, v, p: int, final: bool, errands: list[float] | None = None) -> float:
        plan = CATALOGUE.plans[v.num_players][p]
        acts = plan.actions + sum(CARDS[c].extra_actions for c in v.boards[0])
        extra = sum(CARDS[c].extra_draw_count for c in v.boards[0] if CARDS[c].extra_draw == "any")
        hand = list(v.hand) + [DRAWN] * (plan.cards + extra)
        value, chosen, left = self.round_plan(v, hand, acts, final)
        kept = self.kept(v, left, final)
        value += self.carry_weight * sum(x for x, _ in kept)
        if not final and self.horizon(v) >= 3:
            # blind cards early build the board: those played or kept count
            used = sum(1 for k in chosen if k[0] == "drawn") + sum(1 for _, c in kept if c == DRAWN)
            value += self.card_bonus * used
        if errands is None:
            errands = sorted(self.errand_values(v, acts, final).values(), reverse=True)
        value += self.errand_weight * self.errand_outlook(v, p, errands)
        if final:
            value += 2 * self.order_weight * plan.order
        else:
            value -= self.order_weight * plan.order
        return value

    def plan_is_last(self, v) -> bool:
        if self.is_last_round(v):
            return True
        plans = range(len(CATALOGUE.plans[v.num_players]))
        best = max(
            self.round_plan(
                v,
                list(v.hand) + [DRAWN] * CATALOGUE.plans[v.num_players][p].cards,
                CATALOGUE.plans[v.num_players][p].actions,
                True,
            )[0]
            for p in plans
        )
        return v.money[0] - best - OPERA <= 0

    def plan_rule(self, v, legal: list[int]) -> int:
        final = self.plan_is_last(v)
        errands = sorted(self.errand_values(v, 3, final).values(), reverse=True)
        return self.best(legal, lambda a: self.plan_value(v, ACTION_TABLE[a][1], final, errands))

    def block_rule(self, v, legal: list[int]) -> int:
        """Two players (docs/RULES.md §4.2): the start player blocks first and chooses last, so it
        blocks the plan it (and, likely, the other racer of actions) wants most; the other
        player chooses first, so it keeps its best and blocks the next one."""
        final = self.plan_is_last(v)
        errands = sorted(self.errand_values(v, 3, final).values(), reverse=True)
        ranked = sorted(
            legal, key=lambda a: (-self.plan_value(v, ACTION_TABLE[a][1], final, errands), a)
        )
        if v.start_player == 0 or len(ranked) == 1 or not self.block_second:
            return ranked[0]
        return ranked[1]

    def draw_rule(self, v, legal: list[int]) -> int:
        counts = [v.draw_queue.count(d) for d in range(4)]
        h = self.horizon(v)
        comp, jokers = companions_in_hand(v)
        open_addons = sum(1 for c in v.hand for t, _ in CARDS[c].addons if not comp[t])
        pref = [3.0, 0.0, -5.0, 0.0]
        if h >= 3:
            pref[HELPERS] = self.helpers_early if v.round <= 2 else self.helpers_later
        if open_addons - jokers >= 2 and counts[3] == 0:
            pref[3] = 1.5

        def score(a: int) -> float:
            kind, d = ACTION_TABLE[a]
            if kind == "pass":
                return 0.05
            return pref[d] / (1.0 + 0.7 * counts[d])

        return self.best(legal, score)

    def unknown_rule(self, v, legal: list[int]) -> int:
        return self.best(legal, lambda a: 1.0 if ACTION_TABLE[a][1] == EVENTS else 0.0)

    def errand_values(self, v, acts: int, final: bool) -> dict[int, float]:
        """£ each free errand space is worth to the racer now (what it adds to this round's
        spending and the kept hand; the opera's £2 with no action)."""
        hand = list(v.hand)
        base = self.outlook(v, hand, acts, final)
        out: dict[int, float] = {}
        for space, c in enumerate(v.offer):
            if c >= 0 and v.offer_taken_by[space] < 0:
                gain = self.outlook(v, [*hand, c], acts, final) - base
                if CAT[c] == "joker":
                    gain += 0.5  # one less joker for the others
                out[space] = gain
        if not v.opera_used:
            out[ERRAND_OPERA] = OPERA + bonus(v, "opera") + 0.5
        if not v.unknown_used[0]:
            out[ERRAND_UNKNOWN] = self.outlook(v, [*hand, DRAWN], acts, final) - base
        if v.extensions_left > 0:
            blacks = sum(1 for c in hand if CAT[c] in ("expense", "helper"))
            free = 5 + v.extensions[0] - len(v.boards[0])
            ok = blacks > free and self.horizon(v) > 2
            out[ERRAND_EXTENSION] = self.extension_value if ok else 0.1
        if not v.market_used:
            out[ERRAND_MARKET] = 0.05
        return out

    def errand_rule(self, v, legal: list[int]) -> int:
        acts = self.my_actions(v)
        values = self.errand_values(v, acts, self.expect_last(v, acts))

        def score(a: int) -> float:
            if a == PASS:
                return -1.0
            return values.get(ACTION_TABLE[a][1], 0.0)

        return self.best(legal, score)

    def errand_outlook(self, v, p: int, values: list[float]) -> float:
        """What plan p's errand boys should bring: the others before it in turn order take
        part of the best errands first (`values` sorted best first)."""
        plans = CATALOGUE.plans[v.num_players]
        plan = plans[p]
        n = v.num_players
        ahead1 = ahead2 = 0.0
        chosen = [q for q in v.plans[1:] if q >= 0]
        for q in chosen:
            if plans[q].order < plan.order:
                ahead1 += 1
                ahead2 += plans[q].errand_boys > 1
        free = [
            q for q in range(len(plans)) if q != p and q not in chosen and q not in v.blocked_plans
        ]
        others = n - 1 - len(chosen)
        if others > 0 and free:
            before = [q for q in free if plans[q].order < plan.order]
            ahead1 += others * len(before) / len(free)
            ahead2 += others * sum(plans[q].errand_boys > 1 for q in before) / len(free)

        def at(rank: float) -> float:
            i = int(self.contest * rank + 0.5)
            return values[i] if i < len(values) else 0.0

        total = at(ahead1)
        if plan.errand_boys > 1:
            total += at(n + ahead2) if n + ahead2 >= 1 else 0.0
        return total

    def keep_rule(self, v, legal: list[int]) -> int:
        def score(a: int) -> float:
            c = ACTION_TABLE[a][1]
            if CAT[c] not in ("expense", "helper"):
                return -1.0
            spec = CARDS[c]
            first = self.use_value(v, c) - ACTION_VALUE * max(spec.use_actions, 0)
            return self.later_value(v, c) + first - ACTION_VALUE * spec.play_actions * 0.5

        return self.best(legal, score)

    def room_rule(self, v, legal: list[int]) -> int:
        final = self.expect_last(v, v.actions)

        def score(a: int) -> float:
            c = ACTION_TABLE[a][1]
            if final:
                return 1.0 if v.used[c] else -self.use_value(v, c)
            return -self.later_value(v, c) - (0 if v.used[c] else self.use_value(v, c))

        return self.best(legal, score)

    def ball_rule(self, v, legal: list[int]) -> int:
        spec = CARDS[v.resolving]
        table = dict(spec.ball)
        avail = v.actions + sum(
            v.privilege_left[c] for c in v.boards[0] if CARDS[c].free_kind == "event_action"
        )
        final = self.is_last_round(v) or v.money[0] - max(table.values()) <= 0
        final = final or self.crosses(v, avail - min(table))
        hand = list(v.hand)
        fam = bonus(v, spec.family)

        def score(a: int) -> float:
            k = ACTION_TABLE[a][1]
            rest, _, _ = self.round_plan(v, hand, avail - k, final)
            return table[k] + fam + rest

        return self.best(legal, score)

    def addon_rule(self, v, legal: list[int]) -> int:
        for kind in ("addon_card", "addon_joker"):
            for a in legal:
                if ACTION_TABLE[a][0] == kind:
                    return a
        return legal[0]

    def option_rule(self, v, legal: list[int]) -> int:
        """Use option (docs/RULES.md §4.4): the one that spends most; the legal ones are those the
        seat can pay."""
        spec = CARDS[v.using]
        printed = spec.upkeep if CAT[v.using] == "property" else spec.spend

        def amount(a: int) -> int:
            o = ACTION_TABLE[a][1]
            return spec.slots[o - 1][1] if o else printed

        return self.best(legal, amount)

    def market_rule(self, v, legal: list[int]) -> int:
        return self.best(legal, lambda a: 1.0 if ACTION_TABLE[a][1] == 0 else 0.0)

    def discard_rule(self, v, legal: list[int]) -> int:
        comp, _ = companions_in_hand(v)

        def score(a: int) -> float:
            kind, arg = ACTION_TABLE[a]
            if kind == "discard_companion":
                return -(0.3 + 0.5 * self.companion_need(v, arg))
            return -self.carry_value(v, arg)

        return self.best(legal, score)


class SprinterBot(RacerBot):
    """Sprinter: the racer retuned against the racer on the 2-3 player board side.

    Plan of play: the racer's (`RacerBot`) in every phase. With 2 or 3 players (the board side
    for 2-3 players, docs/RULES.md §3) three of its weights differ: the errand boys a plan
    brings weigh 0.1 instead of 0.3 (with fewer seats there are fewer errands to contest, and
    the plan's own actions and cards matter more), turn order counts nothing before the last
    round, and it expects to spend £18 a round instead of £14 (so it sees the last round
    coming sooner and plays for it). With 4 or 5 players it plays exactly as the racer. These
    weights were chosen by paired games against racers at 3 players (any setting can be played
    so: `python -m labreports.reference_tables --policy racer:errand_weight=0.1:order_weight=0:
    base_rate=18 --panel racer`); docs/EXPERIMENTS.md (Bots) gives the figures.
    """

    name = "sprinter"
    SMALL_BOARD = {"errand_weight": 0.1, "order_weight": 0.0, "base_rate": 18.0}

    def __init__(self, seed: int | None = None, eps: float = 0.0, **knobs: float) -> None:
        if knobs:
            raise ValueError(
                f"the sprinter's weights are fixed (got {', '.join(sorted(knobs))}); it takes "
                f"eps only (racer:KEY=VALUE sets the racer's weights)"
            )
        super().__init__(seed, eps)

    def act(self, view, legal: list[int]) -> int:
        for key, value in self.SMALL_BOARD.items():
            if view.num_players <= 3:
                setattr(self, key, value)
            else:
                self.__dict__.pop(key, None)  # the racer's own weight
        return super().act(view, legal)
