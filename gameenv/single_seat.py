"""`SingleSeatEnv`: any `gamecore.Game` as a single-agent Gymnasium env for one learning seat.

For single-agent trainers (MaskablePPO and the like): one learner seat, every other seat played
by an injected opponent. Per `reset()` the player count is drawn from `num_players` (weights
`player_weights`) and the learner's seat uniformly, both from the env's seeded generator; the
opponents then play until the learner must decide or the game ends. Creating it::

    from gameenv.single_seat import SingleSeatEnv
    e = SingleSeatEnv("money", num_players=(3, 4, 5), opponents_fn=make_panel)
    e = SingleSeatEnv(game, num_players=2, illegal_action="penalize")

``game`` is a `gamecore.Game` or a registry name (`gamecore.load_game`).

Opponents (this module never imports `agents`): each is a callable ``(view, legal, seat) ->
action`` or an object with ``.act(view, legal) -> action`` (a `gamecore.Agent`), where
``view`` is ``game.player_view(state, seat)``, ``legal`` the game's legal actions and ``seat``
the absolute seat. One with ``needs_view = False`` gets ``view=None`` (a view costs engine
work). Give a list (``opponents=[...]``: the first n-1 sit at the other seats in seat order
after the learner) or a factory ``opponents_fn(num_players, rng) -> list`` called at each
reset; with neither, every other seat is a `RandomOpponent` seeded from the env's generator.
An object opponent with a ``reset(seed)`` method is reset with a seed from the env's
generator at each `reset()`; one that overrides ``observe`` (`gamecore.BaseAgent`) is told the
other seats' moves as ``game.public_action`` shows them (``{"type": "action", "seat": s,
"action": a}``, ``s`` relative to it) and ``{"type": "game_over", "results": ...}`` at the end,
as the arena does. An opponent's illegal action raises `gameenv.IllegalActionError`.

Spaces: ``observation_space = Box(low, high, (game.obs_size,), float32)`` (the learner's
``game.encode_state``, what its seat may know: other seats' hidden cards and sealed bids are
never in it; ``low``/``high`` as in `gameenv.aec`), ``action_space = Discrete(game.num_actions)``.
``action_masks()`` (bool, on the env itself, so it survives ``SubprocVecEnv``) gives exactly
the learner's legal actions, all False once the episode is over.

Rewards: 0 until the end, then the learner's ``game.terminal_rewards(ranks, reward)``
(``reward="zero_sum"`` or ``"rank"``, as in `gameenv.aec`). A game past
``DECISION_FACTOR * game.max_decisions`` decisions is truncated (reward 0, ``truncated=True``).
An illegal learner action raises `IllegalActionError` (``illegal_action="raise"``, the default);
with ``illegal_action="penalize"`` the episode ends with ``illegal_penalty`` (a finite number)
and ``info["illegal_action"]``. An action that is not an integer (a bool, a float) raises in
either mode. `gymnasium.utils.env_checker.check_env` steps with unmasked random actions: give it
an env built with ``illegal_action="penalize"``.

Seeding: ``reset(seed=s)`` (a Python or numpy integer from 0 to 2**64 - 1, else `ConfigError`)
reseeds the env's generator as Gymnasium does; the player count, the seat, the deal and the
random opponents all come from it, so the same seed gives the same episode for the same
actions. ``reset()`` without a seed continues the generator (seeded from OS entropy at first).

``info``: ``num_players``, ``seat`` (the learner's absolute seat), ``action_mask`` (int8),
``opponent_decisions`` (opponent decisions applied during this call) and, at the end, ``ranks``
(absolute seats), ``rank`` (the learner's), ``winners`` (absolute seats ranked 1) and
``result`` (``game.row_fields``).

Options: ``num_players`` (a count or a list of them, each one of ``game.player_counts``; None:
all of them), ``player_weights``, ``reward``, ``illegal_action``, ``illegal_penalty``,
``render_mode`` (None or ``"ansi"``: the moves as the learner may know them, as in `gameenv.aec`)
and the game's config options. Bad values raise ``ValueError`` naming the value and what is
allowed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from gamecore.agent import overrides_observe
from gamecore.game import SILENT
from gamecore.options import ConfigError, check_choice, check_finite

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

__all__ = ["SingleSeatEnv", "RandomOpponent", "Opponent"]

Opponent = Any  # callable (view, legal, seat) -> action, or object with .act(view, legal)
Policy = tuple[Callable[[Any, list[int], int], Any], bool, Any]  # act, needs_view, observe


class RandomOpponent:
    """Uniformly random legal actions from its own numpy generator (needs no view)."""

    needs_view = False

    def __init__(self, rng: np.random.Generator | int | None = None) -> None:
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)

    def __call__(self, view: Any, legal: Sequence[int], seat: int) -> int:
        return legal[int(self.rng.integers(len(legal)))]


def _as_policy(opp: Opponent, rng: np.random.Generator) -> Policy:
    """``(act(view, legal, seat), needs_view, observe or None)`` of one opponent; an object
    with ``reset(seed)`` is reset with a seed drawn from ``rng``."""
    needs_view = getattr(opp, "needs_view", True) is not False
    act = getattr(opp, "act", None)
    if callable(act):
        reset = getattr(opp, "reset", None)
        if callable(reset):
            reset(draw_seed(rng))
        observe = opp.observe if overrides_observe(opp) else None
        return (lambda view, legal, seat: act(view, legal)), needs_view, observe
    if callable(opp):
        return opp, needs_view, None
    raise TypeError(
        f"opponent {opp!r} is neither a callable (view, legal, seat) -> action nor an object "
        f"with .act(view, legal)"
    )


class SingleSeatEnv(gym.Env):
    """One learning seat of a `gamecore.Game` against injected opponents; see the module
    docstring (the env card)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: Any,
        num_players: int | Sequence[int] | None = None,
        player_weights: Sequence[float] | None = None,
        opponents: Sequence[Opponent] | None = None,
        opponents_fn: Callable[[int, np.random.Generator], Sequence[Opponent]] | None = None,
        reward: str = "zero_sum",
        illegal_action: str = "raise",
        illegal_penalty: float = -1.0,
        render_mode: str | None = None,
        **config_options: Any,
    ) -> None:
        super().__init__()
        self.game = rules = resolve_game(game)
        self.player_counts = counts = check_players(rules, num_players, many=True)
        self.player_weights = check_weights(player_weights, counts)
        self.configs = {k: rules.make_config(k, **config_options) for k in counts}
        self.reward_mode = check_reward(reward)
        self.illegal_action = check_choice("illegal_action", illegal_action, ("raise", "penalize"))
        self.illegal_penalty = check_finite("illegal_penalty", illegal_penalty)
        if render_mode is not None:
            check_choice("render_mode", render_mode, tuple(self.metadata["render_modes"]))
        self.render_mode = render_mode
        self._check_opponents(opponents, opponents_fn)
        self.opponents = list(opponents) if opponents is not None else None
        self.opponents_fn = opponents_fn
        low, high = obs_bounds(rules)
        self.observation_space = spaces.Box(low, high, (rules.obs_size,), dtype=np.float32)
        self.action_space = spaces.Discrete(rules.num_actions)
        self._limit = DECISION_FACTOR * rules.max_decisions
        self._state: Any = None
        self.seat, self.num_players = 0, counts[0]
        self._policies: dict[int, Policy] = {}
        self._moves: list[tuple[int, int]] = []
        self._done = False

    def _check_opponents(self, opponents: Any, opponents_fn: Any) -> None:
        if opponents is not None and opponents_fn is not None:
            raise ConfigError("give either opponents or opponents_fn, not both")
        need = max(self.player_counts) - 1
        if opponents is not None and len(opponents) < need:
            raise ConfigError(
                f"{len(opponents)} opponents given; {need} are needed for "
                f"num_players={self.player_counts}"
            )

    # -- helpers ------------------------------------------------------------------------------
    @property
    def game_state(self) -> Any:
        """The game's state (read it, do not change it); RuntimeError before reset()."""
        if self._state is None:
            raise RuntimeError("call reset() before using the environment")
        return self._state

    def action_masks(self) -> np.ndarray:
        """Bool mask of the learner's legal actions (all False once the episode is over)."""
        m = np.zeros(self.game.num_actions, dtype=bool)
        s, g = self._state, self.game
        if s is not None and not self._done and g.current_player(s) == self.seat:
            m[g.legal_actions(s)] = True
        return m

    def _obs(self) -> np.ndarray:
        return np.asarray(self.game.encode_state(self.game_state, self.seat), dtype=np.float32)

    def _apply(self, seat: int, action: int) -> None:
        """Play ``action`` for ``seat``, tell the watching opponents, count the decision."""
        g = self.game
        g.apply_action(self._state, action)
        self._moves.append((seat, action))
        shown = g.public_action(action)
        if shown is SILENT:
            return
        n = self.num_players
        for p, (_, _, observe) in self._policies.items():
            if observe is not None and p != seat:
                observe({"type": "action", "seat": (seat - p) % n, "action": shown})

    def _play_opponents(self) -> int:
        g, s, seat = self.game, self.game_state, self.seat
        k = 0
        while not g.is_over(s) and len(self._moves) < self._limit:
            p = g.current_player(s)
            if p == seat:
                break
            legal = g.legal_actions(s)
            act, needs_view, _ = self._policies[p]
            chosen = act(g.player_view(s, p) if needs_view else None, legal, p)
            a = action_int(chosen)
            if a is None or a not in legal:
                raise IllegalActionError(chosen, legal, f"the opponent at seat {p}")
            self._apply(p, a)
            k += 1
        return k

    def _info(self, opp: int) -> dict[str, Any]:
        info: dict[str, Any] = {
            "num_players": self.num_players,
            "seat": self.seat,
            "action_mask": self.action_masks().astype(np.int8),
            "opponent_decisions": opp,
        }
        g, s = self.game, self.game_state
        if g.is_over(s):
            facts = outcome(g, s, list(range(self.num_players)))
            info.update(facts, rank=facts["ranks"][self.seat])
        return info

    def _opponents(self, n: int, rng: np.random.Generator) -> list[Opponent]:
        if self.opponents_fn is not None:
            opps = list(self.opponents_fn(n, rng))
            if len(opps) < n - 1:
                raise ValueError(
                    f"opponents_fn returned {len(opps)} opponents for {n} players; need {n - 1}"
                )
            return opps
        if self.opponents is not None:
            return self.opponents
        return [RandomOpponent(np.random.default_rng(draw_seed(rng))) for _ in range(n - 1)]

    # -- gymnasium API ------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=None if seed is None else check_seed(seed))
        rng = self.np_random
        n = int(self.player_counts[int(rng.choice(len(self.player_counts), p=self.player_weights))])
        self.num_players, self.seat = n, int(rng.integers(n))
        game_seed = draw_seed(rng)
        opps = self._opponents(n, rng)
        others = [(self.seat + i) % n for i in range(1, n)]
        self._policies = {p: _as_policy(opps[i], rng) for i, p in enumerate(others)}
        self._state = self.game.new_game(self.configs[n], game_seed)
        self._moves, self._done = [], False
        k = self._play_opponents()
        if self._ended():
            raise RuntimeError(
                f"{self.game.title} ended before the learner's first decision (seat {self.seat})"
            )
        return self._obs(), self._info(k)

    def _ended(self) -> bool:
        return self.game.is_over(self._state) or len(self._moves) >= self._limit

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError("the episode is over; call reset()")
        g, s = self.game, self.game_state
        a = action_int(action)
        if a is None or not 0 <= a < g.num_actions or not self.action_masks()[a]:
            if self.illegal_action == "raise" or a is None:
                raise IllegalActionError(action, g.legal_actions(s), f"seat {self.seat}")
            self._done = True
            info = self._info(0)
            info["illegal_action"] = action
            return self._obs(), self.illegal_penalty, True, False, info
        self._apply(self.seat, a)
        k = self._play_opponents()
        if g.is_over(s):
            self._done = True
            self._tell_game_over()
            r = g.terminal_rewards(g.ranks(s), self.reward_mode)[self.seat]
            return self._obs(), float(r), True, False, self._info(k)
        if len(self._moves) >= self._limit:
            self._done = True
            return self._obs(), 0.0, False, True, self._info(k)
        return self._obs(), 0.0, False, False, self._info(k)

    def _tell_game_over(self) -> None:
        for p, (_, _, observe) in self._policies.items():
            if observe is not None:
                observe({"type": "game_over", "results": self.game.seat_results(self._state, p)})

    def render(self) -> str | None:
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; use render_mode='ansi'")
            return None
        from .aec import render_moves  # pettingzoo only when rendering

        g, s = self.game, self.game_state
        legal = [] if self._done or g.is_over(s) else g.legal_actions(s)
        return render_moves(g, self._moves, self.seat, legal)
