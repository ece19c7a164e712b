"""Expert iteration's settings (`lastwill expert`, `lastwill train --mode expert`), checked
when made: a bad value is an `ExpertConfigError` that names the setting, the value and what is
allowed.

`ExpertConfig` extends the settings every trainer shares (`training.config.RunConfig`: the run
directory, seed, game, game mix, learner and evaluation settings, each with the one range it
has in every trainer) with the search's and the self-play's own. Its defaults differ where
expert iteration's do: a run under runs/expert, one torch thread, the sprinter as the panel,
an evaluation every 2 iterations. The search's simulations are capped where the search caps
them (`agents.mcts.MAX_SIMS`).

`game` names the game played (`gamecore.game_names`, Last Will by default); the player counts
are its own (`Game.player_counts`): `num_players` left out is every one of them with even
weights, `eval_num_players` left out its fewest."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from agents.mcts import MAX_SIMS
from gamecore import Game, GameNotFound, game_names, load_game
from gamecore.plain import is_int, is_number

from ..config import RunConfig, RunConfigError
from .targets import POLICY_TARGETS


class ExpertConfigError(RunConfigError):
    """A setting of expert iteration that is not allowed."""


MAX_ITERATIONS = 100_000  # the most iterations of a run (their samples' numbers)
# (setting, lowest, highest) of expert iteration's own integer settings
_INTS = (
    ("iterations", 1, MAX_ITERATIONS),
    ("games", 1, 100_000),
    ("sims", 1, MAX_SIMS),
    ("fast_sims", 1, MAX_SIMS),
    ("explore", 0, 10_000),
    ("epochs", 0, 1000),
    ("buffer", 1, 1000),
    ("workers", 1, 1024),
)
# (setting, lowest, highest) of its own real-number settings
_NUMS = (
    ("c_puct", 0.001, 1000.0),
    ("noise", 0.0, 1.0),
    ("full_share", 0.01, 1.0),
    ("full_below", 0.01, 1.0),
    ("alpha", 0.001, 100.0),
    ("anchor_coef", 0.0, 1000.0),
)


@dataclass
class ExpertConfig(RunConfig):
    """Expert iteration's settings (module docstring). As the run loop's (`training.runloop`)
    settings: an iteration is a step (`total_steps` is `iterations`), and every iteration is a
    checkpoint (the next iteration's search plays it)."""

    error: ClassVar[type[RunConfigError]] = ExpertConfigError
    kind: ClassVar[str] = "expert-iteration"
    mode: ClassVar[str] = "expert"  # the trainer (`training.train.train`)
    checkpoint_every: ClassVar[int] = 1
    eval_workers: ClassVar[int] = 1
    # the run loop's schedule parts that expert iteration has none of
    snapshot_every: ClassVar[int] = 1
    snapshot_window: ClassVar[int] = 1
    milestone_every: ClassVar[int] = 1
    exploiter_every: ClassVar[int] = 0
    bc_teacher: ClassVar[str] = ""

    # the shared settings whose defaults differ here (`RunConfig` has the rest)
    run_dir: str = "runs/expert/default"
    # the self-play player counts and their weights (None: every count of the game, evenly)
    num_players: list[int] | None = None
    player_weights: list[float] | None = None
    torch_threads: int = 1
    learning_rate: float = 1e-4
    batch_size: int = 256
    eval_every: int = 2  # iterations between evaluations (0 = only at the start and the end)
    eval_bots: list[str] = field(default_factory=lambda: ["sprinter"])
    eval_num_players: int | list[int] | None = None  # None: the game's fewest players ([2])
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
    epochs: int = 2  # 0: the run only collects samples (training.expert.loop)
    anchor_coef: float = 0.0  # weight of KL(start network || network) in the update
    buffer: int = 4  # iterations of samples the update learns from
    workers: int = 1  # self-play processes (the same samples with any number)

    def __post_init__(self) -> None:
        if isinstance(self.game, str) and self.game in game_names():
            counts = list(load_game(self.game).player_counts)
            if self.num_players is None:
                self.num_players = counts
            if self.player_weights is None and isinstance(self.num_players, list):
                self.player_weights = [1.0] * len(self.num_players)
            if self.eval_num_players is None:
                self.eval_num_players = [min(counts)]
        super().__post_init__()

    @property
    def rules(self) -> Game:
        """The game played; an `ExpertConfigError` naming the installed games for another."""
        return game_rules(self.game, ExpertConfigError)

    @property
    def total_steps(self) -> int:
        """The run loop's steps: the iterations."""
        return self.iterations

    def validate(self) -> None:
        self._check_game()
        self._check_shared_numbers()
        self._check_own_numbers()
        if min(self.full_share, self.full_below) < 1.0 and self.fast_sims > self.sims:
            raise ExpertConfigError(
                f"fast_sims={self.fast_sims} is not allowed; use an integer from 1 to sims "
                f"({self.sims}): a cheap search is no larger than a full one"
            )
        if self.policy_target not in POLICY_TARGETS:
            raise self._bad("policy_target", f"use one of {', '.join(POLICY_TARGETS)}")
        self._check_game_mix()
        self._check_eval_counts()
        self._check_run_dir()
        if not isinstance(self.init_policy, str) or not self.init_policy.strip():
            raise self._bad("init_policy", "give a path")
        self._check_eval_bots()

    def _check_own_numbers(self) -> None:
        for name, lo, hi in _INTS:
            if not is_int(getattr(self, name)) or not lo <= getattr(self, name) <= hi:
                raise self._bad(name, f"use an integer from {lo} to {hi}")
        for name, lo, hi in _NUMS:
            if not is_number(getattr(self, name)) or not lo <= getattr(self, name) <= hi:
                raise self._bad(name, f"use a number from {lo} to {hi}")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExpertConfig:
        """Settings from a table (`RunConfig.from_dict`); a `mode` entry may name this trainer
        ("expert"), as in a file that `lastwill train --mode expert` reads."""
        if isinstance(data, dict) and "mode" in data:
            if data["mode"] != cls.mode:
                raise ExpertConfigError(
                    f"mode={data['mode']!r} is not allowed in expert-iteration settings; leave it "
                    f'out or write mode = "{cls.mode}"'
                )
            data = {k: v for k, v in data.items() if k != "mode"}
        return super().from_dict(data)


def game_rules(name: object, error: type[Exception]) -> Game:
    """The game called `name`; `error` naming the value and the installed games otherwise."""
    try:
        if isinstance(name, str):
            return load_game(name)
    except GameNotFound:
        pass
    raise error(f"game={name!r} is not allowed; choose one of {', '.join(game_names())}")
