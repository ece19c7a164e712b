"""The `Game` interface: what the harness needs of a game, and nothing more.

Shaped after OpenSpiel's `Game`/`State` and Pgx's `make(env_id)`: one object per game, with
the rules behind plain functions over a mutable state. A game package implements one subclass
(Last Will's is `lastwill_env.lab.LastWillGame`) and declares it in the entry-point group
`lastwill_lab.games` (`gamecore.registry`). The harness only calls what is listed here; a
game's state, view and config are opaque to it.

Conventions every game keeps:
- seats are ``0..n-1``; `current_player` is the seat to act (every decision is one seat's; a
  simultaneous move is a sequence of hidden commits, as OpenSpiel turns simultaneous games
  into turn-based ones);
- actions are indices into one flat table of `num_actions`; `legal_actions` is exact and
  sorted;
- ranks are 1 for the best seat, ties share a rank (`gamecore.results`);
- a view is what one seat may know, and `determinize(view, rng)` samples a full state
  consistent with it;
- configs are plain objects with ``to_dict()`` that `config_from_dict` reads back validated;
  `num_players` is an attribute of each.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, NamedTuple

from .results import terminal_rewards


class Bot(NamedTuple):
    """One of a game's scripted bots: ``factory(seed=..., **params)`` builds it."""

    factory: Any
    summary: str  # one line for the player legend
    params: str = ""  # the options its spec takes, for the legend


class _Silent:
    """What other seats see of an action they are not told of at all (`SILENT`)."""

    _instance: _Silent | None = None

    def __new__(cls) -> _Silent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "SILENT"


# `Game.public_action` returns it for an action other seats do not learn was played
# (a card added to a sealed bid: not even the bid's size may leak)
SILENT = _Silent()

# a harness truncates a game past this many times `Game.max_decisions` decisions
DECISION_FACTOR = 10


class IllegalActionError(ValueError):
    """An action that is not legal now (or not an integer), as the environments over a game
    raise it; the message names the action, the seat and the legal actions."""

    def __init__(self, action: Any, legal: Sequence[int], seat: int | str) -> None:
        shown = list(legal)
        more = f" ... ({len(shown)} in all)" if len(shown) > 20 else ""
        super().__init__(
            f"action {action!r} ({type(action).__name__}) is not legal for {seat}; the legal "
            f"actions are {shown[:20]}{more}"
        )
        self.action, self.legal, self.seat = action, shown, seat


