"""Games by name: `load_game("lastwill")`.

A game package declares its `Game` subclass in its `pyproject.toml`:

    [project.entry-points."lastwill_lab.games"]
    lastwill = "lastwill_env.lab:LastWillGame"

and `load_game(name)` builds it once (one instance per name). Only names declared so, or
registered in-process with `register_game` (tests, notebooks), can be loaded: a name read from
a file or a request picks among installed games and never names a module to import.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .game import Game

ENTRY_POINT_GROUP = "lastwill_lab.games"
DEFAULT_GAME = "lastwill"  # logs, sidecars and commands that name no game mean Last Will
_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}\Z")

_factories: dict[str, Callable[[], Game]] = {}
_games: dict[str, Game] = {}


class GameNotFound(ValueError):
    """A game name that no installed package declares; the message lists the known ones."""


def _entry_points() -> dict[str, object]:
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def register_game(name: str, factory: Callable[[], Game]) -> None:
    """Make ``name`` loadable in this process (``factory()`` builds the game once)."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"game name {name!r}: use 1-32 lower-case letters, digits or _")
    _factories[name] = factory
    _games.pop(name, None)


def game_names() -> list[str]:
    """Every loadable game name, sorted."""
    return sorted(set(_factories) | set(_entry_points()))


def load_game(name: str | None = None) -> Game:
    """The game called ``name`` (`DEFAULT_GAME` when None); `GameNotFound` for another."""
    name = DEFAULT_GAME if name is None else name
    game = _games.get(name) if isinstance(name, str) else None
    if game is not None:
        return game
    if not isinstance(name, str) or not _NAME.match(name):
        raise GameNotFound(f"game {name!r} is not a game name; choose one of {game_names()}")
    factory = _factories.get(name)
    if factory is None:
        ep = _entry_points().get(name)
        if ep is None:
            raise GameNotFound(f"game {name!r} is not installed; choose one of {game_names()}")
        factory = ep.load()  # type: ignore[attr-defined]
    game = factory()
    if getattr(game, "name", None) != name:
        raise GameNotFound(f"game {name!r}: its entry point builds a game named {game.name!r}")
    _games[name] = game
    return game
