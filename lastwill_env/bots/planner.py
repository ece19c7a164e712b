"""The planner: plans by what its hand needs and times its bankruptcy."""

from __future__ import annotations

from lastwill_env.engine.actions import ACTION_TABLE, PASS
from lastwill_env.engine.cards import CATALOGUE

from .common import CARDS, CAT, ScriptedBot, is_final_round, owns_property


class PlannerBot(ScriptedBot):
    """Planner: chooses the plan the hand needs and goes bankrupt on time.

    Plan of play:
    - plan: count the actions the hand and board could use this round; a plan's actions are
      worth a lot up to that need and little beyond it; cards are worth much when the hand is
      poor (few playable cards) and little when it is rich; earlier turn order breaks ties.
    - draws: events and helpers while rounds remain, only events near the end.
    - turn: spend like the greedy spender but never buy property after round 4, and never
      maintain a house (depreciation is free spending).
    - bankruptcy timing: in the final round (round 7) first sell every property (so no payment
      is capped at £0), then play everything into debt.
    """

    name = "planner"
    w_property = 0.6

    def plan_score(self, v, p: int) -> float:
        plan = CATALOGUE.plans[v.num_players][p]
        need = self.useful_actions(v)
        playable = sum(1 for c in v.hand if CAT[c] in ("event", "expense", "helper"))
        acts = min(plan.actions, need) * 5.0 + max(plan.actions - need, 0) * 1.0
        card_w = 3.0 if playable <= 2 else 1.5 if playable <= 4 else 0.5
        if v.round >= 7:
            card_w *= 0.3
        return acts + card_w * plan.cards + 1.5 * plan.errand_boys - 0.2 * plan.order

    def draw_rule(self, v, legal: list[int]) -> int:
        self.deck_pref = (4.0, 0.5, 0.1, 0.5) if v.round >= 6 else (3.0, 2.5, 0.1, 1.0)
        return super().draw_rule(v, legal)

    def turn_burn(self, v, a: int) -> tuple[float, float]:
        kind, c = ACTION_TABLE[a]
        if kind == "play" and CAT[c] == "property" and v.round > 4:
            return -5.0, 1
        if kind == "use" and CAT[c] == "property" and CARDS[c].prop_type:
            burn, used = super().turn_burn(v, a)
            return burn - 2.0, used
        return super().turn_burn(v, a)

    def turn_rule(self, v, legal: list[int]) -> int:
        if is_final_round(v) and owns_property(v):
            sells = [a for a in legal if ACTION_TABLE[a][0] == "sell"]
            if sells:
                return self.best(sells, lambda a: -v.money[0])
            if v.money[0] <= 0 and PASS in legal and len(legal) == 1:
                return PASS
        return super().turn_rule(v, legal)
