"""PettingZoo's two standard AEC wrappers, reading the raw env in one hop.

`lastwill_env.env()` wraps `raw_env` in PettingZoo's `AssertOutOfBoundsWrapper` and
`OrderEnforcingWrapper`. Those forward every attribute read (`agent_selection`, `agents`,
`terminations`, ...) through each wrapper's `__getattr__` in turn, and the AEC loop reads them
several times per step: about a quarter of a step went there. The subclasses here keep every
check of the originals (the same errors before `reset()`, the same warning after the game, the
same out-of-bounds assertion) and read those attributes straight from the raw env instead.
`isinstance(e, OrderEnforcingWrapper)` still holds and `str(e)` is the env's name.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

__all__ = ["AssertOutOfBounds", "OrderEnforcing"]


class AssertOutOfBounds(wrappers.AssertOutOfBoundsWrapper):
    """`AssertOutOfBoundsWrapper` whose step reads the raw env directly."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped

    def step(self, action: Any) -> None:
        raw = self._raw
        agent = raw.agent_selection
        assert (
            action is None and (raw.terminations[agent] or raw.truncations[agent])
        ) or raw.action_space(agent).contains(action), "action is not in action space"
        self.env.step(action)


def _before_reset(name: str) -> property:
    """A property reading `name` from the raw env, refused before reset() as PettingZoo does."""

    def get(self: OrderEnforcing) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    return property(get, doc=f"the raw env's `{name}` (refused before reset())")


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """`OrderEnforcingWrapper` whose hot attributes and `last()` read the raw env directly."""

    agents = _before_reset("agents")
    agent_selection = _before_reset("agent_selection")
    rewards = _before_reset("rewards")
    terminations = _before_reset("terminations")
    truncations = _before_reset("truncations")
    infos = _before_reset("infos")

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped

    @property
    def _cumulative_rewards(self) -> dict:
        return self._raw._cumulative_rewards

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:  # what AECEnv.last meets first: agent_selection
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self._raw.last(observe)

    def observe(self, agent: str) -> Any:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self._raw.observe(agent)

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self._raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)

    def __str__(self) -> str:
        return str(self.env)
