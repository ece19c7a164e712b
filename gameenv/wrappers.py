"""PettingZoo's two standard AEC wrappers, reading the raw env in one hop.

Every AEC env of the lab (the generic `gameenv.aec.env`, and the games' own, `lastwill_env.env`
and `money_env.env`) wraps its raw env in PettingZoo's `AssertOutOfBoundsWrapper` and
`OrderEnforcingWrapper`, as these subclasses. The originals forward every
attribute read (`agent_selection`, `agents`, `terminations`, ...) through each wrapper's
`__getattr__` in turn, and the AEC loop reads them several times per step. The subclasses here
keep every check of the originals (the same errors before `reset()`, the same warning after the
game, the same out-of-bounds assertion) and read those attributes straight from the raw env
instead; where every agent's action space is the same `Discrete(n)`, a plain ``int`` action
from 0 to n - 1 passes the bounds check without building a numpy integer (every other action
goes through ``action_space.contains`` as before). `isinstance(e, OrderEnforcingWrapper)`
still holds and `str(e)` is the env's name.

This module imports PettingZoo alone: the games' packages may import it (the one import of
`gameenv` a game makes, docs/DESIGN.md).
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
        self._raw = raw = env.unwrapped
        sizes = {getattr(raw.action_space(a), "n", None) for a in raw.possible_agents}
        self._n = sizes.pop() if len(sizes) == 1 else None  # None: no shortcut

    def step(self, action: Any) -> None:
        raw = self._raw
        agent = raw.agent_selection
        if self._n is None or type(action) is not int or not 0 <= action < self._n:
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
