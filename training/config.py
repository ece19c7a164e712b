"""Training configuration: one dataclass, filled from a TOML file and/or flags, validated.

Every field has a default; a TOML file may set any of them at top level or under `[train]`;
command-line flags override the file. Unknown names and out-of-range values raise
`TrainConfigError` naming the field, the value and what is allowed.
"""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

BOTS_DEFAULT = ("random", "greedy", "speculator", "planner", "combiner", "racer")


class TrainConfigError(ValueError):
    """A training setting that is not allowed."""


@dataclass
class TrainConfig:
    # run
    run_dir: str = "runs/train/default"
    total_steps: int = 1_000_000
    seed: int = 0
    # single_seat: sb3-contrib MaskablePPO on SingleSeatEnv (one learner seat per game);
    # all_seat: every seat the current policy plays learns (training.allseat)
    mode: str = "single_seat"
    n_envs: int = 2
    vec_env: str = "subproc"  # subproc | dummy
    n_games: int = 64  # all_seat: games stepped together in the process (batched inference)
    torch_threads: int = 0  # all_seat: torch threads, 0 = one per core
    init_policy: str = ""  # all_seat: start the actor from this .npz policy ("" = fresh)
    critic_warmup: int = 0  # all_seat: first rollouts fit only the critic (policy unchanged)
    # all_seat league: every exploiter_every steps a best response to the current policy is
    # trained for exploiter_steps (training.exploit) and joins the pool when it beats it
    exploiter_every: int = 0  # 0 = no exploiters
    exploiter_steps: int = 100_000
    exploiter_games: int = 200  # games that decide whether an exploiter joins the pool
    exploiter_gate: float = 0.0  # it joins when its win rate exceeds chance + exploiter_gate
    # game mix (one policy for every player count)
    num_players: list[int] = field(default_factory=lambda: [2, 3, 4, 5])
    player_weights: list[float] = field(default_factory=lambda: [1.0, 1.0, 2.0, 1.0])
    reward: str = "zero_sum"  # zero_sum | rank
    shaping: float = 0.0  # potential-based shaping weight (training.selfplay_env); 0 = off
    # PPO (sb3-contrib MaskablePPO)
    learning_rate: float = 3e-4
    n_steps: int = 1024
    batch_size: int = 512
    n_epochs: int = 4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    net_arch: list[int] = field(default_factory=lambda: [128, 128])
    activation: str = "tanh"  # tanh | relu
    # behaviour-cloning warm start (training.bc); "" = off
    bc_teacher: str = ""
    bc_games: int = 400
    bc_epochs: int = 4
    # opponent pool
    p_latest: float = 0.5
    p_bots_min: float = 0.2
    bots: list[str] = field(default_factory=lambda: list(BOTS_DEFAULT))
    pfsp: bool = True
    snapshot_every: int = 50_000
    snapshot_window: int = 10
    milestone_every: int = 250_000
    # evaluation and checkpoints
    eval_every: int = 100_000
    eval_games: int = 40  # per bot of the panel, rounded up to whole seat rotations
    eval_bots: list[str] = field(
        default_factory=lambda: ["greedy", "speculator", "planner", "combiner", "racer"]
    )
    eval_num_players: int | list[int] = 4  # a list evaluates at each count (eval/<n>p/...)
    eval_workers: int = 1
    checkpoint_every: int = 100_000
    progress: bool = True

    def __post_init__(self) -> None:
        self.validate()

    # ------------------------------------------------------------------------------------------
    def validate(self) -> None:
        def bad(name: str, allowed: str) -> TrainConfigError:
            return TrainConfigError(f"{name}={getattr(self, name)!r} is not allowed; {allowed}")

        for name in (
            "total_steps",
            "n_envs",
            "n_steps",
            "batch_size",
            "n_epochs",
            "snapshot_every",
            "snapshot_window",
            "milestone_every",
            "eval_every",
            "eval_games",
            "eval_workers",
            "checkpoint_every",
        ):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise bad(name, "use a positive integer")
        if not isinstance(self.seed, int) or isinstance(self.seed, bool):
            raise bad("seed", "use an integer")
        if self.mode not in ("single_seat", "all_seat"):
            raise bad("mode", "choose single_seat or all_seat")
        if not isinstance(self.n_games, int) or isinstance(self.n_games, bool) or self.n_games < 1:
            raise bad("n_games", "use a positive integer")
        if (
            not isinstance(self.torch_threads, int)
            or isinstance(self.torch_threads, bool)
            or self.torch_threads < 0
        ):
            raise bad("torch_threads", "use 0 (one per core) or a positive integer")
        for name in ("critic_warmup", "exploiter_every"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise bad(name, "use 0 (off) or a positive integer")
        for name in ("exploiter_steps", "exploiter_games"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise bad(name, "use a positive integer")
        g = self.exploiter_gate
        if isinstance(g, bool) or not isinstance(g, (int, float)) or not -1.0 <= g <= 1.0:
            raise bad("exploiter_gate", "use a number from -1 to 1")
        if self.exploiter_every and self.mode != "all_seat":
            raise bad("exploiter_every", "exploiters need mode = all_seat (or set it to 0)")
        if not isinstance(self.init_policy, str):
            raise bad("init_policy", "use the path of a .npz policy, or an empty string")
        if self.vec_env not in ("subproc", "dummy"):
            raise bad("vec_env", "choose subproc or dummy")
        if self.reward not in ("zero_sum", "rank"):
            raise bad("reward", "choose zero_sum or rank")
        if self.activation not in ("tanh", "relu"):
            raise bad("activation", "choose tanh or relu")
        if (
            not self.num_players
            or not isinstance(self.num_players, list)
            or any(p not in (2, 3, 4, 5) for p in self.num_players)
            or len(set(self.num_players)) != len(self.num_players)
        ):
            raise bad("num_players", "use a list of distinct player counts from 2 to 5")
        if (
            len(self.player_weights) != len(self.num_players)
            or any(not isinstance(w, (int, float)) or w < 0 for w in self.player_weights)
            or sum(self.player_weights) <= 0
        ):
            raise bad(
                "player_weights",
                f"use {len(self.num_players)} non-negative numbers "
                f"(one per num_players entry) with a positive sum",
            )
        for name in ("p_latest", "p_bots_min", "gamma", "gae_lambda", "clip_range"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0:
                raise bad(name, "use a number from 0 to 1")
        if self.p_latest + self.p_bots_min > 1.0 + 1e-9:
            raise TrainConfigError(
                f"p_latest + p_bots_min = {self.p_latest + self.p_bots_min} exceeds 1"
            )
        for name in ("learning_rate", "ent_coef", "vf_coef", "shaping"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or v < 0:
                raise bad(name, "use a non-negative number")
        if not self.net_arch or any(not isinstance(h, int) or h < 1 for h in self.net_arch):
            raise bad("net_arch", "use a list of positive layer widths, e.g. [128, 128]")
        enp = self.eval_num_players
        if isinstance(enp, list):
            if (
                not enp
                or len(set(enp)) != len(enp)
                or any(isinstance(k, bool) or k not in (2, 3, 4, 5) for k in enp)
            ):
                raise bad("eval_num_players", "use 2, 3, 4 or 5, or a list of distinct counts")
        elif isinstance(enp, bool) or enp not in (2, 3, 4, 5):
            raise bad("eval_num_players", "choose 2, 3, 4 or 5, or a list such as [2, 3, 4, 5]")
        if not self.bots and self.p_bots_min > 0:
            raise bad("bots", "list at least one bot when p_bots_min > 0")
        from agents.registry import PlayerSpecError, make_agent

        if not isinstance(self.bc_teacher, str):
            raise bad("bc_teacher", "use a bot name such as planner, or an empty string")
        for name in ("bots", "eval_bots", "bc_teacher"):
            specs = getattr(self, name)
            for spec in [specs] if isinstance(specs, str) and specs else specs or []:
                try:
                    make_agent(spec)
                except PlayerSpecError as e:
                    raise TrainConfigError(f"{name}: {e}") from None
        if (
            self.mode == "single_seat"
            and (self.n_steps * self.n_envs) % self.batch_size
            and self.batch_size > 1
        ):
            # SB3 only warns; a truncated minibatch wastes samples, so say it clearly
            raise TrainConfigError(
                f"batch_size={self.batch_size} must divide n_steps*n_envs="
                f"{self.n_steps * self.n_envs}"
            )

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
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        unknown = sorted(set(data) - set(cls.names()))
        if unknown:
            raise TrainConfigError(
                f"unknown training setting(s) {unknown}; allowed: {', '.join(cls.names())}"
            )
        kinds = {f.name: f.type for f in fields(cls)}
        clean = {}
        for k, v in data.items():
            if "list" in str(kinds[k]) and isinstance(v, tuple):
                v = list(v)
            if "float" in str(kinds[k]) and isinstance(v, int) and not isinstance(v, bool):
                v = float(v)
            clean[k] = v
        return cls(**clean)


def load_config(path: str | Path | None = None, **overrides: Any) -> TrainConfig:
    """Defaults, then the TOML file (top level or `[train]`), then the given overrides."""
    data: dict[str, Any] = {}
    if path is not None:
        p = Path(path)
        try:
            raw = tomllib.loads(p.read_text())
        except FileNotFoundError:
            raise TrainConfigError(f"config file {p} does not exist") from None
        except tomllib.TOMLDecodeError as e:
            raise TrainConfigError(f"config file {p} is not valid TOML: {e}") from None
        data.update(raw.get("train", raw))
    data.update({k: v for k, v in overrides.items() if v is not None})
    return TrainConfig.from_dict(data)
