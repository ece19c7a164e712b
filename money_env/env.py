"""PettingZoo AEC environment for Money! — the env card.

Name and version: ``money_v0`` (``money_env.ENV_NAME``, ``ENV_VERSION = 0``);
``money_env.ACTION_TABLE_HASH`` (sha256 of the printed action table plus the observation
layout) goes with them into every checkpoint.

Creating it::

    import money_env
    e = money_env.env(num_players=4)            # wrapped: AssertOutOfBounds + OrderEnforcing
    e = money_env.raw_env(num_players=5, reward="rank")
    from gameenv.aec import game_env            # the harness's way: the game's own env
    e = game_env("money", num_players=4)        # (`MoneyGame.aec_env`)
    import pettingzoo, money_env.env            # registered with PettingZoo's registry:
    e = pettingzoo.make("aec", "money_v0", num_players=3)

This is Money!'s own env, written on the engine (docs/games/MONEY.md) with the observation of
`money_env.encoding`. It is the generic env over the game (`gameenv.aec.env("money", ...)`) in
every observation, mask, reward, termination, truncation, info, seed and error (a test plays
both side by side), several times faster (``benchmarks/game_speed.py`` times both against
PettingZoo's holdem in one run): nothing goes through the seam's indirection, the engine's
transition runs once the legal set has checked the action, each seat's observation is
re-encoded only where it changed since that seat's last one (`encoding.ObservationCache`: the
cards a seat adds to its hidden bid change its own ``bid`` entries and nothing any other seat
sees), and the wrappers read the raw env in one hop (`gameenv.wrappers`). Every
observation is a fresh array. ``env()`` is the standard form: PettingZoo's order checks (no
``step``/``observe`` before ``reset``, a warning for a step after the game) and its
out-of-bounds assertion on actions. ``raw_env()`` is the same env without them; it still refuses
illegal actions and ``step()`` before ``reset()``. Both pass PettingZoo's ``api_test`` and
``seed_test``.

Agents: ``player_0 … player_{n-1}``, absolute seats. ``agent_selection`` is the seat the engine
says must decide now (``GameState.cur``): bids are built card by card (the same agent acts
several times in a row), then the exchange follows the revealed bids' order, not a fixed cycle.

Spaces (identical for every agent and for 3–5 players):

- ``action_space(agent) = Discrete(45)``: the engine's action table (docs/games/MONEY.md §10.1;
  ``describe_action(i)`` names row ``i``).
- ``observation_space(agent) = Dict({"observation": Box(0, 9.25, (839,), float32),
  "action_mask": Box(0, 1, (45,), int8)})``: every entry of an observation lies in
  ``[encoding.OBS_LOW, encoding.obs_high()]`` (no piece holds more than every card of the game);
  the generic env declares the same bounds (``MoneyGame.obs_low`` / ``obs_high``).

Observation: ``money_env.encoding.encode_state(state, seat)``, exactly what that seat may know
(docs/games/MONEY.md §9: its own hand and hidden bid, both groups, every revealed bid, the
cards known to be in each hand, sizes, round, phase), seat-relative (relative seat 0 is the
observer), 839 float32 values in named pieces (``money_env.OBS_PIECES``;
``encoding.obs_layout_text()`` prints them, ``encoding.describe(obs)`` reads one). Another
seat's hidden bid, its unknown cards and the pile's order are never in it; ``state()`` is not
offered.

Action mask: int8, exactly the engine's legal actions for the agent to act and all zeros for
the others (and for everybody once the game is over); in ``observe(agent)["action_mask"]`` and
in ``infos[agent]["action_mask"]`` (the same array). There is always a legal action.

Rewards (terminal only; every other step gives 0), `gamecore.results` over the engine's places
(tied seats share a place, docs/games/MONEY.md §7): ``reward="zero_sum"`` (default: a lone
winner +1, each other seat −1/(n−1); ``k`` tied winners share) or ``"rank"`` (rank 1 → +1, last
→ −1, linear between, ties at their mean place); both sum to 0. At the end ``infos[agent]``
also holds ``rank`` (its own), ``ranks`` (per absolute seat), ``winners`` (agent names ranked
1) and ``result`` (``{"scores": [...], "rounds": r}``). A game past ``DECISION_FACTOR *
max_decisions`` decisions is truncated (rewards 0, ``truncations`` set); the engine ends every
game after round 60, so this guard never fires in play.

Illegal actions: ``illegal_action="raise"`` (default) raises `gamecore.game.IllegalActionError`
(also ``gameenv.IllegalActionError``, a ``ValueError``) naming the action and the legal ones,
the state unchanged; ``illegal_action="penalize"`` ends the game at once: the offender gets
``illegal_penalty`` (default −1.0, a finite number), the others 0, every agent is terminated and
``infos[offender]["illegal_action"]`` holds the action. An action that is not a Python or numpy
integer (a bool, a float) raises in either mode.

Options: ``num_players`` 3, 4 or 5 (None, the default: 3, the smallest, as in the generic env),
``reward``, ``render_mode`` (``None | "ansi" | "human"``), ``illegal_action``,
``illegal_penalty``. Money! has no game options. A bad value raises `gamecore.ConfigError` (a
``ValueError``) naming the value and what is allowed; ``observe``, ``observation_space`` and
``action_space`` of a name that is not an agent of the game raise ``ValueError`` naming the
agents.

Seeding: ``reset(seed=s)`` plays the deal ``new_game(config, s)`` (``s`` a Python or numpy
integer from 0 to 2**64 - 1): same seed, same game. A later ``reset()`` without a seed draws
the next game seed from a numpy generator seeded with ``s`` (from OS entropy if the env was
never seeded), as the generic env does.

Rendering: ``"ansi"`` returns (``"human"`` prints) the table as the seat to act sees it (seat 0
once the game is over; `money_env.text`), then its legal actions said in that context.
"""

