"""Any `gamecore.Game` as an RLlib `MultiAgentEnv` (new API stack) — the env card.

Needs Ray with RLlib (``pip install -e ".[ray]"``) for `GameMultiAgentEnv`; this module imports
without Ray, and ``ray.rllib`` is imported when `GameMultiAgentEnv` is first used (an
ImportError naming the extra otherwise). `MultiAgentCore` is the same env without Ray's base
class (what the class adds to it), for tests and for loops that do not need RLlib::

    from ray.rllib.algorithms.ppo import PPOConfig
    from gameenv.rllib import GameMultiAgentEnv
    config = PPOConfig().environment(
        GameMultiAgentEnv, env_config={"game": "money", "num_players": [3, 4, 5]}
    )

The game is turn-based and the engine decides who acts next (``game.current_player``), so each
observation dict holds exactly one agent: the seat that must decide now. At the end every seat
of the episode gets its observation, its terminal reward and ``terminateds[agent] = True``,
with ``"__all__": True``. A game past ``DECISION_FACTOR * game.max_decisions`` decisions is
truncated instead (rewards 0, ``truncateds["__all__"] = True``).

Agents ``player_0 … player_{m-1}`` (``possible_agents``, ``m`` the largest count of
``num_players``); an episode seats ``player_0 … player_{n-1}``, ``n`` drawn per reset from
``num_players`` (weights ``player_weights``). Every agent has the same spaces, so one shared
policy can play every seat and player count:

- observation ``Dict({"observations": Box(low, high, (game.obs_size,), float32),
  "action_mask": Box(0, 1, (game.num_actions,), float32)})``: the seat's ``game.encode_state``
  (what it may know, `Game.player_view`: another seat's hidden cards or sealed bid never
  appear) and exactly its legal actions as 0/1 (float, for RLlib's action-masking RLModule;
  all zeros in the final observations); ``low``/``high`` as in `gameenv.aec`;
- action ``Discrete(game.num_actions)``, the game's flat action table.

Rewards: ``game.terminal_rewards(ranks, reward)`` at the end (``reward="zero_sum"`` or
``"rank"``, as in `gameenv.aec`), 0 before. ``infos[agent]`` at the end holds ``rank``,
``ranks``, ``winners`` (agent names) and ``result`` (``game.row_fields``). An illegal action
raises `gameenv.IllegalActionError` (with masking it never happens; silently replacing it would
hide a bug).

Env config keys (RLlib passes a dict): ``game`` (required: a registry name, which every Ray
worker can load, or a `gamecore.Game`), ``num_players`` (a count or a list; default every count
of the game), ``player_weights``, ``reward``, ``seed`` (0 to 2**64 - 1; None: OS entropy) and the
game's config options. Bad values raise ``ValueError`` naming the value and what is allowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np

from . import (
    DECISION_FACTOR,
    IllegalActionError,
    action_int,
    check_players,
    check_reward,
    check_seed,
    check_weights,
    draw_seed,
    obs_bounds,
    outcome,
    resolve_game,
)

__all__ = ["GameMultiAgentEnv", "MultiAgentCore", "observation_space", "ENV_KEYS"]  # noqa: F822

# keys of the env config besides the game's config options
ENV_KEYS = ("game", "num_players", "player_weights", "reward", "seed")
# what RLlib adds to an EnvContext (a dict subclass); not game options
_RLLIB_KEYS = ("worker_index", "num_workers", "vector_index", "remote")


def observation_space(game: Any) -> gym.spaces.Dict:
    """The observation space of every agent of ``game`` (a `Game` or a registry name)."""
    game = resolve_game(game)
    low, high = obs_bounds(game)
    return gym.spaces.Dict(
        {
            "observations": gym.spaces.Box(low, high, (game.obs_size,), dtype=np.float32),
            "action_mask": gym.spaces.Box(0.0, 1.0, (game.num_actions,), dtype=np.float32),
        }
    )


class MultiAgentCore:
    """The turn-based multi-agent env of the module docstring, without Ray's base class."""

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        cfg = dict(config or {})
        if "game" not in cfg:
            raise ValueError(f"the env config needs 'game' (a game name); its keys: {ENV_KEYS}")
        self.game = game = resolve_game(cfg.pop("game"))
        counts = check_players(game, cfg.pop("num_players", None), many=True)
        self.player_counts = counts
        self.player_weights = check_weights(cfg.pop("player_weights", None), counts)
        self.reward_mode = check_reward(cfg.pop("reward", "zero_sum"))
        seed = cfg.pop("seed", None)
        for k in _RLLIB_KEYS:
            cfg.pop(k, None)
        try:
            self.configs = {k: game.make_config(k, **cfg) for k in counts}
        except (TypeError, ValueError) as e:
            raise ValueError(f"{e} (env config keys besides game options: {ENV_KEYS})") from None
        self.possible_agents = [f"player_{i}" for i in range(max(counts))]
        self.agents = self.possible_agents[: counts[0]]
        space, action = observation_space(game), gym.spaces.Discrete(game.num_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = dict.fromkeys(self.possible_agents, action)
        self._rng = np.random.default_rng(None if seed is None else check_seed(seed))
        self._limit = DECISION_FACTOR * game.max_decisions
        self._state: Any = None
        self._decisions = 0

    @property
    def game_state(self) -> Any:
        """The game's state (read it, do not change it); RuntimeError before reset()."""
        if self._state is None:
            raise RuntimeError("call reset() before using the environment")
        return self._state

    def _obs(self, seat: int, legal: list[int] | None) -> dict[str, np.ndarray]:
        mask = np.zeros(self.game.num_actions, dtype=np.float32)
        if legal:
            mask[legal] = 1.0
        obs = self.game.encode_state(self.game_state, seat)
        return {"observations": np.asarray(obs, dtype=np.float32), "action_mask": mask}

    def _to_act(self) -> dict[str, dict[str, np.ndarray]]:
        g, s = self.game, self.game_state
        p = g.current_player(s)
        return {self.agents[p]: self._obs(p, g.legal_actions(s))}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(check_seed(seed))
        rng = self._rng
        n = int(self.player_counts[int(rng.choice(len(self.player_counts), p=self.player_weights))])
        self.agents = self.possible_agents[:n]
        self._state = self.game.new_game(self.configs[n], draw_seed(rng))
        self._decisions = 0
        obs = self._to_act()
        return obs, {a: {} for a in obs}

    def step(self, action_dict: Mapping[str, Any]):
        g, s = self.game, self.game_state
        if g.is_over(s) or self._decisions >= self._limit:
            raise RuntimeError("the game is over; call reset()")
        p = g.current_player(s)
        agent = self.agents[p]
        if agent not in action_dict:
            raise ValueError(
                f"{agent} must act now; the action dict has {sorted(action_dict)} (only the "
                f"seat in the last observation dict acts)"
            )
        legal = g.legal_actions(s)
        a = action_int(action_dict[agent])
        if a is None or a not in legal:
            raise IllegalActionError(action_dict[agent], legal, agent)
        g.apply_action(s, a)
        self._decisions += 1
        if g.is_over(s) or self._decisions >= self._limit:
            return self._end(g.is_over(s))
        return self._to_act(), {agent: 0.0}, {"__all__": False}, {"__all__": False}, {}

    def _end(self, finished: bool):
        """The last step's five dicts: every seat's final observation, reward and info."""
        g, s, names = self.game, self.game_state, self.agents
        obs = {a: self._obs(p, None) for p, a in enumerate(names)}
        if not finished:  # truncated
            zero = dict.fromkeys(names, 0.0)
            trunc = dict.fromkeys(names, True) | {"__all__": True}
            return obs, zero, {"__all__": False}, trunc, {}
        facts = outcome(g, s, names)
        rew = g.terminal_rewards(facts["ranks"], self.reward_mode)
        rewards = {a: float(rew[p]) for p, a in enumerate(names)}
        term = dict.fromkeys(names, True) | {"__all__": True}
        infos = {a: {**facts, "rank": facts["ranks"][p]} for p, a in enumerate(names)}
        return obs, rewards, term, {"__all__": False}, infos


def _build() -> type:
    """`GameMultiAgentEnv`: `MultiAgentCore` on RLlib's `MultiAgentEnv` (imports ray)."""
    try:
        from ray.rllib.env.multi_agent_env import MultiAgentEnv
    except ImportError as e:
        raise ImportError(
            f"gameenv.rllib.GameMultiAgentEnv needs Ray with RLlib: pip install -e '.[ray]' ({e})"
        ) from None
    cls = type(
        "GameMultiAgentEnv",
        (MultiAgentCore, MultiAgentEnv),
        {"__doc__": "A `gamecore.Game` as an RLlib MultiAgentEnv; see `gameenv.rllib`."},
    )
    cls.__module__ = __name__
    return cls


def __getattr__(name: str) -> Any:
    if name == "GameMultiAgentEnv":  # built once, then a module global (pickle finds it)
        cls = globals()["GameMultiAgentEnv"] = _build()
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
