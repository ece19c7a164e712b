"""Constants the rules and the state checks share (docs/games/MONEY.md §4-5, §8.5)."""

from __future__ import annotations

from .cards import FIRST_BLUFF
from .config import MAX_PLAYERS

BID_PHASE = 0
EXCHANGE_PHASE = 1
GAME_OVER = 2
PHASE_NAMES = ("bid", "exchange", "over")

# §8.5: the game also ends after this round (a table that never draws would play forever)
MAX_ROUNDS = 60
# a round asks at most (hand cards + one commit) per seat in the bids and one decision per seat
# in the exchange: at most every note, coin and bluff of a 5-player game plus two per seat
DECISIONS_PER_ROUND = FIRST_BLUFF + MAX_PLAYERS + 2 * MAX_PLAYERS  # 69 + 5 + 10 = 84
MAX_DECISIONS_PER_GAME = MAX_ROUNDS * DECISIONS_PER_ROUND
