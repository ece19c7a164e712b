"""The lab's seam between games and the harness, standard library only.

A game is one object implementing `gamecore.game.Game` (identity, setup, stepping, results,
information, records, encoders, shaping, bots); the harness (arena, eval, search, trainers,
command line) takes such an object and never imports a game package. Games are found by name
(`load_game("lastwill")`), through the entry-point group `lastwill_lab.games` that a package
declares in its `pyproject.toml`, as players are (docs/DESIGN.md, "Adding a game").

- `Game`, `Bot`, `SILENT`: the interface, a scripted bot's entry, and the marker of an action
  other seats do not see at all.
- `load_game`, `game_names`, `register_game`, `DEFAULT_GAME`, `GameNotFound`: the registry.
- `Agent`, `BaseAgent`, `RandomAgent`: the agent protocol every game's players follow.
- `win_shares`, `terminal_rewards`: results with shared places, counted honestly.

`__version__` is the lab's version (the `lastwill-lab` package's, which pyproject.toml reads
from here); each game's env has a version of its own (`Game.version`).
"""

__version__ = "0.2.0"  # the lab's version, one home: pyproject.toml reads it from here

from .agent import Agent, BaseAgent, RandomAgent
from .game import SILENT, Bot, Game
from .registry import (
    DEFAULT_GAME,
    ENTRY_POINT_GROUP,
    GameNotFound,
    game_names,
    load_game,
    register_game,
)
from .results import REWARD_MODES, check_ranks, terminal_rewards, win_shares

__all__ = [
    "__version__",
    "Agent",
    "BaseAgent",
    "RandomAgent",
    "SILENT",
    "Bot",
    "Game",
    "DEFAULT_GAME",
    "ENTRY_POINT_GROUP",
    "GameNotFound",
    "game_names",
    "load_game",
    "register_game",
    "REWARD_MODES",
    "check_ranks",
    "terminal_rewards",
    "win_shares",
]
