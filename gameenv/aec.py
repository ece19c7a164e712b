"""PettingZoo AEC environment over any `gamecore.Game` — the env card.

Creating it::

    from gameenv.aec import env, game_env, raw_env
    e = env("money", num_players=4)          # wrapped: AssertOutOfBounds + OrderEnforcing
    e = raw_env(game, num_players=3, reward="rank", **config_options)
    e = game_env("money", num_players=4)     # the game's own env where it has one

``game_env`` gives the game's own AEC env where it has one (`Game.aec_env`: Money!'s tuned
`money_env.env`, the same observations, masks, rewards and ends, built on the engine directly),
else this generic env, the fallback for every game.

``game`` is a `gamecore.Game` or a registry name (`gamecore.load_game`). ``env()`` is the
standard form: ``raw_env`` inside PettingZoo's ``AssertOutOfBoundsWrapper`` and
``OrderEnforcingWrapper`` (no ``step``/``observe`` before ``reset``, a warning for a step after
the game, actions checked against the action space), as `lastwill_env.env` does. ``raw_env()`` is
the same env without them; it still refuses illegal actions (below) and ``step()`` before
``reset()``. Both pass PettingZoo's ``api_test`` and ``seed_test``.

Name: ``metadata["name"]`` is the game's ``env_name`` (``"tally_v0"``, ``"money_v0"``); store it
with ``game.action_table_hash`` in every checkpoint.

Agents: ``player_0 … player_{n-1}``, absolute seats. ``agent_selection`` is the seat the engine
says must decide now (``game.current_player``): not a fixed cycle, and the same agent may act
several times in a row.

Spaces (identical for every agent):

- ``action_space(agent) = Discrete(game.num_actions)``: the game's flat action table.
- ``observation_space(agent) = Dict({"observation": Box(low, high, (game.obs_size,), float32),
  "action_mask": Box(0, 1, (game.num_actions,), int8)})``; ``low``/``high`` are the game's
  ``obs_low``/``obs_high`` if it declares them, else unbounded.

Observation: ``game.encode_state(state, seat)``, what that seat may know (its
``Game.player_view``), as the game encodes it. What is hidden from a seat (other hands, sealed
bids, the deck) is never in its observation; ``state()`` is not offered (no global state).

Action mask: int8, exactly ``game.legal_actions(state)`` for the agent to act and all zeros for
the others (and for everybody once the game is over); in ``observe(agent)["action_mask"]`` and
in ``infos[agent]["action_mask"]`` (the same array).

Rewards (terminal only; every other step gives 0): ``game.terminal_rewards(ranks, reward)``,
``reward="zero_sum"`` (default: a lone winner +1, each other seat −1/(n−1); ``k`` tied winners
share) or ``"rank"`` (rank 1 → +1, last → −1, linear between, ties at their mean place); both sum
to 0. At the end ``infos[agent]`` also holds ``rank`` (its own), ``ranks`` (per absolute seat),
``winners`` (agent names ranked 1) and ``result`` (``game.row_fields``). A game that passes
``DECISION_FACTOR * game.max_decisions`` decisions is truncated (rewards 0, ``truncations`` set).

Illegal actions: ``illegal_action="raise"`` (default) raises `gameenv.IllegalActionError` (a
``ValueError``) naming the action and the legal ones, the state unchanged;
``illegal_action="penalize"`` ends the game at once: the offender gets ``illegal_penalty``
(default −1.0, a finite number), the others 0, every agent is terminated and
``infos[offender]["illegal_action"]`` holds the action. An action that is not a Python or
numpy integer (a bool, a float) raises in either mode.

Options: ``num_players`` (one of ``game.player_counts``; None: the smallest), ``reward``,
``render_mode`` (``None | "ansi" | "human"``), ``illegal_action``, ``illegal_penalty`` and the
game's own config options (``game.config_options``, passed to ``game.make_config``). Bad values
raise ``ValueError`` (`gameenv.ConfigError`, `gamecore.GameNotFound`) naming the value and what
is allowed.

Seeding: ``reset(seed=s)`` plays ``game.new_game(config, s)`` (``s`` a Python or numpy integer
from 0 to 2**64 - 1; anything else raises `ConfigError`): same seed, same game. A later
``reset()`` without a seed draws the next game seed from a numpy generator seeded with ``s``
(from OS entropy if the env was never seeded).

Rendering: ``"ansi"`` returns (``"human"`` prints) the moves so far as ``game.action_text``
gives them, seen by the seat to act (seat 0 once the game is over): that seat's own moves in
full, the others' as ``game.public_action`` shows them (``acted`` where only the fact is
public, nothing for a `gamecore.SILENT` move), then its legal actions named.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from gamecore.game import SILENT, Game
from gamecore.options import check_choice, check_finite

from . import (
    DECISION_FACTOR,
    IllegalActionError,
    action_int,
    check_players,
    check_reward,
    check_seed,
    draw_seed,
    obs_bounds,
    outcome,
    resolve_game,
)
from .base import SeatSpaces
from .wrappers import AssertOutOfBounds, OrderEnforcing

__all__ = ["env", "raw_env", "game_env", "render_moves", "ILLEGAL_MODES"]

ILLEGAL_MODES = ("raise", "penalize")


def env(game: Any, **kwargs: Any) -> AECEnv:
    """The wrapped environment (the usual entry point): ``raw_env(game, **kwargs)`` inside
    PettingZoo's ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper`` (the subclasses of
    `gameenv.wrappers`: the same checks, the raw env read in one hop). Illegal actions are
    handled by ``raw_env`` itself (``illegal_action=``), so ``TerminateIllegalWrapper`` is not
    used: by default an illegal action raises instead of ending the game."""
    e: AECEnv = raw_env(game, **kwargs)
    e = AssertOutOfBounds(e)
    return OrderEnforcing(e)


def game_env(game: Any, **kwargs: Any) -> AECEnv:
    """The game's own wrapped AEC env when it gives one (`Game.aec_env`, built with
    ``kwargs``: Money!'s `money_env.env`), else `env(game, **kwargs)`, this generic one."""
    rules = resolve_game(game)
    own = rules.aec_env(**kwargs)
    return env(rules, **kwargs) if own is None else own


