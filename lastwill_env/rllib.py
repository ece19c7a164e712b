"""Last Will as an RLlib `MultiAgentEnv` (new API stack), for `lastwill train --backend rllib`.

Needs Ray with RLlib (`pip install -e ".[ray]"`); importing this module imports
`ray.rllib`. The game is turn-based and the engine decides who acts next (plans, errands and
discards, not a fixed cycle), so each observation dict holds exactly one agent: the seat that
must decide now. At the end of the game every seat of the episode gets its observation, its
terminal reward (`reward="zero_sum"` or `"rank"`, as in `lastwill_env.env`) and
`terminateds[agent] = True`, with `"__all__": True`.

Agents `player_0 … player_4` (`possible_agents`); an episode seats `player_0 … player_{n-1}`,
with `n` drawn per reset from `num_players` (weights `player_weights`). Every agent has the same
spaces, so one shared policy can play every seat and every player count:

- observation `Dict({"observations": Box(-5, 5, (OBS_SIZE,), float32),
  "action_mask": Box(0, 1, (NUM_ACTIONS,), float32)})`: the seat's observation vector of
  `lastwill_env.encoding` (what docs/RULES.md §10 lets it see, seat-relative) and its legal actions
  as 0/1 (float, for RLlib's action-masking RLModule, which adds `log(mask)` to the logits);
- action `Discrete(NUM_ACTIONS)`, the engine's flat action table.

An illegal action raises `IllegalActionError` (with masking it never happens; silently
replacing it would hide a bug). `infos[agent]` at the end holds `rank` and `winner`.

Env config keys (RLlib passes a dict): `num_players` (int or list, default 4),
`player_weights`, `reward`, `seed` and the game options of `GameConfig` (`starting_money`,
`board_spaces`). Unknown keys raise `ConfigError` naming the allowed ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from .encoding import OBS_HIGH, OBS_LOW, OBS_SIZE, REWARD_MODES, encode_state, terminal_rewards
from .engine import NUM_ACTIONS, GameState, IllegalActionError, make_config, new_game
from .engine.config import MAX_PLAYERS, ConfigError, allowed_counts, is_player_count
from .engine.game import GAME_OVER, as_legal

__all__ = ["LastWillMultiAgentEnv", "observation_space", "AGENTS", "ENV_KEYS"]

AGENTS = tuple(f"player_{i}" for i in range(MAX_PLAYERS))
# keys of the env config besides the game options (GameConfig fields)
ENV_KEYS = ("num_players", "player_weights", "reward", "seed")


def observation_space() -> gym.spaces.Dict:
    return gym.spaces.Dict(
        {
            "observations": gym.spaces.Box(OBS_LOW, OBS_HIGH, (OBS_SIZE,), dtype=np.float32),
            "action_mask": gym.spaces.Box(0.0, 1.0, (NUM_ACTIONS,), dtype=np.float32),
        }
    )


class LastWillMultiAgentEnv(MultiAgentEnv):
    """Turn-based multi-agent Last Will for RLlib; see the module docstring."""

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        cfg = dict(config or {})
        counts = cfg.pop("num_players", 4)
        counts = (counts,) if isinstance(counts, int) else tuple(counts)
        if not counts or not all(is_player_count(k) for k in counts):
            raise ConfigError(
                f"num_players={counts!r} is not allowed; give a player count or a list of them, "
                f"each one of {allowed_counts()}"
            )
        weights = cfg.pop("player_weights", None)
        w = np.ones(len(counts)) if weights is None else np.asarray(weights, dtype=np.float64)
        if w.shape != (len(counts),) or (w < 0).any() or w.sum() <= 0:
            raise ConfigError(
                f"player_weights={weights!r} must be {len(counts)} non-negative numbers "
                f"(one per entry of num_players={counts}) with a positive sum"
            )
        self.player_counts = counts
        self.player_weights = w / w.sum()
        self.reward_mode = cfg.pop("reward", "zero_sum")
        if self.reward_mode not in REWARD_MODES:
            raise ConfigError(
                f"reward={self.reward_mode!r} is not allowed; choose one of {REWARD_MODES}"
            )
        seed = cfg.pop("seed", None)
        # RLlib adds worker_index / num_workers / vector_index to an EnvContext (a dict
        # subclass with attributes); they are not game options
        for k in ("worker_index", "num_workers", "vector_index", "remote"):
            cfg.pop(k, None)
        try:
            self.configs = {k: make_config(k, **cfg) for k in counts}
        except ConfigError as e:
            raise ConfigError(f"{e} (env config keys besides game options: {ENV_KEYS})") from None
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS[: counts[0]])
        space = observation_space()
        action = gym.spaces.Discrete(NUM_ACTIONS)
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = dict.fromkeys(self.possible_agents, action)
        self._rng = np.random.default_rng(seed)
        self._state: GameState | None = None

    # -- helpers ------------------------------------------------------------------------------
    @property
    def game(self) -> GameState:
        if self._state is None:
            raise RuntimeError("call reset() before using the environment")
        return self._state

    def _obs(self, seat: int, legal: Sequence[int] | None) -> dict[str, np.ndarray]:
        mask = np.zeros(NUM_ACTIONS, dtype=np.float32)
        if legal:
            mask[list(legal)] = 1.0
        return {"observations": encode_state(self.game, seat), "action_mask": mask}

    # -- MultiAgentEnv API --------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        rng = self._rng
        n = int(self.player_counts[int(rng.choice(len(self.player_counts), p=self.player_weights))])
        self.agents = list(AGENTS[:n])
        self._state = s = new_game(self.configs[n], int(rng.integers(2**63 - 1)))
        agent = AGENTS[s.cur]
        return {agent: self._obs(s.cur, s.legal_actions())}, {agent: {}}

    def step(self, action_dict: Mapping[str, Any]):
        s = self.game
        if s.phase == GAME_OVER:
            raise RuntimeError("the game is over; call reset()")
        agent = AGENTS[s.cur]
        if agent not in action_dict:
            raise ValueError(
                f"{agent} must act now; the action dict has {sorted(action_dict)} (only the "
                f"seat in the last observation dict acts)"
            )
        a = as_legal(s, action_dict[agent])
        if a is None:
            raise IllegalActionError(action_dict[agent], s.legal_actions(), s.phase)
        s.apply_action(a)
        if s.phase == GAME_OVER:
            res = s.results
            assert res is not None
            rew = terminal_rewards(res["ranks"], self.reward_mode)
            obs = {name: self._obs(p, None) for p, name in enumerate(self.agents)}
            rewards = {name: float(rew[p]) for p, name in enumerate(self.agents)}
            terminated = {name: True for name in self.agents}
            terminated["__all__"] = True
            infos = {
                name: {"rank": res["ranks"][p], "winner": res["winner"]}
                for p, name in enumerate(self.agents)
            }
            return obs, rewards, terminated, {"__all__": False}, infos
        nxt = AGENTS[s.cur]
        obs = {nxt: self._obs(s.cur, s.legal_actions())}
        return obs, {agent: 0.0}, {"__all__": False}, {"__all__": False}, {}
