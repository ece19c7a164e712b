"""Expert iteration's settings (`lastwill expert`), checked when made: a bad value is an
`ExpertConfigError` that names the setting, the value and what is allowed.

`game` names the game played (`gamecore.game_names`, Last Will by default); the player counts
are its own (`Game.player_counts`): `num_players` left out is every one of them with even
weights, `eval_num_players` left out its fewest."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from gamecore import DEFAULT_GAME, Game, GameNotFound, game_names, load_game
from gamecore.plain import in_words, is_int, is_number

from ..seating import is_count_list, is_count_weights
from .targets import POLICY_TARGETS


class ExpertConfigError(ValueError):
    """A setting of expert iteration that is not allowed."""


MAX_ITERATIONS = 100_000  # the most iterations of a run (their samples' numbers)
MAX_SIMS = 100_000  # the most simulations of one search
# (setting, lowest, highest) of the integer settings
_INTS = (
    ("iterations", 1, MAX_ITERATIONS),
    ("games", 1, 100_000),
    ("sims", 1, MAX_SIMS),
    ("fast_sims", 1, MAX_SIMS),
    ("explore", 0, 10_000),
    ("epochs", 0, 1000),
    ("batch_size", 2, 1_000_000),
    ("buffer", 1, 1000),
    ("eval_every", 0, 100_000),
    ("eval_games", 1, 1_000_000),
    ("workers", 1, 1024),
    ("torch_threads", 0, 1024),
    ("seed", 0, 2**31 - 1),  # as a training run's (`training.config.MAX_INT`)
)
# (setting, lowest, highest) of the real-number settings
_NUMS = (
    ("c_puct", 0.001, 1000.0),
    ("noise", 0.0, 1.0),
    ("full_share", 0.01, 1.0),
    ("full_below", 0.01, 1.0),
    ("alpha", 0.001, 100.0),
    ("learning_rate", 1e-9, 1.0),
    ("vf_coef", 0.0, 1000.0),
    ("anchor_coef", 0.0, 1000.0),
)


@dataclass
class ExpertConfig:
    run_dir: str = "runs/expert/default"
    game: str = DEFAULT_GAME  # the game played (`gamecore.load_game`)
    # the network to improve: a policy file with its critic (the search's value)
    init_policy: str = "agents/policies/reference.npz"
    iterations: int = 20
    games: int = 16  # self-play games per iteration
    sims: int = 32  # search simulations per decision
    # playout-cap randomisation (training.expert.selfplay): the share of decisions searched
    # with `sims` and kept as samples; the others get `fast_sims` (at most `sims`) simulations
    # and are not kept
    full_share: float = 1.0
    fast_sims: int = 8
    # and only where the network's top move has probability below `full_below` (1 = always)
    full_below: float = 1.0
    # what a sample's policy target holds: "visits" or "completed_q" (training.expert.targets)
    policy_target: str = "visits"
    c_puct: float = 1.5
    noise: float = 0.0  # Dirichlet noise mixed into the root's priors (agents/mcts.py)
    alpha: float = 0.3  # its concentration
    explore: int = 8  # each seat's first decisions drawn by visits (then the most visited)
    # the self-play player counts and their weights (None: every count of the game, evenly)
    num_players: list[int] | None = None
    player_weights: list[float] | None = None
    epochs: int = 2  # 0: the run only collects samples (training.expert.loop)
    batch_size: int = 256
    learning_rate: float = 1e-4
    vf_coef: float = 0.5
    anchor_coef: float = 0.0  # weight of KL(start network || network) in the update
    buffer: int = 4  # iterations of samples the update learns from
    eval_every: int = 2  # iterations between evaluations (0 = only at the start and the end)
    eval_games: int = 40
    eval_bots: list[str] = field(default_factory=lambda: ["sprinter"])
    eval_num_players: list[int] | None = None  # None: the game's fewest players ([2])
    torch_threads: int = 1
    workers: int = 1  # self-play processes (the same samples with any number)
    seed: int = 0
    progress: bool = True

    def __post_init__(self) -> None:
        counts = list(self.rules.player_counts)
        if self.num_players is None:
            self.num_players = counts
        if self.player_weights is None and isinstance(self.num_players, list):
            self.player_weights = [1.0] * len(self.num_players)
        if self.eval_num_players is None:
            self.eval_num_players = [min(counts)]
        self.validate()

    @property
    def rules(self) -> Game:
        """The game played; an `ExpertConfigError` naming the installed games for another."""
        return game_rules(self.game, ExpertConfigError)

    def validate(self) -> None:
        game = self.rules
        for name, lo, hi in _INTS:
            v = getattr(self, name)
            if not is_int(v) or not lo <= v <= hi:
                raise ExpertConfigError(
                    f"{name}={v!r} is not allowed; use an integer from {lo} to {hi}"
                )
        for name, lo, hi in _NUMS:
            v = getattr(self, name)
            if not is_number(v) or not lo <= v <= hi:
                raise ExpertConfigError(
                    f"{name}={v!r} is not allowed; use a number from {lo} to {hi}"
                )
        if min(self.full_share, self.full_below) < 1.0 and self.fast_sims > self.sims:
            raise ExpertConfigError(
                f"fast_sims={self.fast_sims} is not allowed; use an integer from 1 to sims "
                f"({self.sims}): a cheap search is no larger than a full one"
            )
        if self.policy_target not in POLICY_TARGETS:
            raise ExpertConfigError(
                f"policy_target={self.policy_target!r} is not allowed; use one of "
                f"{', '.join(POLICY_TARGETS)}"
            )
        self._check_counts(game)
        for name in ("run_dir", "init_policy"):
            v = getattr(self, name)
            if not isinstance(v, str) or not v.strip():
                raise ExpertConfigError(f"{name}={v!r} is not allowed; give a path")
        if not isinstance(self.progress, bool):
            raise ExpertConfigError(f"progress={self.progress!r} is not allowed; use true or false")
        self._check_bots(game)

    def _check_bots(self, game: Game) -> None:
        """The evaluation panel: distinct player specs the registry can build (as a training
        run's `eval_bots`)."""
        bots = self.eval_bots
        if (
            not isinstance(bots, list)
            or not bots
            or not all(isinstance(b, str) and b.strip() for b in bots)
        ):
            raise ExpertConfigError(f"eval_bots={bots!r} is not allowed; give player specs")
        if len(set(bots)) != len(bots) or "mixed" in bots:
            raise ExpertConfigError(
                f"eval_bots={bots!r} is not allowed; list each bot once (the mixed table is "
                "added by itself)"
            )
        from agents.registry import PlayerSpecError, make_agent

        for spec in bots:
            try:
                make_agent(spec, game=game)
            except PlayerSpecError as e:
                raise ExpertConfigError(f"eval_bots: {e}") from None

    def _check_counts(self, game: Game) -> None:
        for name in ("num_players", "eval_num_players"):
            v = getattr(self, name)
            if not is_count_list(v, game.player_counts):
                raise ExpertConfigError(
                    f"{name}={v!r} is not allowed; give distinct player counts, "
                    f"each {in_words(game.player_counts)}"
                )
        w = self.player_weights
        if not is_count_weights(w, self.num_players):
            raise ExpertConfigError(
                f"player_weights={w!r} is not allowed; give {len(self.num_players)} non-negative "
                f"numbers (one per count of num_players), not all 0"
            )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExpertConfig:
        if not isinstance(data, dict):
            raise ExpertConfigError(
                "expert-iteration settings must be a table of name = value, got "
                f"{type(data).__name__}"
            )
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ExpertConfigError(f"unknown setting(s) {unknown}; allowed: {sorted(names)}")
        return cls(**data)


def game_rules(name: object, error: type[Exception]) -> Game:
    """The game called `name`; `error` naming the value and the installed games otherwise."""
    try:
        if isinstance(name, str):
            return load_game(name)
    except GameNotFound:
        pass
    raise error(f"game={name!r} is not allowed; choose one of {', '.join(game_names())}")
