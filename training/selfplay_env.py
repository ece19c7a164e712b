"""The self-play env: `SingleSeatEnv` whose opponents come from an `OpponentPool`.

It adds three things to `lastwill_env.single_seat.SingleSeatEnv` (and inherits
`action_masks()`, defined on the env itself, so it is `SubprocVecEnv`-safe):
- `set_latest(state)` / `set_snapshots(paths, weights)`: the trainer pushes the learner's
  current weights and the active snapshots into each worker (`VecEnv.env_method`);
- at the end of each game, `info["pool_ids"]` names the opponents at the table and
  `info["learner_score"]` is the learner's score (1 for a win, else 0), for PFSP;
- `info["opponent_seconds"]`: time spent inside opponent decisions (policy inference or bot
  logic) during the step, for the speed report.

Optional potential-based shaping (`shaping` > 0, Ng et al. 1999, which leaves the optimal policy
unchanged): each learner step also earns `shaping * (gamma * phi(next) - phi(now))` with
phi = (mean total of the other players - the learner's total) / 100, where a total is money plus
property value (docs/RULES.md §8), and phi = 0 once the game is over. It rewards spending faster
than the table between the sparse terminal rewards.

Illegal learner actions end the game with a penalty (`illegal_action="penalize"`) and are
counted by the trainer as `rollout/invalid_action_rate`, which must stay 0 with masking.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from lastwill_env.shaping import potential
from lastwill_env.single_seat import SingleSeatEnv

from .config import TrainConfig
from .pool import OpponentPool


class _Timed:
    """Wraps an opponent to accumulate the time of its decisions."""

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


class SelfPlayEnv(SingleSeatEnv):
    def __init__(self, cfg: TrainConfig, worker: int = 0) -> None:
        self.pool = OpponentPool(
            cfg.bots,
            cfg.p_latest,
            cfg.p_bots_min,
            cfg.pfsp,
            seed=cfg.seed * 1000 + worker,
            p_bot_table=cfg.p_bot_table,
        )
        self._clock = [0.0]
        self.shaping = cfg.shaping
        self.gamma = cfg.gamma
        self._phi = 0.0
        super().__init__(
            opponents_fn=self._draw,
            num_players=tuple(cfg.num_players),
            player_weights=tuple(cfg.player_weights),
            reward=cfg.reward,
            illegal_action="penalize",
        )

    def _potential(self) -> float:
        return potential(self.game, self.seat)

    def _draw(self, num_players: int, rng: np.random.Generator) -> list[Any]:
        return [_Timed(o, self._clock) for o in self.pool.draw(num_players)]

    # -- pushed from the trainer ---------------------------------------------------------
    def set_latest(self, state: dict[str, Any]) -> None:
        self.pool.set_latest(state)

    def set_snapshots(self, paths: dict[str, str], weights: dict[str, float]) -> None:
        self.pool.set_snapshots(paths, weights)

    # -- gymnasium API -------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self._clock[0] = 0.0
        obs, info = super().reset(seed=seed, options=options)
        info["opponent_seconds"] = self._clock[0]
        self._phi = self._potential() if self.shaping else 0.0
        return obs, info

    def step(self, action: Any):
        self._clock[0] = 0.0
        obs, reward, terminated, truncated, info = super().step(action)
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
