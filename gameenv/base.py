"""What every AEC env of the lab shares beyond PettingZoo's wrappers: the per-agent spaces with
the one check of an agent's name (`SeatSpaces`), and a game's env module that is also its
`env()` factory (`callable_module`). The generic env (`gameenv.aec`) and the games' own envs
(`lastwill_env.env`, `money_env.env`) use both. Imports gymnasium and the standard library only.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from gymnasium import spaces

__all__ = ["SeatSpaces", "callable_module"]


class SeatSpaces:
    """The per-agent spaces of an AEC env whose `observation_spaces` / `action_spaces` map every
    agent (and `_seat` maps each to its seat): an unknown agent is a ValueError naming them."""

    observation_spaces: dict[str, spaces.Space]
    action_spaces: dict[str, spaces.Space]
    possible_agents: list[str]
    _seat: dict[str, int]

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[self._agent(agent)]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[self._agent(agent)]

    def _agent(self, agent: str) -> str:
        """``agent`` if it is one of this game's agents, else a ValueError naming them."""
        if not isinstance(agent, str) or agent not in self._seat:
            raise ValueError(
                f"agent {agent!r} is not in this game; its agents are {self.possible_agents}"
            )
        return agent


class _CallableModule(types.ModuleType):
    """A game's env module that is also its `env()` factory."""

    def __call__(self, **kwargs: Any) -> Any:
        return self.env(**kwargs)


def callable_module(name: str) -> None:
    """Make the module ``name`` callable as its own ``env(**kwargs)``. Importing a game's
    submodule ``NAME_env.env`` makes it the package attribute ``NAME_env.env``, so the module
    itself must be callable for ``NAME_env.env(num_players=4)`` to work in every import order."""
    sys.modules[name].__class__ = _CallableModule
