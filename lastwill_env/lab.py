"""Last Will as a `gamecore.Game`: the engine's functions, bound for the harness.

This module binds what exists (the engine of docs/RULES.md, the encoders, the shaping
potential, the scripted bots) and adds no rule. The compiled fast paths stay behind the
engine's and the encoders' own functions. Declared in the entry-point group
`lastwill_lab.games` as ``lastwill``; `load_game()` with no name returns it. numpy is imported
on first use of an encoder, so the binding, like the engine, loads with the standard library
alone.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cached_property
from typing import Any

from gamecore.game import Bot, Game

from . import ENV_NAME, ENV_VERSION
from .engine import (
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
)
from .engine.actions import KEEP
from .engine.config import PLAYER_COUNTS

_KEEP_ACTIONS = frozenset(KEEP.values())
_EPS = "eps=FLOAT (default 0.0: chance of a random legal action)"


class LastWillGame(Game):
    name = "lastwill"
    title = "Last Will"
    env_name = ENV_NAME
    version = ENV_VERSION
    player_counts = PLAYER_COUNTS
    num_actions = NUM_ACTIONS
    max_decisions = MAX_DECISIONS_PER_GAME
    # what a finished arena row carries after "ranks" (docs/RULES.md §8)
    result_fields = ("money", "property_value", "totals", "rounds")
    default_panel = ("greedy", "speculator", "planner", "combiner", "racer")
    config_options = ("starting_money", "board_spaces")  # docs/RULES.md §9
    # the mc player's playouts: the greedy spender with a little noise
    rollout_bot = "greedy"
    rollout_params = (("eps", 0.1),)

    @cached_property
    def obs_size(self) -> int:  # type: ignore[override]
        from .encoding import OBS_SIZE

        return OBS_SIZE

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
        return list(state.results["ranks"])

    def winner(self, state: GameState) -> int:
        return state.results["winner"]

    def row_fields(self, state: GameState) -> dict[str, Any]:
        res = state.results
        if res is None:  # stopped by an error: how far it got
            return {"rounds": state.round}
        return {
            "money": list(res["money"]),
            "property_value": list(res["property_value"]),
            "totals": list(res["totals"]),
            "rounds": res["rounds"],
        }

    def history(self, state: GameState) -> list[int]:
        return list(state.history)

    def replay(self, config: GameConfig, seed: int, actions: Sequence[int]) -> GameState:
        return replay(config, seed, actions)

    def action_text(self, action: int) -> str:
        return describe_action(action)

    # ----- information
    def player_view(self, state: GameState, seat: int) -> Any:
        return player_view(state, seat)

    def public_action(self, action: int) -> int | None:
        # which starting cards another player keeps is hidden (§10)
        return None if action in _KEEP_ACTIONS else action

    def seat_results(self, state: GameState, seat: int) -> Any:
        return player_view(state, seat).results

    def determinize(self, view: Any, rng: random.Random) -> GameState:
        return determinize(view, view.seat, rng)

    def determinize_with(
        self, view: Any, rng: random.Random, config: GameConfig | None = None
    ) -> GameState:
        return determinize(view, view.seat, rng, config=config)

    # ----- learning
    @cached_property
    def _encoding(self) -> Any:
        from . import encoding

        return encoding

    def encode_observation(self, view: Any, out: Any = None) -> Any:
        return self._encoding.encode_observation(view, out)

    def encode_state(self, state: GameState, seat: int, out: Any = None) -> Any:
        return self._encoding.encode_state(state, seat, out)

    def encode_state_sparse(self, state: GameState, seat: int, ordered: bool = True) -> Any:
        return self._encoding.encode_state_sparse(state, seat, ordered)

    def encode_observation_sparse(self, view: Any, ordered: bool = True) -> Any:
        return self._encoding.encode_observation_sparse(view, ordered)

    def encode_seats_sparse(self, state: GameState, seats: Any, ordered: bool = True) -> Any:
        return self._encoding.encode_seats_sparse(state, seats, ordered)

    def terminal_rewards(self, ranks: Sequence[int], mode: str = "zero_sum") -> list[float]:
        return self._encoding.terminal_rewards(ranks, mode)

    def potential(self, state: GameState, seat: int) -> float:
        return self._potential(state, seat)

    @cached_property
    def _potential(self) -> Any:
        from .shaping import potential

        return potential

    def fast_functions(self) -> dict[str, Any]:
        # the engine's, the encoders' and the shaping's own functions, which the methods call
        enc = self._encoding
        return {
            **super().fast_functions(),
            "legal_actions": legal_actions,
            "apply_action": apply_action,
            "player_view": player_view,
            "encode_state": enc.encode_state,
            "encode_state_sparse": enc.encode_state_sparse,
            "potential": self._potential,
        }

    # ----- its own environments, on the engine's fast paths (`gamecore.Game`)
    def single_seat_env(self, **kwargs: Any) -> Any:
        from .single_seat import SingleSeatEnv

        return SingleSeatEnv(**kwargs)

    def rllib_env_class(self) -> type:
        from .rllib import LastWillMultiAgentEnv

        return LastWillMultiAgentEnv

    def num_players(self, state: GameState) -> int:
        return state.n

    def round_number(self, state: GameState) -> int:
        return state.round  # docs/RULES.md: rounds count from 1

    def playout_score(self, state: GameState, seat: int) -> float:
        # the rank, and a small bonus for a lower money-plus-property total (agents/search.py)
        r = state.results
        n = state.n
        rank = r["ranks"][seat]
        spread = max(abs(t) for t in r["totals"]) or 1
        return (n - rank) / (n - 1) - 0.05 * r["totals"][seat] / spread

    @cached_property
    def layout_tables(self) -> dict[str, Any]:
        """What agents.compat reads to carry env v0 policies over: the observation pieces,
        the phase names and the action table."""
        from .encoding import OBS_PIECES
        from .engine import PHASE_NAMES
        from .engine.actions import ACTION_TABLE

        return {"obs_pieces": OBS_PIECES, "phase_names": PHASE_NAMES, "action_table": ACTION_TABLE}

    # ----- players
    def bots(self) -> dict[str, Bot]:
        from .bots import CombinerBot, GreedyBot, PlannerBot, RacerBot, SpeculatorBot, SprinterBot

        weights = "KEY=FLOAT sets one of its weights, e.g. errand_weight=0.1:base_rate=18"
        return {
            "greedy": Bot(GreedyBot, "greedy spender: most £ burned per action now", _EPS),
            "speculator": Bot(SpeculatorBot, "property speculator: dear houses, sold cheap", _EPS),
            "planner": Bot(PlannerBot, "plans by hand needs, sells out into debt at the end", _EPS),
            "combiner": Bot(CombinerBot, "companion combiner: slots and add-ons", _EPS),
            "racer": Bot(
                RacerBot,
                "racer: owns nothing, spends fastest, ends the game in debt",
                f"{_EPS}; {weights}",
            ),
            "sprinter": Bot(SprinterBot, "the racer retuned for 2-3 players (same at 4-5)", _EPS),
        }
