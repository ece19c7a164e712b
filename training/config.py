"""Training configuration: the settings every trainer shares (`RunConfig`) and the lab
trainers' own (`TrainConfig`), filled from a TOML file and/or flags, validated.

`RunConfig` holds what every trainer of the run loop (`training.runloop`) reads: where the run
lives, its seed and game, the game mix, the learner's common settings, the evaluation and the
progress display, each with one range (a seed is at most `MAX_SEED` whichever trainer reads
it). `TrainConfig` (the all-seat, single-seat and RLlib trainers, chosen by `mode`) and
`training.expert.ExpertConfig` (expert iteration, `mode` "expert") extend it with their own
settings; their defaults may differ (a run directory under runs/train or runs/expert), their
ranges do not.

Every field has a default; a TOML file may set any of them at top level or under `[train]`;
command-line flags override the file. Unknown names, values of the wrong type (a boolean is
not a number, a string is not a list), NaN and infinity, and out-of-range values raise
`TrainConfigError` (`ExpertConfigError` for expert iteration's settings; both are
`RunConfigError`s) naming the field, the value and what is allowed. `bc_games` and
`bc_epochs` are positive whether or not a teacher is set.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar

from agents.evaluate import PANEL
from agents.readfile import read_data
from agents.residual import check_prior_weight
from gamecore import DEFAULT_GAME, GameNotFound, game_names, load_game
from gamecore.options import ConfigError
from gamecore.plain import in_words, is_int, is_number

from .seating import is_count_list, is_count_weights

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

BOTS_DEFAULT = ("random", "greedy", "speculator", "planner", "combiner", "racer")


class RunConfigError(ValueError):
    """A setting of a run that is not allowed (`TrainConfigError`, `ExpertConfigError`)."""


class TrainConfigError(RunConfigError):
    """A training setting that is not allowed."""


MAX_INT = 2**31 - 1
MAX_SEED = MAX_INT  # the seed of any run: training's, expert iteration's
# the trainers `mode` chooses (`training.train.train`): the lab's all-seat PPO (the default),
# SB3 MaskablePPO on one seat, RLlib PPO, expert iteration (`training.expert`, its own settings)
MODES = ("all_seat", "single_seat", "rllib", "expert")
# (lowest, highest, what is allowed) of the integer settings every trainer shares
SHARED_INTS: dict[str, tuple[int, int, str]] = {
    "seed": (0, MAX_SEED, f"use an integer from 0 to {MAX_SEED}"),
    "batch_size": (2, MAX_INT, f"use an integer from 2 to {MAX_INT}"),
    "eval_every": (
        0,
        MAX_INT,
        f"use 0 (evaluate only at the start and the end) or a positive integer (at most {MAX_INT})",
    ),
    "eval_games": (1, MAX_INT, f"use a positive integer (at most {MAX_INT})"),
    "torch_threads": (0, 1024, "use 0 (one per core) or a positive integer"),
}
# (lower bound, bound excluded, what is allowed) of the real-number settings they share
SHARED_NUMBERS: dict[str, tuple[float, bool, str]] = {
    "learning_rate": (0.0, True, "use a finite positive number, e.g. 0.0003"),
    "vf_coef": (0.0, False, "use a finite non-negative number"),
}
POSITIVE_INTS = (
    "total_steps",
    "n_envs",
    "n_games",
    "n_steps",
    "n_epochs",
    "bc_games",
    "bc_epochs",
    "snapshot_every",
    "snapshot_window",
    "milestone_every",
    "eval_workers",
    "checkpoint_every",
    "exploiter_steps",
    "exploiter_games",
)
NON_NEGATIVE_INTS = ("critic_warmup", "exploiter_every", "kickstart_steps")  # 0 = off
HINTS = {
    "bc_games": '; a warm start needs at least one teacher game (bc_teacher = "" turns it off)',
    "bc_epochs": '; a warm start needs at least one epoch (bc_teacher = "" turns it off)',
    "mode": " (expert iteration has settings of its own: training.expert.ExpertConfig, which "
    "`lastwill train --mode expert` and `lastwill expert` read)",
}
CHOICES = {
    "mode": MODES[:3],  # "expert" is `ExpertConfig`'s
    "vec_env": ("subproc", "dummy"),
    "reward": ("zero_sum", "rank"),
    "activation": ("tanh", "relu"),
}
BOOLS = ("pfsp", "init_new_prior", "init_critic")
# the settings that still play Last Will only, and their values that turn them off: a run of
# another game must leave them off (`TrainConfig._check_game`)
LASTWILL_ONLY: dict[str, tuple[Any, ...]] = {
    "prior": ("",),
    "exploiter_every": (0,),
}
_UNIT = "use a finite number from 0 to 1"
# name: (lower bound, bound excluded, upper bound or None, what is allowed), or the check of a
# number whose range has its home elsewhere (it raises ConfigError)
NUMBERS: dict[str, tuple[float, bool, float | None, str] | Callable[[Any], Any]] = {
    "ent_coef": (0.0, False, None, "use a finite non-negative number"),
    "shaping": (0.0, False, None, "use a finite non-negative number (0 = off)"),
    "gamma": (0.0, False, 1.0, _UNIT),
    "gae_lambda": (0.0, False, 1.0, _UNIT),
    "clip_range": (0.0, True, 1.0, "use a finite number above 0 and at most 1"),
    "p_latest": (0.0, False, 1.0, _UNIT),
    "p_bots_min": (0.0, False, 1.0, _UNIT),
    "p_bot_table": (0.0, False, 1.0, _UNIT),
    "p_bot_seat": (0.0, False, 1.0, _UNIT),
    "prior_weight": check_prior_weight,  # a logit bonus (agents.residual)
    "exploiter_gate": (-1.0, False, 1.0, "use a finite number from -1 to 1"),
    "kickstart_coef": (0.0, False, None, "use a finite non-negative number (0 = off)"),
}


@dataclass
class RunConfig:
    """The settings every trainer shares (module docstring), with the lab trainer's defaults;
    each trainer's settings extend it (`TrainConfig`, `training.expert.ExpertConfig`) and may
    give a field another default, never another range.

    A subclass names its error (`error`) and what its settings are called in messages
    (`kind`), and says which trainer it runs (`mode`: `TrainConfig`'s is a setting). The run
    loop also reads the schedule below (`total_steps`, `checkpoint_every`, ...): a trainer
    without such a setting runs with the class-level value of its config."""

    error: ClassVar[type[RunConfigError]] = RunConfigError
    kind: ClassVar[str] = "run"

    run_dir: str = "runs/train/default"
    seed: int = 0
    # the game played (`gamecore.load_game`), by every trainer
    game: str = DEFAULT_GAME
    # game mix (one policy for every player count)
    num_players: list[int] = field(default_factory=lambda: [2, 3, 4, 5])
    player_weights: list[float] = field(default_factory=lambda: [1.0, 1.0, 2.0, 1.0])
    torch_threads: int = 0  # torch threads of the learner, 0 = one per core
    # the learner's update (each trainer's optimiser reads them)
    learning_rate: float = 3e-4
    batch_size: int = 512
    vf_coef: float = 0.5
    # evaluation: the learner against the panel at the start, every eval_every steps (0: only
    # at the start and the end) and at the end
    eval_every: int = 100_000
    eval_games: int = 40  # per bot of the panel, rounded up to whole seat rotations
    eval_bots: list[str] = field(default_factory=lambda: list(PANEL))
    eval_num_players: int | list[int] = 4  # one count, or several (eval/win_rate/<n>p, ...)
    progress: bool = True

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """The shared settings (a subclass checks its own in its order)."""
        self._check_run_dir()
        self._check_game()
        self._check_shared_numbers()
        self._check_game_mix()
        self._check_eval_counts()
        self._check_eval_bots()

    def _bad(self, name: str, allowed: str) -> RunConfigError:
        """The error for setting `name`: its value, and what is allowed."""
        return self.error(f"{name}={getattr(self, name)!r} is not allowed; {allowed}")

    def _check_run_dir(self) -> None:
        if not isinstance(self.run_dir, str) or not self.run_dir.strip():
            raise self._bad("run_dir", "use a directory path as a string, e.g. runs/train/mine")

    def _check_game(self) -> None:
        """The game: one of the installed games (`gamecore.game_names`)."""
        try:
            if isinstance(self.game, str):
                load_game(self.game)
                return
        except GameNotFound:
            pass
        raise self._bad("game", f"choose one of {', '.join(game_names())}")

    def _players(self) -> tuple[int, ...]:
        """The game's player counts."""
        return tuple(load_game(self.game).player_counts)

    def _counts_text(self) -> str:
        """The game's player counts in words for an error message: "2, 3, 4 or 5"."""
        return in_words(self._players())

    def _check_shared_numbers(self) -> None:
        """The shared integers (`SHARED_INTS`: not booleans), real numbers (`SHARED_NUMBERS`:
        finite, not booleans) and `progress`, each in its one range."""
        for name, (lo, hi, allowed) in SHARED_INTS.items():
            v = getattr(self, name)
            if not is_int(v) or not lo <= v <= hi:
                raise self._bad(name, allowed)
        for name, (lo, lo_open, allowed) in SHARED_NUMBERS.items():
            v = getattr(self, name)
            if not is_number(v) or (v <= lo if lo_open else v < lo):
                raise self._bad(name, allowed)
        if not isinstance(self.progress, bool):
            raise self._bad("progress", "use true or false")

    def _check_game_mix(self) -> None:
        """The training player counts (the game's `player_counts`) and their weights, by the
        rule of the draw (`training.seating`)."""
        counts = self.num_players
        if not is_count_list(counts, self._players()):
            raise self._bad(
                "num_players",
                f"use a list of distinct player counts, each one of {self._counts_text()}",
            )
        if not is_count_weights(self.player_weights, counts):
            raise self._bad(
                "player_weights",
                f"use a list of {len(counts)} finite non-negative numbers "
                f"(one per num_players entry) with a positive sum",
            )

    def _check_eval_counts(self) -> None:
        """The evaluation's player count: one allowed count, or a list of distinct ones."""
        enp, counts = self.eval_num_players, self._players()
        if isinstance(enp, list):
            if not is_count_list(enp, counts):
                raise self._bad(
                    "eval_num_players", f"use {self._counts_text()}, or a list of distinct counts"
                )
        elif not (is_int(enp) and enp in counts):
            raise self._bad(
                "eval_num_players",
                f"choose {self._counts_text()}, or a list such as {list(counts)}",
            )

    def _check_eval_bots(self) -> None:
        """The evaluation panel: distinct player specs (the mixed table is added by itself)
        that the registry builds for the game."""
        bots = self.eval_bots
        if not isinstance(bots, list) or any(not isinstance(x, str) or not x.strip() for x in bots):
            raise self._bad("eval_bots", 'use a list of player specs, e.g. ["greedy", "planner"]')
        if not bots:
            raise self._bad(
                "eval_bots", 'list at least one bot to evaluate against, e.g. ["greedy"]'
            )
        if len(set(bots)) != len(bots) or "mixed" in bots:
            raise self._bad("eval_bots", "list each bot once (the mixed table is added by itself)")
        self._check_specs("eval_bots", bots)

    def _check_specs(self, name: str, specs: list[str]) -> None:
        """Every player spec of setting `name` names a player the registry can build."""
        from agents.registry import PlayerSpecError, make_agent

        # another game's players are built for it; Last Will's with today's call
        game = {} if self.game == DEFAULT_GAME else {"game": self.game}
        for spec in specs:
            try:
                make_agent(spec, **game)
            except PlayerSpecError as e:
                raise self.error(f"{name}: {e}") from None

    # ------------------------------------------------------------------------------------------
    def eval_counts(self) -> list[int]:
        """The evaluation player counts, as a list."""
        enp = self.eval_num_players
        return list(enp) if isinstance(enp, list) else [enp]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in fields(cls)]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
        """Settings from a table (a TOML file's, a run's saved ones): names checked, a tuple
        read as a list and an integer as a real number where the setting is one."""
        if not isinstance(data, dict):
            raise cls.error(
                f"{cls.kind} settings must be a table of name = value, got {type(data).__name__}"
            )
        unknown = sorted(set(data) - set(cls.names()))
        if unknown:
            raise cls.error(
                f"unknown {cls.kind} setting(s) {unknown}; allowed: {', '.join(cls.names())}"
            )
        kinds = {f.name: f.type for f in fields(cls)}
        clean = {}
        for k, v in data.items():
            if "list" in str(kinds[k]) and isinstance(v, tuple):
                v = list(v)
            if "float" in str(kinds[k]) and "list" not in str(kinds[k]) and is_int(v):
                v = float(v)
            clean[k] = v
        return cls(**clean)


