"""The rules' constants as small ints: the decision kinds (phases), the round count, the declared
bound on decisions, and the card tables of the hot paths (kind and deck of every card).

Shared by the rules (`lastwill_env.engine.game`, which re-exports every name) and the checks of
a loaded state (`lastwill_env.engine.validate`), so that neither imports the other's module for
them. Standard library only.
"""

from __future__ import annotations

from .cards import CATALOGUE, DECKS

# Decision kinds (the pending decision of a state)
KEEP_PHASE, BLOCK_PHASE, PLAN_PHASE, DRAW_PHASE, ERRAND_PHASE, MARKET_PHASE, UNKNOWN_PHASE = range(
    7
)
(
    TURN_PHASE,
    OPTION_PHASE,
    ADDON_PHASE,
    BALL_PHASE,
    ROOM_PHASE,
    WILD_PHASE,
    BREED_PHASE,
    DISCARD_PHASE,
) = range(7, 15)
GAME_OVER = 15
PHASE_NAMES = (
    "keep starting cards",
    "block a plan space",
    "choose a plan",
    "choose decks to draw from",
    "place an errand boy",
    "rearrange the market",
    "draw an unknown card",
    "action turn",
    "choose a use option",
    "event add-on",
    "ball investment",
    "make room",
    "wild party",
    "breeders fair",
    "discard to hand limit",
    "game over",
)
NUM_PHASES = len(PHASE_NAMES)
NUM_ROUNDS = 7
NUM_CARDS = len(CATALOGUE.cards)
MAX_DECISIONS_PER_GAME = 2500  # declared bound, checked by the random-playout tests

CARDS = CATALOGUE.cards

# Card kinds as small ints for the hot paths
K_EVENT, K_EXPENSE, K_HELPER, K_PROPERTY, K_COMPANION, K_JOKER, K_WILL = range(7)
KIND_CODE = {
    "event": K_EVENT,
    "expense": K_EXPENSE,
    "helper": K_HELPER,
    "property": K_PROPERTY,
    "companion": K_COMPANION,
    "joker": K_JOKER,
    "will": K_WILL,
}
KIND = tuple(KIND_CODE[c.category] for c in CARDS)
DECK_CODE = {d: i for i, d in enumerate(DECKS)}
DECK_CODE.update({"special": 4, "joker": 5, "will": 6})
DECK_OF = tuple(DECK_CODE[c.deck] for c in CARDS)
SPECIAL = 4
FARM = 0