def _spaces(game: Game) -> tuple[spaces.Dict, spaces.Discrete]:
    low, high = obs_bounds(game)
    obs = spaces.Dict(
        {
            "observation": spaces.Box(low, high, (game.obs_size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (game.num_actions,), dtype=np.int8),
        }
    )
    return obs, spaces.Discrete(game.num_actions)


class raw_env(SeatSpaces, AECEnv, EzPickle):
    """A `gamecore.Game` as a PettingZoo AEC env; see the module docstring (the env card)."""

    metadata = {"name": "gameenv", "render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(
        self,
        game: Any,
        num_players: int | None = None,
        reward: str = "zero_sum",
        render_mode: str | None = None,
        illegal_action: str = "raise",
        illegal_penalty: float = -1.0,
        **config_options: Any,
    ) -> None:
        EzPickle.__init__(
            self, game, num_players, reward, render_mode, illegal_action, illegal_penalty,
            **config_options,
        )  # fmt: skip
        super().__init__()
        self.game = rules = resolve_game(game)
        (n,) = check_players(rules, num_players)
        self.config = rules.make_config(n, **config_options)
        self.metadata = {**type(self).metadata, "name": rules.env_name}
        if render_mode is not None:
            check_choice("render_mode", render_mode, tuple(self.metadata["render_modes"]))
        self.render_mode = render_mode
        self.reward_mode = check_reward(reward)
        self.illegal_action = check_choice("illegal_action", illegal_action, ILLEGAL_MODES)
        self.illegal_penalty = check_finite("illegal_penalty", illegal_penalty)
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space, act_space = _spaces(rules)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        self._limit = DECISION_FACTOR * rules.max_decisions
        self._seed_rng: np.random.Generator | None = None
        self._state: Any = None
        self._moves: list[tuple[int, int]] = []
        self._zero_mask = np.zeros(rules.num_actions, dtype=np.int8)
        self._zero_mask.flags.writeable = False

    # -- helpers ------------------------------------------------------------------------------
    @property
    def game_state(self) -> Any:
        """The game's state (read it, do not change it); RuntimeError before reset()."""
        if self._state is None:
            raise RuntimeError("call reset() before using the environment")
        return self._state

    @property
    def moves(self) -> list[tuple[int, int]]:
        """Every ``(seat, action)`` played so far, in order."""
        return list(self._moves)

    def _new_mask(self) -> np.ndarray:
        m = np.zeros(self.game.num_actions, dtype=np.int8)
        m[self.game.legal_actions(self._state)] = 1
        return m

    # -- AEC API ------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            game_seed = check_seed(seed)
            self._seed_rng = np.random.default_rng(game_seed)
        else:
            if self._seed_rng is None:
                self._seed_rng = np.random.default_rng()
            game_seed = draw_seed(self._seed_rng)
        self._state = self.game.new_game(self.config, game_seed)
        self._moves = []
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {"action_mask": self._zero_mask} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.current_player(self._state)]
        self.infos[self.agent_selection] = {"action_mask": self._new_mask()}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[self._agent(agent)]
        obs = self.game.encode_state(self.game_state, seat)
        info = self.infos.get(agent)
        mask = self._zero_mask if info is None else info["action_mask"]
        return {"observation": np.asarray(obs, dtype=np.float32), "action_mask": mask}

    def step(self, action: Any) -> None:
        s = self.game_state  # before reset() this raises, naming reset()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = action_int(action)
        mask = self.infos[agent]["action_mask"]
        if a is None or not 0 <= a < mask.size or not mask[a]:
            if self.illegal_action == "raise" or a is None:
                raise IllegalActionError(action, self.game.legal_actions(s), agent)
            self._end(dict.fromkeys(self.agents, 0.0) | {agent: self.illegal_penalty}, "term")
            self.infos[agent]["illegal_action"] = action
            return
        self.game.apply_action(s, a)
        self._moves.append((self._seat[agent], a))
        self._cumulative_rewards[agent] = 0.0
        self.infos[agent] = {"action_mask": self._zero_mask}
        if self.game.is_over(s):
            self._finish()
        elif len(self._moves) >= self._limit:
            self._end(dict.fromkeys(self.agents, 0.0), "trunc")
        else:
            self.agent_selection = nxt = self.possible_agents[self.game.current_player(s)]
            self.infos[nxt] = {"action_mask": self._new_mask()}
        if self.render_mode == "human":
            self.render()

    def _end(self, rewards: dict[str, float], how: str) -> None:
        """End the game for every agent: ``rewards``, terminated (``how="term"``) or
        truncated (``"trunc"``), masks all zeros."""
        flags = self.terminations if how == "term" else self.truncations
        for a in self.agents:
            self.rewards[a] = rewards[a]
            flags[a] = True
            self.infos[a] = {"action_mask": self._zero_mask}
        self._cumulative_rewards[self.agent_selection] = 0.0
        self._accumulate_rewards()

    def _finish(self) -> None:
        facts = outcome(self.game, self._state, self.possible_agents)
        rew = self.game.terminal_rewards(facts["ranks"], self.reward_mode)
        self._end({a: float(rew[p]) for p, a in enumerate(self.possible_agents)}, "term")
        for p, a in enumerate(self.possible_agents):
            self.infos[a].update(facts, rank=facts["ranks"][p])

    # -- rendering ----------------------------------------------------------------------------
    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn(
                "render() called without a render_mode; use raw_env(game, render_mode='ansi')"
            )
            return None
        s = self.game_state
        over = self.game.is_over(s)
        seat = 0 if over else self.game.current_player(s)
        legal = [] if over else self.game.legal_actions(s)
        text = render_moves(self.game, self._moves, seat, legal)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def render_moves(game: Game, moves: list[tuple[int, int]], seat: int, legal: list[int]) -> str:
    """The moves as ``seat`` may know them (its own in full, the others' as
    ``game.public_action`` shows them), then ``legal`` named, one line each."""
    lines = [f"{game.title}, seen by player_{seat}"]
    for p, a in moves:
        shown = a if p == seat else game.public_action(a)
        if shown is SILENT:
            continue
        text = "acted" if shown is None else game.action_text(int(shown))
        lines.append(f"player_{p}: {text}")
    if legal:
        lines.append(f"player_{seat} to act: " + "; ".join(game.action_text(a) for a in legal))
    else:
        lines.append("game over")
    return "\n".join(lines)
