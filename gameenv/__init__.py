"""Learning environments over any `gamecore.Game`: one set for every game of the lab.

A game is given as a `gamecore.Game` object or as its registry name (`gamecore.load_game`);
the environments read nothing of it but the seam (`gamecore/game.py`), so Last Will, Money!
and the tests' tiny game get the same environments:

- `gameenv.aec`: `raw_env(game, ...)` / `env(game, ...)`, a PettingZoo AEC env (every seat an
  agent, the engine choosing who acts); `game_env(game, ...)` gives the game's own AEC env
  where it has one (`Game.aec_env`: Money!'s `money_env.env`), else `env(game, ...)`;
- `gameenv.single_seat`: `SingleSeatEnv(game, ...)`, a Gymnasium env for one learning seat
  against injected opponents;
- `gameenv.rllib`: `GameMultiAgentEnv`, an RLlib `MultiAgentEnv` (Ray is imported only when
  that class is first used).

What every environment shares (each module's docstring is its env card):

- Observation: ``game.encode_state(state, seat)``, the flat float32 vector of what ``seat`` may
  know (`Game.player_view`), seat-relative as the game encodes it, ``game.obs_size`` long, in
  ``Box(low, high)`` with the game's optional ``obs_low`` / ``obs_high`` attributes (default
  ``-inf`` / ``+inf``; the seam does not promise bounds). Nothing a seat may not know is
  encoded: the environments never encode another seat's view for it.
- Action: ``Discrete(game.num_actions)``, the game's flat action table
  (``game.action_text(i)`` names row ``i``); a mask is exactly ``game.legal_actions(state)``
  for the seat to act and all zeros for everybody else.
- Rewards: 0 on every step, then ``game.terminal_rewards(game.ranks(state), reward)`` at the
  end (``reward="zero_sum"`` or ``"rank"``, `gamecore.results`: ties share a rank, and both
  modes sum to 0).
- A game that runs past ``DECISION_FACTOR * game.max_decisions`` decisions (the harness's
  guard) is truncated: every seat gets reward 0 and ``truncated`` is set.
- Bad input raises `ConfigError` (a ``ValueError``) naming the value and what is allowed: an
  unknown game (`gamecore.GameNotFound`, also a ``ValueError``), a player count the game does
  not allow, an unknown reward mode, a seed that is not an integer from 0 to 2**64 - 1.
  An illegal action raises `IllegalActionError` (a ``ValueError``) naming it and the legal ones.

This module imports the standard library, numpy and `gamecore` only; the environments load on
first access (``gameenv.raw_env``, ``gameenv.env``, ``gameenv.SingleSeatEnv``, ...).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from gamecore.game import DECISION_FACTOR, Game, IllegalActionError
from gamecore.options import ConfigError, check_choice, check_seed_option
from gamecore.registry import GameNotFound, game_names, load_game
from gamecore.results import REWARD_MODES

__all__ = [
    "ConfigError",
    "IllegalActionError",
    "DECISION_FACTOR",
    "REWARD_MODES",
    "resolve_game",
    "check_players",
    "check_reward",
    "check_seed",
    "raw_env",
    "env",
    "game_env",
    "SingleSeatEnv",
    "RandomOpponent",
    "GameMultiAgentEnv",
]

_LAZY = {
    "raw_env": "gameenv.aec",
    "env": "gameenv.aec",
    "game_env": "gameenv.aec",
    "SingleSeatEnv": "gameenv.single_seat",
    "RandomOpponent": "gameenv.single_seat",
    "GameMultiAgentEnv": "gameenv.rllib",
}


def resolve_game(game: Any) -> Game:
    """``game`` itself when it is a `Game`, else the registry's game of that name
    (`gamecore.GameNotFound`, a ValueError listing the installed games, for another value)."""
    if isinstance(game, Game):
        return game
    if game is None:  # load_game(None) means Last Will; an env is told its game
        raise GameNotFound(
            f"game=None: give a gamecore.Game or a game name; choose one of {game_names()}"
        )
    return load_game(game)


def _count(game: Game, k: Any) -> int | None:
    """``k`` as an int if it is a Python or numpy integer (not a bool) the game allows."""
    if isinstance(k, (bool, np.bool_)):
        return None
    try:
        k = operator.index(k)
    except TypeError:
        return None
    return k if k in game.player_counts else None


def check_players(game: Game, num_players: Any, many: bool = False) -> tuple[int, ...]:
    """The player counts ``num_players`` names: one count, or (``many``) a count or a
    non-empty sequence of them; None is the game's smallest count (every count with
    ``many``). Anything else raises `ConfigError` naming the value and the allowed counts."""
    counts = game.player_counts
    if num_players is None:
        return tuple(counts) if many else (min(counts),)
    given = (
        list(num_players)
        if many and isinstance(num_players, (list, tuple, range, np.ndarray))
        else [num_players]
    )
    found = [_count(game, k) for k in given]
    if not found or None in found:
        what = "a player count or a list of them, each" if many else "a player count,"
        raise ConfigError(
            f"num_players={num_players!r} is not allowed for {game.name}; give {what} one of "
            f"{tuple(counts)}"
        )
    return tuple(k for k in found if k is not None)


def check_reward(reward: Any) -> str:
    """``reward`` if it is a reward mode of `gamecore.results` (`ConfigError` otherwise)."""
    if not isinstance(reward, str):
        raise ConfigError(f"reward={reward!r} is not allowed; choose one of {REWARD_MODES}")
    return check_choice("reward", reward, REWARD_MODES)


def check_seed(seed: Any) -> int:
    """``seed`` as an int if it is a Python or numpy integer from 0 to 2**64 - 1."""
    return check_seed_option("seed", seed)


def check_weights(weights: Sequence[float] | None, counts: tuple[int, ...]) -> np.ndarray:
    """The draw probability of each player count: ``weights`` normalised (uniform when None):
    one finite non-negative number per count with a positive sum, else `ConfigError`."""
    if weights is None:
        return np.full(len(counts), 1.0 / len(counts))
    try:
        w = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError):
        w = np.array([math.nan])
    if w.shape != (len(counts),) or not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
        raise ConfigError(
            f"player_weights={weights!r} must be {len(counts)} finite non-negative numbers "
            f"(one per entry of num_players={counts}) with a positive sum"
        )
    return w / w.sum()


def action_int(action: Any) -> int | None:
    """``action`` as an int if it is a Python or numpy integer (not a bool), else None."""
    if isinstance(action, (bool, np.bool_)) or "bool" in str(getattr(action, "dtype", "")):
        return None
    try:
        return operator.index(action)
    except TypeError:
        return None


def draw_seed(rng: np.random.Generator) -> int:
    """A game seed (0 to 2**64 - 1) drawn from ``rng``."""
    return int(rng.integers(0, 2**64, dtype=np.uint64))


def obs_bounds(game: Game) -> tuple[float, float]:
    """The observation box's bounds: the game's ``obs_low`` / ``obs_high`` when it declares
    them, else unbounded."""
    return float(getattr(game, "obs_low", -math.inf)), float(getattr(game, "obs_high", math.inf))


def outcome(game: Game, state: Any, seat_names: Sequence[Any]) -> dict[str, Any]:
    """The end-of-game facts every env reports: ``ranks`` (per absolute seat, 1 = best, ties
    shared), ``winners`` (the names of the seats ranked 1) and ``result`` (the log row's
    fields, `Game.row_fields`)."""
    ranks = [int(r) for r in game.ranks(state)]
    winners = [seat_names[p] for p, r in enumerate(ranks) if r == 1]
    return {"ranks": ranks, "winners": winners, "result": game.row_fields(state)}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'gameenv' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