@dataclass
class TrainConfig(RunConfig):
    """The settings of the lab's trainers (`mode`: all_seat, single_seat, rllib) beyond the
    ones every trainer shares (`RunConfig`)."""

    error: ClassVar[type[RunConfigError]] = TrainConfigError
    kind: ClassVar[str] = "training"

    # run
    total_steps: int = 1_000_000
    # the trainer (`training.train.train`): all_seat, every seat the current policy plays
    # learns (training.allseat; the shipped recipes); single_seat, sb3-contrib MaskablePPO on
    # SingleSeatEnv (one learner seat per game); rllib, RLlib PPO (training.rllib_backend)
    mode: str = "all_seat"
    n_envs: int = 2
    vec_env: str = "subproc"  # subproc | dummy
    n_games: int = 64  # all_seat: games stepped together in the process (batched inference)
    init_policy: str = ""  # all_seat: start the actor from this .npz or run dir ("" = fresh)
    # init_policy over another prior than this run's: keep its weights, play them over this
    # run's prior (off: a start policy over another prior is refused)
    init_new_prior: bool = False
    init_critic: bool = False  # init_policy: start the critic from its value weights too
    critic_warmup: int = 0  # all_seat: first rollouts fit only the critic (policy unchanged)
    # all_seat league: every exploiter_every steps a best response to the current policy is
    # trained for exploiter_steps (training.exploit) and joins the pool when it beats it
    exploiter_every: int = 0  # 0 = no exploiters
    exploiter_steps: int = 100_000
    exploiter_games: int = 200  # games that decide whether an exploiter joins the pool
    exploiter_gate: float = 0.0  # it joins when its win rate exceeds chance + exploiter_gate
    reward: str = "zero_sum"  # zero_sum | rank
    shaping: float = 0.0  # potential-based shaping weight (training.selfplay_env); 0 = off
    # PPO (the update's other settings: learning_rate, batch_size, vf_coef)
    n_steps: int = 1024
    n_epochs: int = 4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    net_arch: list[int] = field(default_factory=lambda: [128, 128])
    activation: str = "tanh"  # tanh | relu
    # behaviour-cloning warm start (training.bc); "" = off
    bc_teacher: str = ""
    bc_games: int = 400
    bc_epochs: int = 4
    # kickstarting (all_seat): while training, a cross-entropy term pulls the policy towards
    # the teacher bot's choice at every learner decision, weighted kickstart_coef and decaying
    # linearly to 0 over kickstart_steps (0 = constant)
    kickstart_teacher: str = ""
    kickstart_coef: float = 0.0
    kickstart_steps: int = 0
    kickstart_players: list[int] = field(default_factory=list)  # counts taught ([] = all)
    # a prior (all_seat): the policy's logits add prior_weight to the prior bot's own choice at
    # every decision, in training and in play (a residual policy over the bot); "" = off
    prior: str = ""
    prior_weight: float = 0.0
    # opponent pool
    p_latest: float = 0.5
    p_bots_min: float = 0.2
    # chance that a game seats one learner against n-1 copies of one pool bot (the evaluation
    # table); the other games draw each opponent seat from the mix above
    p_bot_table: float = 0.0
    # chance that a game seats one pool bot with the learner in every other seat (the reverse
    # table of the evaluation: one bot against n-1 copies of the policy); all-seat trainer only
    p_bot_seat: float = 0.0
    bots: list[str] = field(default_factory=lambda: list(BOTS_DEFAULT))
    pfsp: bool = True
    snapshot_every: int = 50_000
    snapshot_window: int = 10
    milestone_every: int = 250_000
    # evaluation processes and checkpoints (the evaluation's other settings: `RunConfig`)
    eval_workers: int = 1
    checkpoint_every: int = 100_000

    # ------------------------------------------------------------------------------------------
    def validate(self) -> None:
        """Every setting by type and range. Booleans are not numbers, NaN and infinity are
        refused, lists must be lists; the error names the setting, the value and what is
        allowed. The checks run in this order, so the first broken setting is the one named."""
        self._check_run_dir()
        self._check_game()
        self._check_shared_numbers()
        self._check_integers()
        self._check_start_policy()
        self._check_choices_and_numbers()
        self._check_game_mix()
        self._check_net_arch()
        self._check_eval_counts()
        self._check_pool()
        self._check_kickstart()
        self._check_prior()
        self._check_player_specs()
        self._check_minibatches()

    def _check_game(self) -> None:
        """The game: one of the installed games (`gamecore.game_names`), trained in any mode
        (the single-seat trainer on the game's own env or `gameenv`'s). A game other than the
        default is trained without the parts that still play Last Will only (a prior, the
        league's exploiters)."""
        super()._check_game()
        if self.game == DEFAULT_GAME:
            return
        why = f"game={self.game!r}"
        for name, off in LASTWILL_ONLY.items():
            if getattr(self, name) not in off:
                raise self._bad(name, f"it plays Last Will only so far; turn it off with {why}")

    def _check_integers(self) -> None:
        """Counts, sizes and schedules: integers (not booleans) in their ranges."""
        for name in POSITIVE_INTS:
            v = getattr(self, name)
            if not is_int(v) or not 1 <= v <= MAX_INT:
                allowed = f"use a positive integer (at most {MAX_INT})" + HINTS.get(name, "")
                raise self._bad(name, allowed)
        for name in NON_NEGATIVE_INTS:
            v = getattr(self, name)
            if not is_int(v) or not 0 <= v <= MAX_INT:
                raise self._bad(name, "use 0 (off) or a positive integer")
        if self.exploiter_every and self.mode != "all_seat":
            raise self._bad("exploiter_every", "exploiters need mode = all_seat (or set it to 0)")

    def _check_start_policy(self) -> None:
        if not isinstance(self.init_policy, str):
            raise self._bad("init_policy", "use a .npz policy, a run directory, or an empty string")
        for name in ("init_new_prior", "init_critic"):
            if getattr(self, name) is True and not self.init_policy:
                raise self._bad(name, "it needs an init_policy to start from")

    def _check_choices_and_numbers(self) -> None:
        """Named choices, booleans, and the bounded numbers of `NUMBERS`."""
        for name, choices in CHOICES.items():
            if not isinstance(getattr(self, name), str) or getattr(self, name) not in choices:
                raise self._bad(name, "choose " + " or ".join(choices) + HINTS.get(name, ""))
        for name in BOOLS:
            if not isinstance(getattr(self, name), bool):
                raise self._bad(name, "use true or false")
        for name, rule in NUMBERS.items():
            self._check_number(name, rule)
        if self.p_latest + self.p_bots_min > 1.0 + 1e-9:
            raise TrainConfigError(
                f"p_latest + p_bots_min = {self.p_latest + self.p_bots_min} exceeds 1"
            )

    def _check_number(self, name: str, rule: Any) -> None:
        """One setting of `NUMBERS`: a finite number (not a boolean) within its bounds, or one
        that its own check takes."""
        v = getattr(self, name)
        if callable(rule):
            try:
                rule(v)
            except ConfigError as e:
                raise TrainConfigError(str(e)) from None
            return
        lo, lo_open, hi, text = rule
        if not is_number(v) or (v <= lo if lo_open else v < lo) or (hi is not None and v > hi):
            raise self._bad(name, text)

    def _check_net_arch(self) -> None:
        if (
            not isinstance(self.net_arch, list)
            or not self.net_arch
            or any(not is_int(h) or not 1 <= h <= 65536 for h in self.net_arch)
        ):
            raise self._bad("net_arch", "use a list of positive layer widths, e.g. [128, 128]")

    def _check_pool(self) -> None:
        """The pool's bots and the evaluation panel, and the bot tables that need a bot."""
        if not isinstance(self.bots, list) or any(
            not isinstance(x, str) or not x.strip() for x in self.bots
        ):
            raise self._bad("bots", 'use a list of player specs, e.g. ["greedy", "planner"]')
        for name in ("p_bots_min", "p_bot_table", "p_bot_seat"):
            if not self.bots and getattr(self, name) > 0:
                raise self._bad("bots", f"list at least one bot when {name} > 0")
        if self.p_bot_seat > 0:
            if self.mode != "all_seat":
                raise self._bad(
                    "p_bot_seat", 'n-1 learner seats need the lab trainer, mode = "all_seat"'
                )
            if self.p_bot_table + self.p_bot_seat > 1:
                raise self._bad(
                    "p_bot_seat",
                    f"use at most 1 - p_bot_table = {1 - self.p_bot_table:g} "
                    "(the two kinds of bot game share each game's draw)",
                )
        self._check_eval_bots()

    def _check_kickstart(self) -> None:
        if not isinstance(self.kickstart_teacher, str):
            raise self._bad("kickstart_teacher", "use a bot name such as racer, or an empty string")
        if self.kickstart_coef > 0 and not self.kickstart_teacher:
            raise self._bad("kickstart_teacher", "name the teacher bot when kickstart_coef > 0")
        if self.kickstart_teacher and self.mode != "all_seat":
            raise self._bad("kickstart_teacher", 'kickstarting needs mode = "all_seat"')
        kp = self.kickstart_players
        if (
            not isinstance(kp, list)
            or any(not is_int(k) or k not in self.num_players for k in kp)
            or len(set(kp)) != len(kp)
        ):
            raise self._bad(
                "kickstart_players",
                f"use a list of distinct counts from num_players {self.num_players} ([] = all)",
            )

    def _check_prior(self) -> None:
        if not isinstance(self.prior, str):
            raise self._bad("prior", "use a bot name such as racer, or an empty string")
        if self.prior and self.mode != "all_seat":
            raise self._bad("prior", 'a prior needs mode = "all_seat"')
        if self.prior and self.prior_weight <= 0:
            raise self._bad("prior_weight", "use a positive number with a prior, e.g. 4.0")
        if not self.prior and self.prior_weight:
            raise self._bad("prior_weight", 'use 0 without a prior (prior = "")')
        if self.prior and (self.prior.startswith("ppo:") or self.prior.startswith("random")):
            raise self._bad("prior", "use a scripted bot such as racer (not a policy or random)")

    def _check_player_specs(self) -> None:
        """Every player spec names a player the registry can build (the panel's are checked
        with the panel, `RunConfig._check_eval_bots`)."""
        if not isinstance(self.bc_teacher, str):
            raise self._bad("bc_teacher", "use a bot name such as planner, or an empty string")
        for name in ("bots", "bc_teacher", "kickstart_teacher", "prior"):
            specs = getattr(self, name)
            self._check_specs(name, [specs] if isinstance(specs, str) and specs else specs or [])

    def _check_minibatches(self) -> None:
        if self.mode == "single_seat" and (self.n_steps * self.n_envs) % self.batch_size:
            # SB3 only warns; a truncated minibatch wastes samples, so say it clearly
            raise TrainConfigError(
                f"batch_size={self.batch_size} must divide n_steps*n_envs="
                f"{self.n_steps * self.n_envs}"
            )


def read_config_file(path: str | Path) -> dict[str, Any]:
    """The settings of a TOML file (top level or `[train]`), not yet validated."""
    p = Path(path)
    raw = read_data(p, "config file", parse=tomllib.loads, form="TOML", error=TrainConfigError)
    data = raw.get("train", raw)
    if not isinstance(data, dict):
        raise TrainConfigError(f"config file {p}: [train] must be a table of settings")
    return dict(data)


def load_config(path: str | Path | None = None, **overrides: Any) -> TrainConfig:
    """Defaults, then the TOML file (top level or `[train]`), then the given overrides."""
    data: dict[str, Any] = {}
    if path is not None:
        data.update(read_config_file(path))
    data.update({k: v for k, v in overrides.items() if v is not None})
    return TrainConfig.from_dict(data)
