"""The agent protocol and the random agent, the same for every game.

An agent plays one seat. The harness calls `reset(seed)` before each game, then
`act(view, legal)` whenever the seat must decide: `view` is the seat's view as its game's
`Game.player_view` gives it, and `legal` the exact legal action indices of the game's flat
action table; the agent returns one of them. An agent that never reads the view may set
`needs_view = False`; harnesses then pass `None` (building a view costs a few engine steps).
`observe(event)` is an optional hook the harness calls with public events (another seat's
action as `Game.public_action` shows it, the end of the game); the default ignores them.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Agent(Protocol):
    name: str

    def reset(self, seed: int | None = None) -> None: ...

    def act(self, view: Any, legal: list[int]) -> int: ...


class BaseAgent(ABC):
    """Convenience base: a seeded `random.Random` per agent, a no-op event hook."""

    name = "base"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng.seed(seed)

    def observe(self, event: dict[str, Any]) -> None:  # noqa: B027 - optional hook
        """Public event hook; override to track the game."""

    @abstractmethod
    def act(self, view: Any, legal: list[int]) -> int:
        """Return one action of `legal`."""


class RandomAgent(BaseAgent):
    """Uniformly random among the legal actions (the chance baseline)."""

    name = "random"
    needs_view = False  # the harness may pass None instead of building a view

    def act(self, view: Any, legal: list[int]) -> int:
        return legal[self.rng.randrange(len(legal))]


def overrides_observe(agent: Any) -> bool:
    """Whether ``agent`` watches the game (its class overrides `BaseAgent.observe`)."""
    obs = getattr(type(agent), "observe", None)
    return obs is not None and obs is not BaseAgent.observe
