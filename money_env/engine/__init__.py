"""The Money! rules engine (docs/games/MONEY.md), standard library only.

Public API:
- `GameConfig(num_players)`: 3 to 5 players (`ConfigError` otherwise).
- `new_game(config, seed)`, `current_player(state)`, `legal_actions(state)`,
  `apply_action(state, action)` (in place; returns None), `is_over(state)`, `results(state)`,
  `replay(config, seed, actions)`; a seed is an int from 0 to 2**64 - 1 (`check_seed`).
- `GameState.clone()`, `GameState.to_dict()` / `GameState.from_dict()` (validated: a malformed
  state or one the rules cannot reach raises `StateError` naming the field).
- `player_view(state, seat)` -> `PlayerView` (seats relative to the viewer), and
  `determinize(view, rng)` -> a full `GameState` consistent with the view.
- The action table: `ACTION_TABLE`, `NUM_ACTIONS`, `decode`, `describe_action`.
- The card data: `CARDS`, `CARD_DATA`, `load_cards`, `card_name`, `kind_name`.
"""

from .actions import (
    ACTION_TABLE,
    ADD,
    COMMIT,
    KEEP,
    NUM_ACTIONS,
    TAKE_BID,
    TAKE_LEFT,
    TAKE_RIGHT,
    action_table_text,
    decode,
    describe_action,
)
from .cards import (
    BLUFF_KIND,
    CARD_DATA,
    CARDS,
    COIN_KIND,
    KIND,
    NUM_CARDS,
    NUM_KINDS,
    VALUE,
    CardDataError,
    card_name,
    kind_name,
    load_cards,
)
from .config import ConfigError, GameConfig, check_seed
from .determinize import DeterminizeError, determinize
from .game import (
    GameState,
    IllegalActionError,
    apply_action,
    current_player,
    is_over,
    legal_actions,
    new_game,
    replay,
    results,
)
from .tables import (
    BID_PHASE,
    EXCHANGE_PHASE,
    GAME_OVER,
    MAX_DECISIONS_PER_GAME,
    MAX_ROUNDS,
    PHASE_NAMES,
)
from .validate import StateError
from .view import PlayerView, player_view

__all__ = [
    "ACTION_TABLE",
    "ADD",
    "COMMIT",
    "KEEP",
    "NUM_ACTIONS",
    "TAKE_BID",
    "TAKE_LEFT",
    "TAKE_RIGHT",
    "action_table_text",
    "decode",
    "describe_action",
    "BLUFF_KIND",
    "CARD_DATA",
    "CARDS",
    "COIN_KIND",
    "KIND",
    "NUM_CARDS",
    "NUM_KINDS",
    "VALUE",
    "CardDataError",
    "card_name",
    "kind_name",
    "load_cards",
    "ConfigError",
    "GameConfig",
    "check_seed",
    "DeterminizeError",
    "determinize",
    "GameState",
    "IllegalActionError",
    "apply_action",
    "current_player",
    "is_over",
    "legal_actions",
    "new_game",
    "replay",
    "results",
    "BID_PHASE",
    "EXCHANGE_PHASE",
    "GAME_OVER",
    "MAX_DECISIONS_PER_GAME",
    "MAX_ROUNDS",
    "PHASE_NAMES",
    "StateError",
    "PlayerView",
    "player_view",
]
