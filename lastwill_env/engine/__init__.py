"""The Last Will rules engine (docs/RULES.md, docs/CARDS.md), standard library only.

Public API:
- `GameConfig` / `make_config`: player count 2–5 and the docs/RULES.md §9 options.
- `new_game(config, seed)`, `legal_actions(state)`, `apply_action(state, action)`,
  `player_view(state, seat)`, `results(state)`, `replay(config, seed, actions)`; a seed is an
  int from 0 to 2**64 - 1 (`check_seed`), an action a Python or numpy integer.
- `GameState.clone()`, `GameState.to_dict()` / `GameState.from_dict()` (validated: a state
  the rules cannot reach raises `StateError` naming the field).
- The action table: `ACTION_TABLE`, `NUM_ACTIONS`, `encode`, `decode`, `describe_action`.
- The card catalogue: `CATALOGUE` (all 140 cards, plans, offer schedules).
"""

from .actions import (
    ACTION_TABLE,
    NUM_ACTIONS,
    PASS,
    action_table_text,
    decode,
    describe_action,
    encode,
)
from .cards import CATALOGUE, COMPANIONS, DECKS, PROPERTY_TYPES, CardDataError, load_catalogue
from .config import ConfigError, GameConfig, make_config
from .determinize import determinize
from .game import (
    GAME_OVER,
    MAX_DECISIONS_PER_GAME,
    NUM_CARDS,
    NUM_PHASES,
    NUM_ROUNDS,
    PHASE_NAMES,
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
from .rng import check_seed
from .validate import StateError
from .view import PlayerView, player_view

__all__ = [
    "ACTION_TABLE",
    "NUM_ACTIONS",
    "PASS",
    "action_table_text",
    "decode",
    "describe_action",
    "encode",
    "CATALOGUE",
    "COMPANIONS",
    "DECKS",
    "PROPERTY_TYPES",
    "CardDataError",
    "load_catalogue",
    "ConfigError",
    "GameConfig",
    "make_config",
    "GAME_OVER",
    "MAX_DECISIONS_PER_GAME",
    "NUM_CARDS",
    "NUM_PHASES",
    "NUM_ROUNDS",
    "PHASE_NAMES",
    "GameState",
    "IllegalActionError",
    "apply_action",
    "current_player",
    "is_over",
    "legal_actions",
    "new_game",
    "replay",
    "results",
    "StateError",
    "PlayerView",
    "player_view",
    "determinize",
    "check_seed",
]