class Game(ABC):
    """One game. Subclasses set the identity attributes and implement the abstract methods."""

    # ----- identity
    name: str  # the registry name, e.g. "lastwill"
    title: str  # for people, e.g. "Last Will"
    env_name: str  # the environment's versioned id, e.g. "lastwill_v1"
    version: int  # bumped when recorded games and trained policies stop matching
    player_counts: tuple[int, ...]
    num_actions: int
    obs_size: int
    max_decisions: int  # a bound on the decisions of one game (harnesses guard 10x this)
    # a finished log row's game-specific fields, in order, after "ranks"
    result_fields: tuple[str, ...] = ()
    # the bots a default evaluation panel is made of
    default_panel: tuple[str, ...] = ()
    # the keyword options `make_config` takes beside the player count (command lines offer
    # them only for this game)
    config_options: tuple[str, ...] = ()

    @property
    @abstractmethod
    def action_table_hash(self) -> str:
        """A hash of the action table and the observation layout; policies record it."""

    # ----- setup
    @abstractmethod
    def make_config(self, num_players: int, **options: Any) -> Any:
        """A validated config; a bad player count or option raises ValueError naming it."""

    @abstractmethod
    def config_from_dict(self, data: Any) -> Any:
        """The config a ``config.to_dict()`` wrote, validated (ValueError naming the field)."""

    @abstractmethod
    def new_game(self, config: Any, seed: int) -> Any:
        """A new state: the deal depends only on ``config`` and ``seed`` (an int 0..2**64-1)."""

    # ----- stepping
    @abstractmethod
    def current_player(self, state: Any) -> int: ...

    @abstractmethod
    def legal_actions(self, state: Any) -> list[int]: ...

    @abstractmethod
    def apply_action(self, state: Any, action: int) -> None:
        """Play ``action`` in place; an illegal one raises an error naming it."""

    @abstractmethod
    def is_over(self, state: Any) -> bool: ...

    # ----- results and records
    @abstractmethod
    def ranks(self, state: Any) -> list[int]:
        """Per seat, 1 for the best; tied seats share a rank. Only for a finished game."""

    @abstractmethod
    def row_fields(self, state: Any) -> dict[str, Any]:
        """The `result_fields` of a log row: all of them for a finished game, those that say
        how far it got (or none) for a game stopped by an error."""

    @abstractmethod
    def history(self, state: Any) -> list[int]:
        """Every action played so far, in order (with the config and seed: the whole game)."""

    def replay(self, config: Any, seed: int, actions: Sequence[int]) -> Any:
        """The state after playing ``actions`` on the deal ``seed``."""
        state = self.new_game(config, seed)
        for a in actions:
            self.apply_action(state, a)
        return state

    @abstractmethod
    def action_text(self, action: int) -> str:
        """A short text of one action of the table, for logs and people."""

    # ----- text for people (terminal play of any game: `apps.tableplay`)
    def view_text(self, view: Any) -> str:
        """A seat's view as text for the person at that seat. Default: ``repr(view)``."""
        return repr(view)

    def move_text(self, view: Any, action: int) -> str:
        """A legal ``action`` of the view's seat said in the context of ``view`` (what it
        brings, what it costs). Default: `action_text`."""
        return self.action_text(action)

    def change_text(self, before: Any, after: Any) -> str:
        """What changed between two views of one seat (``before`` one action earlier), for
        the person at that seat; "" for nothing it may see. Default: "" (the player loop then
        says each public action, `public_action`)."""
        return ""

    def help_text(self, view: Any) -> str:
        """The rules page and what the phase of ``view`` is about, for the person at the
        seat. Default: "" (the loop names the game)."""
        return ""

    # ----- information
    @abstractmethod
    def player_view(self, state: Any, seat: int) -> Any:
        """What ``seat`` may know of ``state``."""

    def public_action(self, action: int) -> int | None | Any:
        """What the other seats are told of ``action``: the action, ``None`` (that the seat
        acted, not how) or `SILENT` (nothing at all). Default: every action is public."""
        return action

    def seat_results(self, state: Any, seat: int) -> Any:
        """The results as ``seat`` is told them at the end (the ``game_over`` event)."""
        return {"ranks": self.ranks(state)}

    @abstractmethod
    def determinize(self, view: Any, rng: random.Random) -> Any:
        """A full state consistent with ``view``, the hidden part sampled with ``rng``."""

    def determinize_with(self, view: Any, rng: random.Random, config: Any = None) -> Any:
        """`determinize` in the game's ``config`` where a view does not carry all of it (the
        search players' ``config=``; None: what `determinize` assumes). Default: `determinize`,
        ``config`` unread (a game whose views carry their whole config)."""
        return self.determinize(view, rng)

    # ----- learning
    @abstractmethod
    def encode_observation(self, view: Any, out: Any = None) -> Any:
        """The flat float32 observation (numpy) of a view, `obs_size` long."""

    def encode_state(self, state: Any, seat: int, out: Any = None) -> Any:
        """The observation of ``seat`` straight from the state (the same vector)."""
        return self.encode_observation(self.player_view(state, seat), out)

    def encode_state_sparse(self, state: Any, seat: int, ordered: bool = True) -> tuple[Any, Any]:
        """``seat``'s observation of ``state`` in the sparse form of `encode_observation_sparse`,
        straight from the state (the all-seat trainer's rows; ``ordered=False`` lets a game give
        the pairs in any order). Default: `encode_state`'s non-zeros."""
        import numpy as np

        obs = self.encode_state(state, seat)
        nz = np.flatnonzero(obs)
        return nz, obs[nz]

    def encode_observation_sparse(self, view: Any, ordered: bool = True) -> tuple[Any, Any]:
        """The observation as ``(indices, values)``: its non-zero entries, ``indices`` an
        ascending numpy ``intp`` array and ``values`` the float32 entries there (``ordered=False``
        lets a game give the pairs in any order). Default: the dense vector's non-zeros."""
        import numpy as np

        obs = self.encode_observation(view)
        nz = np.flatnonzero(obs)
        return nz, obs[nz]

    def encode_seats_sparse(
        self, state: Any, seats: Any, ordered: bool = True
    ) -> list[tuple[Any, Any]]:
        """Each of ``seats``' observations of ``state`` in the sparse form of
        `encode_observation_sparse`. Default: `encode_state`'s non-zeros, seat by seat."""
        import numpy as np

        rows = []
        for p in seats:
            obs = self.encode_state(state, p)
            nz = np.flatnonzero(obs)
            rows.append((nz, obs[nz]))
        return rows

    def terminal_rewards(self, ranks: Sequence[int], mode: str = "zero_sum") -> list[float]:
        return terminal_rewards(ranks, mode)

    def potential(self, state: Any, seat: int) -> float:
        """The shaping potential of ``seat`` (0.0: a game without shaping)."""
        return 0.0

    # the per-state methods a harness's hot loop calls, by name (`fast_functions`)
    FAST_FUNCTIONS = (
        "is_over",
        "current_player",
        "legal_actions",
        "apply_action",
        "player_view",
        "encode_state",
        "encode_state_sparse",
        "potential",
    )

    def fast_functions(self) -> dict[str, Any]:
        """`FAST_FUNCTIONS` by name, each a callable taking what the method of that name takes
        and doing exactly what it does, for a hot loop to bind once (a game may give its own
        plain functions, a call shorter than the method's). Default: the bound methods."""
        return {name: getattr(self, name) for name in self.FAST_FUNCTIONS}

    # ----- its own environments (the trainers fall back on `gameenv`'s generic ones)
    def single_seat_env(self, **kwargs: Any) -> Any:
        """The game's own single-seat Gymnasium env, built with ``kwargs`` (the keywords of
        `gameenv.single_seat.SingleSeatEnv` but ``game``), or None: the generic env serves.
        Like the generic one it has `action_masks()`, the learner's ``seat`` and the state as
        ``game_state``. Default: None."""
        return None

    def rllib_env_class(self) -> type | None:
        """The game's own RLlib ``MultiAgentEnv`` class (its env config: the keys of
        `gameenv.rllib` but ``game``), or None: `gameenv.rllib.GameMultiAgentEnv` serves.
        Default: None."""
        return None

    def aec_env(self, **kwargs: Any) -> Any:
        """The game's own PettingZoo AEC env, wrapped as `gameenv.aec.env` wraps it and built
        with ``kwargs`` (the keywords of `gameenv.aec.raw_env` but ``game``), or None:
        `gameenv.aec.env` serves (`gameenv.aec.game_env` picks). Like the generic one it
        gives the same observations, masks, rewards and ends. Default: None."""
        return None

    # ----- players
    def bots(self) -> dict[str, Bot]:
        """The game's scripted bots by spec name, in legend order."""
        return {}

    # the bot of `bots` that plays the flat Monte-Carlo player's playouts (and proposes its
    # first candidate), built with ``seed=`` and `rollout_params`; None: uniformly random moves
    rollout_bot: str | None = None
    rollout_params: tuple[tuple[str, Any], ...] = ()  # (keyword, value) pairs

    def playout_score(self, state: Any, seat: int) -> float:
        """How good a finished playout is for ``seat`` (the ``mc`` player averages it), higher
        better. Default: ``(n - rank) / (n - 1)``, tied seats sharing their rank."""
        ranks = self.ranks(state)
        n = len(ranks)
        return (n - ranks[seat]) / (n - 1)

    def num_players(self, state: Any) -> int:
        """The number of seats of ``state``. Default: the state's ``num_players`` attribute,
        else its ``n`` (a game whose states have neither overrides this)."""
        n = getattr(state, "num_players", None)
        return int(state.n if n is None else n)

    def round_number(self, state: Any) -> int:
        """The round of play ``state`` is in, 1 for the first (a report splits a game into
        early and late rounds by it). Default: the state's ``round`` attribute, else one round
        per turn of every seat: ``1 + len(history) // seats``."""
        r = getattr(state, "round", None)
        if r is not None:
            return int(r)
        return 1 + len(self.history(state)) // self.num_players(state)

    def __repr__(self) -> str:
        return f"<Game {self.name} v{self.version}>"

    def __reduce__(self) -> tuple:
        # a game travels by name (worker processes, Ray tasks): the receiver loads its own
        # instance, so what a binding caches (a module, a compiled table) never pickles
        from .registry import load_game

        return (load_game, (self.name,))
