"""The random streams of training, each derived from the run's seed by one named function.

Two schemes make them:

- **labelled** streams: a hash of the run seed and labels (`agents.deals.derive_seed`, and
  `agents.deals.training_seed` for the seed of a game to learn from, never a test deal). Expert
  iteration's game mix (`derive_seed(seed, "expert", iteration, "counts")`), its self-play deals
  (`training_seed(seed, "expert", iteration, game)`) and its update's batches
  (`derive_seed(seed, "expert", iteration, "update")`); a value fit's self-play deals
  (`training_seed(seed, "value-fit", players, game)`); every arena deal (`agents.deals`).
- **legacy-valued** streams: the run seed with a fixed offset or factor, the functions of this
  module. Every checkpoint, evaluation and pinned run of the lab was made with these values, and
  a new value would change them all (tests/training/test_no_behaviour_change.py pins some), so
  each function returns exactly the value it always had; tests/training/test_seeds.py holds
  them to it.

The legacy-valued streams:

- `env_worker_seed`: the opponent pool of env worker `worker` (SB3's self-play env);
- `vec_env_seed`: SB3's vectorised envs, reseeded when the run (re)starts at `step`;
- `opponent_bot_seed`: the `index`-th bot of a pool or of an all-seat rollout's opponents;
- `teacher_seed`: an all-seat rollout's kickstarting teacher;
- `prior_bot_seed`: an all-seat rollout's prior bot;
- `rollout_seed`: the all-seat trainer's rollouts, from the `step` it (re)starts at;
- `update_seed`: the all-seat trainer's minibatch order, from the `step` it (re)starts at;
- `evaluation_seed`: the training's evaluations (validation deals of seed + 17);
- `exploiter_seed`: a league's main exploiter trained at `step`;
- `exploit_eval_seed`: the final tables of `lastwill exploit`, deals unlike its evaluations';
- `playout_cap_seed`: expert iteration's full-or-cheap search coin in a self-play game, apart
  from the game's own generator;
- `search_seed`: the search's own random stream in that game.
"""

from __future__ import annotations

_PLAYOUT_CAP_SALT = 0xCA9
_SEARCH_SALT = 0x5EA5C4


def env_worker_seed(seed: int, worker: int) -> int:
    """The opponent pool's seed in env worker `worker`."""
    return seed * 1000 + worker


def vec_env_seed(seed: int, step: int) -> int:
    """SB3's vectorised envs' seed when the run (re)starts at `step`."""
    return seed + step


def opponent_bot_seed(seed: int, index: int) -> int:
    """The seed of the `index`-th opponent bot of a pool or rollout made with `seed`."""
    return seed + index


def teacher_seed(seed: int) -> int:
    """The kickstarting teacher's seed in a rollout made with `seed`."""
    return seed + 7717


def prior_bot_seed(seed: int) -> int:
    """The prior bot's seed in a rollout made with `seed`."""
    return seed + 7919


def rollout_seed(seed: int, step: int) -> int:
    """The all-seat trainer's rollout seed when the run (re)starts at `step`."""
    return seed * 1_000_003 + step


def update_seed(seed: int, step: int) -> int:
    """The all-seat trainer's minibatch generator's seed when the run (re)starts at `step`."""
    return seed * 7919 + step


def evaluation_seed(seed: int) -> int:
    """The seed of the training's evaluation tables (validation deals)."""
    return seed + 17


def exploiter_seed(seed: int, step: int) -> int:
    """The seed of the main exploiter a league trains at `step`."""
    return seed + step


def exploit_eval_seed(seed: int) -> int:
    """The deal seed of an exploit's final tables: deals unlike its training evaluations'."""
    return seed * 7 + 1_000_003


def playout_cap_seed(seed: int) -> int:
    """The full-or-cheap search coin's seed in the self-play game of deal seed `seed`."""
    return seed ^ _PLAYOUT_CAP_SALT


def search_seed(seed: int) -> int:
    """The search's random stream's seed in the self-play game of deal seed `seed`."""
    return seed ^ _SEARCH_SALT
