"""`SingleSeatEnv`: Last Will as a single-agent gymnasium env for one learning seat.

For single-agent trainers (MaskablePPO with `SubprocVecEnv`, docs/TRAINING-NOTES.md §1): one learner
seat; every other seat is played by an injected opponent. Per `reset()` the player count is
drawn from `num_players` (with `player_weights`) and the learner seat uniformly, both from the
env's seeded generator; opponents then play until the learner must decide or the game ends.

Opponents (this module never imports `agents`): each is either a callable
`(view, legal, seat) -> action` or an object with `.act(view, legal) -> action`, where `view` is
`player_view(state, seat)`, `legal` the engine's legal action list and `seat` the absolute seat.
An opponent with the attribute `needs_view = False` gets `view=None` (building a view costs
more than an engine step; the built-in `RandomOpponent` uses this). Give either a list
(`opponents=[...]`; the first n-1 sit at the other seats in seat order after the learner) or a
factory `opponents_fn(num_players, rng) -> list` called at each reset. With neither, every other
seat is a `RandomOpponent` seeded from the env's generator. An opponent's illegal action raises.

Spaces: `observation_space = Box(-5, 5, (OBS_SIZE,), float32)` (the AEC env's observation, see
`lastwill_env.env`), `action_space = Discrete(NUM_ACTIONS)`. `action_masks()` (bool, on the env
itself, so it survives `SubprocVecEnv`) gives the learner's legal actions.

Rewards: 0 until the end, then the learner's terminal reward (`reward="zero_sum"` or `"rank"`,
as in the AEC env). Illegal learner actions raise `IllegalActionError` by default; with
`illegal_action="penalize"` the episode ends with `illegal_penalty` (a finite number). An
action that is not an integer (a bool, a float, a numpy bool or float) raises in either mode.

Registered with gymnasium as `LastWill-v1` when this module is imported (and by
`gymnasium.make("lastwill_env:LastWill-v1", ...)`), with `illegal_action="penalize"` as the
id's default: `gymnasium.make("LastWill-v1", num_players=2, opponents=[...])` takes this class's
keyword arguments, and `gymnasium.utils.env_checker.check_env` passes on it as constructed (give
it `env.unwrapped`; it steps with unmasked random actions, nearly always illegal). The class's
own default stays `"raise"`, which refuses them with `IllegalActionError`.

`info`: `num_players`, `seat` (the learner's absolute seat), `action_mask` (int8),
`opponent_decisions` (opponent decisions applied during this call, for speed accounting) and,
at the end, `ranks` (absolute seats), `rank` (the learner's), `winner` (absolute seat) and
`result` (the engine's results).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from gamecore.options import check_finite

from .encoding import (
    OBS_HIGH,
    OBS_LOW,
    OBS_SIZE,
    REWARD_MODES,
    encode_state,
    terminal_rewards,
)
from .engine import (
    NUM_ACTIONS,
    GameState,
    IllegalActionError,
    make_config,
    new_game,
    player_view,
)
from .engine.config import PLAYER_COUNTS, ConfigError, allowed_counts, is_player_count
from .engine.game import GAME_OVER, action_int, as_legal

__all__ = ["SingleSeatEnv", "RandomOpponent", "Opponent"]

Opponent = Any  # callable (view, legal, seat) -> action, or object with .act(view, legal)


class RandomOpponent:
    """Uniformly random legal actions from its own numpy generator (needs no view)."""

    needs_view = False

    def __init__(self, rng: np.random.Generator | int | None = None) -> None:
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)

    def __call__(self, view: Any, legal: Sequence[int], seat: int) -> int:
        return legal[int(self.rng.integers(len(legal)))]


def _random_opponents(num_players: int, rng: np.random.Generator) -> list[RandomOpponent]:
    return [RandomOpponent(np.random.default_rng(rng.integers(2**63))) for _ in range(num_players)]


def _as_policy(opp: Opponent) -> tuple[Callable[[Any, list[int], int], Any], bool]:
    needs_view = getattr(opp, "needs_view", True) is not False
    act = getattr(opp, "act", None)
    if callable(act):
        return (lambda view, legal, seat: act(view, legal)), needs_view
    if callable(opp):
        return opp, needs_view
    raise TypeError(
        f"opponent {opp!r} is neither a callable (view, legal, seat) -> action nor an object "
        f"with .act(view, legal)"
    )


def _weights(player_weights: Sequence[float] | None, counts: tuple[int, ...]) -> np.ndarray:
    """The draw probability of each player count: `player_weights` normalised (uniform when
    None). They must be one finite, non-negative number per count, with a positive sum."""
    if player_weights is None:
        return np.full(len(counts), 1.0 / len(counts))
    try:
        w = np.asarray(player_weights, dtype=np.float64)
    except (TypeError, ValueError):
        w = np.array([np.nan])
    if w.shape != (len(counts),) or not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
        raise ConfigError(
            f"player_weights={player_weights!r} must be {len(counts)} finite non-negative "
            f"numbers (one per entry of num_players={counts}) with a positive sum"
        )
    return w / w.sum()


class SingleSeatEnv(gym.Env):
    """One learning seat of Last Will against injected opponents; see the module docstring."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        opponents: Sequence[Opponent] | None = None,
        opponents_fn: Callable[[int, np.random.Generator], Sequence[Opponent]] | None = None,
        num_players: int | Sequence[int] = PLAYER_COUNTS,
        player_weights: Sequence[float] | None = None,
        reward: str = "zero_sum",
        illegal_action: str = "raise",
        illegal_penalty: float = -1.0,
        render_mode: str | None = None,
        **game_options: Any,
    ) -> None:
        super().__init__()
        counts = (num_players,) if isinstance(num_players, int) else tuple(num_players)
        if not counts or not all(is_player_count(k) for k in counts):
            raise ConfigError(
                f"num_players={num_players!r} is not allowed; give a player count or a list of "
                f"them, each one of {allowed_counts()}"
            )
        self.player_counts = counts
        self.player_weights = _weights(player_weights, counts)
        # validate the game options once, for every player count
        self.configs = {k: make_config(k, **game_options) for k in counts}
        if reward not in REWARD_MODES:
            raise ConfigError(f"reward={reward!r} is not allowed; choose one of {REWARD_MODES}")
        if illegal_action not in ("raise", "penalize"):
            raise ConfigError(
                f"illegal_action={illegal_action!r} is not allowed; choose 'raise' or 'penalize'"
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"render_mode={render_mode!r} is not allowed; choose None or 'ansi'")
        if opponents is not None and opponents_fn is not None:
            raise ConfigError("give either opponents or opponents_fn, not both")
        if opponents is not None and len(opponents) < max(counts) - 1:
            raise ConfigError(
                f"{len(opponents)} opponents given; {max(counts) - 1} are needed for "
                f"num_players={counts}"
            )
        self.opponents = list(opponents) if opponents is not None else None
        self.opponents_fn = opponents_fn
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.illegal_penalty = check_finite("illegal_penalty", illegal_penalty)
        self.render_mode = render_mode
        self.observation_space = spaces.Box(OBS_LOW, OBS_HIGH, (OBS_SIZE,), dtype=np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._state: GameState | None = None
        self.seat = 0
        self.num_players = counts[0]
        self._policies: dict[int, tuple[Callable, bool]] = {}
        self._done = False

    # -- helpers ------------------------------------------------------------------------------
    @property
    def game(self) -> GameState:
        if self._state is None:
            raise RuntimeError("call reset() before using the environment")
        return self._state

    # the state under the name the lab's trainers read of every game's single-seat env
    game_state = game

    def action_masks(self) -> np.ndarray:
        """Bool mask of the learner's legal actions (all False once the episode is over)."""
        m = np.zeros(NUM_ACTIONS, dtype=bool)
        s = self._state
        if s is not None and not self._done and s.phase != GAME_OVER and s.cur == self.seat:
            m[s.legal_actions()] = True
        return m

    def _mask_int8(self) -> np.ndarray:
        return self.action_masks().astype(np.int8)

    def _play_opponents(self) -> int:
        s = self.game
        k = 0
        seat = self.seat
        policies = self._policies
        while s.phase != GAME_OVER and s.cur != seat:
            p = s.cur
            legal = s.legal_actions()
            policy, needs_view = policies[p]
            view = player_view(s, p) if needs_view else None
            s.apply_action(policy(view, legal, p))
            k += 1
        return k

    def _info(self, opp: int) -> dict[str, Any]:
        info: dict[str, Any] = {
            "num_players": self.num_players,
            "seat": self.seat,
            "action_mask": self._mask_int8(),
            "opponent_decisions": opp,
        }
        s = self.game
        if s.phase == GAME_OVER and s.results is not None:
            r = s.results
            info.update(
                ranks=list(r["ranks"]), rank=r["ranks"][self.seat], winner=r["winner"], result=r
            )
        return info

    # -- gymnasium API ------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        n = int(self.player_counts[int(rng.choice(len(self.player_counts), p=self.player_weights))])
        self.num_players = n
        self.seat = int(rng.integers(n))
        game_seed = int(rng.integers(2**63 - 1))
        if self.opponents_fn is not None:
            opps = list(self.opponents_fn(n, rng))
            if len(opps) < n - 1:
                raise ValueError(
                    f"opponents_fn returned {len(opps)} opponents for {n} players; need {n - 1}"
                )
        elif self.opponents is not None:
            opps = self.opponents
        else:
            opps = _random_opponents(n - 1, rng)
        others = [(self.seat + i) % n for i in range(1, n)]
        self._policies = {p: _as_policy(opps[i]) for i, p in enumerate(others)}
        self._state = new_game(self.configs[n], game_seed)
        self._done = False
        k = self._play_opponents()
        if self._state.phase == GAME_OVER:  # cannot happen: everyone keeps cards in round 1
            raise RuntimeError("the game ended before the learner's first decision")
        return encode_state(self._state, self.seat), self._info(k)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError("the episode is over; call reset()")
        s = self.game
        seat = self.seat
        a = as_legal(s, action)
        if a is None:
            if self.illegal_action == "raise" or action_int(action) is None:
                raise IllegalActionError(action, s.legal_actions(), s.phase)
            self._done = True
            info = self._info(0)
            info["illegal_action"] = action
            return encode_state(s, seat), self.illegal_penalty, True, False, info
        s.apply_action(a)
        k = self._play_opponents()
        obs = encode_state(s, seat)
        if s.phase == GAME_OVER:
            self._done = True
            r = terminal_rewards(s.results["ranks"], self.reward_mode)[seat]  # type: ignore[index]
            return obs, float(r), True, False, self._info(k)
        return obs, 0.0, False, False, self._info(k)

    def render(self) -> str | None:
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; use render_mode='ansi'")
            return None
        from .env import render_text  # pettingzoo only when rendering

        return render_text(self.game)


def _register() -> None:
    """Importing this module registers `LastWill-v1` with gymnasium, so
    `gymnasium.register_envs(lastwill_env.single_seat)` works as gymnasium documents."""
    from . import register_gymnasium

    register_gymnasium()


_register()
