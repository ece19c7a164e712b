"""The property speculator."""

from __future__ import annotations

from lastwill_env.engine.actions import ACTION_TABLE

from .common import (
    CARDS,
    ScriptedBot,
    buy_price,
    held_value,
    is_final_round,
    rounds_after,
    sale_price,
)


class SpeculatorBot(ScriptedBot):
    """Property speculator: loses money on the property market.

    Plan of play:
    - keep dear houses (the higher the first value and the longer the value track, the
      better), take property cards from the offer and draw from the properties deck.
    - market errand: with houses in hand, put the +3 tile on their type (dearer purchase);
      with houses on the board, put the -3 / -2 tiles on their types (cheaper sale).
    - buy houses when the purchase plus the later cheap sale loses money; never maintain them,
      so they depreciate every round; sell a house once its modifier is low or its value hit
      the floor, and sell everything in the final round so it can end in debt.
    - everything else (events, expenses, ball, wild party on its own houses) like the greedy
      spender.
    """

    name = "speculator"
    w_property = 2.0
    maintain = False
    deck_pref = (3.0, 1.5, 1.5, 0.5)

    def property_hand_value(self, v, c: int) -> float:
        spec = CARDS[c]
        if spec.prop_type == 0:
            return 0.5 + 0.05 * spec.values[0]
        return 1.0 + 0.2 * spec.values[0] + 0.5 * (len(spec.values) - 1)

    def turn_burn(self, v, a: int) -> tuple[float, float]:
        kind, c = ACTION_TABLE[a]
        if kind == "play" and CARDS[c].category == "property":
            if is_final_round(v) or rounds_after(v) < 1:
                return -5.0, 1
            spec = CARDS[c]
            later = held_value(v, c, 0, min(rounds_after(v), 3)) - 5 - 3
            loss = buy_price(v, c) - max(later, 0)
            return loss - 2.0 + (2.0 if spec.prop_type else 0.0), 2
        if kind == "use" and CARDS[c].category == "property":
            spec = CARDS[c]
            if spec.prop_type and not is_final_round(v):
                return -1.0, 1
        if kind == "sell":
            spec = CARDS[c]
            gain = held_value(v, c) - sale_price(v, c)
            floor = v.value_step[c] >= len(spec.values) - 1
            if is_final_round(v) or v.modifiers[spec.prop_type] <= -2 or floor:
                return gain + 4.0, 1
            return -1.0, 1
        return super().turn_burn(v, a)
