"""The self-play env: the game's single-seat env, its opponents drawn from an `OpponentPool`.

`SelfPlayEnv` wraps the single-seat env of the run's game (`TrainConfig.game`): the game's own
when it gives one (`Game.single_seat_env`, Last Will's `lastwill_env.single_seat`), else the
generic `gameenv.single_seat.SingleSeatEnv`. It defines `action_masks()` on itself, so it is
`SubprocVecEnv`-safe, and adds:
- `set_latest(state)` / `set_snapshots(paths, weights)`: the trainer pushes the learner's
  current weights and the active snapshots into each worker (`VecEnv.env_method`);
- at the end of each game, `info["pool_ids"]` names the opponents at the table and
  `info["learner_score"]` is the learner's score (1 for a win, else 0), for PFSP;
- `info["opponent_seconds"]`: time spent inside opponent decisions (policy inference or bot
  logic) during the step, for the speed report.

Optional potential-based shaping (`shaping` > 0, Ng et al. 1999, which leaves the optimal policy
unchanged): each learner step also earns `shaping * (gamma * phi(next) - phi(now))` with phi the
game's potential of the learner's seat (`Game.potential`; Last Will's: the mean total of the
other players less the learner's, over 100, 0 once the game is over; a game without shaping
gives 0). It rewards, in Last Will, spending faster than the table between the sparse terminal
rewards.

Illegal learner actions end the game with a penalty (`illegal_action="penalize"`) and are
counted by the trainer as `rollout/invalid_action_rate`, which must stay 0 with masking.
"""

from __future__ import annotations

import time
from typing import Any

import gymnasium as gym
import numpy as np

from gamecore import load_game
from gamecore.agent import overrides_observe

from .config import TrainConfig
from .pool import OpponentPool
from .seeds import env_worker_seed


class _Timed:
    """Wraps an opponent to accumulate the time of its decisions (and passes a generic env's
    `reset(seed)` on to it)."""

    __slots__ = ("inner", "needs_view", "clock")

    def __init__(self, inner: Any, clock: list[float]) -> None:
        self.inner = inner
        self.needs_view = getattr(inner, "needs_view", True)
        self.clock = clock

    def act(self, view: Any, legal: list[int]) -> int:
        t = time.perf_counter()
        try:
            return self.inner.act(view, legal)
        finally:
            self.clock[0] += time.perf_counter() - t

    def reset(self, seed: int | None = None) -> None:
        reset = getattr(self.inner, "reset", None)
        if callable(reset):
            reset(seed)


class _TimedWatcher(_Timed):
    """`_Timed` of an opponent that watches the game (`observe`), told what it is told."""

    __slots__ = ()

    def observe(self, event: dict[str, Any]) -> None:
        self.inner.observe(event)


def timed(inner: Any, clock: list[float]) -> _Timed:
    return (_TimedWatcher if overrides_observe(inner) else _Timed)(inner, clock)


def single_seat_env(game: Any, **kwargs: Any) -> gym.Env:
    """The single-seat env of ``game`` built with ``kwargs``: the game's own, else the generic
    `gameenv.single_seat.SingleSeatEnv`."""
    own = game.single_seat_env(**kwargs)
    if own is not None:
        return own
    from gameenv.single_seat import SingleSeatEnv

    return SingleSeatEnv(game, **kwargs)


class SelfPlayEnv(gym.Wrapper):
    def __init__(self, cfg: TrainConfig, worker: int = 0) -> None:
        self.game = game = load_game(cfg.game)
        self.pool = OpponentPool(
            cfg.bots,
            cfg.p_latest,
            cfg.p_bots_min,
            cfg.pfsp,
            seed=env_worker_seed(cfg.seed, worker),
            p_bot_table=cfg.p_bot_table,
            game=game,
        )
        self._clock = [0.0]
        self.shaping = cfg.shaping
        self.gamma = cfg.gamma
        self._phi = 0.0
        env = single_seat_env(
            game,
            opponents_fn=self._draw,
            num_players=tuple(cfg.num_players),
            player_weights=tuple(cfg.player_weights),
            reward=cfg.reward,
            illegal_action="penalize",
        )
        super().__init__(env)

    @property
    def seat(self) -> int:
        """The learner's seat in the current game."""
        return self.env.seat

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks()

    def _potential(self) -> float:
        return self.game.potential(self.env.game_state, self.env.seat)

    def _draw(self, num_players: int, rng: np.random.Generator) -> list[Any]:
        return [timed(o, self._clock) for o in self.pool.draw(num_players)]

    # -- pushed from the trainer ---------------------------------------------------------
    def set_latest(self, state: dict[str, Any]) -> None:
        self.pool.set_latest(state)

    def set_snapshots(self, paths: dict[str, str], weights: dict[str, float]) -> None:
        self.pool.set_snapshots(paths, weights)

    # -- gymnasium API -------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self._clock[0] = 0.0
        obs, info = self.env.reset(seed=seed, options=options)
        info["opponent_seconds"] = self._clock[0]
        self._phi = self._potential() if self.shaping else 0.0
        return obs, info

    def step(self, action: Any):
        self._clock[0] = 0.0
        obs, reward, terminated, truncated, info = self.env.step(action)
        info["opponent_seconds"] = self._clock[0]
        if self.shaping:
            phi = self._potential()
            info["shaping"] = self.shaping * (self.gamma * phi - self._phi)
            reward += info["shaping"]
            self._phi = phi
        if terminated:
            info["pool_ids"] = list(self.pool.last_ids)
            info["learner_score"] = 1.0 if info.get("rank") == 1 else 0.0
        return obs, reward, terminated, truncated, info


def make_env_fn(cfg: TrainConfig, worker: int):
    """A picklable env factory for `SubprocVecEnv` / `DummyVecEnv`."""

    def _make() -> SelfPlayEnv:
        return SelfPlayEnv(cfg, worker)  # seeded by the VecEnv (vec_env.seed)

    return _make
