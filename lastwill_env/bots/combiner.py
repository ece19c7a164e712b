"""The companion combiner."""

from __future__ import annotations

from lastwill_env.engine.actions import ACTION_TABLE

from .common import CARDS, ScriptedBot, rounds_after


class CombinerBot(ScriptedBot):
    """Companion combiner: turns companions and jokers into bigger spending.

    Plan of play:
    - keep expenses and farms with many companion slots; draw companions and events, take
      jokers from the offer board.
    - turn: attach a companion (or a joker, when no card fits) to the board card whose next
      slot has the highest total upkeep, and use it every round; play events with every
      companion add-on; farms with slots are worth buying early (their upkeep grows with each
      horse or dog).
    - breeders fair: fill the farm slot with the highest total; discards: companions last.
    - everything else like the greedy spender.
    """

    name = "combiner"
    w_companion = 2.0
    deck_pref = (2.5, 1.5, 0.3, 2.0)

    def property_hand_value(self, v, c: int) -> float:
        spec = CARDS[c]
        if spec.slots:
            return 1.0 + 0.5 * max(t for _, t in spec.slots) - 0.1 * spec.values[0]
        return super().property_hand_value(v, c)

    def turn_burn(self, v, a: int) -> tuple[float, float]:
        kind, c = ACTION_TABLE[a]
        if kind in ("attach_card", "attach_joker"):
            spec = CARDS[c]
            total = spec.slots[v.filled_slots[c]][1]
            uses = rounds_after(v) + (0 if v.used[c] else 1)
            if uses <= 0:
                return -1.0, 1
            return total * 0.6 * uses + total - (1.0 if kind == "attach_joker" else 0.0), 1
        if kind == "play" and CARDS[c].category == "property" and CARDS[c].slots:
            burn, used = super().turn_burn(v, a)
            return burn + 2.0 * len(CARDS[c].slots), used
        return super().turn_burn(v, a)
