"""The greedy spender."""

from __future__ import annotations

from .common import ScriptedBot


class GreedyBot(ScriptedBot):
    """Greedy spender: every decision maximises the money spent soon.

    Plan of play:
    - keep / errands / discards: keep the cards that spend most per action (big events, Balls,
      expenses with high upkeep, specials); take the opera whenever it is free.
    - plan: many actions first, then cards; draw mostly from the events deck.
    - turn: repeatedly do the action with the most £ burned per action (events with every
      add-on the hand allows, expenses, helpers with lasting value); properties only when the
      purchase loses more than it keeps; sell every property in the final round; pass when
      nothing burns money.
    - ball: invest as many actions as pay more than £1.5 each; wild party on the house losing
      most; room: drop the least valuable helper; market: raise the modifiers of properties in
      hand, lower those of properties owned.
    """

    name = "greedy"