from __future__ import annotations

import operator
from functools import cached_property
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from gamecore.game import DECISION_FACTOR, IllegalActionError
from gamecore.options import ConfigError, check_choice, check_finite, check_seed_option
from gamecore.results import REWARD_MODES, terminal_rewards
from gameenv.base import SeatSpaces, callable_module
from gameenv.wrappers import AssertOutOfBounds, OrderEnforcing

from . import ENV_NAME, ENV_VERSION
from .encoding import OBS_LOW, OBS_SIZE, ObservationCache, obs_high
from .engine import (
    GAME_OVER,
    MAX_DECISIONS_PER_GAME,
    NUM_ACTIONS,
    GameConfig,
    GameState,
    describe_action,
    legal_actions,
    new_game,
    player_view,
    results,
)
from .engine.config import PLAYER_COUNTS
from .engine.game import BID_PHASE, _do_bid, _do_exchange, action_int

__all__ = ["env", "raw_env", "render_text", "ENV_NAME", "ENV_VERSION", "ILLEGAL_MODES"]

ILLEGAL_MODES = ("raise", "penalize")


def env(**kwargs: Any) -> AECEnv:
    """The wrapped environment (the usual entry point): ``raw_env(**kwargs)`` inside
    PettingZoo's ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper`` (the subclasses of
    `gameenv.wrappers`: the same checks, the raw env read in one hop). Illegal actions
    are handled by ``raw_env`` itself (``illegal_action=``), so ``TerminateIllegalWrapper`` is
    not used: by default an illegal action raises instead of ending the game."""
    e: AECEnv = raw_env(**kwargs)
    e = AssertOutOfBounds(e)
    return OrderEnforcing(e)


def check_players(num_players: Any) -> int:
    """``num_players`` as an int if it is a Python or numpy integer (not a bool) Money! is
    played by; None is the smallest count. Anything else raises `ConfigError` naming the value
    and the counts (the generic env's words)."""
    if num_players is None:
        return PLAYER_COUNTS[0]
    if not isinstance(num_players, (bool, np.bool_)):
        try:
            k = operator.index(num_players)
        except TypeError:
            k = None
        if k in PLAYER_COUNTS:
            return k
    raise ConfigError(
        f"num_players={num_players!r} is not allowed for money; give a player count, one of "
        f"{PLAYER_COUNTS}"
    )


def _mask(legal: list[int]) -> np.ndarray:
    """A fresh int8 mask of `NUM_ACTIONS` with 1 at each of ``legal``."""
    buf = bytearray(NUM_ACTIONS)
    for a in legal:
        buf[a] = 1
    return np.frombuffer(buf, np.int8)


