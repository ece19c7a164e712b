"""All-seat self-play: a compact masked PPO on torch in which every seat the current policy
plays is a training sample.

`mode = "all_seat"` in `TrainConfig` selects this trainer (`training.train.train` dispatches to
`train_all_seat`). It is written out here because SB3's rollout collection assumes one agent
stepping one env in lock-step, while in Last Will the seats act at different times, several
times in a row, and only the current policy's seats should learn. It plays the game that
`TrainConfig.game` names through its `gamecore.Game` object alone (Last Will by default).

- `network`: the actor-critic over the sparse observation, and its export to dense `.npz`.
- `batch`: sparse observations and their torch batches.
- `rollout`: games stepped together, per-seat trajectories, GAE and rewards.
- `ppo`: the optimizer and the PPO update over a rollout buffer.
- `loop`: the trainer's hooks in the shared run loop (`training.runloop`), `train_all_seat`
  and its checkpoints (imported on its own: it is not re-exported here).

Threads: rollout and update alternate in one process; torch runs with `torch_threads` threads
(default: all cores) for both, since each phase has the machine to itself. On 2 cores this beats
a rollout process feeding a learner process (docs/TRAINING.md, "All-seat self-play"; the
figures in docs/EXPERIMENTS.md, "Speed").
"""

from typing import Any

from gamecore import load_game

from .batch import sparse_batch, sparse_obs
from .network import ActorCritic, build_model
from .ppo import flatten, make_optimizer, ppo_update
from .rollout import (
    LEARNER,
    Game,
    Rollout,
    SeatTrajectory,
    seat_gae,
    trajectory_rewards,
)


def potential(state: Any, seat: int, game: Any = None) -> float:
    """The shaping potential the trainer uses: the game's `potential` (the default game's when
    `game` is None)."""
    return (load_game() if game is None else game).potential(state, seat)


__all__ = [
    "LEARNER",
    "ActorCritic",
    "Game",
    "Rollout",
    "SeatTrajectory",
    "build_model",
    "flatten",
    "make_optimizer",
    "potential",
    "ppo_update",
    "seat_gae",
    "sparse_batch",
    "sparse_obs",
    "trajectory_rewards",
]
