"""Money! as a `gamecore.Game`: the engine's functions, bound for the harness.

This module binds what exists (the engine of docs/games/MONEY.md, the observation encoder of
`money_env.encoding`, the scripted bots of `money_env.bots`) and adds no rule. It loads with the
standard library alone: numpy is imported when an observation is first encoded.

- Ranks are the engine's `place` (1 = best; tied seats share a place, docs/games/MONEY.md §7).
- What other seats learn of an action (`public_action`, docs/games/MONEY.md §4.1, §9): nothing
  at all of a card added to a bid or of a commit (`SILENT`: not even a bid's size may leak;
  the reveal shows every bid at once), and every exchange action as it is.
- A finished game's log row carries `scores` (per seat) and `rounds`; one stopped by an error,
  `rounds` only (how far it got).
- Shaping (`potential`): the seat's hand score against the table's, `money_env.shaping`.
  Playouts are scored by the default (the rank).
- Its own PettingZoo AEC env (`aec_env`): `money_env.env`; every observation entry lies in
  ``[obs_low, obs_high]`` (`money_env.encoding.OBS_LOW`, `obs_high()`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cached_property
from typing import Any

from gamecore.game import SILENT, Bot, Game

from . import ENV_NAME, ENV_VERSION
from .engine import (
    COMMIT,
    GAME_OVER,
    MAX_DECISIONS_PER_GAME,
    NUM_ACTIONS,
    GameConfig,
    GameState,
    apply_action,
    describe_action,
    determinize,
    legal_actions,
    new_game,
    player_view,
    replay,
    results,
)
from .engine.config import PLAYER_COUNTS

_EPS = "eps=FLOAT (default 0.0: chance of a random legal action)"


class MoneyGame(Game):
    name = "money"
    title = "Money!"
    env_name = ENV_NAME
    version = ENV_VERSION
    player_counts = PLAYER_COUNTS
    num_actions = NUM_ACTIONS
    max_decisions = MAX_DECISIONS_PER_GAME
    # what a finished arena row carries after "ranks": per-seat scores, rounds played
    result_fields = ("scores", "rounds")
    default_panel = ("value", "collector", "bluffer")
    config_options = ()
    # the mc player's playouts: the value bidder with a little noise
    rollout_bot = "value"
    rollout_params = (("eps", 0.1),)

    @cached_property
    def obs_size(self) -> int:  # type: ignore[override]
        from .encoding import OBS_SIZE

        return OBS_SIZE

    @cached_property
    def obs_low(self) -> float:
        from .encoding import OBS_LOW

        return OBS_LOW

    @cached_property
    def obs_high(self) -> float:
        from .encoding import obs_high

        return obs_high()

    @cached_property
    def action_table_hash(self) -> str:
        from . import ACTION_TABLE_HASH

        return ACTION_TABLE_HASH

    # ----- setup
    def make_config(self, num_players: int, **options: Any) -> GameConfig:
        return GameConfig.from_dict({"num_players": num_players, **options})

    def config_from_dict(self, data: Any) -> GameConfig:
        return GameConfig.from_dict(data)

    def new_game(self, config: GameConfig, seed: int) -> GameState:
        return new_game(config, seed)

    # ----- stepping
    def current_player(self, state: GameState) -> int:
        return state.cur

    def legal_actions(self, state: GameState) -> list[int]:
        return legal_actions(state)

    def apply_action(self, state: GameState, action: int) -> None:
        apply_action(state, action)

    def is_over(self, state: GameState) -> bool:
        return state.phase == GAME_OVER

    # ----- results and records
    def ranks(self, state: GameState) -> list[int]:
        return [r["place"] for r in results(state)]

    def row_fields(self, state: GameState) -> dict[str, Any]:
        if state.phase != GAME_OVER:  # stopped by an error: how far it got
            return {"rounds": state.round}
        return {"scores": [r["score"] for r in results(state)], "rounds": state.round}

    def history(self, state: GameState) -> list[int]:
        return list(state.history)

    def replay(self, config: GameConfig, seed: int, actions: Sequence[int]) -> GameState:
        return replay(config, seed, list(actions))

    def action_text(self, action: int) -> str:
        return describe_action(action)

    # ----- text for people (money_env.text: `lastwill play --game money`)
    def view_text(self, view: Any) -> str:
        from .text import view_text

        return view_text(view)

    def move_text(self, view: Any, action: int) -> str:
        from .text import move_text

        return move_text(view, action)

    def change_text(self, before: Any, after: Any) -> str:
        from .text import change_text

        return change_text(before, after)

    def help_text(self, view: Any) -> str:
        from .text import help_text

        return help_text(view)

    # ----- information
    def player_view(self, state: GameState, seat: int) -> Any:
        return player_view(state, seat)

    def public_action(self, action: int) -> Any:
        # a bid is sealed until the reveal: neither its cards nor its size nor its commit
        # tell the others anything (docs/games/MONEY.md §4.1)
        return SILENT if action <= COMMIT else action

    def seat_results(self, state: GameState, seat: int) -> Any:
        """The results as `seat` is told them, seats relative to it (0 = itself): each seat's
        rank (1 = best, shared on ties), score and score breakdown, and the rounds played."""
        res = player_view(state, seat).results
        return {
            "ranks": [r["place"] for r in res],
            "scores": [r["score"] for r in res],
            "win_shares": [r["win_share"] for r in res],
            "breakdown": [r["scores"] for r in res],
            "rounds": state.round,
        }

    def determinize(self, view: Any, rng: random.Random) -> GameState:
        return determinize(view, rng)

    # ----- learning
    @cached_property
    def _encoding(self) -> Any:
        from . import encoding

        return encoding

    def encode_observation(self, view: Any, out: Any = None) -> Any:
        return self._encoding.encode_observation(view, out)

    def encode_state(self, state: GameState, seat: int, out: Any = None) -> Any:
        # straight from the state, no view built: the same vector bit for bit
        return self._encoding.encode_state(state, seat, out)

    def potential(self, state: GameState, seat: int) -> float:
        from .shaping import potential

        return potential(state, seat)

    def num_players(self, state: GameState) -> int:
        return state.n

    def aec_env(self, **kwargs: Any) -> Any:
        """Money!'s own PettingZoo AEC env, `money_env.env` (wrapped)."""
        from .env import env

        return env(**kwargs)

    # ----- players
    def bots(self) -> dict[str, Bot]:
        from .bots import BlufferBot, CollectorBot, ValueBot

        return {
            "value": Bot(
                ValueBot,
                "value bidder: bids for the group worth most to its hand, best exchange by score",
                f"{_EPS}; target=FLOAT (default 60: bid value to act first)",
            ),
            "collector": Bot(
                CollectorBot,
                "set collector: chases trios and full sets of the currencies it holds",
                f"{_EPS}; focus=INT (default 2 currencies); target=FLOAT (default 45)",
            ),
            "bluffer": Bot(
                BlufferBot,
                "bluffer: seeded mix of bluff-only, low and value bids; value exchanges",
                f"{_EPS}; bluff=P (default 0.2), low=P (default 0.3), mask=P (default 0.3)",
            ),
        }