class raw_env(SeatSpaces, AECEnv, EzPickle):
    """Money! as a PettingZoo AEC env; see the module docstring (the env card)."""

    metadata = {"name": ENV_NAME, "render_modes": ["ansi", "human"], "is_parallelizable": False}
    num_actions = NUM_ACTIONS

    def __init__(
        self,
        num_players: int | None = None,
        reward: str = "zero_sum",
        render_mode: str | None = None,
        illegal_action: str = "raise",
        illegal_penalty: float = -1.0,
        **config_options: Any,
    ) -> None:
        EzPickle.__init__(
            self, num_players, reward, render_mode, illegal_action, illegal_penalty,
            **config_options,
        )  # fmt: skip
        super().__init__()
        n = check_players(num_players)
        self.config = GameConfig.from_dict({"num_players": n, **config_options})
        if render_mode is not None:
            check_choice("render_mode", render_mode, tuple(self.metadata["render_modes"]))
        self.render_mode = render_mode
        if not isinstance(reward, str):
            raise ConfigError(f"reward={reward!r} is not allowed; choose one of {REWARD_MODES}")
        self.reward_mode = check_choice("reward", reward, REWARD_MODES)
        self.illegal_action = check_choice("illegal_action", illegal_action, ILLEGAL_MODES)
        self.illegal_penalty = check_finite("illegal_penalty", illegal_penalty)
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(OBS_LOW, obs_high(), (OBS_SIZE,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, spaces.Discrete(NUM_ACTIONS))
        self._limit = DECISION_FACTOR * MAX_DECISIONS_PER_GAME
        self._seed_rng: np.random.Generator | None = None
        self._state: GameState | None = None
        self._moves: list[tuple[int, int]] = []
        self._legal: list[int] = []
        self._observations = ObservationCache()
        self._zero_mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self._zero_mask.flags.writeable = False

    # -- helpers ------------------------------------------------------------------------------
    @cached_property
    def game(self) -> Any:
        """The game (`money_env.lab.MoneyGame`, through the registry), as the generic env's
        ``game``."""
        from gamecore.registry import load_game

        return load_game("money")

    @property
    def game_state(self) -> GameState:
        """The engine state (read it, do not change it); RuntimeError before reset()."""
        if self._state is None:
            raise RuntimeError("call reset() before using the environment")
        return self._state

    @property
    def moves(self) -> list[tuple[int, int]]:
        """Every ``(seat, action)`` played so far, in order."""
        return list(self._moves)

    def describe_action(self, action: int) -> str:
        return describe_action(int(action))

    # -- AEC API ------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            game_seed = check_seed_option("seed", seed)
            self._seed_rng = np.random.default_rng(game_seed)
        else:
            if self._seed_rng is None:
                self._seed_rng = np.random.default_rng()
            game_seed = int(self._seed_rng.integers(0, 2**64, dtype=np.uint64))
        self._state = s = new_game(self.config, game_seed)
        self._moves = []
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {"action_mask": self._zero_mask} for a in self.agents}
        self.agent_selection = self.possible_agents[s.cur]
        self._legal = legal = legal_actions(s)
        self.infos[self.agent_selection] = {"action_mask": _mask(legal)}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[self._agent(agent)]
        s = self._state
        if s is None:
            raise RuntimeError("call reset() before using the environment")
        info = self.infos.get(agent)
        mask = self._zero_mask if info is None else info["action_mask"]
        return {"observation": self._observations.observe(s, seat), "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        agent = self.agent_selection
        assert agent is not None
        obs = self.observe(agent) if observe else None
        return (
            obs,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def step(self, action: Any) -> None:
        s = self._state
        if s is None:
            raise RuntimeError("call reset() before using the environment")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = action if type(action) is int else action_int(action)
        if a is None or a not in self._legal:
            if self.illegal_action == "raise" or a is None:
                raise IllegalActionError(action, legal_actions(s), agent)
            self._end(dict.fromkeys(self.agents, 0.0) | {agent: self.illegal_penalty}, "term")
            self.infos[agent]["illegal_action"] = action
            return
        # the engine's own transition, the action checked above against the exact legal set
        # (what `apply_action` checks again before calling it)
        s.history.append(a)
        self._moves.append((s.cur, a))
        if s.phase == BID_PHASE:
            _do_bid(s, a)
        else:
            _do_exchange(s, a)
        self._cumulative_rewards[agent] = 0.0
        infos = self.infos
        infos[agent] = {"action_mask": self._zero_mask}
        if s.phase == GAME_OVER:
            self._finish()
        elif len(self._moves) >= self._limit:
            self._end(dict.fromkeys(self.agents, 0.0), "trunc")
        else:
            self.agent_selection = nxt = self.possible_agents[s.cur]
            self._legal = legal = legal_actions(s)
            infos[nxt] = {"action_mask": _mask(legal)}
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
        self._legal = []
        self._cumulative_rewards[self.agent_selection] = 0.0
        self._accumulate_rewards()

    def _finish(self) -> None:
        s = self._state
        assert s is not None
        res = results(s)
        names = self.possible_agents
        ranks = [r["place"] for r in res]
        facts = {
            "ranks": ranks,
            "winners": [names[p] for p, r in enumerate(ranks) if r == 1],
            "result": {"scores": [r["score"] for r in res], "rounds": s.round},
        }
        rew = terminal_rewards(ranks, self.reward_mode)
        self._end({a: float(rew[p]) for p, a in enumerate(names)}, "term")
        for p, a in enumerate(names):
            self.infos[a].update(facts, rank=ranks[p])

    # -- rendering ----------------------------------------------------------------------------
    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn(
                "render() called without a render_mode; use raw_env(render_mode='ansi')"
            )
            return None
        text = render_text(self.game_state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def render_text(s: GameState) -> str:
    """The table as the seat to act sees it (seat 0 once the game is over: every hand is shown
    then), with that seat's legal actions said in context (`money_env.text`)."""
    from .text import move_text, view_text

    seat = 0 if s.phase == GAME_OVER else s.cur
    view = player_view(s, seat)
    lines = [f"Money!, {s.n} players, seen by player_{seat}", view_text(view)]
    legal = legal_actions(s)
    if legal:
        lines.append(f"player_{seat} to act:")
        lines += [f"  {a}: {move_text(view, a)}" for a in legal]
    return "\n".join(lines)


callable_module(__name__)  # `NAME_env.env(...)` calls `env(...)` (gameenv.base)


def _register() -> None:
    """Importing this module registers `money_v0` with PettingZoo (`pettingzoo.make`)."""
    from . import register

    register()


_register()
