"""The seating of a training table: who sits where, drawn from the opponent pool.

One rule for the all-seat rollout (`training.allseat.rollout.Rollout.new_game`), the single-seat
env's pool (`training.pool.OpponentPool.draw`), and through the rollout the exploiters' tables:

- The player count is drawn from `num_players` with `player_weights` (`draw_player_count`):
  distinct player counts (`is_count_list`, which the evaluation's list of counts keeps too) and
  one finite non-negative weight each, with a positive sum (`is_count_weights`). A training
  run's settings and expert iteration's are checked with these two.
- The learner takes one seat drawn uniformly (`draw_learner_seat`; the single-seat env draws
  its own, `lastwill_env.single_seat`).
- The table (`draw_table`): with probability `p_bot_table` one pool bot, drawn once, holds every
  other seat (the evaluation's table); otherwise, with probability `p_bot_seat` (out of all
  games), one pool bot holds one seat and the learner every other (the reverse table, all-seat
  only); otherwise every other seat is drawn on its own (a mixed table).
- A seat of a mixed table (`draw_seat`): a pool bot with probability `p_bots_min`, the learner's
  current weights with `p_latest`, otherwise a frozen snapshot drawn by its PFSP weight; with no
  snapshot yet, the learner (and with no learner weights yet either, a bot).

Every draw is one call of the table's own `random.Random`, in a fixed order, so that the same
seed seats the same tables (the checkpoint digests of `tests/training/test_no_behaviour_change.py`).
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gamecore import load_game
from gamecore.plain import is_int, is_number

MIXED, BOT_TABLE, REVERSE = "mixed", "bot_table", "reverse"
BOT, LEARNER, SNAPSHOT = "bot", "learner", "snapshot"


def is_count_list(counts: Any, allowed: Collection[int] | None = None) -> bool:
    """A list of distinct player counts, not empty, each one of `allowed` (a game's
    `player_counts`; None: the default game's)."""
    if allowed is None:
        allowed = load_game().player_counts
    return (
        isinstance(counts, list)
        and bool(counts)
        and all(is_int(k) and k in allowed for k in counts)
        and len(set(counts)) == len(counts)
    )


def is_count_weights(weights: Any, counts: Sequence[int]) -> bool:
    """A list of one finite non-negative number (not a bool) per entry of `counts`, with a
    positive sum."""
    return (
        isinstance(weights, list)
        and len(weights) == len(counts)
        and all(is_number(x) and x >= 0 for x in weights)
        and sum(weights) > 0
    )


def draw_player_count(rng: random.Random, cfg: Any) -> int:
    """A player count from `cfg.num_players`, weighted by `cfg.player_weights`."""
    return rng.choices(cfg.num_players, weights=cfg.player_weights)[0]


def draw_learner_seat(rng: random.Random, num_players: int) -> int:
    """The learner's seat at a table of `num_players`, uniformly."""
    return rng.randrange(num_players)


@dataclass(frozen=True)
class Table:
    """The kind of a table: `MIXED`, `BOT_TABLE` (pool bot `bot` in every other seat) or
    `REVERSE` (pool bot `bot` in `bot_seat`, the learner everywhere else)."""

    kind: str = MIXED
    bot: int = -1  # the index of the pool bot in the pool's list of bots
    bot_seat: int = -1


def draw_table(
    rng: random.Random,
    n_bots: int,
    p_bot_table: float,
    p_bot_seat: float = 0.0,
    others: Sequence[int] = (),
) -> Table:
    """The kind of a table from a pool of `n_bots` bots; `others` are the seats other than the
    learner's (where a reverse table's bot may sit)."""
    if n_bots and p_bot_table > 0 and rng.random() < p_bot_table:
        return Table(BOT_TABLE, bot=draw_bot(rng, n_bots))
    if p_bot_seat > 0 and rng.random() < p_bot_seat / (1.0 - p_bot_table):
        seat = rng.choice(others)
        return Table(REVERSE, bot=draw_bot(rng, n_bots), bot_seat=seat)
    return Table(MIXED)


def draw_bot(rng: random.Random, n_bots: int) -> int:
    """The index of a pool bot, uniformly (a bot listed twice is drawn twice as often)."""
    return rng.randrange(n_bots)


def draw_seat(
    rng: random.Random,
    n_bots: int,
    p_bots_min: float,
    p_latest: float,
    snapshots: Collection[str],
    snapshot_weights: Mapping[str, float],
    has_latest: bool = True,
) -> tuple[str, Any]:
    """One seat of a mixed table: (`BOT`, the bot's index), (`LEARNER`, None) or
    (`SNAPSHOT`, its id). `snapshots` are the ids in the pool, `snapshot_weights` their PFSP
    weights (an id without one weighs 1; with none at all, every snapshot weighs 1)."""
    u = rng.random()
    if n_bots and (u < p_bots_min or (not has_latest and not snapshots)):
        return BOT, draw_bot(rng, n_bots)
    if has_latest and (u < p_bots_min + p_latest or not snapshots):
        return LEARNER, None
    if snapshots:
        ids = list(snapshot_weights) or list(snapshots)
        sid = rng.choices(ids, weights=[snapshot_weights.get(i, 1.0) for i in ids])[0]
        return SNAPSHOT, sid
    return BOT, draw_bot(rng, n_bots)
